package htmlstrip

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

func para(at int) Mark             { return Mark{At: at, Kind: Paragraph} }
func open(at int, z string) Mark   { return Mark{At: at, Kind: ZoneOpen, Name: z} }
func closed(at int, z string) Mark { return Mark{At: at, Kind: ZoneClose, Name: z} }

var (
	optRemove = &Options{RemoveElements: []string{"style", "script"}}
	optAttrs  = &Options{IndexAttrs: map[string][]string{"img": {"alt", "title"}, "a": {"title"}, "td": {"title"}}}
	optZones  = &Options{Zones: []string{"h*", "th", "title"}}
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		opts  *Options
		text  string
		marks []Mark
	}{
		{name: "plain", in: "hello world", text: "hello world"},
		{name: "empty", in: "", text: ""},
		{name: "inline tags join words", in: "hel<b>lo</b> <I>wor</I><span class=x>ld</span>", text: "hello world"},
		{name: "Sphinx's inline list", in: "a<a>b<u>c<s>d<em>e<strong>f<font>g<big>h<small>i<sub>j<sup>k<tt>l<strike>m<label>n<img>o<basefont>p", text: "abcdefghijklmnop"},
		{name: "other tags separate", in: "a<abbr>b<code>c<mark>d<br>e<hr>f<x-y>g</x-y>h", text: "a b c d e f g h"},
		{name: "block tags are paragraphs", in: "wor<p>ld</p>", text: "wor ld ", marks: []Mark{para(3)}},
		{name: "no paragraph without text around", in: "<div><p>x</p></div><div></div>", text: "  x    "},
		{name: "paragraphs between texts only", in: "a<p><p>b</p>\n<p>c", text: "a  b \n c", marks: []Mark{para(1), para(4)}},
		{name: "upper case", in: "<P>x</P><B>y</B>", text: " x y", marks: []Mark{para(2)}},
		{name: "comment doctype pi cdata leave no trace", in: "<!DOCTYPE html>a<!-- x -->b<?php echo 1 ?>c<![CDATA[x]]>d", text: "abcd"},
		{name: "entities", in: "x&amp;y &lt;t&gt; caf&eacute; &#65;&#x42;&#X43; &amp &notit; &notin; &fjlig; &bogus; & &#; &#x; &AMP;", text: "x&y <t> café ABC &amp &notit; ∉ &fjlig; &bogus; & ; ; &AMP;"},
		{name: "numeric entities as the reference reads them", in: "&#0;&#128;&#x110000;&#xD800;&#99999999999;&#65 x", text: ";\u0080;\ufffd\U0003e7ff x"},
		{name: "no entity without ';'", in: "a &amp b", text: "a &amp b"},
		{name: "script and style stay text", in: "a<script>if (a<b) x=1&amp;</script>b<style>p{}</style>c", text: "a if (a<b) x=1&amp; b p{} c"},
		{name: "script and style removed", in: "a<script>if (a<b) x=1;</script>b<STYLE>p{}</STYLE>c", opts: optRemove, text: "a b c"},
		{name: "removed unclosed", in: "a<script>x", opts: optRemove, text: "a "},
		{name: "removed inline", in: "x<b>y</b>z", opts: &Options{RemoveElements: []string{"b"}}, text: "xz"},
		{name: "removed nested", in: "c<div>in<div>ner</div>still</div>d", opts: &Options{RemoveElements: []string{"div"}}, text: "c d", marks: []Mark{para(1)}},
		{name: "removed self-closing is empty", in: "a<div/>b", opts: &Options{RemoveElements: []string{"div"}}, text: "a b", marks: []Mark{para(1)}},
		{name: "removed void", in: "a<img alt=x>b<br>c", opts: &Options{RemoveElements: []string{"img", "br"}, IndexAttrs: optAttrs.IndexAttrs}, text: "ab c"},
		{name: "attributes", in: `c<img src=x alt="Alt&amp;text" title=tt>d<a title=&quot;T>e</a>f`, opts: optAttrs, text: `c Alt&amp;text tt d &quot;T ef`},
		{name: "attributes in tag order, first of a name", in: `<img title=T ALT=A alt=B>`, opts: optAttrs, text: " T A "},
		{name: "empty attribute", in: `x<img alt="" title>y`, opts: optAttrs, text: "xy"},
		{name: "attribute values as written", in: `<img alt="&notit; &amp=x &amp &lt;">`, opts: optAttrs, text: " &notit; &amp=x &amp &lt; "},
		{name: "attribute of a block tag", in: `<td title="T">x</td>`, opts: optAttrs, text: " T x "},
		{name: "zones", in: "<h1>Title</h1><p>text", opts: optZones, text: " Title  text", marks: []Mark{open(1, "h1"), closed(6, "h1"), para(6)}},
		{name: "unclosed th", in: "<table><tr><th>A<th>B</table>", opts: optZones, text: "   A B ", marks: []Mark{open(3, "th"), closed(4, "th"), para(4), open(5, "th"), closed(6, "th")}},
		{name: "unclosed zone closes at the end", in: "<h2>abc", opts: optZones, text: " abc", marks: []Mark{open(1, "h2"), closed(4, "h2")}},
		{name: "close without open", in: "a</h1>b", opts: optZones, text: "a b", marks: []Mark{para(1)}},
		{name: "heading closes heading", in: "<h1>a<h2>b</h2>c", opts: optZones, text: " a b c", marks: []Mark{open(1, "h1"), closed(2, "h1"), para(2), open(3, "h2"), closed(4, "h2"), para(4)}},
		{name: "end tag closes what opened inside", in: "<h1>a<b><i>b</h1>c", opts: &Options{Zones: []string{"h1", "i"}}, text: " a b c", marks: []Mark{open(1, "h1"), para(2), open(3, "i"), closed(4, "i"), closed(4, "h1"), para(4)}},
		{name: "end tag does not close across a cell", in: "<h1>a<table><td>b</h1>c</table>", opts: optZones, text: " a  b c ", marks: []Mark{open(1, "h1"), para(2), para(5), closed(8, "h1")}},
		{name: "inline zone separates", in: "x<b>y</b>z", opts: &Options{Zones: []string{"b"}}, text: "x y z", marks: []Mark{para(1), open(2, "b"), closed(3, "b"), para(3)}},
		{name: "void zones", in: "a<hr>b<img alt=x>c", opts: &Options{Zones: []string{"hr", "img"}, IndexAttrs: optAttrs.IndexAttrs}, text: "a b x c", marks: []Mark{para(1), open(2, "hr"), closed(2, "hr"), para(3), open(4, "img"), closed(5, "img")}},
		{name: "self-closing zone is empty", in: "a<div/>b", opts: &Options{Zones: []string{"div"}}, text: "a b", marks: []Mark{para(1), open(2, "div"), closed(2, "div")}},
		{name: "title zone", in: "<title>T &amp; <b>x</b></title>y", opts: optZones, text: " T & <b>x</b> y", marks: []Mark{open(1, "title"), closed(13, "title"), para(13)}},
		{name: "li implied end", in: "<ul><li>a<li>b</ul>", opts: &Options{Zones: []string{"li"}}, text: "  a b ", marks: []Mark{open(2, "li"), closed(3, "li"), para(3), open(4, "li"), closed(5, "li")}},
		{name: "li nested in a list", in: "<li>a<ul><li>b</ul>c</li>", opts: &Options{Zones: []string{"li"}}, text: " a  b c ", marks: []Mark{open(1, "li"), para(2), open(4, "li"), closed(5, "li"), para(5), closed(7, "li")}},
		{name: "p implied end", in: "<p>a<div>b</div>", opts: &Options{Zones: []string{"p"}}, text: " a b ", marks: []Mark{open(1, "p"), closed(2, "p"), para(2)}},
		{name: "custom zone", in: "<chapter>a<p>b</chapter>c", opts: &Options{Zones: []string{"chap*"}}, text: " a b c", marks: []Mark{open(1, "chapter"), para(2), closed(4, "chapter"), para(4)}},
		{name: "unterminated tag dropped", in: "a < b a<b c", text: "a < b a"},
		{name: "odd tags", in: "a</>b<>c</3 d>e", text: "ab<>ce"},
		{name: "cr and nul kept", in: "a\r\nb<b>\x00</b>", text: "a\r\nb\x00"},
		{name: "plaintext", in: "a<plaintext><b>&amp;", text: "a <b>&amp;"},
		{name: "textarea decodes", in: "<textarea>&lt;b&gt;</textarea>", text: " <b> "},
		{name: "noscript holds markup", in: "a<noscript><img src=x alt=y>b</noscript>c<iframe>d <b>e</b></iframe>", text: "a b c d e "},
		{name: "xmp is literal", in: "<xmp><b>&amp;</b></xmp>", text: " <b>&amp;</b> "},
		{name: "self-closing script is empty", in: "a<script/>b<p>c", text: "a b c", marks: []Mark{para(3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Strip(tc.in, tc.opts)
			assert.Equal(t, tc.text, r.Text, "Text")
			assert.Equal(t, tc.marks, r.Marks, "Marks")
			assert.Empty(t, checkResult(tc.in, r))
		})
	}
}

