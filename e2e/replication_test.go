package e2e

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// replNode is a glintd with a replication listener on a loopback address
// of its own, at a port that stays the same across restarts.
type replNode struct {
	*Server
	repl string // host:port of the replication listener
}

// startReplNode starts a glintd on ip with a replication listener, and
// args besides.
func startReplNode(t testing.TB, ip string, args ...string) *replNode {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	s := StartServer(t, onHost(ip), WithArgs(append(slices.Clip(args), "--replication-listen", addr)...))
	return &replNode{Server: s, repl: addr}
}

// status reads one SHOW STATUS counter ("" when absent).
func status(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	return MustQuery(t, db, "SHOW STATUS LIKE '"+name+"'").Map()[name]
}

// rows is a query's rows, for comparison value by value.
func rows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	return MustQuery(t, db, q).Values
}

// startThreeReplNodes starts three glintd on 127.0.0.1-3, each with a
// replication listener.
func startThreeReplNodes(t *testing.T) (a, b, c *replNode) {
	t.Helper()
	return startReplNode(t, "127.0.0.1"), startReplNode(t, "127.0.0.2"), startReplNode(t, "127.0.0.3")
}

// mustFail runs a statement that must fail with an error holding msg.
func mustFail(t *testing.T, db *sql.DB, q, msg string) {
	t.Helper()
	_, err := db.Exec(q)
	require.Error(t, err, q)
	require.Contains(t, err.Error(), msg, q)
}

// mustExec runs a statement that must succeed.
func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	_, err := db.Exec(q)
	require.NoError(t, err, q)
}

// eventually retries f until it holds. Not require.Eventually: f fails the
// test through require, which must run on the test's goroutine.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 60 s: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// replQueries are what every member must answer alike.
var replQueries = []string{
	"SELECT id, title, n FROM books ORDER BY id ASC",
	"SELECT id, HIGHLIGHT({limit=40}) FROM books WHERE MATCH('fox | dog | node') ORDER BY id ASC",
	"SELECT n, COUNT(*) FROM books GROUP BY n ORDER BY n ASC",
}

func requireConverged(t *testing.T, nodes ...*replNode) {
	t.Helper()
	dbs := make([]*sql.DB, len(nodes)) // one pool each for the whole wait, not one per try
	for i, n := range nodes {
		dbs[i] = n.DB(t)
	}
	for _, q := range replQueries {
		for i, n := range nodes[1:] {
			// Both answers are read again on every try: the first node
			// may not have applied the last write yet either.
			eventually(t, "the same answer on "+n.MySQLAddr+" as on "+nodes[0].MySQLAddr+" to "+q, func() bool {
				return slices.EqualFunc(rows(t, dbs[i+1], q), rows(t, dbs[0], q), slices.Equal)
			})
		}
	}
}

func TestReplicationThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers")
	}
	a, b, c := startThreeReplNodes(t)
	dbA, dbB, dbC := a.DB(t), b.DB(t), c.DB(t)
	exec := func(db *sql.DB, q string) { t.Helper(); mustExec(t, db, q) }
	fails := func(db *sql.DB, q, msg string) { t.Helper(); mustFail(t, db, q, msg) }

	exec(dbA, "CREATE CLUSTER c")
	fails(dbA, "CREATE CLUSTER c", "cluster 'c' already exists")
	fails(dbA, "CREATE CLUSTER d 'x' AS path", "path is not taken")
	exec(dbA, "CREATE TABLE books (title text, n int)")
	exec(dbA, "ALTER CLUSTER c ADD books")
	fails(dbA, "INSERT INTO books (id, title, n) VALUES (1, 'x', 1)", "table 'books' is in cluster 'c': write to it as c:books")
	fails(dbA, "CREATE TABLE books (title text)", "table 'books' already exists, in cluster 'c'")
	exec(dbA, "CREATE TABLE IF NOT EXISTS books (title text)")
	fails(dbA, "INSERT INTO nope:books (id) VALUES (1)", "unknown cluster 'nope'")
	exec(dbA, "INSERT INTO c:books (id, title, n) VALUES (1, 'The quick brown fox', 1), (2, 'A lazy dog', 2)")
	fails(dbA, "INSERT INTO c:books (id, title, n) VALUES (1, 'again', 1)", "")

	fails(dbA, "INSERT INTO c:books (id, title, n) VALUES (3, SYSDATE(), 1)", "SYSDATE() in a write to a cluster's table")
	exec(dbA, "INSERT INTO c:books (id, title, n) VALUES (3, NOW(), 1)") // the same time on every member
	exec(dbB, "JOIN CLUSTER c AT '"+a.repl+"'")
	exec(dbC, "JOIN CLUSTER c AT '"+b.repl+"'") // through any member
	fails(dbC, "JOIN CLUSTER c AT '"+a.repl+"'", "already exists")
	for _, db := range []*sql.DB{dbA, dbB, dbC} {
		require.Equal(t, "3", status(t, db, "cluster_c_size"))
		require.Equal(t, "books", status(t, db, "cluster_c_indexes"))
	}
	// Writes through every member; each is acknowledged after it is
	// applied where it was sent: read-your-writes on that member.
	for i, db := range []*sql.DB{dbA, dbB, dbC} {
		exec(db, fmt.Sprintf("INSERT INTO c:books (id, title, n) VALUES (%d, 'written on node %d', %d)", 10+i, i, i%2))
		require.Equal(t, [][]string{{fmt.Sprint(10 + i)}}, rows(t, db, fmt.Sprintf("SELECT id FROM books WHERE id = %d", 10+i)))
	}
	// A linearizable read on one member sees a write acknowledged by
	// another, however far behind the reader was.
	for i := range 20 {
		exec(dbA, fmt.Sprintf("INSERT INTO c:books (id, title, n) VALUES (%d, 'read anywhere', 1)", 100+i))
		require.Equal(t, [][]string{{fmt.Sprint(100 + i)}}, rows(t, dbC, fmt.Sprintf("SELECT id FROM books WHERE id = %d OPTION consistency='linearizable'", 100+i)))
	}
	fails(dbC, "SELECT id FROM books OPTION consistency='strong'", "OPTION consistency takes 'local'")
	// The same through the JSON API: options.consistency.
	for i := range 5 {
		exec(dbA, fmt.Sprintf("INSERT INTO c:books (id, title, n) VALUES (%d, 'read anywhere', 1)", 200+i))
		body := fmt.Sprintf(`{"table":"books","query":{"equals":{"id":%d}},"_source":false,"options":{"consistency":"linearizable"}}`, 200+i)
		require.Contains(t, c.HTTPAnswer(t, "POST /search", body), fmt.Sprintf(`"_id": %d`, 200+i))
	}
	require.Contains(t, c.HTTPAnswer(t, "POST /search", `{"table":"books","options":{"consistency":"strong"}}`),
		`consistency takes \"local\"`)
	// The session's time zone goes with the write: every member shows
	// the time as the session that wrote it saw it.
	exec(dbB, "SET time_zone = '+02:00'; INSERT INTO c:books (id, title, n) VALUES (30, FROM_UNIXTIME(0), 1)")
	for _, db := range []*sql.DB{dbA, dbB, dbC} {
		require.Equal(t, [][]string{{"1970-01-01 02:00:00"}}, rows(t, db, "SELECT title FROM books WHERE id = 30 OPTION consistency='linearizable'"))
	}
	// So does its collation: an UPDATE under binary matches 'red' and not
	// 'Red' on every member, though each member's default folds the case.
	exec(dbA, "CREATE TABLE c:tagged (title text, tag string, n int)")
	exec(dbA, "INSERT INTO c:tagged (id, title, tag, n) VALUES (1, 'a', 'Red', 0), (2, 'b', 'red', 0)")
	exec(dbB, "SET collation_connection = binary; UPDATE c:tagged SET n = 1 WHERE tag = 'red'; SET collation_connection = DEFAULT")
	for _, db := range []*sql.DB{dbA, dbB, dbC} {
		require.Equal(t, [][]string{{"1", "0"}, {"2", "1"}}, rows(t, db, "SELECT id, n FROM tagged ORDER BY id ASC OPTION consistency='linearizable'"))
	}
	exec(dbB, "UPDATE c:books SET n = 7 WHERE id = 2")
	exec(dbC, "DELETE FROM c:books WHERE id = 11")
	exec(dbA, "REPLACE INTO c:books (id, title, n) VALUES (1, 'The quick brown fox jumps', 1)")
	requireConverged(t, a, b, c)

	// kill -9 of the leader: the two others elect one and take writes;
	// the killed one comes back and catches up.
	nodes := []*replNode{a, b, c}
	var leader, rest []*replNode
	for _, n := range nodes {
		if status(t, n.DB(t), "cluster_c_role") == "leader" {
			leader = append(leader, n)
		} else {
			rest = append(rest, n)
		}
	}
	require.Len(t, leader, 1)
	old := status(t, rest[0].DB(t), "cluster_c_leader")
	leader[0].Kill(t)
	eventually(t, "a new leader", func() bool {
		l := status(t, rest[0].DB(t), "cluster_c_leader")
		return l != old && l != "0"
	})
	exec(rest[0].DB(t), "INSERT INTO c:books (id, title, n) VALUES (20, 'after the leader died', 2)")
	exec(rest[1].DB(t), "INSERT INTO c:books (id, title, n) VALUES (21, 'a node of two', 2)")
	leader[0].Restart(t)
	requireConverged(t, rest[0], rest[1], leader[0])

	// A member leaves (DELETE CLUSTER): the others go on as two.
	exec(rest[1].DB(t), "DELETE CLUSTER c")
	fails(rest[1].DB(t), "SELECT * FROM books", "unknown table")
	eventually(t, "two members", func() bool { return status(t, rest[0].DB(t), "cluster_c_size") == "2" })
	exec(leader[0].DB(t), "INSERT INTO c:books (id, title, n) VALUES (22, 'two left', 3)")
	requireConverged(t, rest[0], leader[0])
}

func TestReplicationOff(t *testing.T) {
	s := StartServer(t)
	_, err := s.DB(t).Exec("CREATE CLUSTER c")
	require.ErrorContains(t, err, "replication is off on this server")
	_, err = s.DB(t).Exec("INSERT INTO c:t (id) VALUES (1)")
	require.ErrorContains(t, err, "replication is off on this server")
}

