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
	for _, term := range []string{"the", "quick", "cd", "42", "y", strings.Repeat("x", 64)} {
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
	texts := append([]string{"", "The", "the Quick brown fox. THE END",
		strings.Repeat("well-being. The end!\n\n", 10)}, blockTexts...)
	for _, f := range candidateFilters() {
		for _, text := range texts {
			for _, tok := range []*Tokenizer{Default(), general, sp} {
				checkCandidates(t, tok, text, f)
			}
		}
	}
}