func TestPlainTextIsNotCopied(t *testing.T) {
	in := "plain text, no markup"
	r := Strip(in, optZones)
	require.Equal(t, in, r.Text)
	assert.True(t, r.identity)
	assert.Zero(t, testing.AllocsPerRun(10, func() { r.Orig(3, 9) }))
	assert.LessOrEqual(t, testing.AllocsPerRun(10, func() { Strip(in, nil) }), 2.0)
}

func TestOrig(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		opts       *Options
		start, end int
		want       string // the input the range maps to
		o1, o2     int
	}{
		{name: "identity", in: "hello world", start: 2, end: 5, o1: 2, o2: 5},
		{name: "inside a verbatim run", in: "hel<b>lo</b>", start: 3, end: 5, o1: 6, o2: 8},
		{name: "across an inline tag", in: "hel<b>lo</b>", start: 2, end: 4, o1: 2, o2: 7},
		{name: "whole word", in: "hel<b>lo</b>", start: 0, end: 5, o1: 0, o2: 8},
		{name: "entity", in: "x&amp;y", start: 1, end: 2, o1: 1, o2: 6},
		{name: "entity in a word", in: "x&amp;y", start: 0, end: 3, o1: 0, o2: 7},
		{name: "first byte of a decoded rune", in: "caf&eacute;", start: 3, end: 4, o1: 3, o2: 11},
		{name: "second byte of a decoded rune", in: "caf&eacute;", start: 4, end: 5, o1: 3, o2: 11},
		{name: "separator", in: "a<p>b", start: 1, end: 2, o1: 1, o2: 4},
		{name: "removed element", in: "a<script>x</script>b", opts: optRemove, start: 1, end: 2, o1: 1, o2: 19},
		{name: "attribute value", in: `<img alt="A&amp;B">`, opts: optAttrs, start: 1, end: 8, o1: 10, o2: 17},
		{name: "tag before an attribute value", in: `<img alt="A&amp;B">`, opts: optAttrs, start: 0, end: 1, o1: 0, o2: 10},
		{name: "tag after an attribute value", in: `<img alt="A&amp;B">`, opts: optAttrs, start: 8, end: 9, o1: 17, o2: 19},
		{name: "empty at 0", in: "<b>x</b>", start: 0, end: 0, o1: 0, o2: 0},
		{name: "empty inside", in: "hel<b>lo</b>", start: 3, end: 3, o1: 3, o2: 3},
		{name: "empty at the end", in: "a<p>", start: 2, end: 2, o1: 4, o2: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Strip(tc.in, tc.opts)
			o1, o2 := r.Orig(tc.start, tc.end)
			assert.Equal(t, [2]int{tc.o1, tc.o2}, [2]int{o1, o2}, "Orig(%d, %d) of %q in %q", tc.start, tc.end, r.Text[tc.start:tc.end], tc.in)
		})
	}
}