// TestReplicationWipedRejoin: a member whose disk is wiped comes back and
// joins again from the same address, as a new node. The member it was is
// taken out, so the cluster is three again, not four with one that never
// answers: it still takes writes when one more member dies.
func TestReplicationWipedRejoin(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers")
	}
	a, b, c := startThreeReplNodes(t)
	exec := func(db *sql.DB, q string) { t.Helper(); mustExec(t, db, q) }
	exec(a.DB(t), "CREATE CLUSTER c")
	exec(a.DB(t), "CREATE TABLE books (title text, n int)")
	exec(a.DB(t), "ALTER CLUSTER c ADD books")
	exec(b.DB(t), "JOIN CLUSTER c AT '"+a.repl+"'")
	exec(c.DB(t), "JOIN CLUSTER c AT '"+a.repl+"'")
	exec(a.DB(t), "INSERT INTO c:books (id, title, n) VALUES (1, 'before the wipe', 1)")
	oldID := status(t, c.DB(t), "cluster_c_node_id")
	require.NotEmpty(t, oldID)

	c.Kill(t)
	require.NoError(t, os.RemoveAll(c.DataDir))
	require.NoError(t, os.MkdirAll(c.DataDir, 0o755))
	c.Restart(t)
	_, err := c.DB(t).Exec("SELECT * FROM books")
	require.ErrorContains(t, err, "unknown table", "the wiped node holds nothing")
	exec(a.DB(t), "INSERT INTO c:books (id, title, n) VALUES (2, 'while it was away', 2)")
	exec(c.DB(t), "JOIN CLUSTER c AT '"+b.repl+"'")
	require.NotEqual(t, oldID, status(t, c.DB(t), "cluster_c_node_id"), "a wiped node joins as a new node")
	for _, n := range []*replNode{a, b, c} {
		eventually(t, "three members on "+n.MySQLAddr, func() bool { return status(t, n.DB(t), "cluster_c_size") == "3" })
	}
	requireConverged(t, a, b, c)

	// One more member dies: two of three still make a quorum.
	survivors := []*replNode{a, c}
	if status(t, b.DB(t), "cluster_c_role") != "leader" {
		b.Kill(t)
	} else {
		a.Kill(t)
		survivors = []*replNode{b, c}
	}
	eventually(t, "a write with one member down", func() bool {
		_, err := survivors[1].DB(t).Exec("REPLACE INTO c:books (id, title, n) VALUES (3, 'one member down', 3)")
		return err == nil
	})
	requireConverged(t, survivors...)
}

