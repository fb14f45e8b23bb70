package dialect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/stretchr/testify/require"
)

// callOf is a CALL SNIPPETS of texts with query q, each text long enough
// for a stand-in.
func callOf(q string, texts ...string) string {
	quoted := make([]string, len(texts))
	for i, t := range texts {
		quoted[i] = "'" + t + strings.Repeat(" filler", longLiteral/7+1) + "'"
	}
	return fmt.Sprintf("CALL SNIPPETS((%s), 't', '%s', 256 AS limit, 1 AS query_mode)", strings.Join(quoted, ", "), q)
}

func shapedParse(t *testing.T, p *parser.Parser, shapes *Shapes, text string) (*Statement, func()) {
	t.Helper()
	st, release, err := ParseShaped(p, Split(text)[0], shapes)
	require.NoError(t, err)
	if release == nil {
		release = func() {}
	}
	return st, release
}

// A statement of a kept shape gets the kept tree with its own texts, and
// the tree restores as parsing the statement gives it.
func TestShapes(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	a, b := callOf("fox", "the red fox", "a dog"), callOf("fox", "another text", "and more")
	st, release := shapedParse(t, p, shapes, a)
	require.Equal(t, restored(t, mustParse(t, a).Node), restored(t, st.Node))
	require.Equal(t, 1, shapes.Len())

	// While a's tree is lent, b parses for itself.
	st2, release2 := shapedParse(t, p, shapes, b)
	require.NotSame(t, st.Node, st2.Node)
	release2()
	release()

	st3, release3 := shapedParse(t, p, shapes, b)
	require.Same(t, st.Node, st3.Node, "from the shape")
	require.Equal(t, b, st3.Text)
	require.Equal(t, restored(t, mustParse(t, b).Node), restored(t, st3.Node))
	release3()
	require.NotContains(t, restored(t, st3.Node), "another text", "a kept tree holds no text once given back")

	// Another number of texts is another shape; another query, or short
	// texts, the same (every literal of a CALL stands in).
	for _, text := range []string{callOf("dog", "x"), callOf("fox", "x", "y", "z")} {
		_, release := shapedParse(t, p, shapes, text)
		release()
	}
	require.Equal(t, 3, shapes.Len())
	other := "CALL SNIPPETS(('a', 'b'), 'other', 'a dog', 256 AS limit, 1 AS query_mode)"
	st4, release4 := shapedParse(t, p, shapes, other)
	require.Same(t, st.Node, st4.Node, "the two-text shape, with other values")
	require.Equal(t, restored(t, mustParse(t, other).Node), restored(t, st4.Node))
	release4()
	require.Equal(t, 3, shapes.Len())
}

// The keys kept are bounded too: size * keyPerShape bytes.
func TestShapesBytes(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(2) // 512 bytes of keys
	// (A long name of an option is in the key; literals are not.)
	long := func(name string, n int) string {
		return fmt.Sprintf("CALL SNIPPETS(('x'), 't', 'q', 1 AS `%s`)", name+strings.Repeat("y", n))
	}
	for _, q := range []string{"a", "b"} {
		_, release := shapedParse(t, p, shapes, long(q, 220))
		release()
	}
	require.Equal(t, 1, shapes.Len(), "two keys of ~270 bytes do not fit in 512")
	_, release := shapedParse(t, p, shapes, long("c", 600))
	release()
	require.Equal(t, 0, shapes.Len(), "over the whole budget")
}

func TestShapesKeep(t *testing.T) {
	p := parser.New()
	long := strings.Repeat("word ", longLiteral/5+1)
	for _, text := range []string{
		"INSERT INTO t (id, body) VALUES (1, '" + long + "')",                       // not a CALL
		"CALL SNIPPETS('short', 't', 'q')",                                          // kept: short literals stand in too
		"SELECT '" + long + "' AS x",                                                // kept: a SELECT's long literals stand in
		"SELECT 1 AS '" + long + "'",                                                // a literal that is not a value
		callOf("q", strings.Repeat("x", maxShape)),                                  // kept: its shape is short, the text cut out
		"SELECT id FROM t WHERE MATCH('fox') AND id IN (1, 2) OPTION max_matches=5", // kept: WHERE's literals stand in
		"SELECT id FROM t WHERE title LIKE 'a%' ESCAPE '!'",                         // ESCAPE's literal is not a value
	} {
		shapes := NewShapes(8)
		st, release := shapedParse(t, p, shapes, text)
		require.Equal(t, restored(t, mustParse(t, text).Node), restored(t, st.Node), text)
		release()
		want := 0
		if strings.HasPrefix(text, "CALL") || strings.Contains(text, "MATCH") {
			want = 1
		}
		require.Equal(t, want, shapes.Len(), text)
	}
	var none *Shapes
	st, release, err := ParseShaped(p, Split(callOf("q", "x"))[0], none)
	require.NoError(t, err)
	require.NotNil(t, st)
	require.Nil(t, release, "no shapes: the tree is the caller's")
	require.Nil(t, NewShapes(0))
}

