package sql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// fakeRemote serves agents from in-process engines, by address.
type fakeRemote struct {
	mu      sync.Mutex
	engines map[string]*Engine
	down    map[string]bool
	asked   map[string]int
	// before, when set, runs before an agent runs stmts.
	before func(addr string, stmts []string)
	// noTokens drops the snapshot row of the agents' SHOW META, as a
	// shard that holds no snapshot for phase two would answer.
	noTokens bool
}

func (f *fakeRemote) Query(ctx context.Context, addr string, _ time.Duration, stmts ...string) ([]*Result, error) {
	f.mu.Lock()
	e, ok := f.engines[addr]
	down := f.down[addr]
	if f.asked == nil {
		f.asked = map[string]int{}
	}
	f.asked[addr]++
	before := f.before
	f.mu.Unlock()
	if before != nil {
		before(addr, stmts)
		f.mu.Lock()
		down = f.down[addr] // (before may have taken it down)
		f.mu.Unlock()
	}
	if !ok || down {
		return nil, errors.New("connection refused")
	}
	s := e.NewSession("root")
	var out []*Result
	for _, st := range stmts {
		r, err := s.Exec(ctx, st)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				n, _ := e.Code.MySQL()
				return nil, &AgentError{Number: n, Message: e.Msg}
			}
			return nil, err
		}
		if f.noTokens && st == "SHOW META" {
			kept := r[0].Rows[:0:0]
			for _, row := range r[0].Rows {
				if row[0] != "snapshot" {
					kept = append(kept, row)
				}
			}
			r[0].Rows = kept
		}
		out = append(out, r...)
	}
	return out, nil
}

// agent starts an in-process agent at addr and returns a session on it.
func (f *fakeRemote) agent(t *testing.T, addr string) *Session {
	e := newMemEngine(t)
	f.engines[addr] = e
	return e.NewSession("root")
}

func newMemEngine(t *testing.T) *Engine {
	t.Helper()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true).WithMergeFactor(-1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return NewEngine(db)
}

func exec(t *testing.T, s *Session, q string) string {
	t.Helper()
	return render(s.Exec(context.Background(), q))
}

// distQueries are the statements the property test runs on the union
// table and on the distributed one ({t} is the table).
var distQueries = []string{
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha')",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha beta') LIMIT 3, 5",
	"SELECT id, WEIGHT(), price FROM {t} WHERE MATCH('alpha | beta') AND price > 5 ORDER BY price DESC LIMIT 10",
	"SELECT id, title, HIGHLIGHT() FROM {t} WHERE MATCH('\"alpha beta\"') LIMIT 0, 7",
	"SELECT id, HIGHLIGHT({limit=20}, body) FROM {t} WHERE MATCH('gamma delta') LIMIT 2, 6",
	"SELECT id, HIGHLIGHT({}, title), HIGHLIGHT({}, body) FROM {t} WHERE MATCH('alpha') LIMIT 3, 4",
	"SELECT id FROM {t} ORDER BY id DESC LIMIT 5",
	"SELECT id, price * 2 AS p FROM {t} WHERE MATCH('gamma') ORDER BY p ASC LIMIT 4",
	"SELECT id, price*2, LENGTH(title), IF(price>5, 1, 0) FROM {t} WHERE MATCH('gamma') ORDER BY id ASC LIMIT 4", // (columns named as written)
	"SELECT cat, LENGTH(title), COUNT(*) FROM {t} GROUP BY cat ORDER BY cat ASC",
	"SELECT id, HIGHLIGHT() AS h FROM {t} WHERE MATCH('alpha') ORDER BY h ASC", // (an error, worded alike)
	"SELECT * FROM {t} WHERE MATCH('delta -alpha') LIMIT 20 OPTION ranker=bm25",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('@title epsilon') OPTION field_weights=(title=5)",
	"SELECT id FROM {t} WHERE MATCH('nosuchword')",
	"SELECT id FROM {t} WHERE MATCH('alpha') ORDER BY id ASC LIMIT 2, 100000001", // (past max_matches' range: each shard is asked for its most)
	"SELECT id FROM {t} WHERE MATCH('alpha') LIMIT 2147483647, 1",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha | gamma') OPTION max_matches=3", // (the default page cut to 3)
	"SELECT id FROM {t} WHERE MATCH('alph* beta')",
	"SELECT id, title FROM {t} WHERE MATCH('alpha') LIMIT 0",
	"SELECT price, COUNT(*) FROM {t} WHERE MATCH('alpha') GROUP BY price",
	"SELECT price, COUNT(*) AS c, SUM(price), MIN(price), MAX(price), AVG(price) FROM {t} WHERE MATCH('beta | gamma') GROUP BY price ORDER BY c DESC, price ASC LIMIT 2, 5",
	"SELECT COUNT(*), AVG(price), MIN(price) FROM {t} WHERE MATCH('alpha')",
	"SELECT COUNT(*), MAX(price) FROM {t} WHERE MATCH('nosuchword')",
	"SELECT COUNT(*) FROM {t}",
	"SELECT price AS p, COUNT(*) FROM {t} GROUP BY p ORDER BY p DESC LIMIT 3",
	"SELECT COUNT(*) FROM {t} WHERE MATCH('kappa') GROUP BY price ORDER BY COUNT(*) DESC",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha') LIMIT 3 FACET price ORDER BY FACET() ASC LIMIT 4 FACET price BY price",
	// HAVING, DISTINCT, COUNT(DISTINCT) and GROUP_CONCAT: merged by the
	// coordinator, or the same error as one table.
	"SELECT price, COUNT(*) AS c FROM {t} WHERE MATCH('alpha') GROUP BY price HAVING c > 1",
	"SELECT price, COUNT(*) FROM {t} GROUP BY price HAVING COUNT(*) >= 2 AND MAX(cat) < 4 ORDER BY price DESC LIMIT 1, 4",
	"SELECT cat, AVG(price) FROM {t} WHERE MATCH('beta') GROUP BY cat HAVING AVG(price) > 8 OR cat = 0",
	"SELECT COUNT(*) FROM {t} WHERE MATCH('gamma') HAVING COUNT(*) > 1000",
	"SELECT DISTINCT cat FROM {t} WHERE MATCH('delta')",
	"SELECT DISTINCT cat, price FROM {t} WHERE MATCH('alpha beta') ORDER BY price ASC, cat DESC LIMIT 2, 6",
	"SELECT DISTINCT * FROM {t}",
	"SELECT DISTINCT cat, COUNT(*) FROM {t} GROUP BY cat",
	"SELECT cat, COUNT(DISTINCT price), COUNT(*) FROM {t} WHERE MATCH('alpha') GROUP BY cat",
	"SELECT COUNT(DISTINCT cat), COUNT(DISTINCT price), SUM(price) FROM {t} WHERE MATCH('epsilon')",
	"SELECT COUNT(DISTINCT cat), COUNT(*), MAX(price) FROM {t} WHERE MATCH('nosuchword')",
	"SELECT cat, GROUP_CONCAT(id) FROM {t} WHERE MATCH('zeta') GROUP BY cat ORDER BY cat ASC",
	"SELECT GROUP_CONCAT(price SEPARATOR '|'), COUNT(*) FROM {t} WHERE MATCH('eta theta')",
	"SELECT cat, GROUP_CONCAT(id) AS ids, COUNT(DISTINCT price) AS d FROM {t} GROUP BY cat HAVING d > 3 ORDER BY d DESC, cat ASC",
	"SELECT price, COUNT(*) FROM {t} WHERE MATCH('iota') GROUP BY price HAVING price > 10 ORDER BY COUNT(*) DESC, price ASC",
	// WITHIN GROUP ORDER BY picks each group's best document, which orders
	// the groups without ORDER BY.
	"SELECT price, COUNT(*) FROM {t} GROUP BY price WITHIN GROUP ORDER BY cat ASC, id DESC LIMIT 6",
	"SELECT cat, COUNT(*) FROM {t} WHERE MATCH('alpha | beta') GROUP BY cat WITHIN GROUP ORDER BY price DESC",
	"SELECT cat, MAX(price) FROM {t} WHERE MATCH('beta | gamma') GROUP BY cat WITHIN GROUP ORDER BY WEIGHT() ASC, price ASC LIMIT 1, 3",
	"SELECT cat, GROUP_CONCAT(id), COUNT(DISTINCT price) FROM {t} WHERE MATCH('delta') GROUP BY cat WITHIN GROUP ORDER BY price ASC",
	"SELECT price, COUNT(*) FROM {t} GROUP BY price WITHIN GROUP ORDER BY cat ASC HAVING COUNT(*) > 1 ORDER BY price DESC",
	"SELECT cat, COUNT(*) FROM {t} GROUP BY cat WITHIN GROUP ORDER BY title ASC",
	// Columns of each group's best document: the shard's that holds it.
	"SELECT cat, id, price, COUNT(*) FROM {t} WHERE MATCH('alpha | delta') GROUP BY cat",
	"SELECT price, id, cat * 10 AS c FROM {t} GROUP BY price WITHIN GROUP ORDER BY cat DESC ORDER BY c ASC, price DESC LIMIT 2, 6",
	"SELECT cat, id, WEIGHT(), title FROM {t} WHERE MATCH('beta') GROUP BY cat WITHIN GROUP ORDER BY WEIGHT() ASC",
	"SELECT cat, id AS best, GROUP_CONCAT(id), COUNT(DISTINCT price) FROM {t} WHERE MATCH('gamma') GROUP BY cat WITHIN GROUP ORDER BY price DESC HAVING best > 10",
	"SELECT id, price, COUNT(*) FROM {t} WHERE MATCH('epsilon')",
	"SELECT id, COUNT(*) FROM {t} WHERE MATCH('nosuchword')",
	// A string key shows its best document's spelling, on one table and
	// through the shards.
	"SELECT label, COUNT(*) FROM {t} GROUP BY label",
	"SELECT label, id, COUNT(*) FROM {t} WHERE MATCH('alpha') GROUP BY label",
	"SELECT label, COUNT(*) FROM {t} WHERE MATCH('beta') GROUP BY label WITHIN GROUP ORDER BY price DESC",
}

