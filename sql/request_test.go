package sql

import (
	"testing"

	"github.com/glint-search/glint/index"
)

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

// TestSourceEmptyName: in a _source list the empty name is no typo: it
// matches no column ("_source": [""] asks for hits without their columns,
// as the reference's users write it), while another name that is no column
// is an error.
func TestSourceEmptyName(t *testing.T) {
	schema := &index.Schema{Name: "t", Columns: []index.Column{{Name: "title", Type: index.TypeText}}}
	f := SourceFilter{Path: "_source", Includes: []string{""}}
	if err := f.check(schema); err != nil {
		t.Fatalf("check: %v", err)
	}
	if f.keeps("title") || f.keeps("id") {
		t.Fatal("[\"\"] keeps a column")
	}
	if err := (SourceFilter{Path: "_source", Includes: []string{"titel"}}).check(schema); err == nil {
		t.Fatal("a name that is no column is accepted")
	}
}
