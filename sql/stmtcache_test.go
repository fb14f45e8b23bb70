package sql

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/stretchr/testify/require"
)

func parsedStatement(t *testing.T, text string) *dialect.Statement {
	t.Helper()
	st, err := dialect.Parse(nil, text)
	require.NoError(t, err)
	return st
}

func TestParseCacheLRU(t *testing.T) {
	c := newParseCache(2)
	a, b, d := "SELECT 1", "SELECT 2", "SELECT 3"
	c.give(c.add(a, parsedStatement(t, a)))
	c.give(c.add(b, parsedStatement(t, b)))
	e := c.lend(a) // a is now the most recently used
	require.NotNil(t, e)
	require.Equal(t, a, e.Value.Text)
	c.give(e)
	c.give(c.add(d, parsedStatement(t, d))) // drops b
	require.Equal(t, 2, c.len())
	require.Nil(t, c.lend(b))
	for _, text := range []string{a, d} {
		e := c.lend(text)
		require.NotNil(t, e, text)
		c.give(e)
	}
}

// The texts kept are bounded too: size * textPerEntry bytes.
func TestParseCacheBytes(t *testing.T) {
	c := newParseCache(2) // 512 bytes of text
	long := func(n int) string { return "SELECT '" + strings.Repeat("x", n-10) + "'" }
	a, b := long(300), long(301)
	c.give(c.add(a, parsedStatement(t, a)))
	c.give(c.add(b, parsedStatement(t, b))) // 601 bytes: a goes
	require.Equal(t, 1, c.len())
	require.Nil(t, c.lend(a))
	huge := long(2 * textPerEntry * 2)
	require.Nil(t, c.add(huge, parsedStatement(t, huge)), "over the whole budget")
	require.Equal(t, 0, c.len())
	require.Equal(t, 0, c.c.Bytes())
}

func TestParseCacheLendsOnce(t *testing.T) {
	c := newParseCache(4)
	text := "SELECT 1"
	e := c.add(text, parsedStatement(t, text))
	require.NotNil(t, e)
	require.Nil(t, c.lend(text), "lent to the statement that parsed it")
	// Another connection running it at once parses it too, and keeps its
	// tree, up to copiesPerText trees.
	others := []*cachedStatement{}
	for range copiesPerText - 1 {
		o := c.add(text, parsedStatement(t, text))
		require.NotNil(t, o)
		require.NotSame(t, e, o)
		others = append(others, o)
	}
	require.Nil(t, c.add(text, parsedStatement(t, text)), "as many trees as it may keep")
	require.Equal(t, 1, c.len(), "one statement")
	c.give(e)
	e2 := c.lend(text)
	require.Same(t, e, e2)
	require.Nil(t, c.lend(text), "every tree lent")
	c.give(e2)
	for _, o := range others {
		c.give(o)
	}
}

func TestParseCacheKeeps(t *testing.T) {
	c := newParseCache(8)
	long := "SELECT '" + strings.Repeat("x", maxCachedText) + "'"
	for _, tc := range []struct {
		text string
		kept bool
	}{
		{"SELECT id FROM t WHERE MATCH('a') LIMIT 20", true},
		{"SELECT 1 UNION SELECT 2", true},
		{"INSERT INTO t (id) VALUES (1)", false},
		{"SET @a = 1", false},
		{"CALL SNIPPETS('text', 't', 'q')", false},
		{long, false},
	} {
		e := c.add(tc.text, parsedStatement(t, tc.text))
		require.Equal(t, tc.kept, e != nil, tc.text)
		c.give(e)
	}
	require.Equal(t, 2, c.len())

	var off *parseCache = newParseCache(0)
	require.Nil(t, off)
	text := "SELECT 1"
	require.Nil(t, off.add(text, parsedStatement(t, text)))
	require.Nil(t, off.lend(text))
	off.give(nil)
}

func TestSetParseCache(t *testing.T) {
	s := newTestSession(t)
	require.Error(t, s.engine.SetParseCache(-1))
	require.Error(t, s.engine.SetParseCache(MaxParseCache+1))
	require.NoError(t, s.engine.SetParseCache(0))
	mustExec(t, s, "SELECT 1")
	require.Equal(t, 0, s.engine.parsed.len())
	require.NoError(t, s.engine.SetParseCache(16))
	mustExec(t, s, "SELECT 1")
	require.Equal(t, 1, s.engine.parsed.len())
}