var distLabels = []string{"Drama", "drama", "DRAMA", "comedy", "Comedy"}

var distWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}

// TestDistributedEqualsUnion: a distributed table over S shards (one
// local, the others agents) answers every query as one table holding the
// union of the shards does: rows (ids, order, WEIGHT(), HIGHLIGHT()),
// total_found and the keyword counts of SHOW META.
func TestDistributedEqualsUnion(t *testing.T) {
	for _, shards := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			coord := newMemEngine(t)
			remote := &fakeRemote{engines: map[string]*Engine{}}
			coord.SetRemote(remote)
			s := coord.NewSession("root")
			const schema = "(title text, body text, price float, cat int, label string)"
			require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE u "+schema))
			sessions := []*Session{s}
			ddl := "CREATE TABLE d type='distributed' local='p0'"
			require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 "+schema))
			for i := 1; i < shards; i++ {
				addr := fmt.Sprintf("127.0.0.%d:9306", i+1)
				rs := remote.agent(t, addr)
				require.Equal(t, "ok 0\n", exec(t, rs, fmt.Sprintf("CREATE TABLE p%d %s", i, schema)))
				sessions = append(sessions, rs)
				ddl += fmt.Sprintf(" agent='%s:p%d'", addr, i)
			}
			require.Equal(t, "ok 0\n", exec(t, s, ddl))
			rng := rand.New(rand.NewPCG(7, uint64(shards)))
			for id := 1; id <= 120; id++ {
				words := func(n int) string {
					w := make([]string, n)
					for i := range w {
						w[i] = distWords[rng.IntN(len(distWords))]
					}
					return strings.Join(w, " ")
				}
				// (label: spellings that the collation takes for one)
				label := distLabels[rng.IntN(len(distLabels))]
				values := fmt.Sprintf("(%d, '%s', '%s', %d.5, %d, '%s')", id, words(3), words(12), rng.IntN(20), rng.IntN(5), label)
				require.Equal(t, "ok 1\n", exec(t, s, "INSERT INTO u (id, title, body, price, cat, label) VALUES "+values))
				p := rng.IntN(shards)
				require.Equal(t, "ok 1\n", exec(t, sessions[p], fmt.Sprintf("INSERT INTO p%d (id, title, body, price, cat, label) VALUES %s", p, values)))
			}
			for i, req := range distSearches() {
				want, err := s.Search(context.Background(), req)
				require.NoError(t, err)
				dreq := *req
				dreq.Table, dreq.GlobalIDF = "d", true
				got, err := s.Search(context.Background(), &dreq)
				require.NoError(t, err)
				want.Took, got.Took = 0, 0
				for i, w := range want.Warnings {
					want.Warnings[i] = strings.ReplaceAll(w, "table u", "table d")
				}
				require.Equal(t, want, got, "search %d", i)
				require.NotEmpty(t, got.Hits, "search %d", i)
			}
			for _, q := range distQueries {
				want := exec(t, s, strings.ReplaceAll(q, "{t}", "u"))
				wantWarnings := exec(t, s, "SHOW WARNINGS")
				wantMeta := exec(t, s, "SHOW META")
				dq := strings.ReplaceAll(q, "{t}", "d")
				facet := ""
				if at := strings.Index(dq, " FACET "); at >= 0 {
					dq, facet = dq[:at], dq[at:]
				}
				if strings.Contains(dq, " OPTION ") {
					dq += ", global_idf=1"
				} else {
					dq += " OPTION global_idf=1"
				}
				dq += facet
				before := coord.stats.HighlightDocs.Load()
				for _, e := range remote.engines {
					before += e.stats.HighlightDocs.Load()
				}
				got := exec(t, s, dq)
				gotWarnings := exec(t, s, "SHOW WARNINGS")
				gotMeta := exec(t, s, "SHOW META")
				if code, msg, isErr := strings.Cut(want, ": "); isErr && strings.HasPrefix(code, "error ") {
					// The same error; a one-shard table's names the shard.
					require.True(t, strings.HasPrefix(got, code+": ") && strings.HasSuffix(got, ": "+msg) || got == want, "%s: %s", dq, got)
					continue
				}
				require.Equal(t, want, got, dq)
				// A shard's warning names the distributed table.
				require.Equal(t, strings.ReplaceAll(wantWarnings, "table u", "table d"), gotWarnings, dq)
				if strings.Contains(q, "alph*") {
					require.Contains(t, gotWarnings, "wildcard 'alph*' searched as the word 'alph'")
				}
				require.Equal(t, strings.ReplaceAll(wantMeta, "table u", "table d"), gotMeta, dq)
				after := coord.stats.HighlightDocs.Load()
				for _, e := range remote.engines {
					after += e.stats.HighlightDocs.Load()
				}
				if strings.Contains(q, "HIGHLIGHT") {
					rows := strings.Count(got, "\n") - 1
					require.Equal(t, uint64(rows), after-before, "highlights of %s", dq)
				}
			}
			if shards > 1 {
				return
			}
			// A one-shard table sends the statement whole, WITHIN GROUP
			// ORDER BY in its place: the columns of each group's best
			// document are the shard's.
			for _, q := range []string{
				"SELECT cat, id, price FROM {t} GROUP BY cat WITHIN GROUP ORDER BY price DESC, id ASC",
				"SELECT cat, id, WEIGHT() FROM {t} WHERE MATCH('alpha') GROUP BY cat WITHIN GROUP ORDER BY price ASC HAVING COUNT(*) > 2 ORDER BY cat DESC LIMIT 1, 3",
			} {
				want := exec(t, s, strings.ReplaceAll(q, "{t}", "u"))
				require.NotContains(t, want, "error", q)
				require.Equal(t, want, exec(t, s, strings.ReplaceAll(q, "{t}", "d")+" OPTION global_idf=1"), q)
			}
			// CALL KEYWORDS: the words as the shards read them, the
			// counts summed over them, as the union table counts them.
			for _, q := range []string{
				"CALL KEYWORDS('alpha beta-gamma nosuchword', '{t}')",
				"CALL KEYWORDS('Alpha delta delta', '{t}', 1)",
			} {
				want := exec(t, s, strings.ReplaceAll(q, "{t}", "u"))
				require.NotContains(t, want, "error", q)
				require.Equal(t, want, exec(t, s, strings.ReplaceAll(q, "{t}", "d")), q)
			}
		})
	}
}