// TestReplicationAlterAddDrop: ALTER CLUSTER ADD of a table that holds
// documents, on a member that is not the leader, copies it to every
// member; ALTER CLUSTER DROP leaves each member a table of its own, alike.
func TestReplicationAlterAddDrop(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers")
	}
	a, b, c := startThreeReplNodes(t)
	dbA, dbB, dbC := a.DB(t), b.DB(t), c.DB(t)
	nodes := []struct {
		*replNode
		db *sql.DB
	}{{a, dbA}, {b, dbB}, {c, dbC}}
	exec := func(db *sql.DB, q string) { t.Helper(); mustExec(t, db, q) }
	fails := func(db *sql.DB, q, msg string) { t.Helper(); mustFail(t, db, q, msg) }
	exec(dbA, "CREATE CLUSTER c")
	exec(dbB, "JOIN CLUSTER c AT '"+a.repl+"'")
	exec(dbC, "JOIN CLUSTER c AT '"+a.repl+"'")

	// B's own table: several segments (one per INSERT), deletions,
	// enough text for several copy entries.
	exec(dbB, "CREATE TABLE shelf (title text, body text, n int)")
	for i := range 6 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO shelf (id, title, body, n) VALUES ")
		for j := range 300 {
			id := i*300 + j + 1
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, 'book %d of the shelf', '%s fox %d dog %d', %d)", id, id, strings.Repeat("words of a body ", 40), id%13, id%7, id%5)
		}
		exec(dbB, sb.String())
	}
	exec(dbB, "DELETE FROM shelf WHERE id IN (5, 600, 1799)")
	queries := []string{
		"SELECT COUNT(*) FROM shelf",
		"SELECT id, title, n FROM shelf WHERE MATCH('fox 3 dog 4') ORDER BY id ASC LIMIT 50",
		"SELECT n, COUNT(*) FROM shelf GROUP BY n ORDER BY n ASC",
		"SELECT id, HIGHLIGHT({limit=40}) FROM shelf WHERE MATCH('book 17') ORDER BY id ASC",
	}
	want := map[string][][]string{}
	for _, q := range queries {
		want[q] = rows(t, dbB, q)
	}
	require.Equal(t, [][]string{{"1797"}}, want[queries[0]])

	fails(dbB, "ALTER CLUSTER c ADD nope", "nope")
	fails(dbB, "ALTER CLUSTER d ADD shelf", "unknown cluster 'd'")
	exec(dbB, "ALTER CLUSTER c ADD shelf")
	fails(dbB, "ALTER CLUSTER c ADD shelf", "table 'shelf' is already in cluster 'c'")
	fails(dbB, "INSERT INTO shelf (id, title) VALUES (5000, 'x')", "write to it as c:shelf")
	for _, n := range nodes {
		eventually(t, "shelf in the cluster on "+n.MySQLAddr, func() bool { return status(t, n.db, "cluster_c_indexes") == "shelf" })
		for _, q := range queries {
			eventually(t, "the added table on "+n.MySQLAddr+": "+q, func() bool { return slices.EqualFunc(rows(t, n.db, q), want[q], slices.Equal) })
		}
		require.Empty(t, rows(t, n.db, "SHOW TABLES LIKE '\\_\\_glint%'"), "no table of glint's own shows")
	}
	// Writes through c:shelf, from any member, automatic ids after the
	// copied ones.
	exec(dbC, "INSERT INTO c:shelf (id, title, body, n) VALUES (5000, 'written after the add', 'fox', 1)")
	exec(dbA, "INSERT INTO c:shelf (title, body, n) VALUES ('an automatic id', 'dog', 2)")
	exec(dbB, "DELETE FROM c:shelf WHERE id = 1")
	for _, n := range nodes {
		q := "SELECT id FROM shelf WHERE id > 1800 OR id = 1 ORDER BY id ASC"
		eventually(t, "writes after the add on "+n.MySQLAddr, func() bool {
			return slices.EqualFunc(rows(t, n.db, q), [][]string{{"5000"}, {"5001"}}, slices.Equal)
		})
	}

	// DROP: every member keeps the table as its own.
	fails(dbA, "ALTER CLUSTER c DROP nope", "unknown table 'nope'")
	exec(dbA, "CREATE TABLE mine (title text)")
	fails(dbA, "ALTER CLUSTER c DROP mine", "table 'mine' is not in a cluster")
	exec(dbA, "ALTER CLUSTER c DROP shelf")
	fails(dbA, "ALTER CLUSTER c DROP shelf", "table 'shelf' is not in a cluster (it is this server's own)")
	final := rows(t, dbA, "SELECT id, title, n FROM shelf WHERE MATCH('fox') ORDER BY id DESC LIMIT 20")
	require.Len(t, final, 20)
	for _, n := range nodes {
		eventually(t, "shelf left the cluster on "+n.MySQLAddr, func() bool { return status(t, n.db, "cluster_c_indexes") == "" })
		require.Equal(t, final, rows(t, n.db, "SELECT id, title, n FROM shelf WHERE MATCH('fox') ORDER BY id DESC LIMIT 20"))
		require.Equal(t, [][]string{{"1798"}}, rows(t, n.db, "SELECT COUNT(*) FROM shelf"))
		fails(n.db, "INSERT INTO c:shelf (id, title) VALUES (6000, 'x')", "shelf")
		exec(n.db, "INSERT INTO shelf (id, title, body, n) VALUES (6000, 'a member writes its own copy', 'x', 1)")
	}
}

// TestReplicationJoinAfterDrop: a server that joins after ALTER CLUSTER
// DROP replays the log from before its join; the table left the cluster
// before it was a member, so it keeps no copy of it (a stale table of its
// own would shadow the cluster's table of that name, for reads by the
// plain name, when one is added again).
func TestReplicationJoinAfterDrop(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers")
	}
	a, b := startReplNode(t, "127.0.0.1"), startReplNode(t, "127.0.0.2")
	dbA, dbB := a.DB(t), b.DB(t)
	mustExec(t, dbA, "CREATE CLUSTER c")
	mustExec(t, dbA, "CREATE TABLE shelf (title text)")
	mustExec(t, dbA, "INSERT INTO shelf (id, title) VALUES (1, 'one'), (2, 'two')")
	mustExec(t, dbA, "ALTER CLUSTER c ADD shelf")
	mustExec(t, dbA, "ALTER CLUSTER c DROP shelf")
	mustExec(t, dbA, "INSERT INTO shelf (id, title) VALUES (3, 'three')")
	mustExec(t, dbA, "ALTER CLUSTER c ADD shelf")

	mustExec(t, dbB, "JOIN CLUSTER c AT '"+a.repl+"'")
	require.Equal(t, [][]string{{"shelf", "rt"}}, rows(t, dbB, "SHOW TABLES"))
	require.Equal(t, [][]string{{"1"}, {"2"}, {"3"}}, rows(t, dbB, "SELECT id FROM shelf ORDER BY id ASC"))
	mustExec(t, dbA, "ALTER CLUSTER c DROP shelf")
	eventually(t, "shelf left the cluster on B", func() bool { return status(t, dbB, "cluster_c_indexes") == "" })
	require.Equal(t, [][]string{{"1"}, {"2"}, {"3"}}, rows(t, dbB, "SELECT id FROM shelf ORDER BY id ASC"))
}

