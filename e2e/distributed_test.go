package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glint-search/glint/e2e/daemon"
	"github.com/stretchr/testify/require"
)

// onHost makes StartServer listen on another loopback address (Linux
// routes all of 127.0.0.0/8 to lo), as a server on another machine would.
func onHost(ip string) Option {
	return func(o *daemon.Options) {
		o.MySQLListen = ip + ":0"
		o.HTTPListen = ip + ":0"
	}
}

// distQueries are the statements TestDistributedEqualsUnion runs on the
// union table and on each distributed table ({t} is the table).
var distQueries = []string{
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha')",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('alpha beta') LIMIT 3, 5",
	"SELECT id, WEIGHT(), price FROM {t} WHERE MATCH('alpha | beta') AND price > 5 ORDER BY price DESC LIMIT 10",
	"SELECT id, title, HIGHLIGHT() FROM {t} WHERE MATCH('\"alpha beta\"') LIMIT 0, 7",
	"SELECT id, HIGHLIGHT({limit=20}, body) FROM {t} WHERE MATCH('gamma delta') LIMIT 2, 6",
	"SELECT id, SNIPPET(body, QUERY()) FROM {t} WHERE MATCH('kappa iota') LIMIT 5",
	"SELECT id, HIGHLIGHT({}, title), HIGHLIGHT({}, body) FROM {t} WHERE MATCH('alpha') LIMIT 3, 4",
	"SELECT id FROM {t} ORDER BY id DESC LIMIT 5",
	"SELECT id, price * 2 AS p FROM {t} WHERE MATCH('gamma') ORDER BY p ASC LIMIT 4",
	"SELECT * FROM {t} WHERE MATCH('delta -alpha') LIMIT 20 OPTION ranker=bm25",
	"SELECT id, WEIGHT() FROM {t} WHERE MATCH('@title epsilon') OPTION field_weights=(title=5)",
	"SELECT id FROM {t} WHERE MATCH('nosuchword')",
	"SELECT price, COUNT(*) FROM {t} WHERE MATCH('alpha') GROUP BY price",
	"SELECT price, COUNT(*) AS c, SUM(price), MIN(price), MAX(price), AVG(price) FROM {t} WHERE MATCH('beta | gamma') GROUP BY price ORDER BY c DESC, price ASC LIMIT 2, 5",
	"SELECT COUNT(*), AVG(price) FROM {t} WHERE MATCH('alpha')",
	"SELECT price, COUNT(*) AS c FROM {t} GROUP BY price HAVING c > 7 ORDER BY c DESC, price ASC",
	"SELECT DISTINCT price FROM {t} WHERE MATCH('alpha') ORDER BY price DESC LIMIT 5",
	"SELECT COUNT(DISTINCT price), GROUP_CONCAT(id) FROM {t} WHERE MATCH('\"kappa iota\"')",
	"SELECT price, GROUP_CONCAT(id SEPARATOR ' '), COUNT(DISTINCT price) FROM {t} WHERE MATCH('theta') GROUP BY price HAVING COUNT(*) > 1 AND MIN(price) < 15 LIMIT 4",
	"SELECT price, COUNT(*) FROM {t} WHERE MATCH('alpha | gamma') GROUP BY price WITHIN GROUP ORDER BY WEIGHT() ASC, id DESC LIMIT 8",
	"SELECT price, id, title, WEIGHT() FROM {t} WHERE MATCH('beta') GROUP BY price ORDER BY price ASC LIMIT 6",
}

var distWords = strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa")

// highlights is the sum of the servers' highlight_docs counters.
func highlights(t *testing.T, servers []*Server) int {
	t.Helper()
	n := 0
	for _, s := range servers {
		v, err := strconv.Atoi(MustQuery(t, s.DB(t), "SHOW STATUS LIKE 'highlight_docs'").Map()["highlight_docs"])
		require.NoError(t, err)
		n += v
	}
	return n
}