// TestDistributedFailures: a dead mirror is skipped for the next mirror
// and then for a while; a shard with no live mirror is left out with a
// warning, or fails the query with OPTION strict_shards=1; a statement an
// agent rejects is an error naming the shard.
func TestDistributedFailures(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}, down: map[string]bool{}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 (title text)"))
	require.Equal(t, "ok 1\n", exec(t, s, "INSERT INTO p0 (id, title) VALUES (1, 'one word')"))
	for _, addr := range []string{"10.0.0.1:9306", "10.0.0.2:9306"} {
		rs := remote.agent(t, addr)
		require.Equal(t, "ok 0\n", exec(t, rs, "CREATE TABLE p1 (title text)"))
		require.Equal(t, "ok 1\n", exec(t, rs, "INSERT INTO p1 (id, title) VALUES (2, 'two word')"))
	}
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' agent='10.0.0.1:9306:p1|10.0.0.2:9306:p1' ha_strategy='roundrobin'"))
	const q = "SELECT id, title FROM d WHERE MATCH('word')"
	const both = "id:uint | title:str\n1 | one word\n2 | two word\n"
	remote.down["10.0.0.1:9306"] = true
	for range 4 {
		require.Equal(t, both, exec(t, s, q))
	}
	require.Equal(t, 1, remote.asked["10.0.0.1:9306"], "the dead mirror is asked once, then skipped")
	require.Equal(t, "Level:str | Code:int | Message:str\n", exec(t, s, "SHOW WARNINGS"))

	remote.down["10.0.0.2:9306"] = true
	require.Equal(t, "id:uint | title:str\n1 | one word\n", exec(t, s, q))
	require.Contains(t, exec(t, s, "SHOW WARNINGS"), "distributed table 'd': agent '10.0.0.1:9306:p1|10.0.0.2:9306:p1' did not answer and is left out of the result")
	// A FACET's searches each leave the shard out: the warning is told once,
	// and the shard that did not answer the first search is not asked by
	// the others (a hung one would make each wait its timeout).
	remote.mu.Lock()
	remote.asked = map[string]int{}
	remote.mu.Unlock()
	require.NotContains(t, exec(t, s, q+" FACET id FACET id ORDER BY FACET() ASC"), "error")
	w := exec(t, s, "SHOW WARNINGS")
	require.Equal(t, 1, strings.Count(w, "did not answer and is left out"), w)
	remote.mu.Lock()
	require.Equal(t, map[string]int{"10.0.0.1:9306": 1, "10.0.0.2:9306": 1}, remote.asked, "each mirror asked once, by the first search")
	remote.mu.Unlock()
	strict := exec(t, s, q+" OPTION strict_shards=1")
	require.Contains(t, strict, "error ShardFailed: distributed table 'd', agent '10.0.0.1:9306:p1|10.0.0.2:9306:p1': mirror")
	for _, m := range []string{"10.0.0.1:9306:p1", "10.0.0.2:9306:p1"} {
		require.Contains(t, strict, "mirror "+m+": connection refused", "each mirror's error is named")
	}

	remote.down = map[string]bool{}
	require.Equal(t, "error NoSuchColumn: distributed table 'd', local 'p0': unknown column 'nosuch' in table 'p0'\n", exec(t, s, "SELECT nosuch FROM d"))
	require.Equal(t, "count(*):int\n2\n", exec(t, s, "SELECT COUNT(*) FROM d"))
	require.Equal(t, "error WrongValue: distributed table 'd', local 'p0': GROUP BY 'title': a full-text field cannot be grouped by; group by attributes\n", exec(t, s, "SELECT title, COUNT(*) FROM d GROUP BY title HAVING COUNT(*) > 1"))
	require.Equal(t, "error Unsupported: HAVING over distributed table 'd': 'title' is not a select-list item, a GROUP BY key or an aggregate\n", exec(t, s, "SELECT COUNT(*) FROM d GROUP BY id HAVING title > 1"))
	require.Equal(t, "error Unsupported: sum(distinct id) over distributed table 'd': DISTINCT is supported in COUNT() only\n", exec(t, s, "SELECT SUM(DISTINCT id) FROM d"))
	for _, q := range []string{
		"SELECT id, HIGHLIGHT() FROM d WHERE MATCH('a') GROUP BY id",
		"SELECT id, SNIPPET(title, 'a') AS sn, COUNT(*) FROM d GROUP BY id",
		"SELECT id, SUM(id) + id AS x FROM d GROUP BY id",
	} {
		require.Contains(t, exec(t, s, q), "a grouped select list holds its GROUP BY keys, COUNT, COUNT(DISTINCT), SUM, MIN, MAX, AVG and GROUP_CONCAT, and columns of each group's best document without aggregates, HIGHLIGHT() or SNIPPET()", q)
	}
	require.Equal(t, "error BadOption: OPTION global_idf applies to distributed tables\n", exec(t, s, "SELECT id FROM p0 OPTION global_idf=1"))
	require.Equal(t, "error Unsupported: OPTION hold_snapshot is what a coordinator sends its shards, and table 'd' is distributed: an agent of a distributed table names a plain table on its server, not a distributed one (nor the distributed table itself)\n", exec(t, s, "SELECT id FROM d OPTION hold_snapshot=1"))
	require.Equal(t, "error WrongValue: cannot ORDER BY 'h': highlighting is computed after sorting and LIMIT\n",
		exec(t, s, "SELECT id, HIGHLIGHT() AS h FROM d WHERE MATCH('a') ORDER BY h ASC"), "worded as one table words it")
	for _, opt := range []string{"global_idf=1", "strict_shards=0", "agent_query_timeout=100"} {
		name := opt[:strings.IndexByte(opt, '=')]
		require.Equal(t, "error BadOption: OPTION "+name+" is given twice\n", exec(t, s, "SELECT id FROM d OPTION "+opt+", "+opt), opt)
	}

	// One shard: the statement goes to it whole, HAVING and all.
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE one type='distributed' agent='10.0.0.2:9306:p1'"))
	require.Equal(t, "c:int | group_concat(id):str\n1 | 2\n", exec(t, s, "SELECT COUNT(*) AS c, GROUP_CONCAT(id) FROM one WHERE MATCH('word') HAVING c > 0"))
	require.Equal(t, "Variable_name:str | Value:str\ntotal | 1\ntotal_found | 1\n", exec(t, s, "SHOW META LIKE 'total%'"))

	// An engine without a client for agents says so.
	alone := newMemEngine(t).NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, alone, "CREATE TABLE r type='distributed' agent='10.0.0.1:9306:p1'"))
	require.Equal(t, "error ShardFailed: distributed table 'r', agent '10.0.0.1:9306:p1': this server has no client for agents\n", exec(t, alone, "SELECT id FROM r"))
}

