package htmlstrip

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/net/html"
)

// decode decodes every character reference in s with entityAt.
func decode(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '&' {
			if dec, n := entityAt(s[i:], attr); n > 0 {
				b.WriteString(dec)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// attrValue is the value x/net's Tokenizer reads for the attribute value v.
func attrValue(v string) string {
	z := html.NewTokenizer(strings.NewReader(`<a x="` + v + `">`))
	z.Next()
	_, val, _ := z.TagAttr()
	return string(val)
}

var entitySeeds = []string{
	"&amp;", "&amp", "&ampx", "&amp=", "&AMP;", "&notit;", "&notin;", "&not", "&noti",
	"&fjlig;", "&fjlig", "&semi;", "&nGt;", "&NotEqualTilde;", "&bne;", "&eacute",
	"&eacutex", "&#65", "&#65;", "&#x41", "&#X41;", "&#", "&#x", "&#;", "&#xg",
	"&#0;", "&#128;", "&#x9F;", "&#xD800;", "&#1114112;", "&#99999999999999999;",
	"&", "&&amp;", "&;", "&a", "&copy2024", "&copy=", "&lt&gt", "&quot=x",
	"a&b c&amp;d", "&nbsp;&nbsp", "&thetasym;", "&ThisIsNotAnEntityAtAll;",
}

func TestEntityAt(t *testing.T) {
	tests := []struct {
		in   string
		attr bool
		dec  string
		n    int
	}{
		{"&amp;x", false, "&", 5},
		{"&ampx", false, "&", 4},
		{"&ampx", true, "", 0},
		{"&amp=", true, "", 0},
		{"&amp=", false, "&", 4},
		{"&amp;=", true, "&", 5},
		{"&amp ", true, "&", 4},
		{"&notit;", false, "¬", 4},
		{"&notit;", true, "", 0},
		{"&notin;", false, "∉", 7},
		{"&fjlig;", false, "fj", 7},
		{"&semi;", false, ";", 6},
		{"&nGt;", false, "≫\u20d2", 5},
		{"&#65x", false, "A", 4},
		{"&#x41;", false, "A", 6},
		{"&#x;", false, "", 0},
		{"&bogus;", false, "", 0},
		{"& ", false, "", 0},
		{"&", false, "", 0},
	}
	for _, tc := range tests {
		dec, n := entityAt(tc.in, tc.attr)
		assert.Equal(t, tc.dec, dec, "%q attr=%v", tc.in, tc.attr)
		assert.Equal(t, tc.n, n, "%q attr=%v", tc.in, tc.attr)
	}
}

func TestEntitiesAgreeWithXNet(t *testing.T) {
	for _, s := range entitySeeds {
		assert.Equal(t, html.UnescapeString(s), decode(s, false), "text %q", s)
		assert.Equal(t, attrValue(s), decode(s, true), "attribute %q", s)
	}
}

// FuzzEntities checks that entityAt decodes text and attribute values exactly
// as golang.org/x/net/html does.
func FuzzEntities(f *testing.F) {
	for _, s := range entitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want := html.UnescapeString(s); decode(s, false) != want {
			t.Fatalf("text %q: got %q, want %q", s, decode(s, false), want)
		}
		if strings.ContainsAny(s, "\"\r\x00") {
			return // they end the value, or the Tokenizer rewrites them
		}
		if want := attrValue(s); decode(s, true) != want {
			t.Fatalf("attribute %q: got %q, want %q", s, decode(s, true), want)
		}
	})
}
