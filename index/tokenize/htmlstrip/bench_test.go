package htmlstrip

import (
	"os"
	"strings"
	"testing"
)

var benchOpts = &Options{
	RemoveElements: []string{"style", "script"},
	IndexAttrs:     map[string][]string{"img": {"alt", "title"}, "a": {"title"}},
	Zones:          []string{"h*", "th", "title"},
}

// plainText is prose without markup, the common case of a text field.
var plainText = strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 64)

func BenchmarkStripPlain(b *testing.B) {
	s := New(benchOpts)
	b.SetBytes(int64(len(plainText)))
	b.ReportAllocs()
	for b.Loop() {
		s.Strip(plainText)
	}
}

func benchPage(b *testing.B, opts *Options) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	in := string(page)
	s := New(opts)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		s.Strip(in)
	}
}

// BenchmarkStripHTML strips a typical article page (testdata/article.html)
// with html_remove_elements, html_index_attrs and index_zones set.
func BenchmarkStripHTML(b *testing.B) { benchPage(b, benchOpts) }

// BenchmarkStripHTMLNoOptions is the same page with html_strip alone.
func BenchmarkStripHTMLNoOptions(b *testing.B) { benchPage(b, nil) }

// BenchmarkOrig maps every word-sized range of the stripped page back.
func BenchmarkOrig(b *testing.B) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	r := Strip(string(page), benchOpts)
	b.ReportAllocs()
	for b.Loop() {
		for x := 0; x+6 <= len(r.Text); x += 6 {
			r.Orig(x, x+6)
		}
	}
}
