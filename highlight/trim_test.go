package highlight

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestTrimmedEdgesKeepLimits: when the chosen passages are over the limits
// and lose units at their edges, the limits hold of what is shown.
// Trimming the end of a passage counts, as the reference does, the
// codepoints and words of the units nearest its marked words while cutting
// its last bytes, so a passage whose window had started later could keep a
// word (or a codepoint) more than the limit allowed; trimming then goes on,
// counting what is cut.
func TestTrimmedEdgesKeepLimits(t *testing.T) {
	tok := tokenizer(t)
	const text = "r evil, in the superlative degree of comparison only. There were a king with a large jaw " +
		"and a queen with a plain face, on the throne of England; there were a king with a large j"
	for words := 10; words <= 20; words++ {
		o := DefaultOptions()
		o.LimitWords = words
		res := Highlight(&Request{Fields: []Field{field(t, tok, text, "there")}, Weights: []int{5}, Options: &o})
		n := 0
		for _, sn := range res.Fields[0].Snippets {
			n += countWords(tok, text[sn.Start:sn.End])
		}
		require.LessOrEqual(t, n, words, "limit_words %d: %q", words, res.Join())
		res.Release()
	}
	const prose = "oaves and fishes, that things in general were settled for ever. It was the year of Our Lord one " +
		"thousand seven hundred and seventy-five. Spiritual revelations were conceded to England at that favoured " +
		"period, as at this. Mrs. Southcott had recently attained her five-and-twentieth blessed birthday, of whom a " +
		"prophetic private in the Life Guards had heralded the sublime appearance by announcing that arrangements " +
		"were made for the swallowing up of London and Westminster. Even the Cock-lane ghost had b"
	for limit := 30; limit <= 60; limit++ {
		o := DefaultOptions()
		o.Limit, o.LimitWords, o.Around = limit, 31, 2
		res := Highlight(&Request{Fields: []Field{field(t, tok, prose, "lane", "fishes")}, Weights: []int{4, 6}, Options: &o})
		n := 0
		for _, sn := range res.Fields[0].Snippets {
			n += utf8.RuneCountInString(prose[sn.Start:sn.End])
		}
		require.LessOrEqual(t, n, limit, "limit %d: %q", limit, strings.TrimSpace(res.Join()))
		res.Release()
	}
}

// TestNoPassageFitsShowsBeginning: a text whose marked word is longer than
// the limit (raised only to the keyword's length: "softwares" marked for
// the keyword "software", as stemming or a wildcard marks it) has no
// passage that fits; it shows its beginning, as a text without a match
// does, and nothing with allow_empty.
func TestNoPassageFitsShowsBeginning(t *testing.T) {
	tok := tokenizer(t)
	fl := field(t, tok, "we write free softwares here", "softwares")
	for _, allowEmpty := range []bool{false, true} {
		o := DefaultOptions()
		o.Limit, o.AllowEmpty = 8, allowEmpty
		res := Highlight(&Request{Fields: []Field{fl}, Weights: []int{8}, Options: &o, Stored: true})
		want := "we write ... "
		if allowEmpty {
			want = ""
		}
		require.Equal(t, want, res.Join(), "allow_empty %v", allowEmpty)
		res.Release()
	}
}

// TestKeywordsPast64: a query may have thousands of keywords, while the
// passage chooser keeps them in 64-bit masks. A word marked for a keyword
// past the 64th is a marked word all the same (the bits wrap, as the
// reference's do at 32): its passage is offered and shown, not the text's
// beginning as if nothing matched.
func TestKeywordsPast64(t *testing.T) {
	tok := tokenizer(t)
	var filler []string
	for i := range 60 {
		filler = append(filler, fmt.Sprintf("f%d", i))
	}
	text := strings.Join(filler, " ") + " k130 " + strings.Join(filler, " ")
	var terms []string
	weights := make([]int, 200)
	for i := range 200 {
		terms = append(terms, fmt.Sprintf("k%d", i))
		weights[i] = len(terms[i])
	}
	o := DefaultOptions()
	res := Highlight(&Request{Fields: []Field{field(t, tok, text, terms...)}, Weights: weights, Options: &o})
	require.Contains(t, res.Join(), "<b>k130</b>")
	res.Release()
}
