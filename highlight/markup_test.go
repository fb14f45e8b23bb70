package highlight

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// wellFormed reports why an HTML snippet is not well-formed: an end tag
// that does not close the innermost open element, an element left open,
// or a character reference cut short.
func wellFormed(s string) error {
	z := html.NewTokenizer(strings.NewReader(s))
	var stack []string
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if len(stack) > 0 {
				return fmt.Errorf("left open: %v", stack)
			}
			return nil
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElements[string(name)] {
				stack = append(stack, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				return fmt.Errorf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		case html.TextToken:
			raw := string(z.Raw())
			for i := strings.IndexByte(raw, '&'); i >= 0; {
				j := strings.IndexByte(raw[i:], ';')
				if j < 0 || strings.ContainsAny(raw[i:i+j], " <") {
					return fmt.Errorf("a character reference cut short: %q", raw[i:])
				}
				next := strings.IndexByte(raw[i+1:], '&')
				if next < 0 {
					break
				}
				i += 1 + next
			}
		}
	}
}

// randomHTML builds a well-formed document of nested elements, text,
// entities and void elements from rng.
func randomHTML(rng *rand.Rand, depth int) string {
	words := []string{"cat", "dog", "the", "black", "white", "garden", "runs", "fast", "café", "naïve"}
	elems := []string{"p", "i", "b", "em", "span", "div", "a href=\"x?a=1&amp;b=2\"", "li"}
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		switch k := rng.IntN(10); {
		case k < 5 || depth > 4:
			for range 1 + rng.IntN(8) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
		case k == 5:
			b.WriteString([]string{"&amp; ", "&lt;tag&gt; ", "&#233; ", "&nbsp;"}[rng.IntN(4)])
		case k == 6:
			b.WriteString([]string{"<br>", "<img src=\"a.png\" alt=\"cat\">", "<hr/>"}[rng.IntN(3)])
		default:
			e := elems[rng.IntN(len(elems))]
			name, _, _ := strings.Cut(e, " ")
			b.WriteString("<" + e + ">" + randomHTML(rng, depth+1) + "</" + name + ">")
		}
	}
	return b.String()
}

// TestBalanceMarkup: with balance_markup, every snippet of well-formed
// HTML cut under limits parses as well-formed HTML on its own.
func TestBalanceMarkup(t *testing.T) {
	tok := tokenizer(t, "html_strip", "1")
	rng := rand.New(rand.NewPCG(1, 2))
	cut := 0
	for range 500 {
		cut += checkBalanced(t, tok, randomHTML(rng, 0), rng.IntN(120), rng.IntN(4))
	}
	require.Greater(t, cut, 200, "snippets cut inside elements")
	// Without it, retain still refuses limits.
	o := DefaultOptions()
	require.NoError(t, o.Set("html_strip_mode", "retain"))
	require.NoError(t, o.Set("limit", int64(50)))
	require.ErrorContains(t, o.Check(), "or balance_markup=1")
}

// checkBalanced highlights doc's cats and dogs in retain mode with
// balance_markup under limit and around, and checks every snippet.
func checkBalanced(t testing.TB, tok *tokenize.Tokenizer, doc string, limit, around int) (cut int) {
	t.Helper()
	require.NoError(t, wellFormed(doc), "the document itself: %s", doc)
	o := opts(t, "html_strip_mode", "retain", "balance_markup", int64(1),
		"limit", int64(min(max(limit, 0), 300)), "around", int64(min(max(around, 0), 6)))
	f := field(t, tok, doc, "cat", "dog")
	res := Highlight(&Request{Fields: []Field{f}, Weights: []int{3, 3}, Options: o, Stored: true})
	for _, sn := range res.Strings()[0] {
		require.NoError(t, wellFormed(sn), "snippet %q of %q (limit %d, around %d)", sn, doc, limit, around)
	}
	require.NoError(t, wellFormed(res.Join()), "the joined snippets")
	for _, sn := range res.Fields[0].Snippets {
		if sn.Open != "" || sn.Close != "" {
			cut++
		}
	}
	return cut
}

// FuzzBalanceMarkup: documents made from the fuzzer's seed.
func FuzzBalanceMarkup(f *testing.F) {
	f.Add(uint64(1), uint64(2), 40, 2)
	f.Add(uint64(7), uint64(0), 0, 5)
	f.Fuzz(func(t *testing.T, a, b uint64, limit, around int) {
		tok := tokenizer(t, "html_strip", "1")
		rng := rand.New(rand.NewPCG(a, b))
		checkBalanced(t, tok, randomHTML(rng, 0), limit, around)
	})
}

// TestWriteMarkerMacros: the id macros of a marker are cut as the
// reference cuts them (the first %PASSAGE_ID%, then the first
// %SNIPPET_ID% of what comes before it).
func TestWriteMarkerMacros(t *testing.T) {
	for _, tc := range []struct{ marker, want string }{
		{"<b>", "<b>"},
		{"100%", "100%"},
		{"[%SNIPPET_ID%]", "[7]"},
		{"[%PASSAGE_ID%]", "[7]"},
		{"%SNIPPET_ID%%PASSAGE_ID%", "7"},
		{"%PASSAGE_ID%%SNIPPET_ID%", "7%SNIPPET_ID%"},
		{"a%SNIPPET_ID%b%PASSAGE_ID%c", "a7b"},
		{"a%PASSAGE_ID%b%SNIPPET_ID%c", "a7b%SNIPPET_ID%c"},
		{"x%SNIPPET_ID%y%SNIPPET_ID%z", "x7y%SNIPPET_ID%z"},
		{"%snippet_id%", "%snippet_id%"},
	} {
		var b strings.Builder
		writeMarker(&b, tc.marker, 7)
		require.Equal(t, tc.want, b.String(), tc.marker)
	}
}
