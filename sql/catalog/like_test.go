package catalog

import (
	"regexp"
	"strings"
	"testing"
)

func TestLike(t *testing.T) {
	tests := []struct {
		s, p string
		want bool
	}{
		{"books", "books", true},
		{"BOOKS", "books", true},
		{"books", "b%", true},
		{"books", "%s", true},
		{"books", "%o%", true},
		{"books", "b_oks", true},
		{"books", "b_ks", false},
		{"", "%", true},
		{"", "_", false},
		{"a%b", `a\%b`, true},
		{"axb", `a\%b`, false},
		{"a_b", `a\_b`, true},
		{"aab", `a\_b`, false},
		{"ab", `ab\`, false}, // a trailing escape stands for itself
		{`ab\`, `ab\`, true},
		{"mississippi", "%iss%ppi", true},
		{"mississippi", "%iss%ppx", false},
		{"héllo", "h_llo", true},
	}
	for _, tc := range tests {
		if got := like(tc.s, tc.p, '\\'); got != tc.want {
			t.Errorf("like(%q, %q) = %v, want %v", tc.s, tc.p, got, tc.want)
		}
	}
}

// likeRegexp is LIKE by way of a regular expression, for FuzzLike.
func likeRegexp(s, p string) bool {
	var b strings.Builder
	b.WriteString("(?is)^")
	r := []rune(p)
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '\\' && i+1 < len(r):
			i++
			b.WriteString(regexp.QuoteMeta(string(r[i])))
		case r[i] == '%':
			b.WriteString(".*")
		case r[i] == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r[i])))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String()).MatchString(s)
}

// FuzzLike checks the LIKE matcher against a regular expression of the
// pattern, on valid UTF-8 (the case folding of both is Unicode's simple
// one, on which they agree for these texts).
func FuzzLike(f *testing.F) {
	for _, seed := range [][2]string{{"books", "b%"}, {"a%b", `a\%b`}, {"mississippi", "%iss%ppi"}, {"x", "%%_%"}, {"", `\`}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, s, p string) {
		if !utf8Valid(s) || !utf8Valid(p) || len(s) > 64 || len(p) > 64 {
			return
		}
		if !foldsBack(s) || !foldsBack(p) {
			return // letters whose case does not round-trip: the two foldings differ
		}
		if got, want := like(s, p, '\\'), likeRegexp(s, p); got != want {
			t.Fatalf("like(%q, %q) = %v, the regular expression says %v", s, p, got, want)
		}
	})
}

func utf8Valid(s string) bool {
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, '\uFFFD')
}

// foldsBack reports whether s in lower case is s in upper case then lower.
func foldsBack(s string) bool {
	lower, upper := strings.ToLower(s), strings.ToUpper(s)
	return lower == strings.ToLower(upper)
}