func TestOrigPanicsOutOfRange(t *testing.T) {
	for _, r := range []*Result{Strip("abc", nil), Strip("a<p>bc", nil)} {
		n := len(r.Text)
		assert.Panics(t, func() { r.Orig(-1, 1) })
		assert.Panics(t, func() { r.Orig(2, 1) })
		assert.Panics(t, func() { r.Orig(0, n+1) })
		assert.NotPanics(t, func() { r.Orig(n, n) })
	}
}

func TestStripperReuse(t *testing.T) {
	s := New(&Options{Zones: []string{"H*"}, RemoveElements: []string{"Script"}, IndexAttrs: map[string][]string{"IMG": {"ALT"}}})
	r := s.Strip(`<h1>a<script>x</script><img alt=b></h1>`)
	assert.Equal(t, " a  b  ", r.Text)
	assert.Equal(t, []Mark{open(1, "h1"), closed(6, "h1")}, r.Marks)
	assert.Equal(t, Strip("<p>x", nil), New(nil).Strip("<p>x"))
}

func TestTagNameAgreesWithXNet(t *testing.T) {
	for _, in := range []string{"<a>", "<A href=x>", "</B >", "<br/>", "</Br/>", "<x-Y:z\tq>", "<h1\n>", "</p\fx>", "<DIV", "<äb>"} {
		z := html.NewTokenizer(strings.NewReader(in))
		if tt := z.Next(); tt != html.StartTagToken && tt != html.EndTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		var st state
		got := string(st.tagName(z.Raw()))
		want, _ := z.TagName()
		assert.Equal(t, string(want), got, "%q", in)
	}
}