// requireOneShape parses texts through shapes: each after the first gets
// the first one's tree, and each tree restores as parsing its text alone
// gives it; check, when not nil, looks at each statement before its tree
// goes back.
func requireOneShape(t *testing.T, p *parser.Parser, shapes *Shapes, texts []string, check func(k int, text string, st *Statement)) {
	t.Helper()
	var first ast.StmtNode
	for k, text := range texts {
		st, release := shapedParse(t, p, shapes, text)
		if k == 0 {
			first = st.Node
		} else {
			require.Same(t, first, st.Node, "from the shape: %s", text)
		}
		require.Equal(t, restored(t, mustParse(t, text).Node), restored(t, st.Node))
		if check != nil {
			check(k, text, st)
		}
		release()
	}
}

func mustParse(t *testing.T, text string) *Statement {
	t.Helper()
	st, err := Parse(nil, text)
	require.NoError(t, err)
	return st
}

// FuzzShapes checks that a statement parsed from a kept shape (every
// literal given a stand-in, however short) restores as parsing it gives it,
// and that another statement of the same shape gets its own values.
func FuzzShapes(f *testing.F) {
	addSeeds(f)
	f.Add(callOf("fox", "a", "b"))
	p := parser.New()
	f.Fuzz(func(t *testing.T, text string) {
		want, err := Parse(p, text)
		if err != nil || want.Cluster != nil {
			return // a cluster statement has no TiDB tree, nor a shape
		}
		var b strings.Builder
		if want.Node.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)) != nil {
			return
		}
		shapes := NewShapes(4)
		for range 2 { // kept, then from the shape
			st, release, err := parse(p, text, lex(text), 0, shapes)
			require.NoError(t, err)
			require.Equal(t, b.String(), restored(t, st.Node))
			require.Equal(t, settingsText(t, want.Settings), settingsText(t, st.Settings))
			if release != nil {
				release()
			}
		}
	})
}

// settingsText is the settings of an OPTION tail as text, for comparing.
func settingsText(t testing.TB, settings []Setting) string {
	var b strings.Builder
	for _, st := range settings {
		b.WriteString(st.Name + "=" + restored(t, st.Value) + ";")
	}
	return b.String()
}

// SELECTs that differ only in the literals of their WHERE clause (MATCH()'s
// query, an IN list of ids) or in their OPTION tail share a shape; each
// gets its own values, integers as integers, and its own settings.
func TestShapesSelect(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	stmt := func(q string, a, b any, tail string) string {
		return fmt.Sprintf("SELECT id, HIGHLIGHT() FROM t WHERE MATCH('%s') AND id IN (%v, %v) LIMIT 0, 2 OPTION %s", q, a, b, tail)
	}
	texts := []string{
		stmt("fox", 1, 2, "max_matches=2"),
		stmt("dog", "18446744073709551615", "'x'", "max_matches=3, snapshot='abc'"),
		stmt("cat | cow", 7, 9, "ranker=bm25"),
	}
	requireOneShape(t, p, shapes, texts, func(_ int, text string, st *Statement) {
		require.Equal(t, settingsText(t, mustParse(t, text).Settings), settingsText(t, st.Settings))
	})
	require.Equal(t, 1, shapes.Len())
	// The values are the parser's own: an int64, a uint64 past it, a string.
	st, release := shapedParse(t, p, shapes, texts[1])
	in := st.Node.(*ast.SelectStmt).Where.(*ast.BinaryOperationExpr).R.(*ast.PatternInExpr)
	require.Equal(t, uint64(18446744073709551615), in.List[0].(ast.ValueExpr).GetValue())
	require.Equal(t, "x", in.List[1].(ast.ValueExpr).GetValue())
	release()
	st, release = shapedParse(t, p, shapes, texts[0])
	in = st.Node.(*ast.SelectStmt).Where.(*ast.BinaryOperationExpr).R.(*ast.PatternInExpr)
	require.Equal(t, int64(1), in.List[0].(ast.ValueExpr).GetValue())
	release()

	// Literals of the select list name columns: they stay in the shape, as
	// numbers glued to words do.
	for _, text := range []string{
		"SELECT 1 FROM t WHERE id = 2",
		"SELECT 2 FROM t WHERE id = 2",
		"SELECT id FROM t WHERE 1abc = 3",
	} {
		_, release := shapedParse(t, p, shapes, text)
		release()
	}
	require.Equal(t, 4, shapes.Len())
}

