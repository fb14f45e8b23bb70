package e2e

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/glint-search/glint/internal/jepsen"
	"github.com/stretchr/testify/require"
)

// proxiedCluster is three proxied nodes (proxiedReplNodes) in cluster c,
// which holds books with one row, written before: a set-up of several
// tests.
func proxiedCluster(t *testing.T) ([]*replNode, [][]*jepsen.Proxy) {
	t.Helper()
	nodes, proxies := proxiedReplNodes(t, 3)
	exec := func(n *replNode, q string) { t.Helper(); mustExec(t, n.DB(t), q) }
	exec(nodes[0], "CREATE CLUSTER c")
	exec(nodes[0], "CREATE TABLE books (title text, n int)")
	exec(nodes[0], "ALTER CLUSTER c ADD books")
	exec(nodes[1], "JOIN CLUSTER c AT '"+nodes[0].repl+"'")
	exec(nodes[2], "JOIN CLUSTER c AT '"+nodes[0].repl+"'")
	exec(nodes[0], "INSERT INTO c:books (id, title, n) VALUES (1, 'before', 1)")
	return nodes, proxies
}

// proxiedReplNodes starts n glintd on 127.0.0.1.. whose members dial each
// other through a fault proxy per ordered pair: proxies[i][j] carries what
// node i sends to node j (nil for i == j).
func proxiedReplNodes(t *testing.T, n int) ([]*replNode, [][]*jepsen.Proxy) {
	t.Helper()
	ips := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}[:n]
	addrs := make([]string, n)
	for i, ip := range ips {
		l, err := net.Listen("tcp", ip+":0")
		require.NoError(t, err)
		addrs[i] = l.Addr().String()
		require.NoError(t, l.Close())
	}
	proxies := make([][]*jepsen.Proxy, n)
	nodes := make([]*replNode, n)
	for i, ip := range ips {
		proxies[i] = make([]*jepsen.Proxy, n)
		var via []string
		for j := range ips {
			if i == j {
				continue
			}
			p, err := jepsen.NewProxy(ip+":0", addrs[j], int64(10*i+j))
			require.NoError(t, err)
			t.Cleanup(func() { p.Close() })
			proxies[i][j] = p
			via = append(via, addrs[j]+"="+p.Addr())
		}
		s := StartServer(t, onHost(ip), WithArgs("--replication-listen", addrs[i], "--replication-via", strings.Join(via, ",")))
		nodes[i] = &replNode{Server: s, repl: addrs[i]}
	}
	return nodes, proxies
}

// TestReplicationRemovedUnheard: a member asks to leave (DELETE CLUSTER)
// while it can send to the others but hears nothing back. The others take
// it out, but it never hears the commit, and after the network heals the
// leader sends it nothing more: before, it kept calling itself a member
// with no leader, and every DELETE CLUSTER failed with "no leader". Now it
// asks the members, learns that it was removed within seconds, says so in
// SHOW STATUS (also after a restart), refuses writes, and DELETE CLUSTER
// drops its copy at once.
func TestReplicationRemovedUnheard(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers, a 30 s timeout")
	}
	nodes, proxies := proxiedCluster(t)
	exec := func(n *replNode, q string) { t.Helper(); mustExec(t, n.DB(t), q) }
	victim := -1
	for i, n := range nodes {
		eventually(t, "three voters on "+n.MySQLAddr, func() bool { return status(t, n.DB(t), "cluster_c_voters") == "3" })
		if victim < 0 && status(t, n.DB(t), "cluster_c_role") == "follower" {
			victim = i
		}
	}
	require.GreaterOrEqual(t, victim, 0)
	v := nodes[victim]
	var others []*replNode
	for i, n := range nodes {
		if i != victim {
			others = append(others, n)
		}
	}
	vdb := v.DB(t)

	// The victim hears nothing: the others' links to it are cut, and
	// on its own links only its connections already open still carry
	// what it sends (the answer a new connection waits for is lost).
	for i := range nodes {
		if i != victim {
			proxies[i][victim].Partition()
			proxies[victim][i].Block(jepsen.Down)
		}
	}
	start := time.Now()
	_, err := vdb.Exec("DELETE CLUSTER c")
	require.ErrorContains(t, err, "the other members did not take this server out")
	t.Logf("DELETE CLUSTER on the cut-off member failed after %s", time.Since(start).Round(time.Millisecond))
	for _, n := range others {
		eventually(t, "the others took the victim out", func() bool { return status(t, n.DB(t), "cluster_c_size") == "2" })
	}
	require.NotEqual(t, "removed", status(t, vdb, "cluster_c_node_state"), "it cannot know yet")

	for _, row := range proxies {
		for _, p := range row {
			if p != nil {
				p.Heal()
			}
		}
	}
	healed := time.Now()
	deadline := healed.Add(10 * time.Second)
	for status(t, vdb, "cluster_c_node_state") != "removed" {
		require.True(t, time.Now().Before(deadline), "the removed member learns of it within 10 s of the heal")
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the removed member learned of it %s after the heal", time.Since(healed).Round(time.Millisecond))
	require.Equal(t, "removed", status(t, vdb, "cluster_c_role"))
	require.Equal(t, "non-primary", status(t, vdb, "cluster_c_status"))
	mustFail(t, vdb, "INSERT INTO c:books (id, title, n) VALUES (2, 'after', 2)",
		"cluster 'c': this server was removed from the cluster")
	mustFail(t, vdb, "SELECT id FROM books OPTION consistency='linearizable'", "this server was removed")
	require.Equal(t, [][]string{{"1"}}, rows(t, vdb, "SELECT id FROM books"), "its copy stays until DELETE CLUSTER")
	require.Equal(t, 1, strings.Count(v.Output(), "this node was removed from its group"), v.Output())

	// A restart finds it out at once (it wrote it down).
	v.Restart(t)
	vdb = v.DB(t)
	require.Equal(t, "removed", status(t, vdb, "cluster_c_node_state"))
	mustFail(t, vdb, "JOIN CLUSTER c AT '"+others[0].repl+"'", "which the other members took out of it: DELETE CLUSTER c drops its copy first")
	exec(v, "DELETE CLUSTER c")
	mustFail(t, vdb, "SELECT * FROM books", "unknown table")

	exec(others[0], "INSERT INTO c:books (id, title, n) VALUES (3, 'two left', 3)")
	requireConverged(t, others...)
}