// TestDistributedEqualsUnion: a distributed table over S = 1, 2, 4, 8
// shards on separate glintd processes (two shards on each for S = 8)
// answers every query as one table holding
// the union of the shards: ids, order, WEIGHT() (with global_idf),
// HIGHLIGHT() and SNIPPET() strings, and SHOW META; and the servers
// highlight exactly the rows returned.
func TestDistributedEqualsUnion(t *testing.T) {
	t.Parallel()
	servers := []*Server{StartServer(t)}
	for i := 2; i <= 4; i++ {
		servers = append(servers, StartServer(t, onHost(fmt.Sprintf("127.0.0.%d", i))))
	}
	coord := servers[0].Conn(t)
	const schema = "(title text, body text, price float)"
	MustExec(t, coord, "CREATE TABLE u "+schema)
	rng := rand.New(rand.NewPCG(26, 1))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = distWords[rng.IntN(len(distWords))]
		}
		return strings.Join(w, " ")
	}
	type doc struct{ values string }
	var docs []doc
	for id := 1; id <= 150; id++ {
		docs = append(docs, doc{fmt.Sprintf("(%d, '%s', '%s', %d.5)", id, words(3), words(14), rng.IntN(20))})
	}
	insert := func(db Querier, table string, ds []doc) {
		if len(ds) == 0 {
			return
		}
		vals := make([]string, len(ds))
		for i, d := range ds {
			vals[i] = d.values
		}
		MustExec(t, db, "INSERT INTO "+table+" (id, title, body, price) VALUES "+strings.Join(vals, ", "))
	}
	insert(coord, "u", docs)

	// Shard k of S lives on server k mod 4, except for S = 1: one agent
	// alone.
	for _, S := range []int{1, 2, 4, 8} {
		ddl := fmt.Sprintf("CREATE TABLE d%d type='distributed'", S)
		parts := make([][]doc, S)
		for _, d := range docs {
			k := rng.IntN(S)
			parts[k] = append(parts[k], d)
		}
		for k := range S {
			srv := k % len(servers)
			if S == 1 {
				srv = 1
			}
			table := fmt.Sprintf("s%d_%d", S, k)
			db := servers[srv].DB(t)
			MustExec(t, db, "CREATE TABLE "+table+" "+schema)
			insert(db, table, parts[k])
			if srv == 0 {
				ddl += " local='" + table + "'"
			} else {
				ddl += " agent='" + servers[srv].MySQLAddr + ":" + table + "'"
			}
		}
		MustExec(t, coord, ddl)
	}

	for _, S := range []int{1, 2, 4, 8} {
		for _, q := range distQueries {
			want := MustQuery(t, coord, strings.ReplaceAll(q, "{t}", "u"))
			wantMeta := MustQuery(t, coord, "SHOW META")
			dq := strings.ReplaceAll(q, "{t}", fmt.Sprintf("d%d", S))
			if strings.Contains(dq, " OPTION ") {
				dq += ", global_idf=1"
			} else {
				dq += " OPTION global_idf=1"
			}
			before := highlights(t, servers)
			got := MustQuery(t, coord, dq)
			gotMeta := MustQuery(t, coord, "SHOW META")
			after := highlights(t, servers)
			require.Equal(t, want, got, dq)
			require.Equal(t, metaWithoutTime(wantMeta), metaWithoutTime(gotMeta), dq)
			if strings.Contains(q, "HIGHLIGHT") || strings.Contains(q, "SNIPPET") {
				require.NotEmpty(t, got.Values, dq)
				require.Equal(t, len(got.Values), after-before, "documents highlighted by %s", dq)
			}
		}
	}

	// JSON searches with highlighting, over HTTP.
	for _, body := range []string{
		`{"table": "{t}", "query": {"match": {"*": "alpha beta"}}, "offset": 2, "limit": 5, "highlight": {"fields": ["body"]}, "options": {"global_idf": 1}}`,
		`{"table": "{t}", "query": {"bool": {"must": [{"query_string": "gamma"}], "filter": [{"range": {"price": {"gt": 5}}}]}}, "sort": [{"price": "desc"}], "highlight": {}, "options": {"global_idf": 1}}`,
		`{"table": "{t}", "query": {"match_phrase": {"body": "alpha beta"}}, "_source": ["title"], "highlight": {"limit": 20, "pre_tags": "[", "post_tags": "]"}, "options": {"global_idf": 1}}`,
	} {
		want := servers[0].HTTPAnswer(t, "POST /search", strings.ReplaceAll(strings.ReplaceAll(body, "{t}", "u"), `, "options": {"global_idf": 1}`, ""))
		require.Contains(t, want, "200\n")
		for _, S := range []int{1, 2, 4, 8} {
			before := highlights(t, servers)
			got := servers[0].HTTPAnswer(t, "POST /search", strings.ReplaceAll(body, "{t}", fmt.Sprintf("d%d", S)))
			require.Equal(t, want, got, body)
			hits := strings.Count(got, `"_id":`)
			require.NotZero(t, hits)
			require.Equal(t, hits, highlights(t, servers)-before, "documents highlighted by %s", body)
		}
	}
	// A bad sort key is named where the client wrote it, through the
	// shards too.
	bad := servers[0].HTTPAnswer(t, "POST /search", `{"table": "d4", "query": {"match": {"*": "alpha"}}, "sort": [{"nosuch": "asc"}]}`)
	require.Contains(t, bad, "sort[0]: unknown column 'nosuch'")

	// The definition survives a restart of the coordinator.
	create := MustQuery(t, coord, "SHOW CREATE TABLE d4")
	servers[0].Restart(t)
	coord = servers[0].Conn(t)
	require.Equal(t, create, MustQuery(t, coord, "SHOW CREATE TABLE d4"))
	q := "SELECT id, title, HIGHLIGHT() FROM {t} WHERE MATCH('alpha') LIMIT 5"
	require.Equal(t, MustQuery(t, coord, strings.ReplaceAll(q, "{t}", "u")),
		MustQuery(t, coord, strings.ReplaceAll(q, "{t}", "d4")+" OPTION global_idf=1"))
}

