package sql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
}

func (f *fakeRemote) Query(ctx context.Context, addr string, _ time.Duration, stmts ...string) ([]*Result, error) {
	f.mu.Lock()
	e, ok := f.engines[addr]
	down := f.down[addr]
	if f.asked == nil {
		f.asked = map[string]int{}
	}
	f.asked[addr]++
	f.mu.Unlock()
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
		out = append(out, r...)
	}
	return out, nil
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
	"SELECT * FROM {t} WHERE MATCH('delta -alpha') LIMIT 20 OPTION ranker=bm25",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('@title epsilon') OPTION field_weights=(title=5)",
	"SELECT id FROM {t} WHERE MATCH('nosuchword')",
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
}

var distWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}

// TestDistributedEqualsUnion: a distributed table over S shards (one
// local, the others agents) answers every query as one table holding the
// union of the shards does: rows (ids, order, WEIGHT(), HIGHLIGHT()),
// total_found and the keyword counts of SHOW META.
func TestDistributedEqualsUnion(t *testing.T) {
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			coord := newMemEngine(t)
			remote := &fakeRemote{engines: map[string]*Engine{}}
			coord.SetRemote(remote)
			s := coord.NewSession("root")
			const schema = "(title text, body text, price float)"
			require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE u "+schema))
			sessions := []*Session{s}
			ddl := "CREATE TABLE d type='distributed' local='p0'"
			require.Equal(t, "ok 0\n", exec(t, s, "CREATE TABLE p0 "+schema))
			for i := 1; i < shards; i++ {
				e := newMemEngine(t)
				addr := fmt.Sprintf("127.0.0.%d:9306", i+1)
				remote.engines[addr] = e
				rs := e.NewSession("root")
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
				values := fmt.Sprintf("(%d, '%s', '%s', %d.5)", id, words(3), words(12), rng.IntN(20))
				require.Equal(t, "ok 1\n", exec(t, s, "INSERT INTO u (id, title, body, price) VALUES "+values))
				p := rng.IntN(shards)
				require.Equal(t, "ok 1\n", exec(t, sessions[p], fmt.Sprintf("INSERT INTO p%d (id, title, body, price) VALUES %s", p, values)))
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
				require.Equal(t, want, got, dq)
				// A shard's warning names the distributed table.
				require.Equal(t, strings.ReplaceAll(wantWarnings, "table u", "table d"), gotWarnings, dq)
				if strings.Contains(q, "alph*") {
					require.Contains(t, gotWarnings, "wildcard 'alph*' searched as the word 'alph'")
				}
				require.Equal(t, wantMeta, gotMeta, dq)
				after := coord.stats.HighlightDocs.Load()
				for _, e := range remote.engines {
					after += e.stats.HighlightDocs.Load()
				}
				if strings.Contains(q, "HIGHLIGHT") {
					rows := strings.Count(got, "\n") - 1
					require.Equal(t, uint64(rows), after-before, "highlights of %s", dq)
				}
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
		e := newMemEngine(t)
		remote.engines[addr] = e
		rs := e.NewSession("root")
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
	require.Contains(t, exec(t, s, q+" OPTION strict_shards=1"), "error ShardFailed: distributed table 'd', agent '10.0.0.1:9306:p1|10.0.0.2:9306:p1': mirror")

	remote.down = map[string]bool{}
	require.Equal(t, "error NoSuchColumn: distributed table 'd', local 'p0': unknown column 'nosuch' in table 'p0'\n", exec(t, s, "SELECT nosuch FROM d"))
	require.Equal(t, "count(*):int\n2\n", exec(t, s, "SELECT COUNT(*) FROM d"))
	require.Equal(t, "error Unsupported: HAVING and DISTINCT over distributed table 'd' are not supported yet: query its shards (local 'p0', agent '10.0.0.1:9306:p1|10.0.0.2:9306:p1')\n", exec(t, s, "SELECT title, COUNT(*) FROM d GROUP BY title HAVING COUNT(*) > 1"))
	require.Equal(t, "error BadOption: OPTION global_idf applies to distributed tables\n", exec(t, s, "SELECT id FROM p0 OPTION global_idf=1"))

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
		{Table: "u", Query: &TextCond{Query: "alpha beta", Phrase: true}, Limit: 6, Source: SourceFilter{Includes: []string{"title"}},
			Highlight: &HighlightRequest{Options: []OptionValue{{Name: "limit", Value: int64(20)}}}},
	}
}
