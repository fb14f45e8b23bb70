package dialect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// show renders tokens as kind:text, one per token, trivia included.
func show(text string, toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = fmt.Sprintf("%s:%s", t.kind, text[t.start:t.end])
		if t.unterminated {
			out[i] += " (unterminated)"
		}
	}
	return out
}

func TestLex(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{}},
		{"words and punctuation", "SELECT a,b", []string{"word:SELECT", "space: ", "word:a", "punct:,", "word:b"}},
		{"single quotes doubled", "'it''s'", []string{"string:'it''s'"}},
		{"backslash escapes quote", `'a\'b' x`, []string{`string:'a\'b'`, "space: ", "word:x"}},
		{"backslash at the end of a string", `'a\\' x`, []string{`string:'a\\'`, "space: ", "word:x"}},
		{"double quotes", `"a""b\"c"`, []string{`string:"a""b\"c"`}},
		{"quote kinds do not end each other", `'a"b' "c'd"`, []string{`string:'a"b'`, "space: ", `string:"c'd"`}},
		{"backquotes doubled", "`a``b`.c", []string{"quoted:`a``b`", "punct:.", "word:c"}},
		{"backslash does not escape in backquotes", "`a\\`b", []string{"quoted:`a\\`", "word:b"}},
		{"dash comment", "a -- c ; d\nb", []string{"word:a", "space: ", "comment:-- c ; d", "space:\n", "word:b"}},
		{"dash comment at the end", "a --", []string{"word:a", "space: ", "comment:--"}},
		{"double minus is not a comment", "1--1", []string{"number:1", "punct:-", "punct:-", "number:1"}},
		{"hash comment", "a#x;y\nb", []string{"word:a", "comment:#x;y", "space:\n", "word:b"}},
		{"block comment", "a/* ; ' */b", []string{"word:a", "comment:/* ; ' */", "word:b"}},
		{"version comment is a comment", "/*!40101 SET x=1 */", []string{"comment:/*!40101 SET x=1 */"}},
		{"numbers", "1 1.5 .5 1e-3 1E+2 0x1F 2e", []string{
			"number:1", "space: ", "number:1.5", "space: ", "number:.5", "space: ", "number:1e-3", "space: ",
			"number:1E+2", "space: ", "number:0x1F", "space: ", "number:2e"}},
		{"qualified name, not a decimal", "t.5 `t`.5", []string{"word:t", "punct:.", "number:5", "space: ", "quoted:`t`", "punct:.", "number:5"}},
		{"placeholder", "a=?", []string{"word:a", "punct:=", "punct:?"}},
		{"braces", "{k=v}", []string{"punct:{", "word:k", "punct:=", "word:v", "punct:}"}},
		{"utf-8 word", "héllo wörld", []string{"word:héllo", "space: ", "word:wörld"}},
		{"no-break space byte is white space", "\xa0a", []string{"space:\xa0", "word:a"}},
		{"no-break space byte inside a word", "a\xa0b", []string{"word:a\xa0b"}},
		{"unterminated string", "'abc", []string{"string:'abc (unterminated)"}},
		{"unterminated by a trailing backslash", `'abc\'`, []string{`string:'abc\' (unterminated)`}},
		{"unterminated quoted identifier", "`abc", []string{"quoted:`abc (unterminated)"}},
		{"unterminated comment", "a /* b", []string{"word:a", "space: ", "comment:/* b (unterminated)"}},
		{"charset introducer", "_utf8'x' N'y'", []string{"word:_utf8", "string:'x'", "space: ", "word:N", "string:'y'"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toks := lex(tc.in)
			require.Equal(t, tc.want, show(tc.in, toks))
			checkCovers(t, tc.in, toks)
		})
	}
}

// checkCovers checks that toks cover text, in order, without gaps.
func checkCovers(t testing.TB, text string, toks []token) {
	t.Helper()
	var b strings.Builder
	at := 0
	for _, tok := range toks {
		require.Equal(t, at, tok.start, "token %v starts after a gap", tok)
		require.Greater(t, tok.end, tok.start, "empty token %v", tok)
		b.WriteString(text[tok.start:tok.end])
		at = tok.end
	}
	require.Equal(t, text, b.String())
}