func TestDeepZonesAreNotTracked(t *testing.T) {
	const n = maxDepth + 50
	in := strings.Repeat("<div>", n) + "x" + strings.Repeat("</div>", n)
	r := Strip(in, &Options{Zones: []string{"div"}})
	assert.Equal(t, strings.Repeat(" ", n)+"x"+strings.Repeat(" ", n), r.Text)
	var opens, closes int
	for _, m := range r.Marks {
		switch m.Kind {
		case ZoneOpen:
			opens++
		case ZoneClose:
			closes++
		}
	}
	assert.Equal(t, maxDepth, opens)
	assert.Equal(t, maxDepth, closes)
	assert.Empty(t, checkResult(in, r))
}

func TestStripperIsSafeForConcurrentUse(t *testing.T) {
	s := New(fuzzOptions[4])
	in := "<table><tr><th>a<td title=x>b<li>c<img alt=d></table><script>e</script>"
	want := s.Strip(in)
	done := make(chan *Result)
	for range 4 {
		go func() {
			var r *Result
			for range 100 {
				r = s.Strip(in)
			}
			done <- r
		}()
	}
	for range 4 {
		assert.Equal(t, want, <-done)
	}
}

// KeepEntities strips the tags and leaves every character reference as it
// is written (what html_strip_mode=strip shows); a word of the text maps
// back to its bytes in the input.
func TestKeepEntities(t *testing.T) {
	in := `<p>caf&eacute; &lt;b&gt;</p>x&nbsp;y &amp &#65;`
	r := Strip(in, &Options{KeepEntities: true})
	require.Equal(t, " caf&eacute; &lt;b&gt; x&nbsp;y &amp &#65;", r.Text)
	at := strings.Index(r.Text, "x&nbsp;y")
	s, e := r.Orig(at, at+len("x&nbsp;y"))
	require.Equal(t, "x&nbsp;y", in[s:e])
	require.Equal(t, " café <b> x y &amp A", Strip(in, nil).Text, "decoded without it")

	plain := "a &amp; b"
	require.Equal(t, plain, Strip(plain, &Options{KeepEntities: true}).Text)
}

// ZonesNoParagraph: a zone's tags end no paragraph, and a paragraph tag
// they touch (only white space between) ends none either, as the
// reference's snippets read them; a paragraph tag between words still
// does.
func TestZonesNoParagraph(t *testing.T) {
	o := &Options{Zones: []string{"z"}, ZonesNoParagraph: true}
	for _, c := range []struct {
		in    string
		marks []Mark
	}{
		{"a<z>b</z>c", []Mark{open(2, "z"), closed(3, "z")}},
		{"a<p> <z>b</z> <p>c", []Mark{open(4, "z"), closed(5, "z")}},
		{"<z>a<p>b</z>", []Mark{open(1, "z"), para(2), closed(4, "z")}},
	} {
		r := Strip(c.in, o)
		assert.Equal(t, c.marks, r.Marks, "%q: %q", c.in, r.Text)
	}
	// Without it, every one of those tags ends a paragraph.
	r := Strip("a<z>b</z>c", &Options{Zones: []string{"z"}})
	assert.Equal(t, []Mark{para(1), open(2, "z"), closed(3, "z"), para(3)}, r.Marks)
}
