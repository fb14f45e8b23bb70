package sql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// The budget is spent in order; an item that does not fit spends nothing.
func TestSpend(t *testing.T) {
	for _, c := range []struct {
		budget int
		costs  []int
		over   []bool
		n      int
	}{
		{0, []int{5, 100}, nil, 0},
		{10, []int{3, 7}, nil, 0},
		{10, []int{3, 8, 7}, []bool{false, true, false}, 1},
		{10, []int{11, 2, 9}, []bool{true, false, true}, 2},
		{10, []int{0, 10, 0}, nil, 0},
	} {
		over, n := spend(c.budget, c.costs)
		require.Equal(t, c.over, over, "%d %v", c.budget, c.costs)
		require.Equal(t, c.n, n)
	}
}

// textBeginning keeps enough for the beginning a limit shows: a whole
// text when short, else at least limit+1 codepoints, cut at a blank (or
// a bounded word's end) and never inside a codepoint.
func TestTextBeginning(t *testing.T) {
	require.Equal(t, "short text", textBeginning("short text", 10))
	long := strings.Repeat("wörd ", 1000)
	got := textBeginning(long, 20)
	require.True(t, strings.HasPrefix(long, got))
	require.Greater(t, utf8.RuneCountInString(got), 20)
	require.Less(t, len(got), 200)
	require.Equal(t, byte(' '), long[len(got)], "cut at a blank")
	oneWord := strings.Repeat("ж", 5000)
	got = textBeginning(oneWord, 10)
	require.True(t, utf8.ValidString(got))
	require.Less(t, len(got), 2000, "a word's end is looked for a kilobyte at most")
}

// TestWorkBudget: rows past the budget show their beginning unmarked, in
// row order whatever goroutines highlight them, and the answer says so.
func TestWorkBudget(t *testing.T) {
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	eng.SetHighlightWorkBudget(1000)
	s := eng.NewSession("root")
	exec := func(stmt string) string { return render(s.Exec(context.Background(), stmt)) }
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (body text)"))
	big := strings.Repeat("filler words here ", 40) + "the cat sat" // 731 bytes
	var values []string
	for id := 1; id <= 6; id++ {
		body := "a small cat"
		if id%3 == 2 {
			body = big
		}
		values = append(values, fmt.Sprintf("(%d, '%s')", id, body))
	}
	require.Equal(t, "ok 6\n", exec("INSERT INTO t (id, body) VALUES "+strings.Join(values, ", ")))

	// 11 + 731 + 11 + 11 = 764 fit; the second big row (id 5) would take
	// the total past 1000: it shows its beginning; id 6 still fits.
	fallback := strings.Repeat("filler words here ", 3) + "filler ... "
	want := "id:uint | highlight({limit=60}):str\n" +
		"1 | a small <b>cat</b>\n" +
		"2 |  ...  here filler words here the <b>cat</b> sat\n" +
		"3 | a small <b>cat</b>\n4 | a small <b>cat</b>\n" +
		"5 | " + fallback + "\n" +
		"6 | a small <b>cat</b>\n"
	for range 20 {
		require.Equal(t, want, exec("SELECT id, HIGHLIGHT({limit=60}) FROM t WHERE MATCH('cat') ORDER BY id ASC"))
	}
	require.Equal(t, "Level:str | Code:int | Message:str\n"+
		"Warning | 1265 | 1 row is past the highlighting work budget of 1000 bytes (work_budget, or the server's highlight_work_budget) and is shown from the beginning, unhighlighted\n",
		exec("SHOW WARNINGS"))
	require.Contains(t, exec("SHOW META"), "highlight_truncated | 1\n")

	// The request's own budget wins over the server's; 0 is none.
	got := exec("SELECT id, HIGHLIGHT({limit=60, work_budget=0}) FROM t WHERE MATCH('cat') ORDER BY id ASC")
	require.NotContains(t, got, fallback)
	require.NotContains(t, exec("SHOW META"), "highlight_truncated")
	got = exec("SELECT id, HIGHLIGHT({limit=60, work_budget=20}) FROM t WHERE MATCH('cat') ORDER BY id ASC")
	// 20 bytes: row 1 fits, and nothing after it does.
	require.Equal(t, 2, strings.Count(got, "| "+fallback), got)
	require.Equal(t, 1, strings.Count(got, "| a small <b>cat</b>\n"), got)
	require.Equal(t, 3, strings.Count(got, "| a small cat\n"), got)
	require.Contains(t, exec("SHOW META"), "highlight_truncated | 5\n")

	// CALL SNIPPETS spends it over its texts.
	got = exec("CALL SNIPPETS(('a cat', '" + big + "', 'one cat'), 't', 'cat', 60 AS limit, 100 AS work_budget)")
	require.Equal(t, "snippet:str\na <b>cat</b>\n"+fallback+"\none <b>cat</b>\n", got)
	require.Contains(t, exec("SHOW WARNINGS"), "1 text is past the highlighting work budget of 100 bytes")

	// No budget at all: every row is highlighted.
	eng.SetHighlightWorkBudget(0)
	require.NotContains(t, exec("SELECT id, HIGHLIGHT({limit=60}) FROM t WHERE MATCH('cat')"), fallback)
	require.Contains(t, exec("SELECT HIGHLIGHT({work_budget=-1}) FROM t WHERE MATCH('cat')"), "error BadOption: HIGHLIGHT(): highlight option 'work_budget': must be from 0 to")
}