func metaWithoutTime(r Rows) Rows {
	out := Rows{Columns: r.Columns}
	for _, row := range r.Values {
		if row[0] != "time" {
			out.Values = append(out.Values, row)
		}
	}
	return out
}

// TestDistributedMirrors: with one mirror of a shard killed, every query
// still answers in full, and the dead mirror is asked only once; with
// every mirror dead, the shard is left out with a warning, or the query
// fails with OPTION strict_shards=1; a hanging agent is cut off at
// agent_query_timeout.
func TestDistributedMirrors(t *testing.T) {
	t.Parallel()
	coord := StartServer(t)
	a := StartServer(t, onHost("127.0.0.2"))
	b := StartServer(t, onHost("127.0.0.3"))
	c := coord.Conn(t)
	MustExec(t, c, "CREATE TABLE p0 (title text)")
	MustExec(t, c, "INSERT INTO p0 (id, title) VALUES (1, 'one word')")
	for _, s := range []*Server{a, b} {
		MustExec(t, s.DB(t), "CREATE TABLE p1 (title text)")
		MustExec(t, s.DB(t), "INSERT INTO p1 (id, title) VALUES (2, 'two word'), (3, 'three word')")
	}
	agent := a.MySQLAddr + ":p1|" + b.MySQLAddr + ":p1"
	MustExec(t, c, "CREATE TABLE d type='distributed' local='p0' agent='"+agent+"' ha_strategy='roundrobin' agent_query_timeout='2000'")
	const q = "SELECT id, HIGHLIGHT() FROM d WHERE MATCH('word')"
	full := Rows{Columns: []string{"id", "highlight()"}, Values: [][]string{{"1", "one <b>word</b>"}, {"2", "two <b>word</b>"}, {"3", "three <b>word</b>"}}}
	for range 4 {
		require.Equal(t, full, MustQuery(t, c, q))
	}

	b.Kill(t)
	start := time.Now()
	for range 6 {
		require.Equal(t, full, MustQuery(t, c, q))
		require.Empty(t, MustQuery(t, c, "SHOW WARNINGS").Values)
	}
	require.Less(t, time.Since(start), 5*time.Second, "the dead mirror is skipped, not waited for")

	a.Kill(t)
	require.Equal(t, Rows{Columns: full.Columns, Values: full.Values[:1]}, MustQuery(t, c, q))
	w := MustQuery(t, c, "SHOW WARNINGS")
	require.Len(t, w.Values, 1)
	require.Contains(t, w.Values[0][2], "distributed table 'd': agent '"+agent+"' did not answer and is left out of the result")
	_, err := Query(c, q+" OPTION strict_shards=1")
	RequireMySQLError(t, err, 1105, "distributed table 'd', agent '"+agent+"'")

	// An agent that accepts connections and never answers: cut off at the
	// query's agent_query_timeout.
	hang := hangingListener(t, "127.0.0.4")
	MustExec(t, c, "CREATE TABLE h type='distributed' local='p0' agent='"+hang+":p1'")
	start = time.Now()
	r := MustQuery(t, c, "SELECT id FROM h WHERE MATCH('word') OPTION agent_query_timeout=300")
	require.Equal(t, [][]string{{"1"}}, r.Values)
	require.Less(t, time.Since(start), 3*time.Second)
	w = MustQuery(t, c, "SHOW WARNINGS")
	require.Len(t, w.Values, 1)
	require.Contains(t, w.Values[0][2], "no answer within agent_query_timeout (300 ms)")
	// Over JSON, the hits that lack the shard say so: "timed_out".
	MustExec(t, c, "CREATE TABLE hj type='distributed' local='p0' agent='"+hang+":p1' agent_query_timeout='300'")
	answer := coord.HTTPAnswer(t, "POST /search", `{"table": "hj", "query": {"match": {"*": "word"}}, "_source": false}`)
	require.Contains(t, answer, `"timed_out": true`)
	require.Contains(t, answer, `"_id": 1`)
	require.Contains(t, answer, "no answer within agent_query_timeout (300 ms)")
	answer = coord.HTTPAnswer(t, "POST /search", `{"table": "d", "query": {"match": {"*": "word"}}, "_source": false}`)
	require.Contains(t, answer, `"timed_out": false`)
	require.Equal(t, "", coordGoroutineLeak(t, coord))
}