// distSearches are the JSON searches the property test runs (table u).
func distSearches() []*SearchRequest {
	return []*SearchRequest{
		{Table: "u", Query: &TextCond{Path: "query.match", Query: "alpha beta", AnyWord: true}, Offset: 2, Limit: 5,
			Highlight: &HighlightRequest{Fields: []HighlightField{{Name: "body"}}}},
		{Table: "u", Query: &BoolCond{Must: []Cond{&TextCond{Query: "gamma"}}, Filter: []Cond{&AttrCond{Column: "price", Op: AttrRange, Gt: int64(5)}}},
			Sort: []SortKey{{Column: "price", Desc: true}}, Limit: 10, Highlight: &HighlightRequest{}},
		{Table: "u", Sort: []SortKey{{Column: "id", Desc: true}}, Limit: 4, Source: SourceFilter{Includes: []string{"title"}}},
		{Table: "u", Query: &TextCond{Query: "alph* | gamma"}, Limit: 3},
		// The snippets as data (the offsets option) come through too.
		{Table: "u", Query: &TextCond{Query: "alpha beta"}, Limit: 4,
			Highlight: &HighlightRequest{Options: []OptionValue{{Name: "offsets", Value: true}, {Name: "limit", Value: int64(30)}}}},
		// An empty full-text query matches every document, beside others too.
		{Table: "u", Query: &TextCond{Query: ""}, Sort: []SortKey{{Column: "id"}}, Limit: 3},
		{Table: "u", Query: &BoolCond{Must: []Cond{&TextCond{Query: " "}, &TextCond{Query: "beta"}}}, Limit: 4},
		{Table: "u", Query: &TextCond{Query: "alpha | gamma"}, Limit: -1, MaxMatches: 3},
		{Table: "u", Query: &TextCond{Query: "alpha beta", Phrase: true}, Limit: 6, Source: SourceFilter{Includes: []string{"title"}},
			Highlight: &HighlightRequest{Options: []OptionValue{{Name: "limit", Value: int64(20)}}}},
	}
}

// TestDistributedChangedBetweenPhases: phase two reads the snapshot phase
// one searched on each shard, so a write in between (a row of the page
// deleted, changed so that it no longer matches, or changed) does not show
// in the page. A shard that holds no snapshot (no token in its SHOW META)
// is read as it is in phase two: a row of the page it no longer has is
// left out, with a warning naming the shard and SHOW STATUS
// distributed_rows_dropped counting it; a row changed and still matching
// shows as it is then, in phase one's place; total_found is phase one's.
func TestDistributedChangedBetweenPhases(t *testing.T) {
	coord := newMemEngine(t)
	agent := newMemEngine(t)
	const addr = "10.0.0.1:9306"
	remote := &fakeRemote{engines: map[string]*Engine{addr: agent}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	as := agent.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 (title text)"))
	require.Equal(t, "ok 2\n", exec(t, s, "INSERT INTO p0 (id, title) VALUES (1, 'one word'), (2, 'two word')"))
	require.Equal(t, "ok 0\n", exec(t, as, "CREATE TABLE p1 (title text)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' agent='"+addr+":p1'"))
	fill := func() {
		require.Equal(t, "ok 0\n", exec(t, as, "TRUNCATE TABLE p1"))
		require.Equal(t, "ok 3\n", exec(t, as, "INSERT INTO p1 (id, title) VALUES (3, 'three word'), (4, 'four word'), (5, 'five word')"))
	}
	// Between the phases (before the agent's second call): 4 deleted, 5
	// no longer matching, 3 changed.
	changeBetween := func() {
		fill()
		calls := 0
		remote.before = func(string, []string) {
			if calls++; calls == 2 {
				require.Equal(t, "ok 1\n", exec(t, as, "DELETE FROM p1 WHERE id = 4"))
				require.Equal(t, "ok 2\n", exec(t, as, "REPLACE INTO p1 (id, title) VALUES (5, 'five other'), (3, 'three word again')"))
			}
		}
	}
	const q = "SELECT id, title, HIGHLIGHT() FROM d WHERE MATCH('word') ORDER BY id ASC"
	search := func() []uint64 {
		resp, err := s.Search(context.Background(), &SearchRequest{Table: "d", Query: &TextCond{Query: "word"},
			Sort: []SortKey{{Column: "id"}}, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, 5, resp.Total)
		var ids []uint64
		for _, h := range resp.Hits {
			ids = append(ids, h.ID)
		}
		return ids
	}
	dropped := func() string { return exec(t, s, "SHOW STATUS LIKE 'distributed_rows_dropped'") }
	const noWarnings = "Level:str | Code:int | Message:str\n"

	// With the snapshot held: the page as phase one found it.
	changeBetween()
	require.Equal(t, "id:uint | title:str | highlight():str\n1 | one word | one <b>word</b>\n2 | two word | two <b>word</b>\n"+
		"3 | three word | three <b>word</b>\n4 | four word | four <b>word</b>\n5 | five word | five <b>word</b>\n", exec(t, s, q))
	require.Equal(t, noWarnings, exec(t, s, "SHOW WARNINGS"))
	changeBetween()
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, search())
	require.Equal(t, "Counter:str | Value:str\ndistributed_rows_dropped | 0\n", dropped())

	// A shard that holds none: read as it is in phase two.
	remote.noTokens = true
	const msg = "distributed table 'd': 2 row(s) of the page found on agent '" + addr + ":p1' were deleted or no longer matched there when fetched, and are left out"
	changeBetween()
	require.Equal(t, "id:uint | title:str | highlight():str\n1 | one word | one <b>word</b>\n2 | two word | two <b>word</b>\n"+
		"3 | three word again | three <b>word</b> again\n", exec(t, s, q))
	require.Equal(t, noWarnings+"Warning | 1105 | "+msg+"\n", exec(t, s, "SHOW WARNINGS"))
	require.Equal(t, "Variable_name:str | Value:str\ntotal | 5\ntotal_found | 5\n", exec(t, s, "SHOW META LIKE 'total%'"))
	require.Equal(t, "Counter:str | Value:str\ndistributed_rows_dropped | 2\n", dropped())
	changeBetween()
	require.Equal(t, []uint64{1, 2, 3}, search())
	require.Equal(t, "Counter:str | Value:str\ndistributed_rows_dropped | 4\n", dropped())
}

// TestNestedDistributed: an agent of a distributed table names a plain
// table. One that names a distributed table (another server's, or the
// table itself: a loop that would call itself until connections ran out)
// gets an error saying so, for every kind of shard statement: a search's
// phases, a grouped search, one shard's whole statement, phase zero of
// global IDF and a JSON search.
func TestNestedDistributed(t *testing.T) {
	coord := newMemEngine(t)
	agent := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{"10.0.0.1:9306": agent, "10.0.0.9:9306": coord}}
	coord.SetRemote(remote)
	agent.SetRemote(remote)
	s, as := coord.NewSession("root"), agent.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, as, "CREATE TABLE p (title text, n int)"))
	require.Equal(t, "ok 1\n", exec(t, as, "INSERT INTO p (id, title, n) VALUES (1, 'a word', 1)"))
	require.Equal(t, "ok 0\n", exec(t, as, "CREATE TABLE nest type='distributed' local='p'"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE q (title text, n int)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE two type='distributed' local='q' agent='10.0.0.1:9306:nest'"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE one type='distributed' agent='10.0.0.1:9306:nest'"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE self type='distributed' agent='10.0.0.9:9306:self'"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE self2 type='distributed' local='q' agent='10.0.0.9:9306:self2'"))
	const why = ", and table '%s' is distributed: an agent of a distributed table names a plain table on its server, not a distributed one (nor the distributed table itself)"
	for _, c := range []struct{ q, err string }{
		{"SELECT id FROM two WHERE MATCH('word')", "error Unsupported: distributed table 'two', agent '10.0.0.1:9306:nest': OPTION hold_snapshot is what a coordinator sends its shards" + fmt.Sprintf(why, "nest")},
		{"SELECT n, COUNT(*) FROM two GROUP BY n", "error Unsupported: distributed table 'two', agent '10.0.0.1:9306:nest': OPTION hold_snapshot is what a coordinator sends its shards" + fmt.Sprintf(why, "nest")},
		{"SELECT id FROM one", "error Unsupported: distributed table 'one', agent '10.0.0.1:9306:nest': OPTION hold_snapshot is what a coordinator sends its shards" + fmt.Sprintf(why, "nest")},
		{"SELECT id FROM two WHERE MATCH('word') OPTION global_idf=1", "error Unsupported: distributed table 'two', agent '10.0.0.1:9306:nest': CALL QUERY_STATS is what a coordinator sends its shards" + fmt.Sprintf(why, "nest")},
		{"SELECT id FROM self", "error Unsupported: distributed table 'self', agent '10.0.0.9:9306:self': OPTION hold_snapshot is what a coordinator sends its shards" + fmt.Sprintf(why, "self")},
		{"SELECT id FROM self2 WHERE MATCH('word')", "error Unsupported: distributed table 'self2', agent '10.0.0.9:9306:self2': OPTION hold_snapshot is what a coordinator sends its shards" + fmt.Sprintf(why, "self2")},
	} {
		require.Equal(t, c.err+"\n", exec(t, s, c.q), c.q)
	}
	for _, table := range []string{"two", "one", "self"} {
		_, err := s.Search(context.Background(), &SearchRequest{Table: table, Query: &TextCond{Query: "word"}, Limit: 5})
		require.ErrorContains(t, err, "a JSON search's shard request is what a coordinator sends its shards"+fmt.Sprintf(why, map[string]string{"two": "nest", "one": "nest", "self": "self"}[table]), table)
	}
}