// BenchmarkWorkBudget highlights one document of a 100 MB field: in whole
// (no budget), and past a budget of 1 MB, where the answer is the
// field's beginning and its cost is reading the document.
func BenchmarkWorkBudget(b *testing.B) {
	db, err := index.Open(index.DefaultOptions(b.TempDir()))
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	s := eng.NewSession("root")
	require.Equal(b, "ok 0\n", render(s.Exec(context.Background(), "CREATE TABLE t (body text)")))
	var text strings.Builder
	for text.Len() < 100<<20 {
		fmt.Fprintf(&text, "word%d filler text of a long document and a needle now and then. ", text.Len()%977)
	}
	tab, err := db.Table("t")
	require.NoError(b, err)
	require.NoError(b, tab.Write(context.Background(), func(w *index.Writer) error {
		_, err := w.Insert([]index.Document{{ID: 1, Values: []index.Value{text.String()}}})
		return err
	}))
	for _, c := range []struct {
		name, opts string
	}{{"none", "work_budget=0"}, {"1MB", "work_budget=1048576"}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			for b.Loop() {
				res, err := s.Exec(context.Background(), "SELECT HIGHLIGHT({"+c.opts+"}) FROM t WHERE MATCH('needle')")
				require.NoError(b, err)
				require.Len(b, res[0].Rows, 1)
			}
		})
	}
}

// TestWorkBudgetBoundsWork: past the budget, a large field costs the
// highlighter a prefix of it, not the field (SHOW STATUS highlight_bytes
// counts what it is handed).
func TestWorkBudgetBoundsWork(t *testing.T) {
	db, err := index.Open(index.DefaultOptions(t.TempDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	s := NewEngine(db).NewSession("root")
	require.Equal(t, "ok 0\n", render(s.Exec(context.Background(), "CREATE TABLE t (body text)")))
	big := strings.Repeat("many words of filler and a needle now and then, ", 80_000) // 3.8 MB
	tab, err := db.Table("t")
	require.NoError(t, err)
	require.NoError(t, tab.Write(context.Background(), func(w *index.Writer) error {
		_, err := w.Insert([]index.Document{{ID: 1, Values: []index.Value{big}}})
		return err
	}))
	highlighted := func(stmt string) int {
		before := statusValue(t, s, "highlight_bytes")
		res, err := s.Exec(context.Background(), stmt)
		require.NoError(t, err)
		require.Len(t, res[0].Rows, 1)
		return statusValue(t, s, "highlight_bytes") - before
	}
	require.Equal(t, len(big), highlighted("SELECT HIGHLIGHT({work_budget=0}) FROM t WHERE MATCH('needle')"))
	n := highlighted("SELECT HIGHLIGHT({work_budget=65536}) FROM t WHERE MATCH('needle')")
	require.Positive(t, n)
	require.LessOrEqual(t, n, 4*256+4+1024, "past the budget, a prefix for the beginning")
}

// statusValue reads one counter of SHOW STATUS.
func statusValue(t *testing.T, s *Session, name string) int {
	res, err := s.Exec(context.Background(), "SHOW STATUS LIKE '"+name+"'")
	require.NoError(t, err)
	require.Len(t, res[0].Rows, 1, name)
	n, err := strconv.Atoi(fmt.Sprint(res[0].Rows[0][1]))
	require.NoError(t, err)
	return n
}

// TestHighlightResultBound: a highlighting value is refused before it is
// rendered when it would be over max_allowed_packet (long markers around
// many marks), in HIGHLIGHT(), SNIPPET() and CALL SNIPPETS; the same
// request with short markers is answered.
func TestHighlightResultBound(t *testing.T) {
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	e := NewEngine(db)
	e.SetListener(Listener{MaxAllowedPacket: 4096})
	s := e.NewSession("root")
	exec := func(stmt string) string { return render(s.Exec(context.Background(), stmt)) }
	text := strings.Repeat("a cat and a dog ", 40) // 40 marks of cat, 640 bytes
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (body text)"))
	require.Equal(t, "ok 1\n", exec("INSERT INTO t (id, body) VALUES (1, '"+text+"')"))
	long := strings.Repeat("x", 100)
	for _, q := range []string{
		"SELECT HIGHLIGHT({limit=0, before_match='" + long + "'}) FROM t WHERE MATCH('cat')",
		"SELECT SNIPPET(body, QUERY(), 'limit=0', 'after_match=" + long + "') FROM t WHERE MATCH('cat')",
		"CALL SNIPPETS(('dog', '" + text + "'), 't', 'cat', 0 AS limit, '" + long + "' AS before_match)",
	} {
		got := exec(q)
		require.Contains(t, got, "over max_allowed_packet (4096): shorter markers (before_match, after_match) or a limit would fit", q)
		require.True(t, strings.HasPrefix(got, "error WrongValue: "), got)
	}
	require.Contains(t, exec("CALL SNIPPETS(('dog', '"+text+"'), 't', 'cat', 0 AS limit, '"+long+"' AS before_match)"), "CALL SNIPPETS, text 2: the result would be about 4")
	// Short markers fit: 40 marks of 7 bytes more.
	got := exec("SELECT HIGHLIGHT({limit=0}) FROM t WHERE MATCH('cat')")
	require.Equal(t, 40, strings.Count(got, "<b>cat</b>"), got)
}