// TestReplicationJSONWrites: the JSON writes do not go through a
// cluster's log; one to a cluster's table, by its plain name or as c:t,
// is refused with the SQL way to make it (it was an error of storage:
// "index: the database is replicated ...").
func TestReplicationJSONWrites(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER c")
	mustExec(t, db, "CREATE TABLE books (title text, n int)")
	mustExec(t, db, "ALTER CLUSTER c ADD books")
	refused := func(table string) string {
		return "400\n{\n  \"error\": \"table '" + table + "' is in cluster 'c': JSON writes do not reach a cluster's tables; write to it in SQL as c:" + table + " (POST /sql too)\"\n}"
	}
	for _, tc := range []struct{ request, body, want string }{
		{"POST /insert", `{"table": "books", "id": 1, "doc": {"title": "a"}}`, refused("books")},
		{"POST /insert", `{"table": "c:books", "id": 1, "doc": {"title": "a"}}`, refused("books")},
		{"POST /replace", `{"table": "c:books", "id": 1, "doc": {"title": "a"}}`, refused("books")},
		{"POST /update", `{"table": "c:books", "id": 1, "doc": {"n": 2}}`, refused("books")},
		{"POST /delete", `{"table": "books", "id": 1}`, refused("books")},
		{"POST /insert", `{"table": "c:nope", "id": 1, "doc": {"title": "a"}}`, "400\n{\n  \"error\": \"unknown table 'c:nope'\"\n}"},
		{"POST /insert", `{"table": "d:books", "id": 1, "doc": {"title": "a"}}`, "400\n{\n  \"error\": \"unknown cluster 'd' (in 'd:books')\"\n}"},
		{"POST /insert", `{"cluster": "c", "table": "books", "id": 1, "doc": {"title": "a"}}`, "400\n{\n  \"error\": \"request: \\\"cluster\\\": JSON writes do not reach a cluster's tables; write in SQL as c:books (POST /sql takes it too)\"\n}"},
	} {
		require.Equal(t, tc.want, a.HTTPAnswer(t, tc.request, tc.body), tc.request+" "+tc.body)
	}
	mustExec(t, db, "CREATE TABLE own (title text)")
	require.Equal(t, "200\n{\n  \"table\": \"own\",\n  \"_id\": 1,\n  \"id\": 1,\n  \"created\": true,\n  \"result\": \"created\",\n  \"status\": 201\n}",
		a.HTTPAnswer(t, "POST /insert", `{"table": "own", "id": 1, "doc": {"title": "a"}}`))
	require.Empty(t, rows(t, db, "SELECT id FROM books"))
}

// TestReplicationJoinSelf: JOIN CLUSTER at the server's own address is
// refused at once, naming the mistake (it waited 30 s for a leader of the
// cluster the join itself was making, and said it had none).
func TestReplicationJoinSelf(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	began := time.Now()
	mustFail(t, db, "JOIN CLUSTER c AT '"+a.repl+"'", "JOIN CLUSTER c: no member took this server: "+a.repl+
		": the peer answered: that is the joining server's own address: join at the address of another member of cluster 'c' (CREATE CLUSTER c starts one here)")
	require.Less(t, time.Since(began), 10*time.Second)
	require.Empty(t, rows(t, db, "SHOW STATUS LIKE 'cluster%'"))
	mustExec(t, db, "CREATE CLUSTER c")
}

// TestReplicationClusterNames: cluster names are case-insensitive, as
// table names are, and a name that cannot be a cluster's is refused with
// the rule it breaks rather than an error of the file system.
func TestReplicationClusterNames(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER Posts")
	mustFail(t, db, "CREATE CLUSTER posts", "cluster 'posts' already exists on this server")
	mustFail(t, db, "JOIN CLUSTER POSTS AT '127.0.0.1:1'", "cluster 'POSTS' already exists on this server")
	mustExec(t, db, "CREATE TABLE posts:t (title text)")
	mustExec(t, db, "INSERT INTO POSTS:t (id, title) VALUES (1, 'one')")
	require.Equal(t, [][]string{{"1", "one"}}, rows(t, db, "SELECT * FROM t"))
	require.Equal(t, "t", status(t, db, "cluster_posts_indexes"))
	mustFail(t, db, "ALTER TABLE t ADD COLUMN x int", "ALTER TABLE takes only DISABLE KEYS and ENABLE KEYS")
	mustFail(t, db, "CREATE CLUSTER "+strings.Repeat("n", 65), "is 65 characters long: at most 64")
	mustExec(t, db, "CREATE CLUSTER "+strings.Repeat("n", 64))
	mustFail(t, db, "CREATE CLUSTER `9lives`", "'9lives' is not a valid cluster name")

	// A cluster directory named in another case (a server before names
	// were case-insensitive) is taken under the lower-case name.
	a.Stop(t)
	dir := filepath.Join(a.DataDir, "clusters")
	require.NoError(t, os.Rename(filepath.Join(dir, "posts"), filepath.Join(dir, "Posts")))
	a.Restart(t)
	db = a.DB(t)
	mustExec(t, db, "INSERT INTO Posts:t (id, title) VALUES (2, 'two')")
	require.Equal(t, [][]string{{"1", "one"}, {"2", "two"}}, rows(t, db, "SELECT * FROM t ORDER BY id ASC"))
	_, err := os.Stat(filepath.Join(dir, "posts"))
	require.NoError(t, err)
}