// Each statement of a text holding several is kept by its own text (a
// coordinator sends its search, SHOW WARNINGS and SHOW META in one text),
// and a text holding it again, alone or with others, answers the same.
func TestParseCacheMultiStatement(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text)")
	mustExec(t, s, "INSERT INTO t (id, title) VALUES (1, 'red fox'), (2, 'red dog')")
	search := "SELECT id, WEIGHT() FROM t WHERE MATCH('red') ORDER BY id ASC LIMIT 0, 20 OPTION max_matches=20"
	multi := search + "; SHOW WARNINGS; SHOW META LIKE 'total%'"
	before := s.engine.parsed.len()
	first := render(s.Exec(context.Background(), multi))
	require.NotContains(t, first, "error")
	require.Equal(t, before+3, s.engine.parsed.len(), "the search, SHOW WARNINGS and SHOW META (a SELECT) are kept")
	w := s.engine.parsed.lend("SHOW WARNINGS")
	require.NotNil(t, w, "SHOW WARNINGS is kept by its own text")
	s.engine.parsed.give(w)
	e := s.engine.parsed.lend(search)
	require.NotNil(t, e, "kept by the statement's own text")
	s.engine.parsed.give(e)
	require.Equal(t, first, render(s.Exec(context.Background(), multi)))
	require.Equal(t, first, render(s.Exec(context.Background(), multi+";")))
	alone := render(s.Exec(context.Background(), search))
	require.True(t, strings.HasPrefix(first, alone), "%s\n%s", first, alone)
	require.Equal(t, before+3, s.engine.parsed.len())
}

// The statements whose plans copy and change parts of the parsed tree give
// the same answer each time they run from the cache, on any connection.
func TestParseCacheSameAnswers(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text, content text stored, gid int, price float)")
	mustExec(t, s, "INSERT INTO t (id, title, content, gid, price) VALUES "+
		"(1, 'red fox', 'the quick red fox jumps', 1, 2.5), (2, 'lazy dog', 'the lazy dog sleeps', 2, 1.5), "+
		"(3, 'red dog', 'a red dog and a fox', 1, 3.5), (4, 'blue bird', 'the bird sings', 3, 0.5)")
	stmts := []string{
		"SELECT id, title FROM t WHERE MATCH('red') ORDER BY id ASC LIMIT 20",
		"SELECT id, HIGHLIGHT({limit=20}) FROM t WHERE MATCH('fox|dog') ORDER BY id ASC",
		"SELECT DISTINCT gid FROM t ORDER BY gid ASC",
		"SELECT gid, COUNT(*) FROM t WHERE MATCH('the|red') GROUP BY gid ORDER BY gid ASC",
		"SELECT gid, id FROM t GROUP BY gid WITHIN GROUP ORDER BY price DESC ORDER BY gid ASC",
		"SELECT id FROM t WHERE MATCH('red|dog') ORDER BY id ASC LIMIT 2 FACET gid FACET gid ORDER BY FACET() ASC LIMIT 5",
		"SELECT q.gid, COUNT(*) FROM (SELECT id, gid FROM t WHERE MATCH('red')) AS q GROUP BY q.gid ORDER BY q.gid",
		"SELECT 1 AS a UNION SELECT 2 ORDER BY a DESC",
		"SELECT id, WEIGHT() FROM t WHERE MATCH('red fox') ORDER BY id ASC OPTION ranker=bm25",
		"SELECT table_name FROM information_schema.tables WHERE table_schema = 'glint'",
	}
	first := make([]string, len(stmts))
	for i, q := range stmts {
		first[i] = render(s.Exec(context.Background(), q))
		require.NotContains(t, first[i], "error", q)
	}
	require.Equal(t, len(stmts), s.engine.parsed.len())

	requireSameAnswers(t, s, stmts, first)
}

// A prepared statement's texts, its arguments bound, are cached too.
func TestParseCachePrepared(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text)")
	mustExec(t, s, "INSERT INTO t (id, title) VALUES (1, 'red fox'), (2, 'blue fox')")
	p, err := s.Prepare("SELECT id FROM t WHERE MATCH(?) ORDER BY id ASC")
	require.NoError(t, err)
	for range 2 {
		for q, want := range map[string]string{"red": "1", "fox": "1 2", "green": ""} {
			r, err := s.ExecPrepared(context.Background(), p, []any{q})
			require.NoError(t, err)
			var ids []string
			for _, row := range r.Rows {
				ids = append(ids, fmt.Sprint(row[0]))
			}
			require.Equal(t, want, strings.Join(ids, " "), q)
		}
	}
	require.Equal(t, 3, s.engine.parsed.len())
}

func mustExec(t *testing.T, s *Session, q string) {
	t.Helper()
	_, err := s.Exec(context.Background(), q)
	require.NoError(t, err, q)
}