// hangingListener accepts connections on ip and never writes a byte.
func hangingListener(t *testing.T, ip string) string {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", ip+":0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = conn.Close() })
		}
	}()
	return l.Addr().String()
}

// coordGoroutineLeak checks that the coordinator's goroutines come back
// down once its distributed queries are done: "" or what is wrong.
func coordGoroutineLeak(t *testing.T, s *Server) string {
	t.Helper()
	// One connection for everything, so that the count is not of the
	// test's own connections.
	db := s.Conn(t)
	count := func() int {
		v, err := strconv.Atoi(MustQuery(t, db, "SHOW STATUS LIKE 'goroutines'").Map()["goroutines"])
		require.NoError(t, err)
		return v
	}
	base := count()
	for range 5 {
		_, _ = Query(db, "SELECT id FROM h WHERE MATCH('word') OPTION agent_query_timeout=100")
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if n := count(); n <= base+2 {
			return ""
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Sprintf("goroutines went from %d to %d", base, count())
}

// TestDistributedSnippets: CALL SNIPPETS of a distributed table over a
// real agent: load_files shares the files out (file i on shard i mod S,
// each under its own snippets_file_prefix), load_files_scattered takes
// each file's snippet from the shard that has it, and inline texts are
// highlighted by the local shard; options (quotes and all) reach the
// agent as given.
func TestDistributedSnippets(t *testing.T) {
	t.Parallel()
	dir := func(files map[string]string) string {
		d := t.TempDir()
		for name, text := range files {
			require.NoError(t, os.WriteFile(filepath.Join(d, name), []byte(text), 0o644))
		}
		return d
	}
	coord := StartServer(t, WithArgs("--snippets-file-prefix", dir(map[string]string{"a.txt": "the local file's word"})))
	agent := StartServer(t, onHost("127.0.0.2"), WithArgs("--snippets-file-prefix", dir(map[string]string{"b.txt": "the agent's file: a word"})))
	c := coord.Conn(t)
	MustExec(t, c, "CREATE TABLE p0 (title text)")
	MustExec(t, agent.DB(t), "CREATE TABLE p1 (title text)")
	MustExec(t, c, "CREATE TABLE d type='distributed' local='p0' agent='"+agent.MySQLAddr+":p1'")
	snippets := func(q string) [][]string { return MustQuery(t, c, q).Values }
	require.Equal(t, [][]string{{"the local file's <i>word</i>"}, {"the agent's file: a <i>word</i>"}},
		snippets(`CALL SNIPPETS(('a.txt', 'b.txt'), 'd', 'word', 1 AS load_files, '<i>' AS before_match, '</i>' AS after_match)`))
	require.Equal(t, [][]string{{"the agent's file: a <b>word</b>"}, {""}, {"the local file's <b>word</b>"}},
		snippets(`CALL SNIPPETS(('b.txt', 'none.txt', 'a.txt'), 'd', 'word', 1 AS load_files_scattered)`))
	require.Equal(t, [][]string{{"it's a <b>word</b>"}}, snippets(`CALL SNIPPETS('it\'s a word', 'd', 'word')`))
	_, err := Query(c, `CALL SNIPPETS(('b.txt', 'a.txt'), 'd', 'word', 1 AS load_files)`)
	RequireMySQLError(t, err, 1366, "distributed table 'd', local 'p0': CALL SNIPPETS: file 'b.txt' does not exist under snippets_file_prefix")
}
