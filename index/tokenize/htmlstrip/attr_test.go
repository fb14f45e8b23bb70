package htmlstrip

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/net/html"
)

var attrSeeds = []string{
	`<img src=x alt="a b" title='c'>`,
	`<a href=x/>`, `<a b/c>`, `<a =b=c>`, `<a b = "c" d= e f =g>`, `<a b=>`, `<a b= >`,
	`<a "x"=y>`, `<a b=c/>`, `<a b="c/">`, `<a b c>`, `<a/b/c>`, `<a b="x>y">`,
	`<a b=&amp;c B=d>`, "<a\tb\n=\fc>", `<a b='`, `<a b="c`, `<a b=c`, `<a//>`,
}

// xnetAttrs returns the attributes x/net's Tokenizer reads from the start tag
// t, as name=value lines, and whether t is a start tag at all.
func xnetAttrs(t string) (string, bool) {
	z := html.NewTokenizer(strings.NewReader(t))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return "", false
	}
	var b strings.Builder
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if k != nil {
			b.WriteString(string(k) + "=" + string(v) + "\n")
		}
	}
	return b.String(), true
}

// ourAttrs is the same from scanAttrs, for the raw tag t, each value read
// by x/net as an attribute value (glint keeps a value as written, as the
// reference does: this checks the spans).
func ourAttrs(t string) string {
	var b strings.Builder
	seen := map[string]bool{}
	scanAttrs(t, func(a attrSpan) {
		k := lowerASCII(t[a.k0:a.k1])
		if seen[k] {
			return
		}
		seen[k] = true
		b.WriteString(k + "=" + xnetValue(t[a.v0:a.v1]) + "\n")
	})
	return b.String()
}

func TestScanAttrsAgreesWithXNet(t *testing.T) {
	for _, s := range attrSeeds {
		want, ok := xnetAttrs(s)
		if !ok {
			continue
		}
		z := html.NewTokenizer(strings.NewReader(s))
		z.Next()
		assert.Equal(t, want, ourAttrs(string(z.Raw())), "%q", s)
	}
}

// FuzzAttrs checks that scanAttrs finds the attributes x/net's Tokenizer finds.
func FuzzAttrs(f *testing.F) {
	for _, s := range attrSeeds {
		f.Add(s[2:])
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\r\x00") {
			return // the Tokenizer rewrites them in names and values
		}
		in := "<a " + s
		want, ok := xnetAttrs(in)
		if !ok {
			return
		}
		z := html.NewTokenizer(strings.NewReader(in))
		z.Next()
		raw := string(z.Raw())
		var st state
		if got := string(st.tagName([]byte(raw))); got != "a" {
			t.Fatalf("%q: tag name %q", raw, got)
		}
		if got := ourAttrs(raw); got != want {
			t.Fatalf("%q: got\n%s\nwant\n%s", raw, got, want)
		}
	})
}

// xnetValue is what x/net's Tokenizer reads for the attribute value v, as
// written between the quotes it does not hold (v with both kinds of quote
// comes back as it is).
func xnetValue(v string) string {
	q := `"`
	if strings.Contains(v, q) {
		q = "'"
	}
	if strings.Contains(v, q) {
		return v
	}
	z := html.NewTokenizer(strings.NewReader("<a x=" + q + v + q + ">"))
	z.Next()
	_, val, _ := z.TagAttr()
	return string(val)
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
