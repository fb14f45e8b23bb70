package jepsen

import (
	"bufio"
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// netOf three echo servers standing for three nodes' peer listeners.
func netOf(t *testing.T, n int) (*Net, []*echoServer) {
	t.Helper()
	var peers []string
	var echoes []*echoServer
	for range n {
		e := startEcho(t)
		echoes = append(echoes, e)
		peers = append(peers, e.ln.Addr().String())
	}
	nw, err := NewNet(peers, 1)
	require.NoError(t, err)
	t.Cleanup(nw.Close)
	return nw, echoes
}

// reaches reports whether a line sent over link from->to comes back. A
// blocked link holds a new connection at accept, which its counts show, so
// nothing here waits for a timeout.
func reaches(t *testing.T, nw *Net, from, to int) bool {
	t.Helper()
	link := nw.Link(from, to)
	before := link.Stats()
	c, err := net.Dial("tcp", link.Addr())
	require.NoError(t, err)
	defer c.Close()
	eventually(t, "the proxy accepts", func() bool { return link.Stats().Accepted > before.Accepted })
	if link.Stats().Held > before.Held {
		return false
	}
	_, err = c.Write([]byte("ping\n"))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	return line == "ping\n"
}

func TestNetPartitionAndHeal(t *testing.T) {
	nw, _ := netOf(t, 3)
	assert.Equal(t, []string{nw.Link(1, 0).Addr(), "", nw.Link(1, 2).Addr()}, nw.Addrs(1))
	nw.Partition([]int{0}, []int{1, 2})
	for from := range 3 {
		for to := range 3 {
			if from != to {
				assert.Equal(t, (from == 0) == (to == 0), reaches(t, nw, from, to), "%d -> %d", from, to)
			}
		}
	}
	nw.Heal()
	assert.True(t, reaches(t, nw, 0, 1))
	assert.True(t, reaches(t, nw, 2, 0))
}

// TestNetCut: a one-way cut from 0 to 1 blocks 0's bytes on the link 0 dials
// (Up) and on the one 1 dials (Down), and nothing else.
func TestNetCut(t *testing.T) {
	nw, _ := netOf(t, 3)
	nw.Cut(0, 1)
	assert.Equal(t, [2]bool{true, false}, nw.Link(0, 1).Faults().Block)
	assert.Equal(t, [2]bool{false, true}, nw.Link(1, 0).Faults().Block)
	assert.False(t, reaches(t, nw, 0, 1))
	assert.False(t, reaches(t, nw, 1, 0), "a handshake needs both ways")
	assert.True(t, reaches(t, nw, 0, 2))
	assert.True(t, reaches(t, nw, 2, 1))
	require.NoError(t, nw.SetFaults(Faults{Delay: time.Millisecond}))
	assert.Equal(t, [2]bool{}, nw.Link(0, 1).Faults().Block, "SetFaults replaces the cut")
	assert.ErrorContains(t, nw.SetFaults(Faults{Loss: 2}), "not a probability")
}

func TestParseNemeses(t *testing.T) {
	got, err := ParseNemeses(" kill, stop ,partition")
	require.NoError(t, err)
	assert.Equal(t, []string{"kill", "stop", "partition"}, got)
	for _, none := range []string{"", "none"} {
		got, err = ParseNemeses(none)
		require.NoError(t, err)
		assert.Empty(t, got)
	}
	_, err = ParseNemeses("kill,kil")
	assert.EqualError(t, err, `jepsen: unknown nemesis "kil" (known: kill, stop, partition, cut, wipe, delay, loss, member)`)
	_, err = ParseNemeses("kill,kill")
	assert.EqualError(t, err, `jepsen: nemesis "kill" given twice`)
}

func TestConfigRefuses(t *testing.T) {
	base := func() Config {
		return Config{Cluster: ClusterConfig{Glintd: "glintd", Nodes: 1, DataDir: "d"}, Workloads: []string{WorkloadSet}, Duration: time.Second}
	}
	for name, tc := range map[string]struct {
		change func(*Config)
		err    string
	}{
		"wipe on one node":      {func(c *Config) { c.Nemeses = []string{NemesisWipe} }, `nemesis "wipe" needs a cluster`},
		"partition, no proxy":   {func(c *Config) { c.Nemeses = []string{NemesisPartition} }, "needs ClientProxies"},
		"cut, no proxy":         {func(c *Config) { c.Nemeses = []string{NemesisCut} }, "needs ClientProxies"},
		"delay, no proxy":       {func(c *Config) { c.Nemeses = []string{NemesisDelay} }, "needs ClientProxies"},
		"loss, no proxy":        {func(c *Config) { c.Nemeses = []string{NemesisLoss} }, "needs ClientProxies"},
		"no workload":           {func(c *Config) { c.Workloads = nil }, "no workload"},
		"unknown workload":      {func(c *Config) { c.Workloads = []string{"bank"} }, `unknown workload "bank"`},
		"no duration":           {func(c *Config) { c.Duration = 0 }, "must be positive"},
		"negative clients":      {func(c *Config) { c.Clients = -1 }, "must not be negative"},
		"three nodes, no peers": {func(c *Config) { c.Cluster.Nodes = 3 }, "3 nodes need ClusterConfig.PeerArgs"},
		"one table for both":    {func(c *Config) { c.RegisterTable, c.SetTable = "t", "t" }, "share table t"},
		"create without %s":     {func(c *Config) { c.CreateTable = "CREATE TABLE x (v int)" }, "needs one %s"},
		"hosts for other nodes": {func(c *Config) { c.Cluster.Hosts = []string{"127.0.0.1", "127.0.0.2"} }, "2 hosts for 1 nodes"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base()
			tc.change(&cfg)
			_, err := Run(context.Background(), cfg)
			assert.ErrorContains(t, err, tc.err)
		})
	}
	cfg := base()
	cfg.Nemeses = []string{NemesisWipe}
	cfg.AllowDataLoss = true
	assert.NoError(t, cfg.defaults())
}