// TestHoldOutlastsSlowShards: a shard that answered phase one holds its
// snapshot for as long as the coordinator may still wait for the slowest
// shard's phase one (every mirror, every round, the connection and the
// answer), and snapshotHold more for phase two to reach it: a shard slower
// than snapshotHold does not cost the others their snapshots (which failed
// the query before). Both the SQL and the JSON phase one ask for it.
func TestHoldOutlastsSlowShards(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	for _, addr := range []string{"10.0.0.1:9306", "10.0.0.2:9306", "10.0.0.3:9306"} {
		as := remote.agent(t, addr)
		require.Equal(t, "ok 0\n", exec(t, as, "CREATE TABLE p (title text)"))
		id := map[string]string{"1": "1", "2": "2", "3": "1"}[addr[7:8]] // (10.0.0.3 mirrors 10.0.0.1)
		require.Equal(t, "ok 1\n", exec(t, as, "INSERT INTO p (id, title) VALUES ("+id+", 'a word')"))
	}
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' agent='10.0.0.1:9306:p|10.0.0.3:9306:p' agent='10.0.0.2:9306:p' "+
		"agent_query_timeout='7000' agent_connect_timeout='500' agent_retry_count='1'"))
	var holds []string
	remote.before = func(_ string, stmts []string) {
		remote.mu.Lock()
		defer remote.mu.Unlock()
		for _, st := range stmts {
			if i := strings.Index(st, "hold_snapshot="); i >= 0 {
				holds = append(holds, strings.TrimRight(st[i:], ",)"))
			} else if i := strings.Index(st, `"HoldSnapshot":`); i >= 0 {
				holds = append(holds, st[i:i+strings.IndexAny(st[i:], ",}")])
			}
		}
	}
	// 2 rounds x 2 mirrors x (0.5 s + 7 s), then 5 s.
	require.Equal(t, "id:uint\n1\n2\n", exec(t, s, "SELECT id FROM d WHERE MATCH('word') ORDER BY id ASC"))
	require.Equal(t, []string{"hold_snapshot=35000", "hold_snapshot=35000"}, holds)
	holds = nil
	require.Equal(t, "id:uint\n1\n2\n", exec(t, s, "SELECT id FROM d WHERE MATCH('word') ORDER BY id ASC OPTION agent_query_timeout=1000"))
	require.Equal(t, []string{"hold_snapshot=11000", "hold_snapshot=11000"}, holds)
	holds = nil
	resp, err := s.Search(context.Background(), &SearchRequest{Table: "d", Query: &TextCond{Query: "word"}, Limit: 10})
	require.NoError(t, err)
	require.Equal(t, 2, resp.Total)
	require.Equal(t, []string{`"HoldSnapshot":35000000000`, `"HoldSnapshot":35000000000`}, holds)

	d := &distTable{queryTimeout: time.Hour, connectTimeout: time.Second}
	require.Equal(t, time.Hour, d.holdFor(time.Hour), "at most maxHoldMillis")
}

// TestHeldSnapshots: OPTION hold_snapshot=1 holds the snapshot a search
// read and SHOW META gives its token; OPTION snapshot='token' reads it,
// once, on the same table, within snapshotHold.
func TestHeldSnapshots(t *testing.T) {
	s := newMemEngine(t).NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE t (title text, n int)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE other (title text)"))
	require.Equal(t, "ok 2\n", exec(t, s, "INSERT INTO t (id, title, n) VALUES (1, 'a word', 1), (2, 'b word', 2)"))
	require.Equal(t, "id:uint\n1\n2\n", exec(t, s, "SELECT id FROM t WHERE MATCH('word') OPTION hold_snapshot=1"))
	meta := exec(t, s, "SHOW META LIKE 'snapshot'")
	token := strings.TrimSuffix(strings.TrimPrefix(meta, "Variable_name:str | Value:str\nsnapshot | "), "\n")
	require.Len(t, token, 32, meta)
	require.Equal(t, "ok 1\n", exec(t, s, "DELETE FROM t WHERE id = 2"))
	require.Equal(t, "ok 1\n", exec(t, s, "REPLACE INTO t (id, title, n) VALUES (1, 'a changed word', 10)"))
	require.Equal(t, "error BadOption: OPTION snapshot: table 'other' holds no snapshot with this token (a snapshot is held for the time OPTION hold_snapshot gave, at least 5s, for one statement)\n",
		exec(t, s, "SELECT id FROM other OPTION snapshot='"+token+"'"))
	require.Equal(t, "id:uint | title:str | n:int | count(*):int\n1 | a word | 1 | 2\n",
		exec(t, s, "SELECT id, title, n, COUNT(*) FROM t WHERE MATCH('word') OPTION snapshot='"+token+"'"))
	require.Equal(t, "error BadOption: OPTION snapshot: table 't' holds no snapshot with this token (a snapshot is held for the time OPTION hold_snapshot gave, at least 5s, for one statement)\n",
		exec(t, s, "SELECT id FROM t OPTION snapshot='"+token+"'"), "taken once")
	require.Equal(t, "id:uint | title:str | n:int\n1 | a changed word | 10\n", exec(t, s, "SELECT id, title, n FROM t"))
	require.Equal(t, "error BadOption: OPTION snapshot takes the token, quoted, that SHOW META gave after OPTION hold_snapshot\n", exec(t, s, "SELECT id FROM t OPTION snapshot=1"))
	for _, bad := range []string{"-1", "3600001", "'x'", "1.5"} {
		require.Equal(t, "error BadOption: OPTION hold_snapshot takes 0 (none) or how many milliseconds to hold the snapshot, at most 3600000 (under 5000, it is held 5000 ms)\n",
			exec(t, s, "SELECT id FROM t OPTION hold_snapshot="+bad), bad)
	}
	require.Equal(t, "id:uint\n1\n", exec(t, s, "SELECT id FROM t OPTION hold_snapshot=0"))
	require.Equal(t, "Variable_name:str | Value:str\n", exec(t, s, "SHOW META LIKE 'snapshot'"))

	// Held for snapshotHold (or the longer time asked), then gone.
	var h heldSnapshots
	tb, err := s.engine.db.Table("t")
	require.NoError(t, err)
	now := time.Now()
	tok, err := h.hold(tb, tb.Snapshot(), now, time.Millisecond)
	require.NoError(t, err)
	_, _, ok := h.take(tok, tb, now.Add(snapshotHold+time.Millisecond))
	require.False(t, ok)
	require.Empty(t, h.m, "swept")
	tok, err = h.hold(tb, tb.Snapshot(), now, 20*time.Second)
	require.NoError(t, err)
	_, _, ok = h.take(tok, tb, now.Add(20*time.Second))
	require.True(t, ok, "held as long as asked")
	tok, err = h.hold(tb, tb.Snapshot(), now, snapshotHold)
	require.NoError(t, err)
	snap, _, ok := h.take(tok, tb, now.Add(snapshotHold))
	require.True(t, ok)
	require.Equal(t, 1, snap.Count())

	// Past maxHeldSnapshots, a snapshot is not held (and the search says
	// so); expired ones make room.
	for range maxHeldSnapshots {
		_, err := h.hold(tb, tb.Snapshot(), now, snapshotHold)
		require.NoError(t, err)
	}
	tok, err = h.hold(tb, tb.Snapshot(), now, snapshotHold)
	require.NoError(t, err)
	require.Empty(t, tok)
	tok, err = h.hold(tb, tb.Snapshot(), now.Add(snapshotHold+time.Millisecond), snapshotHold)
	require.NoError(t, err)
	require.Len(t, tok, 32)
	require.Len(t, h.m, 1)
	// The server's own, full: held a minute ahead, so that none expires
	// while the table fills, however slow the machine.
	later := time.Now().Add(time.Minute)
	s.engine.held.m = nil
	for range maxHeldSnapshots {
		_, err := s.engine.held.hold(tb, tb.Snapshot(), later, snapshotHold)
		require.NoError(t, err)
	}
	require.Equal(t, "id:uint\n1\n", exec(t, s, "SELECT id FROM t OPTION hold_snapshot=1"))
	require.Equal(t, "Level:str | Code:int | Message:str\nWarning | 1105 | OPTION hold_snapshot: 100000 snapshots are held already; this one is not, and the fetch reads table 't' as it is then\n",
		exec(t, s, "SHOW WARNINGS"))
	require.Equal(t, "Variable_name:str | Value:str\n", exec(t, s, "SHOW META LIKE 'snapshot'"))
}

