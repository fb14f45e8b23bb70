package dialect

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/stretchr/testify/require"
)

// restored is node written back as SQL: two trees that restore alike hold
// the same values.
func restored(t testing.TB, node ast.Node) string {
	var b strings.Builder
	require.NoError(t, node.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)))
	return b.String()
}

// plainParse parses text the way Parse does, without stand-ins.
func plainParse(p *parser.Parser, text string) (ast.StmtNode, error) {
	rw, err := rewrite(text, lex(text), -1)
	if err != nil {
		return nil, err
	}
	return parseOne(p, rw.main, text)
}

// parseAll is Parse with a stand-in for every literal, however short.
func parseAll(p *parser.Parser, text string) (*Statement, error) {
	st, _, err := parse(p, text, lex(text), 0, nil)
	return st, err
}

func TestStandIns(t *testing.T) {
	p := parser.New()
	cases := []struct {
		sql      string
		standIns int // literals replaced (before any fallback)
	}{
		{`INSERT INTO t (id, body) VALUES (1, 'plain text'), (2, "double")`, 2},
		{`INSERT INTO t VALUES (1, 'it''s', "say ""hi""", 'a\'b\"c')`, 3},
		{`SELECT 'tab\there\nnew\rret\0nul\Zsub\bback\\slash\%pct\_und\qq'`, 1},
		{`CALL SNIPPETS(('a', 'b'), 't', 'q', 'x' AS before_match)`, 5},
		{`SELECT {limit='9'} FROM t`, 1},
		{`SELECT 'a' 'b'`, 0},            // concatenated by TiDB
		{`SELECT _utf8mb4 'a', N'b'`, 0}, // an introducer and a prefix
		{`SELECT 'ÿ Ünïcödé 漢字'`, 1},
		{`SELECT 1 AS 'an alias'`, 1},                              // not a value: parsed again without
		{`SET NAMES 'utf8mb4'`, 1},                                 // likewise
		{`SELECT * FROM t WHERE MATCH('a') OPTION comment='x'`, 1}, // the tail keeps its literal
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			rw, err := rewrite(c.sql, lex(c.sql), 0)
			require.NoError(t, err)
			n := 0
			if rw.standIns != nil {
				n = len(rw.standIns.values)
			}
			require.Equal(t, c.standIns, n)
			want, err := plainParse(p, c.sql)
			require.NoError(t, err)
			got, err := parseAll(p, c.sql)
			require.NoError(t, err)
			require.Equal(t, restored(t, want), restored(t, got.Node))
			require.NotContains(t, restored(t, got.Node), "\x1f")
		})
	}
}

func TestStandInErrorsQuoteTheStatement(t *testing.T) {
	_, err := parseAll(nil, `INSERT INTO t VALUES ('a long text', 'b') garbage`)
	require.Error(t, err)
	require.Equal(t, `syntax error at line 1 column 43 near 'garbage'`, err.Error())
}

// FuzzStandIns checks that stand-ins never change what a statement means:
// with every literal replaced, Parse gives the tree of the plain parse, or
// the same error.
func FuzzStandIns(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{`SELECT 'a\\'`, `SELECT '\%\_'`, `INSERT INTO t VALUES ('x''y', "p""q")`, `SELECT 'a'"b"`} {
		f.Add(s)
	}
	p := parser.New()
	f.Fuzz(func(t *testing.T, text string) {
		want, wantErr := plainParse(p, text)
		got, err := parseAll(p, text)
		if wantErr != nil {
			if err == nil {
				// Parse also reads the OPTION tail; the plain parse does not.
				return
			}
			require.Equal(t, wantErr.Error(), err.Error())
			return
		}
		if err != nil {
			return // the tail of settings was refused
		}
		require.Equal(t, restored(t, want), restored(t, got.Node))
	})
}

// valueCollector gathers the literals of a tree.
type valueCollector []ast.ValueExpr

func (c *valueCollector) Enter(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(ast.ValueExpr); ok {
		*c = append(*c, v)
	}
	return n, false
}

func (c *valueCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TestValue checks that Value gives what GetValue gives, for literals that
// TiDB read and for literals that stand-ins gave back.
func TestValue(t *testing.T) {
	long := strings.Repeat("it''s \\n long ", 40)
	stmt, err := Parse(parser.New(), "INSERT INTO t (id, a, b, c, d, e) VALUES (1, 'short', '"+long+"', 2.5, 1e3, NULL)")
	require.NoError(t, err)
	var values valueCollector
	stmt.Node.Accept(&values)
	require.Len(t, values, 6)
	for _, v := range values {
		require.Equal(t, v.GetValue(), Value(v))
	}
	require.Equal(t, strings.Repeat("it's \n long ", 40), Value(values[2]))
}

// editIndex finds what a walk of every edit finds: an edit that touches the
// inside of a token (an insertion at its start does not).
func TestEditIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 2000 {
		var edits []edit
		at := 0
		for range rng.IntN(6) { // edits of one rewrite do not overlap
			at += rng.IntN(4)
			e := edit{start: at, end: at + rng.IntN(3)}
			edits = append(edits, e)
			at = e.end
		}
		rng.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
		x := newEditIndex(edits)
		for range 20 {
			s := rng.IntN(at + 3)
			tok := token{start: s, end: s + 1 + rng.IntN(4)}
			want := false
			for _, e := range edits {
				if e.start < tok.end && tok.start < e.end || e.start > tok.start && e.start < tok.end {
					want = true
				}
			}
			require.Equal(t, want, x.overlaps(tok), "edits %v token %d-%d", edits, tok.start, tok.end)
		}
	}
}
