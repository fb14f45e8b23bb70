package tokenize

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// fuzzSettings are the settings FuzzIter picks from, one bit of its
// selector each. Some combinations are invalid; those are skipped.
var fuzzSettings = [][]string{
	{"charset_table=english, russian, U+2D->_, U+27"},
	{"charset_table=non_cjk"},
	{"ignore_chars=U+AD, U+301"},
	{"blend_chars=-, +, &, U+2019->'"},
	{"blend_mode=trim_head, trim_tail, skip_pure"},
	{"blend_mode=trim_both"},
	{"min_word_len=2"},
	{"stopwords=the a of и"},
	{"morphology=stem_en, stem_ru"},
	{"morphology=stem_de, stem_fr, stem_tr"},
	{"index_exact_words=1"},
	{"wordforms=/forms.txt"},
	{"exceptions=/exc.txt"},
	{"phrase_boundary=., ?, !", "phrase_boundary_step=7"},
	{"ngram_len=1", "ngram_chars=cjk"},
	{"index_sp=1"},
	{"charset_table=a..z, A..Z->a..z, 0..9, ."},
	{"html_strip=1", "index_zones=b, h*", "html_index_attrs=img=alt", "html_remove_elements=script"},
}

var fuzzToks sync.Map // selector -> *Tokenizer (nil if the settings are invalid)

func fuzzTokenizer(sel uint32) *Tokenizer {
	sel &= 1<<len(fuzzSettings) - 1
	if v, ok := fuzzToks.Load(sel); ok {
		return v.(*Tokenizer)
	}
	var kv []string
	for i, s := range fuzzSettings {
		if sel&(1<<i) != 0 {
			kv = append(kv, s...)
		}
	}
	var tok *Tokenizer
	if c, err := ParseSettings(settings(kv...), readTestFile); err == nil {
		if tok, err = New(c); err != nil {
			panic(err) // ParseSettings accepted what New refuses
		}
	}
	fuzzToks.Store(sel, tok)
	return tok
}

// FuzzIter runs Iter over random text with random settings and checks the
// contract: no panic, positions non-decreasing, offsets inside the text on
// character boundaries, well-formed terms, Pos after the end, and the same
// tokens from a reused Iter.
func FuzzIter(f *testing.F) {
	for _, s := range []string{
		"", "Hello World", "The well-being of C++ and AT&T. Next one? yes!\n\nPara", "Привет мир и кошки",
		"東京タワー。大阪", "a\xffb", "e\u0301 \u0301x", "going to the USA; new york city", "--- + & -x- c++",
		"Mr. Smith. A. B", "ms  windows .net", strings.Repeat("x", 300) + "-y",
		"<p>Hello <b>world</b>. This</p><h1>Big <i>title</i></h1> caf&eacute; <img alt='A pic'><script>x</script>",
	} {
		f.Add(s, uint32(0))
		f.Add(s, uint32(0x1ffff))
		f.Add(s, uint32(0x2a5a5))
		f.Add(s, uint32(0x3ffff))
	}
	var reused Iter
	f.Fuzz(func(t *testing.T, text string, sel uint32) {
		tok := fuzzTokenizer(sel)
		if tok == nil {
			return
		}
		var it Iter
		it.Reset(tok, text)
		var toks []Token
		lastWord := 0
		for it.Next() {
			term := it.Term()
			if IsReserved(string(term)) {
				switch {
				case term[0] == exactMark:
					require.True(t, utf8.Valid(term[1:]) && len(term) > 1, "exact term %q", term)
				case string(term) == SentenceTerm || string(term) == ParagraphTerm:
				default:
					require.True(t, term[0] == zoneOpenMark || term[0] == zoneCloseMark, "reserved term %q", term)
				}
			} else {
				require.True(t, utf8.Valid(term), "term %q", term)
				require.LessOrEqual(t, len(term), MaxTermLen)
				lastWord = it.Pos()
			}
			toks = append(toks, it.Token())
		}
		require.Equal(t, lastWord, it.Pos(), "Pos after the end")
		checkInvariants(t, text, toks)

		if tok.r != nil && tok.r.simple { // the general path gives the same tokens
			r := *tok.r
			r.simple = false
			require.Equal(t, toks, (&Tokenizer{config: tok.config, r: &r}).Append(nil, text))
		}

		reused.Reset(tok, text)
		i := 0
		for reused.Next() {
			require.Less(t, i, len(toks))
			require.Equal(t, toks[i], reused.Token())
			i++
		}
		require.Equal(t, len(toks), i)

		for _, w := range strings.Fields(text) {
			tok.Exact(w)
			_ = tok.Fold(w)
		}
	})
}

// FuzzGeneralPath checks that the general path, with settings that change
// nothing, gives what the fast path gives.
func FuzzGeneralPath(f *testing.F) {
	for _, s := range []string{"", "Hello, Wörld 42!", "e\u0301t\u00e9 \u0301ab", "東京 タワー", "a\xffb\xc3", "\U0001D400\U0001F600x", strings.Repeat("Ab", 100),
		// Longer than a block of the fast path (64 bytes and 8 after it):
		// words across block ends, upper case, non-ASCII inside, at and
		// just after a block's end.
		strings.Repeat("The Quick brown FOX, 42 jumps. ", 9), strings.Repeat("x", 63) + " " + strings.Repeat("Y", 70),
		strings.Repeat("ab ", 21) + "é" + strings.Repeat(" CD", 30), strings.Repeat("word ", 13) + "\xff" + strings.Repeat("Ö", 40)} {
		f.Add(s)
	}
	general, err := New(Config{CharsetTable: "non_cjk, cjk"})
	require.NoError(f, err)
	require.NotNil(f, general.r)
	f.Fuzz(func(t *testing.T, text string) {
		require.Equal(t, Default().Append(nil, text), general.Append(nil, text))
	})
}

// FuzzNextCandidate checks NextCandidate against Next and Layout.Add on
// random text, random settings and a filter of random terms.
func FuzzNextCandidate(f *testing.F) {
	for _, s := range []string{"", "The Quick brown FOX", strings.Repeat("The Quick brown FOX, 42 jumps. ", 9),
		strings.Repeat("x", 63) + " " + strings.Repeat("Y", 70), strings.Repeat("ab ", 21) + "é" + strings.Repeat(" CD", 30)} {
		f.Add(s, uint32(0), "the quick")
		f.Add(s, uint32(0x2a5a5), "x yy 42")
	}
	f.Fuzz(func(t *testing.T, text string, sel uint32, terms string) {
		tok := fuzzTokenizer(sel)
		if tok == nil {
			return
		}
		var filter Filter
		for _, term := range strings.Fields(terms) {
			filter.Add(term)
		}
		if terms == "*" {
			filter.All()
		}
		checkCandidates(t, tok, text, &filter)
	})
}