// TestDistributedSnippets: CALL SNIPPETS of a distributed table highlights
// inline texts on one shard (the local one), shares load_files out over the
// shards (file i on shard i mod S, under each one's snippets_file_prefix),
// and asks every shard for every file with load_files_scattered, taking
// the snippet of the shard that has it.
func TestDistributedSnippets(t *testing.T) {
	files := func(e *Engine, names ...string) {
		dir := t.TempDir()
		for _, n := range names {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("the text of "+n+" with a word"), 0o644))
		}
		require.NoError(t, e.SetSnippetsFilePrefix(dir))
	}
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}, down: map[string]bool{}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 (title text)"))
	files(coord, "f0", "f3")
	for i, addr := range []string{"10.0.0.1:9306", "10.0.0.2:9306"} {
		require.Equal(t, "ok 0\n", exec(t, remote.agent(t, addr), fmt.Sprintf("CREATE TABLE p%d (title text)", i+1)))
	}
	files(remote.engines["10.0.0.1:9306"], "f1", "f4")
	files(remote.engines["10.0.0.2:9306"], "f2")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' agent='10.0.0.1:9306:p1' agent='10.0.0.2:9306:p2'"))
	snippet := func(n string) string { return "the text of " + n + " with a <b>word</b>" }

	require.Equal(t, "snippet:str\none <b>word</b>\ntwo\n", exec(t, s, "CALL SNIPPETS(('one word', 'two'), 'd', 'word')"))
	require.Equal(t, "snippet:str\n"+snippet("f0")+"\n"+snippet("f1")+"\n"+snippet("f2")+"\n"+snippet("f3")+"\n"+snippet("f4")+"\n",
		exec(t, s, "CALL SNIPPETS(('f0', 'f1', 'f2', 'f3', 'f4'), 'd', 'word', 1 AS load_files)"))
	require.Equal(t, "error WrongValue: distributed table 'd', local 'p0': CALL SNIPPETS: file 'f1' does not exist under snippets_file_prefix\n",
		exec(t, s, "CALL SNIPPETS(('f1', 'f0'), 'd', 'word', 1 AS load_files)"))
	require.Equal(t, "snippet:str\n"+snippet("f4")+"\n(empty string)\n"+snippet("f2")+"\n"+snippet("f0")+"\n",
		exec(t, s, "CALL SNIPPETS(('f4', 'nofile', 'f2', 'f0'), 'd', 'word', 1 AS load_files_scattered, 100 AS limit)"))
	require.Equal(t, "error BadOption: CALL SNIPPETS: highlight option 'nosuch': unknown option\n", exec(t, s, "CALL SNIPPETS('f0', 'd', 'word', 1 AS nosuch)"))

	// A shard that cannot be reached: left out with load_files_scattered,
	// an error with load_files.
	remote.down["10.0.0.2:9306"] = true
	require.Equal(t, "snippet:str\n"+snippet("f4")+"\n(empty string)\n",
		exec(t, s, "CALL SNIPPETS(('f4', 'f2'), 'd', 'word', 1 AS load_files_scattered)"))
	require.Contains(t, exec(t, s, "SHOW WARNINGS"), "agent '10.0.0.2:9306:p2' did not answer and is left out of the result")
	require.Contains(t, exec(t, s, "CALL SNIPPETS(('f0', 'f1', 'f2'), 'd', 'word', 1 AS load_files)"),
		"error ShardFailed: distributed table 'd', agent '10.0.0.2:9306:p2': mirror 10.0.0.2:9306:p2: connection refused")

	// Texts given inline, with no local shard: the first agent highlights
	// them, or the next when it cannot be reached (with a warning).
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE r type='distributed' agent='10.0.0.2:9306:p2' agent='10.0.0.1:9306:p1'"))
	require.Equal(t, "snippet:str\none <b>word</b>\ntwo\n", exec(t, s, "CALL SNIPPETS(('one word', 'two'), 'r', 'word')"))
	require.Contains(t, exec(t, s, "SHOW WARNINGS"), "distributed table 'r': agent '10.0.0.2:9306:p2' did not answer and is left out of the result")
	remote.down["10.0.0.1:9306"] = true
	require.Equal(t, "error ShardFailed: CALL SNIPPETS over distributed table 'r': no shard answered: "+
		"distributed table 'r': agent '10.0.0.2:9306:p2' did not answer and is left out of the result: mirror 10.0.0.2:9306:p2: connection refused; "+
		"distributed table 'r': agent '10.0.0.1:9306:p1' did not answer and is left out of the result: mirror 10.0.0.1:9306:p1: connection refused\n",
		exec(t, s, "CALL SNIPPETS(('one word', 'two'), 'r', 'word')"))
}

// TestDistributedGroupConcatOrder: GROUP_CONCAT over shards joins the
// values in id order, which is one table's order whatever order the
// documents were written in.
// twoShards makes a distributed table d of a local table p0 and an agent's
// p1, both of the given columns, and returns a session of the coordinator
// and one of the agent.
func twoShards(t *testing.T, columns string) (s, as *Session) {
	t.Helper()
	coord := newMemEngine(t)
	const addr = "10.0.0.1:9306"
	remote := &fakeRemote{engines: map[string]*Engine{addr: newMemEngine(t)}}
	coord.SetRemote(remote)
	s, as = coord.NewSession("root"), remote.engines[addr].NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 "+columns))
	require.Equal(t, "ok 0\n", exec(t, as, "CREATE TABLE p1 "+columns))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' agent='"+addr+":p1'"))
	return s, as
}