// TestReplicationBootstrapDroppedPairComesBack: two of three members stop,
// and the survivor forces a new cluster of itself (pc.bootstrap) and takes
// writes. The two come back with their old data, cut off from the survivor
// at first, elect a leader of their own and take a write. Once the links
// heal, their leader, hearing nothing from the survivor, asks it, learns
// that it was removed, and stops; the other then hears no leader, asks,
// and stops too. Before, having a leader, they never asked, and served
// their stale copy for good. The survivor keeps its writes and not theirs.
func TestReplicationBootstrapDroppedPairComesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers, two restarts")
	}
	nodes, proxies := proxiedCluster(t)
	exec := func(n *replNode, q string) { t.Helper(); mustExec(t, n.DB(t), q) }
	for _, n := range nodes {
		eventually(t, "three voters on "+n.MySQLAddr, func() bool { return status(t, n.DB(t), "cluster_c_voters") == "3" })
	}
	requireConverged(t, nodes...)

	// While it hears a leader, pc.bootstrap is refused: the cluster has
	// its quorum.
	mustFail(t, nodes[0].DB(t), "SET CLUSTER c GLOBAL 'pc.bootstrap' = 1", "this member hears a leader")
	requireConverged(t, nodes...)
	nodes[1].Stop(t)
	nodes[2].Stop(t)
	db0 := nodes[0].DB(t)
	eventually(t, "the survivor hears no leader", func() bool { return status(t, db0, "cluster_c_status") == "non-primary" })
	exec(nodes[0], "SET CLUSTER c GLOBAL 'pc.bootstrap' = 1")
	eventually(t, "the survivor leads", func() bool { return status(t, db0, "cluster_c_role") == "leader" })
	exec(nodes[0], "INSERT INTO c:books (id, title, n) VALUES (2, 'survivor', 2)")

	for _, i := range []int{1, 2} {
		proxies[0][i].Partition()
		proxies[i][0].Partition()
	}
	nodes[1].Restart(t)
	nodes[2].Restart(t)
	var lead *replNode
	eventually(t, "the dropped pair elects a leader", func() bool {
		for _, n := range nodes[1:] {
			if status(t, n.DB(t), "cluster_c_role") == "leader" {
				lead = n
				return true
			}
		}
		return false
	})
	exec(lead, "INSERT INTO c:books (id, title, n) VALUES (3, 'stale pair', 3)")

	for _, row := range proxies {
		for _, p := range row {
			if p != nil {
				p.Heal()
			}
		}
	}
	healed := time.Now()
	for _, n := range nodes[1:] {
		db := n.DB(t)
		deadline := healed.Add(10 * time.Second)
		for status(t, db, "cluster_c_node_state") != "removed" {
			require.True(t, time.Now().Before(deadline), "%s learns of its removal within 10 s of the heal", n.MySQLAddr)
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%s learned of its removal %s after the heal", n.MySQLAddr, time.Since(healed).Round(time.Millisecond))
		mustFail(t, db, "INSERT INTO c:books (id, title, n) VALUES (4, 'after', 4)",
			"cluster 'c': this server was removed from the cluster")
	}
	exec(nodes[0], "INSERT INTO c:books (id, title, n) VALUES (5, 'survivor again', 5)")
	require.Equal(t, [][]string{{"1"}, {"2"}, {"5"}}, rows(t, db0, "SELECT id FROM books ORDER BY id ASC"))
	require.Equal(t, "1", status(t, db0, "cluster_c_size"))
	require.Equal(t, "leader", status(t, db0, "cluster_c_role"))
}