// BenchmarkParseCache runs a short search (one word, few matches: the
// statement's fixed cost is most of it) whose text comes again (hit), is new
// each time (miss: the lookup and the keeping are paid for nothing), and
// with the cache off; then the ladder's statement, CALL SNIPPETS of one text
// of 1 KB with one of 8 queries in turn, from its shape (call) and with the
// cache off (call-off).
func BenchmarkParseCache(b *testing.B) {
	text := "'" + strings.Repeat("the quick red fox jumps over a lazy dog; ", 25) + "'"
	words := []string{"fox", "dog", "red", "lazy", "quick", "jumps", "over", "the"}
	for _, kind := range []string{"hit", "miss", "off", "call", "call-off"} {
		b.Run(kind, func(b *testing.B) {
			db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			e := NewEngine(db)
			if strings.HasSuffix(kind, "off") {
				if err := e.SetParseCache(0); err != nil {
					b.Fatal(err)
				}
			}
			s := e.NewSession("root")
			ctx := context.Background()
			for _, q := range []string{"CREATE TABLE t (title text, content text, gid int)",
				"INSERT INTO t (id, title, content, gid) VALUES (1, 'red fox', 'the quick red fox', 1), (2, 'lazy dog', 'the lazy dog', 2)"} {
				if _, err := s.Exec(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			for b.Loop() {
				var q string
				switch kind {
				case "hit":
					q = "SELECT id FROM t WHERE MATCH('fox') LIMIT 20"
				case "call", "call-off":
					q = "CALL SNIPPETS((" + text + "), 't', '" + words[i%len(words)] + "', 256 AS limit, 1 AS query_mode)"
				default:
					q = fmt.Sprintf("SELECT id FROM t WHERE MATCH('fox') LIMIT %d", 20+i)
				}
				i++
				if _, err := s.Exec(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// CALL SNIPPETS of other texts and queries comes from the kept shape with
// its own values, on any connection, and answers as without it.
func TestParseCacheShapes(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (content text)")
	plain := NewEngine(s.engine.db)
	require.NoError(t, plain.SetParseCache(0))
	ref := plain.NewSession("root")
	filler := strings.Repeat(" and some more words", 20)
	var stmts, want []string
	for i := range 12 {
		texts := fmt.Sprintf("'text %d: the red fox %s', 'text %d: a dog %s'", i, filler, i, filler)
		q := []string{"fox", "dog"}[i%2]
		stmt := fmt.Sprintf("CALL SNIPPETS((%s), 't', '%s', 40 AS limit)", texts, q)
		stmts = append(stmts, stmt)
		want = append(want, render(ref.Exec(context.Background(), stmt)))
		require.NotContains(t, want[i], "error")
	}
	requireSameAnswers(t, s, stmts, want)
	require.Equal(t, 1, s.engine.shapes.Len(), "one shape for both queries (every literal of a CALL stands in)")
}

// SELECTs that differ in the literals of their WHERE clause (the query,
// ids, attribute values) and in their OPTION tail share kept shapes, on any
// connection, and answer as without them; a text sent again is lent a tree
// of its shape from the parse cache.
func TestParseCacheSelectShapes(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text, content text stored, gid int, price float)")
	mustExec(t, s, "INSERT INTO t (id, title, content, gid, price) VALUES "+
		"(1, 'red fox', 'the quick red fox jumps', 1, 2.5), (2, 'lazy dog', 'the lazy dog sleeps', 2, 1.5), "+
		"(3, 'red dog', 'a red dog and a fox', 1, 3.5), (4, 'blue bird', 'the bird sings', 3, 0.5), "+
		"(18446744073709551615, 'last fox', 'the last id', 3, 9.5)")
	plain := NewEngine(s.engine.db)
	require.NoError(t, plain.SetParseCache(0))
	ref := plain.NewSession("root")
	var stmts, want []string
	for i, q := range []string{"red", "fox|dog", "bird", "\"the lazy\"", "fox -red", "nothing"} {
		for _, stmt := range []string{
			fmt.Sprintf("SELECT id, HIGHLIGHT({limit=20}) FROM t WHERE MATCH('%s') ORDER BY id ASC", q),
			fmt.Sprintf("SELECT id FROM t WHERE MATCH('%s') AND id IN (%d, %d, 18446744073709551615) ORDER BY id ASC LIMIT 0, 3 OPTION max_matches=%d", q, i%4+1, (i+2)%4+1, 3+i),
			fmt.Sprintf("SELECT id, gid FROM t WHERE gid = %d OR price > %d ORDER BY id DESC OPTION ranker=%s", i%3+1, i, []string{"bm25", "none"}[i%2]),
			fmt.Sprintf("SELECT gid, COUNT(*) FROM t WHERE MATCH('%s') AND gid <> '%d' GROUP BY gid ORDER BY gid ASC", q, i),
		} {
			stmts = append(stmts, stmt)
			want = append(want, render(ref.Exec(context.Background(), stmt)))
			require.NotContains(t, want[len(want)-1], "error", stmt)
		}
	}
	requireSameAnswers(t, s, stmts, want)
	require.Equal(t, 4, s.engine.shapes.Len(), "a shape for each statement's form")
	require.Equal(t, len(stmts), s.engine.parsed.len(), "each text kept, by its values")
}

// requireSameAnswers runs stmts three times on each of four new sessions
// of s's engine at once, sharing its caches, and requires each answer to
// be want's.
func requireSameAnswers(t *testing.T, s *Session, stmts, want []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, 4*3*len(stmts))
	for range 4 {
		other := s.engine.NewSession("root")
		wg.Go(func() {
			for range 3 {
				for i, q := range stmts {
					if got := render(other.Exec(context.Background(), q)); got != want[i] {
						errs <- fmt.Sprintf("%s:\nwant:\n%s\ngot:\n%s", q, want[i], got)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