// TestReplicationUnfinishedCreate: a cluster whose CREATE CLUSTER did not
// finish before the server stopped (its directory still marked) is
// removed at the next start rather than left without a member, where
// writes would wait for a leader that never comes.
func TestReplicationUnfinishedCreate(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER done")
	mustExec(t, db, "CREATE CLUSTER half")
	a.Stop(t)
	require.NoError(t, os.WriteFile(filepath.Join(a.DataDir, "clusters", "half", "creating"), nil, 0o644))
	a.Restart(t)
	db = a.DB(t)
	require.Equal(t, "done", status(t, db, "cluster_name"))
	mustExec(t, db, "CREATE TABLE done:t (title text)")
	mustExec(t, db, "CREATE CLUSTER half")
	mustExec(t, db, "CREATE TABLE half:u (title text)")
}

// TestReplicationTableInTwoClusters: CREATE TABLE c:t is refused when
// another cluster of the server has a table t (the plain name, for reads,
// would reach one of the two).
func TestReplicationTableInTwoClusters(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER a")
	mustExec(t, db, "CREATE CLUSTER b")
	mustExec(t, db, "CREATE TABLE b:t (title text)")
	mustExec(t, db, "INSERT INTO b:t (id, title) VALUES (1, 'in b')")
	mustFail(t, db, "CREATE TABLE a:t (title text)", "table 't' already exists on this server, in cluster 'b'")
	require.Equal(t, [][]string{{"t", "rt"}}, rows(t, db, "SHOW TABLES"))
	require.Equal(t, "", status(t, db, "cluster_a_indexes"))
	require.Equal(t, [][]string{{"1", "in b"}}, rows(t, db, "SELECT * FROM t"))
}

// TestReplicationDistributedLocal: a distributed table's local shard may
// be a table of a cluster, named as reads name it (it was refused as an
// unknown table).
func TestReplicationDistributedLocal(t *testing.T) {
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER c")
	mustExec(t, db, "CREATE TABLE c:books (title text)")
	mustExec(t, db, "INSERT INTO c:books (id, title) VALUES (1, 'the white whale'), (2, 'a fish')")
	mustExec(t, db, "CREATE TABLE mine (title text)")
	mustExec(t, db, "INSERT INTO mine (id, title) VALUES (3, 'a whale song')")
	mustExec(t, db, "CREATE TABLE d type='distributed' local='books' local='mine'")
	mustExec(t, db, "CREATE TABLE d2 type='distributed' local='c:books'")
	require.Equal(t, [][]string{{"1", "the white <b>whale</b>"}, {"3", "a <b>whale</b> song"}},
		rows(t, db, "SELECT id, HIGHLIGHT() FROM d WHERE MATCH('whale') ORDER BY id ASC"))
	require.Equal(t, [][]string{{"1"}, {"2"}}, rows(t, db, "SELECT id FROM d2 ORDER BY id ASC"))
	mustFail(t, db, "CREATE TABLE d3 type='distributed' local='nope'", "table setting local='nope': unknown table 'nope'")
	mustFail(t, db, "CREATE TABLE d3 type='distributed' local='x:books'", "table setting local='x:books': unknown table 'x:books'")
}

// TestReplicationAddRacingWrites: plain writes to a table race ALTER
// CLUSTER ADD of it; each is either acknowledged and then in the
// cluster's copy, or refused - never acknowledged and lost.
func TestReplicationAddRacingWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("a replicated server")
	}
	a := startReplNode(t, "127.0.0.1")
	db := a.DB(t)
	mustExec(t, db, "CREATE CLUSTER c")
	mustExec(t, db, "CREATE TABLE shelf (title text, n int)")
	var sb strings.Builder
	sb.WriteString("INSERT INTO shelf (id, title, n) VALUES ")
	for i := 1; i <= 2000; i++ {
		if i > 1 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d, 'book %d %s', %d)", i, i, strings.Repeat("of many words ", 20), i%7)
	}
	mustExec(t, db, sb.String())

	// Writers on connections of their own, until the table is refused to
	// them (then it is in the cluster, or being added).
	var mu sync.Mutex
	var acked []int
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := 10000 + w*100000 + i
				_, err := db.Exec(fmt.Sprintf("INSERT INTO shelf (id, title, n) VALUES (%d, 'racing %d', 1)", id, id))
				if err != nil {
					if !strings.Contains(err.Error(), "cluster 'c'") {
						t.Errorf("write %d: %v", id, err)
					}
					return
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	eventually(t, "writes acknowledged before the add", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 20
	})
	mustExec(t, db, "ALTER CLUSTER c ADD shelf")
	wg.Wait()
	got := map[int]bool{}
	for _, r := range rows(t, db, "SELECT id FROM c:shelf WHERE id >= 10000 LIMIT 1000000 OPTION max_matches=1000000") {
		id, err := strconv.Atoi(r[0])
		require.NoError(t, err)
		got[id] = true
	}
	require.NotEmpty(t, acked)
	for _, id := range acked {
		require.True(t, got[id], "acknowledged write %d is not in the cluster's table", id)
	}
	require.Equal(t, [][]string{{strconv.Itoa(2000 + len(acked))}}, rows(t, db, "SELECT COUNT(*) FROM shelf"))
}