// TestReplicationKilledBeforeJoinAnswered: a server killed while its JOIN
// CLUSTER waits for a member's answer (no member knows of it) removes the
// cluster at its next start, with a warning, instead of staying "joining"
// for good and refusing the JOIN again as a cluster it has.
func TestReplicationKilledBeforeJoinAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("two servers, a restart")
	}
	// A "member" that takes the connection and never answers.
	l, err := net.Listen("tcp", "127.0.0.38:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	a := startReplNode(t, "127.0.0.36")
	mustExec(t, a.DB(t), "CREATE CLUSTER c")
	b := startReplNode(t, "127.0.0.37")
	go func() { _, _ = b.DB(t).Exec("JOIN CLUSTER c AT '" + l.Addr().String() + "'") }()
	eventually(t, "the join asks", func() bool { return status(t, b.DB(t), "cluster_c_node_state") == "joining" })
	b.Kill(t)
	b.Restart(t)
	require.Contains(t, b.Output(), "removing a cluster whose JOIN CLUSTER no member had answered")
	require.Equal(t, "", status(t, b.DB(t), "cluster_c_node_state"))
	mustExec(t, b.DB(t), "JOIN CLUSTER c AT '"+a.repl+"'")
	require.Equal(t, "synced", status(t, b.DB(t), "cluster_c_node_state"))
}

// TestReplicationDeleteClusterEverywhereAtOnce: DELETE CLUSTER run on
// every member at the same moment succeeds on each, and no cluster is
// left. The last removal would leave no voter: raft panics on it (the
// server died, and again at every restart, replaying it); it is refused
// on every member alike, and the member it would have removed is the
// last, which deletes the cluster, at once rather than after waiting for
// a removal or a leadership transfer that could never come.
func TestReplicationDeleteClusterEverywhereAtOnce(t *testing.T) {
	a, b, c := startThreeReplNodes(t)
	nodes := []*replNode{a, b, c}
	for round := range 3 {
		name := fmt.Sprintf("gone%d", round)
		mustExec(t, a.DB(t), "CREATE CLUSTER "+name)
		for _, n := range nodes[1:] {
			mustExec(t, n.DB(t), "JOIN CLUSTER "+name+" AT '"+a.repl+"'")
		}
		// Three members, or two: the last two leaving at once.
		leaving := nodes
		if round == 2 {
			mustExec(t, c.DB(t), "DELETE CLUSTER "+name)
			leaving = nodes[:2]
		}
		errs := make(chan error, len(leaving))
		for _, n := range leaving {
			go func() {
				_, err := n.DB(t).Exec("DELETE CLUSTER " + name)
				errs <- err
			}()
		}
		for range leaving {
			require.NoError(t, <-errs, "round %d", round)
		}
		for i, n := range nodes {
			require.Empty(t, status(t, n.DB(t), "cluster_name"), "round %d, node %d", round, i)
		}
	}
	for _, n := range nodes {
		require.Equal(t, [][]string{{"1"}}, rows(t, n.DB(t), "SELECT 1"))
	}
}

// TestReplicationAddKeepsTableName: ALTER CLUSTER ADD and DROP name a
// table in any case, as every statement does; the table keeps the name
// it was created with (it took the case written in the statement).
func TestReplicationAddKeepsTableName(t *testing.T) {
	n := startReplNode(t, "127.0.0.1")
	db := n.DB(t)
	mustExec(t, db, "CREATE CLUSTER c")
	mustExec(t, db, "CREATE TABLE MixCase (title text)")
	mustExec(t, db, "ALTER CLUSTER c ADD mixcase")
	require.Equal(t, [][]string{{"MixCase", "rt"}}, rows(t, db, "SHOW TABLES"))
	require.Equal(t, "MixCase", status(t, db, "cluster_c_indexes"))
	mustExec(t, db, "ALTER CLUSTER c DROP MIXCASE")
	require.Equal(t, [][]string{{"MixCase", "rt"}}, rows(t, db, "SHOW TABLES"))

	// The cluster's own table of its members is no user's: not by its
	// plain name, and not to be made.
	mustFail(t, db, "SELECT * FROM __glint_members", "unknown table '__glint_members'")
	mustFail(t, db, "CREATE TABLE c:__glint_members (title text)", "'__glint_members' is the cluster's own table of its members")
}