func TestClassify(t *testing.T) {
	dialErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	readErr := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	serverErr := fmt.Errorf("exec: %w", &mysql.MySQLError{Number: 1062, Message: "duplicate id 3"})
	assert.Equal(t, Ok, Classify(nil, nil))
	assert.Equal(t, Fail, Classify(serverErr, nil), "the server said no")
	assert.Equal(t, Fail, Classify(dialErr, nil), "never sent")
	assert.Equal(t, Unknown, Classify(readErr, nil), "sent, then the connection broke")
	assert.Equal(t, Unknown, Classify(mysql.ErrInvalidConn, nil))
	assert.Equal(t, Fail, Classify(fmt.Errorf("exec: %w", driver.ErrBadConn), nil), "the driver's word that nothing was sent")
	assert.Equal(t, Unknown, Classify(context.DeadlineExceeded, nil))
	assert.Equal(t, Unknown, Classify(serverErr, func(code uint16) bool { return code == 1062 }), "an indeterminate code")
}

func TestKeysRotate(t *testing.T) {
	k := newKeys(2, 3, 10)
	rng := rand.New(rand.NewSource(1))
	count := map[int64]int{}
	for range 60 {
		count[k.pick(rng)]++
	}
	for key, n := range count {
		assert.LessOrEqual(t, n, 3, "key %d", key)
		assert.GreaterOrEqual(t, key, int64(10))
	}
	assert.GreaterOrEqual(t, len(count), 20, "60 operations at 3 a key")
	assert.Equal(t, int64(1), k.newValue())
	assert.Equal(t, int64(2), k.newValue())

	// Writes of unknown outcome retire a key sooner.
	k = newKeys(1, 1000, 50)
	for range unknownPerKey - 1 {
		k.unknown(50)
	}
	assert.Equal(t, int64(50), k.pick(rng), "still in play")
	k.unknown(50)
	assert.Equal(t, int64(51), k.pick(rng), "retired at unknownPerKey")
	k.unknown(50) // retired already: nothing
	assert.Equal(t, int64(51), k.pick(rng))
}

func TestSummary(t *testing.T) {
	ms := time.Millisecond
	results := []*Result{
		{Seed: 1, Ops: 10, Ok: 8, Fail: 1, Unkn: 1, Faults: map[string]int{"kill": 2},
			Register: &RegisterResult{Linearizable: true}, Sets: []SetResult{{RecoveredUnknown: 1}},
			Failovers: []time.Duration{100 * ms, 300 * ms}, Restarts: []time.Duration{80 * ms, 90 * ms},
			ConvergeChecked: true, Converged: true},
		{Seed: 2, Ops: 5, Ok: 5, Faults: map[string]int{"kill": 1, "stop": 1},
			Register: &RegisterResult{}, Sets: []SetResult{{Lost: []int64{4, 5}}},
			Failovers: []time.Duration{200 * ms}, Violations: []string{"x"}, Artifacts: "out/seed-2",
			ConvergeChecked: true},
	}
	s := Summarize(results)
	assert.False(t, s.OK())
	var b bytes.Buffer
	require.NoError(t, s.Write(&b))
	assert.Equal(t, strings.Join([]string{
		"runs                            2 (1 passed)",
		"operations                      15: 13 ok, 1 fail, 1 unknown",
		"faults                          kill 3, stop 1",
		"lost acknowledged writes        2",
		"unexpected ids                  0",
		"unknown adds that happened      1",
		"linearizability violations      1 (0 undecided)",
		"nodes diverged (convergence)    1 of 2 cluster runs",
		"failover (kill -9 to next ack)  n=3 p50 200 ms p99 300 ms max 300 ms, 0 over 2s",
		"restart (kill -9 to ready)      n=2 p50 80 ms p99 90 ms max 90 ms",
		"failed seeds                    [2]",
		"history and HTML                out/seed-2",
		""}, "\n"), b.String())
	assert.Equal(t, time.Duration(0), Percentile(nil, 50))
}