// TestReplicationKilledWhileReceiving: a member killed with SIGKILL while
// it builds the image of a snapshot it receives (the only copy it keeps)
// restarts with the state it had, nothing of the snapshot recorded, leaves
// no half-built image behind, and takes a snapshot again: it catches up and
// holds every document.
func TestReplicationKilledWhileReceiving(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers and a slow stream")
	}
	// Slow streams, so that the kill comes in the middle of one; a log
	// compacted often, so that a member behind takes a snapshot.
	args := []string{"--replication-snapshot-entries", "20", "--replication-stream-rate", "2"}
	a, b, c := startReplNode(t, "127.0.0.1", args...), startReplNode(t, "127.0.0.2", args...), startReplNode(t, "127.0.0.3", args...)
	adb := a.DB(t)
	mustExec(t, adb, "CREATE CLUSTER c")
	mustExec(t, adb, "CREATE TABLE c:books (title text, n int)")
	mustExec(t, b.DB(t), "JOIN CLUSTER c AT '"+a.repl+"'")
	mustExec(t, c.DB(t), "JOIN CLUSTER c AT '"+a.repl+"'")
	c.Kill(t)

	const statements, perStatement = 40, 50
	insertBooks(t, adb, statements, perStatement)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the member killed:\n%s", c.Output())
		}
	})

	c.Restart(t)
	cdir := filepath.Join(c.DataDir, "clusters", "c")
	building := func() bool {
		parts, _ := filepath.Glob(filepath.Join(cdir, "tables.received-*.part"))
		for _, p := range parts {
			if vlogs, _ := filepath.Glob(filepath.Join(p, "*.vlog")); len(vlogs) > 0 {
				return true
			}
		}
		return false
	}
	eventually(t, "the member building the image", building)
	c.Kill(t)
	done, _ := filepath.Glob(filepath.Join(cdir, "tables.received-*[0-9a-f]"))
	require.Empty(t, done, "images complete after the kill")

	c.Restart(t)
	cdb := c.DB(t)
	eventually(t, "the member back and caught up", func() bool {
		var n string
		err := cdb.QueryRow("SELECT COUNT(*) FROM books").Scan(&n)
		return err == nil && n == strconv.Itoa(statements*perStatement)
	})
	// (The rows show once the image is swapped in; the log line and the
	// removal of what was left come just after, and the log is read
	// through a pipe.)
	eventually(t, "no images or half-built ones left beside the tables", func() bool {
		left, _ := filepath.Glob(filepath.Join(cdir, "tables.*"))
		return len(left) == 0
	})
	eventually(t, "the member logs that it caught up by a snapshot", func() bool {
		return strings.Contains(c.Output(), "restored snapshot")
	})
	requireSameBooks(t, a, c)
}

// A server killed during its first join, while it builds the first image
// (so before the members table came with it), starts again and finishes
// the join: the members' addresses the join's answer named were kept.
func TestReplicationKilledDuringFirstJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers and a slow stream")
	}
	const statements, perStatement = 40, 50
	a, c, adb := slowJoinPair(t, statements, perStatement)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the member killed:\n%s", c.Output())
		}
	})

	joined := make(chan error, 1)
	cdb := c.DB(t)
	go func() {
		_, err := cdb.Exec("JOIN CLUSTER c AT '" + a.repl + "'")
		joined <- err
	}()
	cdir := filepath.Join(c.DataDir, "clusters", "c")
	eventually(t, "the joining server building its first image", func() bool {
		parts, _ := filepath.Glob(filepath.Join(cdir, "tables.received-*.part"))
		for _, p := range parts {
			if vlogs, _ := filepath.Glob(filepath.Join(p, "*.vlog")); len(vlogs) > 0 {
				return true
			}
		}
		return false
	})
	c.Kill(t)
	require.Error(t, <-joined, "the JOIN's connection died with the server")

	c.Restart(t)
	cdb = c.DB(t)
	eventually(t, "the member back, caught up and counted", func() bool {
		var n string
		err := cdb.QueryRow("SELECT COUNT(*) FROM books").Scan(&n)
		return err == nil && n == strconv.Itoa(statements*perStatement)
	})
	requireSameBooks(t, a, c)
	eventually(t, "the member votes", func() bool {
		var name, value string
		err := adb.QueryRow("SHOW STATUS LIKE 'cluster_c_voters'").Scan(&name, &value)
		return err == nil && value == "2"
	})
}