// The pages of a search share a shape: a LIMIT's numbers stand in, in each
// of its forms, and come back as TiDB reads them (unsigned).
func TestShapesLimit(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	for _, c := range []struct {
		texts          []string
		offset, counts []uint64
	}{
		{[]string{"SELECT id FROM t WHERE MATCH('a') LIMIT 20", "SELECT id FROM t WHERE MATCH('b') LIMIT 5"}, nil, []uint64{20, 5}},
		{[]string{"SELECT id FROM t LIMIT 0, 20", "SELECT id FROM t LIMIT 40, 20"}, []uint64{0, 40}, []uint64{20, 20}},
		{[]string{"SELECT id FROM t ORDER BY id DESC LIMIT 20 OFFSET 60", "SELECT id FROM t ORDER BY id DESC LIMIT 7 OFFSET 18446744073709551615"},
			[]uint64{60, 18446744073709551615}, []uint64{20, 7}},
		{[]string{"SELECT id FROM t LIMIT 3 FOR UPDATE", "SELECT id FROM t LIMIT 4 FOR UPDATE"}, nil, []uint64{3, 4}},
	} {
		before := shapes.Len()
		requireOneShape(t, p, shapes, c.texts, func(k int, text string, st *Statement) {
			l := st.Node.(*ast.SelectStmt).Limit
			require.Equal(t, c.counts[k], l.Count.(ast.ValueExpr).GetValue(), text)
			if c.offset != nil {
				require.Equal(t, c.offset[k], l.Offset.(ast.ValueExpr).GetValue(), text)
			}
		})
		require.Equal(t, before+1, shapes.Len(), "one shape: %q", c.texts)
	}
}

// A LIMIT of a subquery in the WHERE clause stands in as a number, as the
// statement's own LIMIT does: the statements share a shape.
func TestShapesNestedLimit(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	for _, texts := range [][]string{
		{"SELECT id FROM t WHERE id IN (SELECT id FROM u LIMIT 3)", "SELECT id FROM t WHERE id IN (SELECT id FROM u LIMIT 4)"},
		{"SELECT id FROM t WHERE id IN (SELECT id FROM u LIMIT 1, 2) LIMIT 5", "SELECT id FROM t WHERE id IN (SELECT id FROM u LIMIT 7, 9) LIMIT 6"},
		{"SELECT id FROM t WHERE id > 2 AND id IN (SELECT id FROM u ORDER BY id LIMIT 2 OFFSET 8)", "SELECT id FROM t WHERE id > 3 AND id IN (SELECT id FROM u ORDER BY id LIMIT 5 OFFSET 1)"},
	} {
		before := shapes.Len()
		requireOneShape(t, p, shapes, texts, nil)
		require.Equal(t, before+1, shapes.Len(), "one shape: %q", texts)
	}
}

// A shape whose stand-ins TiDB does not take back as values (DECIMAL's
// digits) is parsed as written, and remembered so: the next statement of
// it is parsed once.
func TestShapesParsedAsIs(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	texts := []string{
		"SELECT id FROM t WHERE CAST(price AS DECIMAL(10, 2)) > 5",
		"SELECT id FROM t WHERE CAST(price AS DECIMAL(12, 3)) > 6",
	}
	key := func(text string) string {
		rw, err := rewrite(text, lex(text), longLiteral)
		require.NoError(t, err)
		require.NotNil(t, rw.standIns)
		return rw.main.text
	}
	require.Equal(t, key(texts[0]), key(texts[1]), "one shape")
	require.False(t, shapes.parsedAsIs(key(texts[0])))
	for _, text := range texts {
		st, release := shapedParse(t, p, shapes, text)
		require.Nil(t, st.Shape)
		require.Equal(t, restored(t, mustParse(t, text).Node), restored(t, st.Node))
		release()
		require.True(t, shapes.parsedAsIs(key(text)))
	}
	require.Equal(t, 0, shapes.Len())
	// Remembered shapes are bounded.
	for i := range maxAsIs {
		shapes.refuse(fmt.Sprint(i))
	}
	require.LessOrEqual(t, len(shapes.asIs), maxAsIs)
}

