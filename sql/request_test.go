package sql

import "testing"

func TestSourceMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"a_b", "a_b", true},
		{"a_b", "axb", false}, // '_' is itself, not LIKE's one character
		{"a%", "ab", false},   // '%' too
		{"a%", "a%", true},
		{"T*", "title", true},
		{"*", "anything", true},
		{"", "", true},
		{"", "x", false},
		{"*_id", "author_id", true},
		{"*_id", "authorid", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXcYb", false},
		{"a/b", "a/b", true},
		{"*", "a/b", true},
	} {
		if got := sourceMatch(c.pattern, c.name); got != c.want {
			t.Errorf("sourceMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}