func TestDistributedGroupConcatOrder(t *testing.T) {
	s, as := twoShards(t, "(title text, g int, name string)")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE u (title text, g int, name string)"))
	for i, id := range []int{9, 3, 7, 1, 8, 2, 3, 5} { // 3 written twice
		row := fmt.Sprintf("(%d, 'word', %d, 'n%d')", id, id%2, i)
		require.Equal(t, "ok 1\n", exec(t, s, "REPLACE INTO u (id, title, g, name) VALUES "+row))
		shard, table := s, "p0"
		if id%3 == 0 {
			shard, table = as, "p1"
		}
		require.Equal(t, "ok 1\n", exec(t, shard, "REPLACE INTO "+table+" (id, title, g, name) VALUES "+row))
	}
	for q, ids := range map[string]string{
		"SELECT g, GROUP_CONCAT(id), GROUP_CONCAT(name SEPARATOR '/') FROM {t} GROUP BY g ORDER BY g ASC": "1,3,5,7,9",
		"SELECT GROUP_CONCAT(id) FROM {t} WHERE MATCH('word')":                                            "1,2,3,5,7,8,9",
	} {
		want := exec(t, s, strings.ReplaceAll(q, "{t}", "u"))
		require.Equal(t, want, exec(t, s, strings.ReplaceAll(q, "{t}", "d")), q)
		require.Contains(t, want, ids, "id order")
	}
}

// TestHeldPage: a search that holds its snapshot keeps its page's matches,
// and a search of that snapshot with the same MATCH() and ranking options,
// limited to ids of that page, takes them instead of searching again; any
// other search of it searches.
func TestHeldPage(t *testing.T) {
	s := newMemEngine(t).NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE t (title text)"))
	require.Equal(t, "ok 6\n", exec(t, s, "INSERT INTO t (id, title) VALUES (1, 'word'), (2, 'word word'), (3, 'word other'), "+
		"(4, 'word word word'), (5, 'other'), (6, 'word and more')"))
	hold := func(q string) string {
		t.Helper()
		exec(t, s, q)
		meta := exec(t, s, "SHOW META LIKE 'snapshot'")
		token := strings.TrimSuffix(strings.TrimPrefix(meta, "Variable_name:str | Value:str\nsnapshot | "), "\n")
		require.Len(t, token, 32, meta)
		return token
	}
	page := func(token string) *heldPage {
		s.engine.held.mu.Lock()
		defer s.engine.held.mu.Unlock()
		return s.engine.held.m[token].page
	}
	// The page is kept in id order, with the weights the search gave.
	token := hold("SELECT id, WEIGHT() FROM t WHERE MATCH('word') ORDER BY WEIGHT() DESC, id ASC LIMIT 0, 3 OPTION hold_snapshot=1, ranker=wordcount")
	hp := page(token)
	require.NotNil(t, hp)
	require.Equal(t, []uint64{1, 2, 4}, hp.ids)
	var weights []int64
	for _, m := range hp.matches {
		weights = append(weights, m.Weight)
	}
	require.Equal(t, []int64{1, 2, 3}, weights)

	// Taken: a kept weight changed here shows in the fetch, which did not
	// search again.
	hp.matches[1].Weight = 99
	require.Equal(t, "id:uint | weight():int | highlight():str\n2 | 99 | <b>word word</b>\n4 | 3 | <b>word word word</b>\n",
		exec(t, s, "SELECT id, WEIGHT(), HIGHLIGHT() FROM t WHERE (MATCH('word')) AND id IN (4, 2) LIMIT 0, 2 OPTION ranker=wordcount, snapshot='"+token+"'"))

	// Not taken: each of these searches, so the changed weight is not seen.
	for _, c := range []struct{ name, held, fetch, want string }{
		{"an id not in the page",
			"SELECT id FROM t WHERE MATCH('word') LIMIT 0, 3 OPTION hold_snapshot=1, ranker=wordcount",
			"SELECT id, WEIGHT() FROM t WHERE (MATCH('word')) AND id IN (2, 6) LIMIT 0, 2 OPTION ranker=wordcount, snapshot='%s'",
			"id:uint | weight():int\n2 | 2\n6 | 1\n"},
		{"another query",
			"SELECT id FROM t WHERE MATCH('word') LIMIT 0, 3 OPTION hold_snapshot=1, ranker=wordcount",
			"SELECT id, WEIGHT() FROM t WHERE (MATCH('word | other')) AND id IN (2) LIMIT 0, 1 OPTION ranker=wordcount, snapshot='%s'",
			"id:uint | weight():int\n2 | 2\n"},
		{"another ranker",
			"SELECT id FROM t WHERE MATCH('word') LIMIT 0, 3 OPTION hold_snapshot=1, ranker=wordcount",
			"SELECT id, WEIGHT() FROM t WHERE (MATCH('word')) AND id IN (2) LIMIT 0, 1 OPTION ranker=none, snapshot='%s'",
			"id:uint | weight():int\n2 | 1\n"},
		{"MATCH() under OR",
			"SELECT id FROM t WHERE MATCH('word') LIMIT 0, 3 OPTION hold_snapshot=1, ranker=wordcount",
			"SELECT id, WEIGHT() FROM t WHERE (MATCH('word') OR id = 5) AND id IN (2) LIMIT 0, 1 OPTION ranker=wordcount, snapshot='%s'",
			"id:uint | weight():int\n2 | 2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := hold(c.held)
			hp := page(token)
			require.NotNil(t, hp)
			for i := range hp.matches {
				hp.matches[i].Weight = 99
			}
			require.Equal(t, c.want, exec(t, s, fmt.Sprintf(c.fetch, token)))
		})
	}

	// A search whose MATCH() is not required of every row keeps no page.
	token = hold("SELECT id FROM t WHERE MATCH('word') OR id = 5 LIMIT 0, 3 OPTION hold_snapshot=1")
	require.Nil(t, page(token))

	// Nor does one whose page is longer than maxKeptPage rows.
	var vals []string
	for id := 7; id <= maxKeptPage+7; id++ {
		vals = append(vals, fmt.Sprintf("(%d, 'word')", id))
	}
	require.Equal(t, fmt.Sprintf("ok %d\n", maxKeptPage+1), exec(t, s, "INSERT INTO t (id, title) VALUES "+strings.Join(vals, ", ")))
	token = hold(fmt.Sprintf("SELECT id FROM t WHERE MATCH('word') LIMIT 0, %d OPTION hold_snapshot=1", maxKeptPage+1))
	require.Nil(t, page(token))
	token = hold(fmt.Sprintf("SELECT id FROM t WHERE MATCH('word') LIMIT 0, %d OPTION hold_snapshot=1", maxKeptPage))
	require.NotNil(t, page(token))
}

// TestDistributedCutoff: OPTION cutoff stops each shard's search, as it
// stops a local table's; the rows chosen are then fetched whatever the
// cutoff, and SHOW META counts what the shards found.
func TestDistributedCutoff(t *testing.T) {
	s, as := twoShards(t, "(title text)")
	require.Equal(t, "ok 3\n", exec(t, s, "INSERT INTO p0 (id, title) VALUES (1, 'word'), (3, 'word'), (5, 'word')"))
	require.Equal(t, "ok 3\n", exec(t, as, "INSERT INTO p1 (id, title) VALUES (2, 'word'), (4, 'word'), (6, 'word')"))
	got := exec(t, s, "SELECT id FROM d WHERE MATCH('word') ORDER BY id ASC OPTION cutoff=2")
	require.Equal(t, 5, strings.Count(got, "\n"), "a header and two rows of each shard: %s", got)
	require.Contains(t, exec(t, s, "SHOW META LIKE 'total_found'"), "total_found | 4")
	require.Equal(t, exec(t, s, "SELECT id FROM d WHERE MATCH('word') ORDER BY id ASC"),
		exec(t, s, "SELECT id FROM d WHERE MATCH('word') ORDER BY id ASC OPTION cutoff=0"))
	require.Contains(t, exec(t, s, "SELECT id FROM d WHERE MATCH('word') OPTION cutoff=-2"), "OPTION cutoff takes an integer")
}

