package tokenize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFilter(t *testing.T) {
	var f Filter
	for _, term := range []string{"city", "the", "", strings.Repeat("x", 70)} {
		f.Add(term)
	}
	for _, c := range []struct {
		term  string
		maybe bool
	}{
		{"city", true}, {"the", true}, {"thy", true}, {"cat", true}, // same length and first byte
		{"", false}, {"cities", false}, {"a", false}, {"dog", false},
		{strings.Repeat("x", 63), true}, {strings.Repeat("x", 100), true}, // long terms share one length bit
	} {
		require.Equal(t, c.maybe, f.Maybe([]byte(c.term)), "%q", c.term)
	}
	var zero Filter
	require.False(t, zero.Maybe([]byte("a")))
	zero.All()
	require.True(t, zero.Maybe(nil))
	require.True(t, zero.Maybe([]byte("\xff")))
}

// checkCandidates checks NextCandidate against Next and Layout.Add: the
// same layout, the same tokens where the filter passes them, the same Pos
// after the end.
func checkCandidates(t *testing.T, tok *Tokenizer, text string, f *Filter) {
	t.Helper()
	var it Iter
	var want Layout
	var wantToks []Token
	it.Reset(tok, text)
	for it.Next() {
		if it.Blended() {
			want.AddBlend(it.Pos(), it.Start(), it.End())
		} else {
			want.Add(it.Pos(), it.Start(), it.End(), it.Term())
		}
		if f.Maybe(it.Term()) {
			wantToks = append(wantToks, it.Token())
		}
	}
	wantPos := it.Pos()

	var got Layout
	var gotToks []Token
	it.Reset(tok, text)
	for it.NextCandidate(&got, f) {
		gotToks = append(gotToks, it.Token())
	}
	require.Equal(t, want, got, "layout of %q", text)
	require.Equal(t, wantToks, gotToks, "candidates of %q", text)
	require.Equal(t, wantPos, it.Pos(), "Pos after the end of %q", text)
}

func candidateFilters() map[string]*Filter {
	some := new(Filter)
	for _, term := range []string{"the", "quick", "cd", "42", "y", strings.Repeat("x", 64), "citi", "tie", "run", "sky", "\x01ties"} {
		some.Add(term)
	}
	all := new(Filter)
	all.All()
	return map[string]*Filter{"none": new(Filter), "some": some, "all": all}
}

// TestNextCandidate runs NextCandidate over the block path's texts and a
// few more, on the default rules and on settings (the general path).
func TestNextCandidate(t *testing.T) {
	general, err := New(Config{CharsetTable: "non_cjk, cjk"})
	require.NoError(t, err)
	sp, err := New(Config{IndexSP: true, BlendChars: "-", Morphology: []string{"stem_en"}})
	require.NoError(t, err)
	// Stemmed on the lean path: words whose stems the filter must turn
	// away are not stemmed (stem_en, porter), or are (stem_ru, whose
	// stems may start otherwise than their words).
	var stemmed []*Tokenizer
	for _, c := range []Config{
		{Morphology: []string{"stem_en"}},
		{Morphology: []string{"stem_en"}, IndexExactWords: true, Stopwords: []string{"the"}},
		{Morphology: []string{"porter"}},
		{Morphology: []string{"stem_ru", "stem_en"}},
	} {
		tok, err := New(c)
		require.NoError(t, err)
		stemmed = append(stemmed, tok)
	}
	texts := append([]string{"", "The", "the Quick brown fox. THE END",
		strings.Repeat("well-being. The end!\n\n", 10),
		"Yes, the quickly running cities' skies: ties, dying, generously 1990s"}, blockTexts...)
	for _, f := range candidateFilters() {
		for _, text := range texts {
			for _, tok := range append([]*Tokenizer{Default(), general, sp}, stemmed...) {
				checkCandidates(t, tok, text, f)
			}
		}
	}
}