// TestReplicationLeaveDuringFirstJoin: DELETE CLUSTER on a server that
// joined and is still building its first image (its log names no member
// yet) takes it out of the group too: the members forget it and stop
// streaming to it, rather than keeping a learner that never comes.
func TestReplicationLeaveDuringFirstJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers and a slow stream")
	}
	a, c, adb := slowJoinPair(t, 40, 50)

	joined := make(chan error, 1)
	cdb := c.DB(t)
	go func() {
		_, err := cdb.Exec("JOIN CLUSTER c AT '" + a.repl + "'")
		joined <- err
	}()
	eventually(t, "the joining server counted as a learner", func() bool { return status(t, adb, "cluster_c_size") == "2" })
	require.Equal(t, "1", status(t, adb, "cluster_c_voters"))
	mustExec(t, cdb, "DELETE CLUSTER c")
	require.Error(t, <-joined, "the JOIN ends with its cluster")
	eventually(t, "the member alone again", func() bool { return status(t, adb, "cluster_c_size") == "1" })
	require.Contains(t, a.Output(), "a node that was joining leaves")
	var n string
	require.ErrorContains(t, cdb.QueryRow("SELECT COUNT(*) FROM books").Scan(&n), "books", "no copy is left on the server that left")
	mustExec(t, adb, "INSERT INTO c:books (id, title, n) VALUES (9999, 'written alone', 1)")
}

// slowJoinPair starts a member of cluster c holding statements x
// perStatement books (insertBooks) that streams its images at 2 MB/s,
// so that a join takes seconds, and a server to join it.
func slowJoinPair(t *testing.T, statements, perStatement int) (a, c *replNode, adb *sql.DB) {
	t.Helper()
	args := []string{"--replication-snapshot-entries", "20", "--replication-stream-rate", "2"}
	a, c = startReplNode(t, "127.0.0.1", args...), startReplNode(t, "127.0.0.3", args...)
	adb = a.DB(t)
	mustExec(t, adb, "CREATE CLUSTER c")
	mustExec(t, adb, "CREATE TABLE c:books (title text, n int)")
	insertBooks(t, adb, statements, perStatement)
	return a, c, adb
}

// insertBooks writes statements INSERTs of perStatement books of about 4 KB
// each into c:books, with ids from 1.
func insertBooks(t *testing.T, db *sql.DB, statements, perStatement int) {
	t.Helper()
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 90)
	for s := range statements {
		var sb strings.Builder
		sb.WriteString("INSERT INTO c:books (id, title, n) VALUES ")
		for i := range perStatement {
			if i > 0 {
				sb.WriteByte(',')
			}
			id := s*perStatement + i + 1
			fmt.Fprintf(&sb, "(%d, '%s %d', %d)", id, text, id, id%7)
		}
		mustExec(t, db, sb.String())
	}
}

// requireSameBooks: both members answer alike about the table books.
func requireSameBooks(t *testing.T, nodes ...*replNode) {
	t.Helper()
	q := "SELECT id, n FROM books ORDER BY id ASC LIMIT 5000"
	want := rows(t, nodes[0].DB(t), q)
	for _, n := range nodes[1:] {
		db := n.DB(t)
		eventually(t, "the same books on "+n.MySQLAddr, func() bool { return slices.EqualFunc(rows(t, db, q), want, slices.Equal) })
	}
}

// A server with a table of its own, or of another of its clusters, named
// as one of the cluster's does not join (the member says which); a table of a member's own that a CREATE
// TABLE c:t sent elsewhere came to stand beside is the one a name without
// the cluster's reaches, for writes as for reads.
func TestReplicationLocalTableClash(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers")
	}
	a, b := startReplNode(t, "127.0.0.1"), startReplNode(t, "127.0.0.2")
	dbA, dbB := a.DB(t), b.DB(t)
	mustExec(t, dbA, "CREATE CLUSTER c")
	mustExec(t, dbA, "CREATE TABLE c:books (title text)")
	mustExec(t, dbB, "CREATE TABLE books (title text)")
	mustFail(t, dbB, "JOIN CLUSTER c AT '"+a.repl+"'", "has a table 'books' of its own, and cluster 'c' has a table 'books'")
	mustExec(t, dbB, "INSERT INTO books (id, title) VALUES (1, 'still mine')")
	mustExec(t, dbB, "DROP TABLE books")
	// A table of another of its clusters clashes too.
	mustExec(t, dbB, "CREATE CLUSTER d")
	mustExec(t, dbB, "CREATE TABLE d:books (title text)")
	mustFail(t, dbB, "JOIN CLUSTER c AT '"+a.repl+"'", "has a table 'books' in its cluster 'd', and cluster 'c' has a table 'books'")
	mustExec(t, dbB, "DELETE CLUSTER d")
	mustExec(t, dbB, "JOIN CLUSTER c AT '"+a.repl+"'")

	mustExec(t, dbB, "CREATE TABLE notes (title text)")
	mustExec(t, dbA, "CREATE TABLE c:notes (title text)")
	mustExec(t, dbA, "INSERT INTO c:notes (id, title) VALUES (7, 'the cluster''s')")
	mustExec(t, dbB, "INSERT INTO notes (id, title) VALUES (1, 'b''s own')")
	var title string
	require.NoError(t, dbB.QueryRow("SELECT title FROM notes WHERE id = 1").Scan(&title))
	require.Equal(t, "b's own", title)
	mustExec(t, dbB, "DROP TABLE notes")
	mustFail(t, dbB, "INSERT INTO notes (id, title) VALUES (2, 'x')", "table 'notes' is in cluster 'c': write to it as c:notes")
	eventually(t, "the cluster's notes on b", func() bool {
		err := dbB.QueryRow("SELECT title FROM notes WHERE id = 7").Scan(&title)
		return err == nil && title == "the cluster's"
	})
}
