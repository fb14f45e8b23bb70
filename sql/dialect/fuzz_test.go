package dialect

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/stretchr/testify/require"
)

// seeds are the statements of the table and golden tests.
func seeds(t testing.TB) []string {
	out := []string{
		"", ";", "SELECT 1; SELECT 2", "SELECT '?', ?, `?` -- ?", "SELECT ?'x'?", "CALL f(1 AS a, {b=2} AS c)",
		"SELECT HIGHLIGHT({a={b=1}}) FROM t OPTION x=(a=(1))", "CREATE TABLE t (a text indexed stored indexed)",
		"SHOW META LIKE 'x' extra", "SELECT 'a\\", "SELECT `a", "/* x", "SELECT 1 -- x\n; SELECT 2",
		"/*!40101 SET x=1 */;/*!99999 y */", "/*!50001 '*/' */", "/*M!100100 a */", "/*!40000 a", "/*T![f] b */",
		"SELECT * FROM t WHERE MATCH('a') OPTION ranker=none FACET a, b BY c ORDER BY FACET() DESC LIMIT 1, 2 FACET (d+1) FACET e",
		"SELECT facet FROM t FACET", "SELECT a FROM t FACET x DISTINCT y", "SELECT a FROM t FACET 'x' BY", "SELECT a FROM t FACET a ORDER BY COUNT(*) LIMIT",
		"SELECT a, COUNT(*) FROM t GROUP BY a WITHIN GROUP ORDER BY b DESC, 'x' HAVING COUNT(*) > 1 ORDER BY a LIMIT 2", "SELECT a FROM t WITHIN GROUP",
		"JOIN CLUSTER c AT '127.0.0.1:9306' 'p' AS path", "CREATE CLUSTER c 'a:1;b:2' AS nodes", "INSERT INTO c:t (id) VALUES (1)",
	}
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	for _, f := range files {
		for _, c := range golden.Cases(t, f) {
			out = append(out, c.Input)
		}
	}
	return out
}

func addSeeds(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
}

// FuzzParse checks that Parse never panics, that a SyntaxError points inside the
// text, and that every string literal reaches TiDB byte for byte, still a literal.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	p := parser.New()
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Parse(p, text)
		var se *SyntaxError
		if err != nil {
			require.True(t, errors.As(err, &se), "%T: %v", err, err)
			if se.Line > 0 {
				off := offsetOf(text, se.Line, se.Column)
				require.True(t, off >= 0 && off <= len(text), "%v: outside the text", se)
				// (Bytes that are not UTF-8 show as U+FFFD.)
				require.True(t, strings.HasPrefix(strings.ToValidUTF8(text[off:], "\uFFFD"), se.Near), "%v: near is not the text at the position", se)
			}
		}
		rw, err := rewrite(text, lex(text), -1)
		if err != nil {
			return
		}
		if c := rw.cluster; c != nil {
			require.NotEmpty(t, c.Name)
			require.NotContains(t, c.Action.String(), "cluster action", "an action without a name")
			for _, n := range append(c.Nodes, c.At) {
				require.True(t, n == c.At && n == "" || checkAddress(n) == "", "address %q", n)
			}
			return
		}
		outs := []*output{rw.main}
		if rw.tail != nil {
			outs = append(outs, rw.tail.sql)
		}
		outs = append(outs, rw.facets...)
		if rw.within != nil {
			outs = append(outs, rw.within)
		}
		for _, tok := range lex(text) {
			if tok.kind == tokString {
				requireLiteralKept(t, text, tok, outs)
			}
		}
	})
}

// requireLiteralKept checks that the string literal tok of src was copied into
// one of outs and is a string literal there too.
func requireLiteralKept(t *testing.T, src string, tok token, outs []*output) {
	for _, o := range outs {
		for _, s := range o.segs {
			if !s.copied || tok.start < s.origin || tok.end > s.origin+s.n {
				continue
			}
			from := s.out + tok.start - s.origin
			to := from + tok.end - tok.start
			require.Equal(t, src[tok.start:tok.end], o.text[from:to])
			for _, ot := range lex(o.text) {
				if ot.start == from {
					require.Equal(t, token{kind: tokString, start: from, end: to}, token{kind: ot.kind, start: ot.start, end: ot.end},
						"literal %q in %q", src[tok.start:tok.end], o.text)
					return
				}
			}
			t.Fatalf("literal %q is not a token of %q", src[tok.start:tok.end], o.text)
		}
	}
	t.Fatalf("literal %q of %q is not in the rewritten text", src[tok.start:tok.end], src)
}

// offsetOf is the byte offset of a 1-based line and byte column.
func offsetOf(text string, line, column int) int {
	off := 0
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			return -1
		}
		off += nl + 1
	}
	return off + column - 1
}

// FuzzSplit checks that the pieces are the text's own bytes with only white
// space, comments and ';' between them, and that each piece is one statement.
func FuzzSplit(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		pieces := Split(text)
		checkPieces(t, text, pieces)
		for _, p := range pieces {
			if strings.HasSuffix(p.Text, "--") {
				continue // "--;": two minus signs before the ';', a comment once alone
			}
			require.Equal(t, []Piece{{Text: p.Text}}, withoutTokens(Split(p.Text)))
		}
		checkCovers(t, text, lex(text))
		if IsComment(text) {
			require.Empty(t, pieces, "a text of comments only has no statement")
		}
	})
}

// FuzzInterpolate checks that every placeholder becomes exactly one literal: the
// output has no placeholder left and as many more string and number literals as
// string and number arguments.
func FuzzInterpolate(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, "it's", int64(-7), 1.5, []byte("\x00\\'\n"))
	}
	f.Fuzz(func(t *testing.T, text, s string, n int64, x float64, b []byte) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		choices := []any{s, n, x, b, nil, true, uint64(n)}
		var args []any
		var strs, nums int
		for i := range Placeholders(text) {
			arg := choices[i%len(choices)]
			args = append(args, arg)
			switch arg.(type) {
			case string, []byte:
				strs++
			case nil:
			default:
				nums++
			}
		}
		out, err := Interpolate(text, args)
		require.NoError(t, err)
		require.Empty(t, Placeholders(out))
		inStrs, inNums := countLiterals(text)
		outStrs, outNums := countLiterals(out)
		require.Equal(t, inStrs+strs, outStrs, "string literals of %q", out)
		require.Equal(t, inNums+nums, outNums, "number literals of %q", out)

		_, err = Interpolate(text, append(args, 1))
		require.Error(t, err)
	})
}

func countLiterals(text string) (strs, nums int) {
	for _, t := range lex(text) {
		switch t.kind {
		case tokString:
			strs++
		case tokNumber:
			nums++
		}
	}
	return strs, nums
}
