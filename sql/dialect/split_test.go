package dialect

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Piece
	}{
		{"empty", "", nil},
		{"white space only", " \n\t", nil},
		{"semicolons only", " ; ;; ", nil},
		{"comments only", "-- a\n/* b */ # c", nil},
		{"one statement", "SELECT 1", []Piece{{Text: "SELECT 1", Offset: 0}}},
		{"trailing semicolon", "SELECT 1;", []Piece{{Text: "SELECT 1", Offset: 0}}},
		{"two statements", "SELECT * FROM t WHERE MATCH('a'); SHOW META", []Piece{
			{Text: "SELECT * FROM t WHERE MATCH('a')", Offset: 0}, {Text: "SHOW META", Offset: 34}}},
		{"white space trimmed", "  SELECT 1 ;\n SELECT 2\n", []Piece{{Text: "SELECT 1", Offset: 2}, {Text: "SELECT 2", Offset: 14}}},
		{"empty statements dropped", ";SELECT 1;;  ;SELECT 2;", []Piece{{Text: "SELECT 1", Offset: 1}, {Text: "SELECT 2", Offset: 14}}},
		{"semicolon in strings", `SELECT 'a;b', "c;d" ; SELECT 2`, []Piece{{Text: `SELECT 'a;b', "c;d"`, Offset: 0}, {Text: "SELECT 2", Offset: 22}}},
		{"semicolon in a quoted identifier", "SELECT `a;b` FROM t", []Piece{{Text: "SELECT `a;b` FROM t", Offset: 0}}},
		{"semicolon in comments", "SELECT 1 -- x;y\n; SELECT /* ; */ 2 # ;", []Piece{
			{Text: "SELECT 1 -- x;y", Offset: 0}, {Text: "SELECT /* ; */ 2 # ;", Offset: 18}}},
		{"comments stay with their statement", "/* hint */ SELECT 1", []Piece{{Text: "/* hint */ SELECT 1", Offset: 0}}},
		{"escaped quote", `SELECT 'it\'s;' ; SELECT 2`, []Piece{{Text: `SELECT 'it\'s;'`, Offset: 0}, {Text: "SELECT 2", Offset: 18}}},
		{"unterminated string swallows the rest", "SELECT 'a; SELECT 2", []Piece{{Text: "SELECT 'a; SELECT 2", Offset: 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Split(tc.in)
			require.Equal(t, tc.want, withoutTokens(got))
			checkPieces(t, tc.in, got)
		})
	}
}

// checkPieces checks that the pieces are the text's own bytes, in order, and that
// what lies between them is only white space, comments and ';'.
func checkPieces(t testing.TB, text string, pieces []Piece) {
	t.Helper()
	at := 0
	for _, p := range pieces {
		require.GreaterOrEqual(t, p.Offset, at, "pieces out of order")
		require.Equal(t, p.Text, text[p.Offset:p.Offset+len(p.Text)])
		if p.toks != nil {
			require.Equal(t, lex(p.Text), p.toks, "the piece's tokens")
		}
		requireOnlySeparators(t, text[at:p.Offset])
		at = p.Offset + len(p.Text)
	}
	requireOnlySeparators(t, text[at:])
}

// withoutTokens drops the tokens the pieces keep, for comparing them by
// text and offset.
func withoutTokens(pieces []Piece) []Piece {
	var out []Piece
	for _, p := range pieces {
		out = append(out, Piece{Text: p.Text, Offset: p.Offset})
	}
	return out
}

func requireOnlySeparators(t testing.TB, gap string) {
	t.Helper()
	for _, tok := range lex(gap) {
		require.True(t, tok.trivia() || isPunct(gap, tok, ';'), "%q between pieces", gap)
	}
}
