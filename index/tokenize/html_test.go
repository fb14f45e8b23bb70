package tokenize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeHTML is a test stand-in for package htmlstrip, enough to test how the
// tokenizer uses marks and Orig: it drops <...> tags; p, div, br, li and
// h1..h6 give a line break and a paragraph mark; tags named in zones give
// zone marks.
type fakeHTML struct{ zones []string }

type fakeMark struct {
	at   int
	kind markKind
	name string
}

type fakeDoc struct {
	txt   string
	marks []fakeMark
	origs []int // input offset of each byte of text, then len(input)
}

func (h fakeHTML) strip(in string) strippedDoc {
	d := &fakeDoc{}
	var text []byte
	for i := 0; i < len(in); {
		if in[i] != '<' {
			text = append(text, in[i])
			d.origs = append(d.origs, i)
			i++
			continue
		}
		end := len(in) // an unclosed tag runs to the end
		if j := strings.IndexByte(in[i:], '>'); j >= 0 {
			end = i + j
		}
		tag := strings.ToLower(in[i+1 : end])
		closing := strings.HasPrefix(tag, "/")
		name := strings.TrimPrefix(tag, "/")
		switch name {
		case "p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6":
			d.marks = append(d.marks, fakeMark{len(text), markParagraph, ""})
			text = append(text, '\n')
			d.origs = append(d.origs, i)
		}
		for _, z := range h.zones {
			if z == name {
				kind := markZoneOpen
				if closing {
					kind = markZoneClose
				}
				d.marks = append(d.marks, fakeMark{len(text), kind, name})
			}
		}
		i = end + 1
	}
	d.origs = append(d.origs, len(in))
	d.txt = string(text)
	return d
}

func (d *fakeDoc) text() string  { return d.txt }
func (d *fakeDoc) numMarks() int { return len(d.marks) }
func (d *fakeDoc) mark(i int) (int, markKind, string) {
	m := d.marks[i]
	return m.at, m.kind, m.name
}
func (d *fakeDoc) orig(start, end int) (int, int) {
	if start == end {
		return d.origs[start], d.origs[start]
	}
	return d.origs[start], d.origs[end-1] + 1
}

// htmlTok is the tokenizer of settings with the fake HTML stripper.
func htmlTok(t *testing.T, zones []string, kv ...string) *Tokenizer {
	tok := newTok(t, kv...)
	r := &rules{tab: newTok(t, "charset_table=non_cjk, cjk").r.tab}
	if tok.r != nil {
		c := *tok.r
		r = &c
	}
	r.html, r.simple = fakeHTML{zones}, false
	return &Tokenizer{config: tok.config, r: r}
}

func TestHTML(t *testing.T) {
	s, p := SentenceTerm, ParagraphTerm
	h1, h1c, b, bc := ZoneOpenTerm("h1"), ZoneCloseTerm("h1"), ZoneOpenTerm("b"), ZoneCloseTerm("b")
	tok := htmlTok(t, []string{"h1", "b"}, "index_sp=1")
	runTokenCases(t, tok, []tokenCase{
		{"paragraphs, sentences and zones", "<p>Hello world. This is it</p><h1>Big <b>title</b></h1> end", []Token{
			tk("hello", 1, 3, 8), tk("world", 2, 9, 14), tk(s, 3, 16, 16), tk("this", 3, 16, 20),
			tk("is", 4, 21, 23), tk("it", 5, 24, 26),
			tk(p, 6, 34, 34), tk(s, 6, 34, 34), tk(h1, 6, 34, 34), tk("big", 6, 34, 37),
			tk(b, 7, 41, 41), tk("title", 7, 41, 46), tk(bc, 7, 46, 46), tk(h1c, 7, 46, 46),
			tk(p, 8, 56, 56), tk(s, 8, 56, 56), tk("end", 8, 56, 59)}},
		{"a mark inside a word counts as outside", "x he<b>ll</b>o y", []Token{
			tk("x", 1, 0, 1), tk(b, 2, 2, 2), tk("hello", 2, 2, 14), tk(bc, 2, 14, 14), tk("y", 3, 15, 16)}},
		{"an element without words", "x <b></b> y <b> </b>", []Token{
			tk("x", 1, 0, 1), tk(bc, 1, 1, 1), tk(b, 2, 10, 10), tk("y", 2, 10, 11),
			tk(bc, 2, 11, 11), tk(b, 3, 20, 20)}},
		{"no paragraph before the first word", "<p><h1>Title</h1>", []Token{
			tk(h1, 1, 7, 7), tk("title", 1, 7, 12), tk(h1c, 1, 12, 12)}},
		{"blank lines are no paragraphs in HTML", "one\n\ntwo", []Token{tk("one", 1, 0, 3), tk("two", 2, 5, 8)}},
	})
	t.Run("without index_sp no paragraphs", func(t *testing.T) {
		tok := htmlTok(t, nil)
		require.Equal(t, []Token{tk("a", 1, 3, 4), tk("b", 2, 11, 12)}, tok.Append(nil, "<p>a</p><p>b</p>"))
	})
	t.Run("wordforms do not span marks", func(t *testing.T) {
		tok := htmlTok(t, []string{"b"}, "wordforms=/forms.txt")
		require.Equal(t, []Token{tk("gonna", 1, 0, 8)}, tok.Append(nil, "going to"))
		require.Equal(t, []Token{tk("going", 1, 0, 5), tk(b, 2, 9, 9), tk("to", 2, 9, 11), tk(bc, 2, 11, 11)},
			tok.Append(nil, "going <b>to</b>"))
	})
}

func FuzzHTML(f *testing.F) {
	for _, s := range []string{"<p>Hello world. This</p><h1>Big <b>title</b></h1> end", "he<b>ll</b>o", "<b></b>", "a<br>b<h1", "<p>Mr. X. Yes"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, blend bool) {
		kv := []string{"index_sp=1", "wordforms=/forms.txt", "phrase_boundary=.", "phrase_boundary_step=3"}
		if blend {
			kv = append(kv, "blend_chars=-, +", "ngram_len=1", "ngram_chars=cjk")
		}
		tok := htmlTok(t, []string{"b", "h1"}, kv...)
		toks := tok.Append(nil, text)
		checkInvariants(t, text, toks)
	})
}

func TestQueryTokenizer(t *testing.T) {
	tok := newTok(t, "html_strip=1", "index_sp=1", "morphology=stem_en", "index_exact_words=1")
	q := tok.Query()
	require.NotSame(t, tok, q)
	require.Equal(t, tok.Config(), q.Config())
	text := "a<<b. Running &amp; x"
	require.Equal(t, []Token{
		tk("a", 1, 0, 1), tk(exactTerm("a"), 1, 0, 1), tk("b", 2, 3, 4), tk(exactTerm("b"), 2, 3, 4),
		tk("run", 3, 6, 13), tk(exactTerm("running"), 3, 6, 13), tk("amp", 4, 15, 18), tk(exactTerm("amp"), 4, 15, 18),
		tk("x", 5, 20, 21), tk(exactTerm("x"), 5, 20, 21),
	}, q.Append(nil, text))
	require.Equal(t, exactTerm("amp"), tok.Exact("&amp;"), "Exact tokenizes as a query")
	def := Default()
	require.Same(t, def, def.Query())
	plain := newTok(t, "morphology=stem_en")
	require.Same(t, plain, plain.Query())
}
