package htmlstrip

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzOptions are the option sets FuzzStrip picks from.
var fuzzOptions = []*Options{
	nil,
	{RemoveElements: []string{"style", "script", "div", "b"}},
	{IndexAttrs: map[string][]string{"img": {"alt", "title"}, "a": {"title", "href"}, "p": {"class"}}},
	{Zones: []string{"h*", "th", "td", "title", "p", "li", "b", "x*"}},
	{
		RemoveElements: []string{"script", "li"},
		IndexAttrs:     map[string][]string{"img": {"alt"}, "td": {"title"}},
		Zones:          []string{"h*", "t*", "img", "a", "em", "p", "div"},
	},
	{Zones: []string{"h*", "th", "td", "p", "b", "x*"}, ZonesNoParagraph: true, UnitTags: true},
	{Zones: []string{"p", "b"}, KeepEntities: true, UnitTags: true},
}

// FuzzStrip checks that Strip does not panic and that its results keep their
// invariants (checkResult) for any input.
func FuzzStrip(f *testing.F) {
	seeds := []string{
		"hel<b>lo</b> wor<p>ld", "x&amp;y &notit; &#x41", "<h1>a<h2>b</h1>c",
		"<table><tr><th>A<th>B<tr><td>1<td>2</table>", "<ul><li>a<li>b<ul><li>c</ul></ul>",
		`<img alt="x&amp;y" title=z>`, "<script>a</script><div>b<div>c</div></div>d",
		"a <b", "<!-- x", "<title>&lt;</title>", "<plaintext><p>", "<p/><div/><img/>",
		"</>", "<a href=x title='t'>link</a>", "<td title=\"&quot;\">",
	}
	files, _ := filepath.Glob("testdata/*.html")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			seeds = append(seeds, string(b))
		}
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, in string, o uint8) {
		r := Strip(in, fuzzOptions[int(o)%len(fuzzOptions)])
		if msg := checkResult(in, r); msg != "" {
			t.Fatal(msg)
		}
	})
}
