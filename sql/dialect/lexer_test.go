package dialect

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

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
		{"versioned comment at most the version is code", "/*!40101 SET x=1 */", []string{
			"comment:/*!40101", "space: ", "word:SET", "space: ", "word:x", "punct:=", "number:1", "space: ", "comment:*/"}},
		{"versioned comment without a version", "/*!SET*/", []string{"comment:/*!", "word:SET", "comment:*/"}},
		{"versioned comment of the announced version", "/*!80036 a*/", []string{"comment:/*!80036", "space: ", "word:a", "comment:*/"}},
		{"versioned comment above the version", "/*!80037 a */b", []string{"comment:/*!80037 a */", "word:b"}},
		{"six-digit version", "/*!999999\\- enable the sandbox mode */", []string{"comment:/*!999999\\- enable the sandbox mode */"}},
		{"literal inside a versioned comment", "/*!50001 '*/' */", []string{"comment:/*!50001", "space: ", "string:'*/'", "space: ", "comment:*/"}},
		{"MariaDB code is a comment", "/*M!100100 SET x=1 */", []string{"comment:/*M!100100 SET x=1 */"}},
		{"TiDB code is a comment", "/*T![clustered_index] a */", []string{"comment:/*T![clustered_index] a */"}},
		{"unterminated versioned comment", "/*!40101 a", []string{"comment:/*!40101 (unterminated)", "space: ", "word:a"}},
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

func TestScanStringValue(t *testing.T) {
	tests := []struct {
		in, value    string
		unterminated bool
	}{
		{`'plain'`, "plain", false},
		{`''`, "", false},
		{`'it''s'`, "it's", false},
		{`"say ""hi"""`, `say "hi"`, false},
		{`'a\'b\"c'`, `a'b"c`, false},
		{`'tab\there\nnew\rret\0nul\Zsub\bback\\slash\%pct\_und\qq'`, "tab\there\nnew\rret\x00nul\x1asub\bback\\slash\\%pct\\_undqq", false},
		{`'\é and ''x'' \\'`, "é and 'x' \\", false},
		{`'a\\'`, `a\`, false},
		{`'abc`, "", true},
		{`'abc\'`, "", true},
		{`'abc\`, "", true},
		{`'abc''`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			toks := lex(tc.in + " x")
			if tc.unterminated {
				toks = lex(tc.in)
			}
			require.Equal(t, tokString, toks[0].kind)
			require.Equal(t, tc.unterminated, toks[0].unterminated)
			require.Equal(t, tc.value, toks[0].value)
			if !tc.unterminated {
				require.Equal(t, len(tc.in), toks[0].end)
				want, ok := decodeLiteral(tc.in)
				require.True(t, ok)
				require.Equal(t, want, toks[0].value)
			}
		})
	}
}

// FuzzScanString checks the values the lexer decodes against decoding each
// literal again on its own.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`'a''b\'c' "d""e\"f"`, `'\n\t\%\_\\' 'x`, `SELECT 'a\`, `'é\é''`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range lex(text) {
			if tok.kind != tokString || tok.unterminated {
				require.Empty(t, tok.value)
				continue
			}
			lit := text[tok.start:tok.end]
			if want, ok := decodeLiteral(lit); ok {
				require.Equal(t, want, tok.value, "literal %q", lit)
			}
		}
	})
}

// decodeLiteral is the oracle of scanString's values: it decodes a whole
// literal lit by the same rules, in a second pass over it; false when lit is
// not valid UTF-8.
func decodeLiteral(lit string) (string, bool) {
	if !utf8.ValidString(lit) || len(lit) < 2 {
		return "", false
	}
	q := lit[0]
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, q) < 0 {
		return body, true
	}
	var b strings.Builder
	b.Grow(len(body))
	at, nextQ, nextB := 0, -1, -1
	for {
		// Copy up to the next quote or backslash, then read it (each is
		// looked for once).
		if nextQ < at {
			nextQ = indexFrom(body, at, q)
		}
		if nextB < at {
			nextB = indexFrom(body, at, '\\')
		}
		i := min(nextQ, nextB)
		if i+1 >= len(body) {
			b.WriteString(body[at:])
			return b.String(), true
		}
		b.WriteString(body[at:i])
		if body[i] == '\\' {
			writeEscaped(&b, body[i+1]) // the lexer's table of escapes; what is tested here is finding them
		} else {
			b.WriteByte(body[i+1]) // the quote a quote doubles
		}
		at = i + 2
	}
}

// BenchmarkSplitSnippets splits (lexes, decoding the literals) a CALL
// SNIPPETS of ten texts of 12 KB of prose as a client sends them: a line
// break escaped as \n every ~200 bytes, a quote doubled now and then.
func BenchmarkSplitSnippets(b *testing.B) {
	line := strings.Repeat("The jury further said in term-end presentments that the City ", 3) + "don''t\\n"
	text := "'" + strings.Repeat(line, 12<<10/len(line)) + "'"
	stmt := "CALL SNIPPETS((" + strings.Repeat(text+",", 9) + text + "), 't', 'jury city', 0 AS limit)"
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		if len(Split(stmt)) != 1 {
			b.Fatal("not one statement")
		}
	}
}