// A select-list item's text names its column: a long literal in it is
// written back as it was, and its tree is not kept by its shape, which
// another statement would share with its own literal.
func TestStandInColumnName(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(8)
	for _, c := range []string{"a", "b"} {
		long := strings.Repeat(c, longLiteral+10)
		text := "SELECT LENGTH('" + long + "'), UPPER('x') FROM t WHERE id = 1"
		st, release := shapedParse(t, p, shapes, text)
		fields := st.Node.(*ast.SelectStmt).Fields.Fields
		require.Equal(t, "LENGTH('"+long+"')", fields[0].Text())
		require.Equal(t, "UPPER('x')", fields[1].Text())
		require.Equal(t, long, fields[0].Expr.(*ast.FuncCallExpr).Args[0].(ast.ValueExpr).GetValue())
		release()
	}
	require.Equal(t, 0, shapes.Len())
}

// FuzzLiteralSettings: a tail of literals read without the TiDB parser gives
// the settings parsing it gives: names, positions, values and their types.
func FuzzLiteralSettings(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{
		"SELECT id FROM t WHERE MATCH('a') OPTION max_matches=20, snapshot='3f:17', ranker='bm25'",
		"SELECT 1 OPTION a=18446744073709551615, b=9223372036854775808, c=-1, d='x''y', e=\"q\\\\z\"",
		"SELECT 1 OPTION a='x' 'y', b=0x1F, c=1.5, d=1e3, e=007",
		"CREATE TABLE t (title text) min_word_len='2' morphology='stem_en' html_strip=1",
	} {
		f.Add(s)
	}
	p := parser.New()
	f.Fuzz(func(t *testing.T, text string) {
		rw, err := rewrite(text, lex(text), -1)
		if err != nil || rw.tail == nil || !rw.tail.literals {
			return
		}
		slow, err := rw.tail.parseAll(p, text)
		if err != nil {
			return // (the fast path's statement then fails in the main part or not at all)
		}
		fast, err := rw.tail.parse(p, text)
		require.NoError(t, err)
		require.Len(t, fast, len(slow))
		for i := range slow {
			require.Equal(t, slow[i].Name, fast[i].Name)
			require.Equal(t, slow[i].Pos, fast[i].Pos)
			sv, fv := slow[i].Value.(ast.ValueExpr), fast[i].Value.(ast.ValueExpr)
			require.Equal(t, sv.GetValue(), fv.GetValue(), text)
			require.Equal(t, sv.GetType(), fv.GetType(), text)
			require.Equal(t, restored(t, sv), restored(t, fv))
		}
	})
}

// Lend puts a statement's own values into the tree of its shape, a
// LIMIT's numbers and WHERE's literals alike, without its text.
func TestShapesLend(t *testing.T) {
	p := parser.New()
	shapes := NewShapes(4)
	first, release := shapedParse(t, p, shapes, "SELECT id FROM t WHERE MATCH('a') AND id > 5 LIMIT 0, 20")
	release()
	second, release := shapedParse(t, p, shapes, "SELECT id FROM t WHERE MATCH('b') AND id > 6 LIMIT 20, 10")
	release()
	for _, c := range []struct {
		st            *Statement
		where         string
		offset, count uint64
	}{{second, "MATCH(_UTF8MB4'b') AND `id`>6", 20, 10}, {first, "MATCH(_UTF8MB4'a') AND `id`>5", 0, 20}} {
		lent, give := shapes.Lend(c.st)
		require.NotNil(t, lent)
		sel := lent.Node.(*ast.SelectStmt)
		require.Equal(t, c.where, restored(t, sel.Where))
		require.Equal(t, c.offset, sel.Limit.Offset.(ast.ValueExpr).GetValue())
		require.Equal(t, c.count, sel.Limit.Count.(ast.ValueExpr).GetValue())
		give()
	}
}