// TestShardLostBetweenPhases: a shard whose mirror answers phase one and
// then goes down is left out as if it had been down from the start: the
// page is cut again from the other shards (the rows that come into it
// fetched), total_found loses its share, and a warning says so, in SQL
// and in JSON.
func TestShardLostBetweenPhases(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}, down: map[string]bool{}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 (title text)"))
	require.Equal(t, "ok 3\n", exec(t, s, "INSERT INTO p0 (id, title) VALUES (1, 'word'), (4, 'word'), (7, 'word')"))
	for k, addr := range []string{"10.0.0.1:9306", "10.0.0.2:9306"} {
		rs := remote.agent(t, addr)
		require.Equal(t, "ok 0\n", exec(t, rs, "CREATE TABLE p1 (title text)"))
		require.Equal(t, "ok 3\n", exec(t, rs, fmt.Sprintf("INSERT INTO p1 (id, title) VALUES (%d, 'word'), (%d, 'word'), (%d, 'word')", 2+k, 5+k, 8+k)))
	}
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' agent='10.0.0.1:9306:p1' agent='10.0.0.2:9306:p1'"))
	// The second agent goes down after its first call (phase one).
	downAfterOne := func() {
		calls := 0
		remote.down = map[string]bool{}
		remote.before = func(addr string, _ []string) {
			if addr == "10.0.0.2:9306" {
				if calls++; calls == 1 {
					return
				}
				remote.mu.Lock()
				remote.down[addr] = true
				remote.mu.Unlock()
			}
		}
	}
	downAfterOne()
	require.Equal(t, "id:uint | title:str\n1 | word\n2 | word\n4 | word\n5 | word\n7 | word\n", exec(t, s, "SELECT id, title FROM d WHERE MATCH('word') ORDER BY id ASC LIMIT 5"))
	require.Contains(t, exec(t, s, "SHOW WARNINGS"), "distributed table 'd': agent '10.0.0.2:9306:p1' did not answer and is left out of the result")
	require.Equal(t, "Variable_name:str | Value:str\ntotal | 6\ntotal_found | 6\n", exec(t, s, "SHOW META LIKE 'total%'"))

	downAfterOne()
	resp, err := s.Search(context.Background(), &SearchRequest{Table: "d", Query: &TextCond{Query: "word"},
		Sort: []SortKey{{Column: "id"}}, Limit: 5})
	require.NoError(t, err)
	var ids []uint64
	for _, h := range resp.Hits {
		ids = append(ids, h.ID)
	}
	require.Equal(t, []uint64{1, 2, 4, 5, 7}, ids)
	require.Equal(t, 6, resp.Total)
	require.Len(t, resp.Warnings, 1)
	require.Contains(t, resp.Warnings[0], "agent '10.0.0.2:9306:p1' did not answer and is left out of the result")
}

// TestAllShardsDownAggregate: with every shard down, an aggregate without
// GROUP BY still answers its one row over nothing (a count of 0, NULL for
// the rest), as one table does when nothing matches, with the warnings.
func TestAllShardsDownAggregate(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}, down: map[string]bool{"10.0.0.1:9306": true, "10.0.0.2:9306": true}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' agent='10.0.0.1:9306:p1' agent='10.0.0.2:9306:p2'"))
	require.Equal(t, "count(*):int | max(n):str\n0 | NULL\n", exec(t, s, "SELECT COUNT(*), MAX(n) FROM d"))
	require.Contains(t, exec(t, s, "SHOW WARNINGS"), "agent '10.0.0.2:9306:p2' did not answer and is left out of the result")
	require.Equal(t, "n:str | count(*):int\n", exec(t, s, "SELECT n, COUNT(*) FROM d GROUP BY n"))
	// Rows of documents: none, under the columns the select list names
	// (their types are the shards' to tell: text; id and WEIGHT() as
	// always), one shard or several.
	require.Equal(t, "id:uint | title:str | h:str | y:str | weight():int\n",
		exec(t, s, "SELECT id, title, HIGHLIGHT() AS h, year+1 AS y, WEIGHT() FROM d WHERE MATCH('whale') LIMIT 2"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE one type='distributed' agent='10.0.0.1:9306:p1'"))
	require.Equal(t, "id:uint | title:str\n", exec(t, s, "SELECT id, title FROM one WHERE MATCH('whale')"))
	require.Equal(t, "id:uint\n", exec(t, s, "SELECT * FROM d"))
	// CALL KEYWORDS that no shard answers says why each did not.
	require.Contains(t, exec(t, s, "CALL KEYWORDS('whale', 'd', 1)"),
		"CALL KEYWORDS on distributed table 'd': no shard answered: distributed table 'd': agent '10.0.0.1:9306:p1' did not answer")
}

// TestMirrorErrorNamesMirror: a statement error from one mirror of a
// mirrored agent names that mirror (another may hold the table).
func TestMirrorErrorNamesMirror(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{"10.0.0.1:9306": newMemEngine(t), "10.0.0.2:9306": newMemEngine(t)}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, remote.engines["10.0.0.1:9306"].NewSession("root"), "CREATE TABLE p1 (title text)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' agent='10.0.0.2:9306:p1|10.0.0.1:9306:p1' ha_strategy='roundrobin'"))
	var got []string
	for range 4 {
		got = append(got, exec(t, s, "SELECT id FROM d"))
	}
	require.Contains(t, got, "error NoSuchTable: distributed table 'd', agent '10.0.0.2:9306:p1|10.0.0.1:9306:p1': mirror 10.0.0.2:9306:p1: unknown table 'p1'\n")
	require.Contains(t, got, "id:uint\n")
}

// A JSON search of a distributed table refuses a page past max_matches with
// the error one table gives, naming the member.
func TestDistributedSearchMaxMatchesError(t *testing.T) {
	e := newMemEngine(t)
	s := e.NewSession("root")
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 (title text)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p1 (title text)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' local='p0' local='p1'"))
	var msgs []string
	for _, table := range []string{"p0", "d"} {
		_, err := s.Search(context.Background(), &SearchRequest{Table: table, Query: &TextCond{Query: "whale"}, Limit: 3, MaxMatches: 2, MaxMatchesPath: "max_matches"})
		require.Error(t, err, table)
		msgs = append(msgs, err.Error())
	}
	require.Equal(t, "max_matches: offset+limit (3) exceeds max_matches (2)", msgs[0])
	require.Equal(t, msgs[0], msgs[1])
}

// TestDistributedFacetMetaTime: SHOW META's time after a FACET on a
// distributed table is the whole statement's, its facets' rounds included
// (it was the main SELECT's alone).
func TestDistributedFacetMetaTime(t *testing.T) {
	coord := newMemEngine(t)
	remote := &fakeRemote{engines: map[string]*Engine{}, down: map[string]bool{}}
	coord.SetRemote(remote)
	s := coord.NewSession("root")
	rs := remote.agent(t, "10.0.0.1:9306")
	require.Equal(t, "ok 0\n", exec(t, rs, "CREATE TABLE p1 (title text, price int)"))
	require.Equal(t, "ok 1\n", exec(t, rs, "INSERT INTO p1 (id, title, price) VALUES (1, 'one word', 5)"))
	require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE d type='distributed' agent='10.0.0.1:9306:p1'"))
	const pause = 30 * time.Millisecond
	remote.mu.Lock()
	remote.before = func(string, []string) { time.Sleep(pause) }
	remote.mu.Unlock()
	require.NotContains(t, exec(t, s, "SELECT id FROM d WHERE MATCH('word') FACET price FACET price"), "error")
	rows, err := s.Exec(context.Background(), "SHOW META")
	require.NoError(t, err)
	var took float64
	for _, r := range rows[0].Rows {
		if r[0] == "time" {
			took, err = strconv.ParseFloat(fmt.Sprint(r[1]), 64)
			require.NoError(t, err)
		}
	}
	// Three searches, each a round of the agent at least (the main one's
	// time alone was one pause).
	require.GreaterOrEqual(t, took, (3 * pause).Seconds(), "SHOW META time %v", took)
}
