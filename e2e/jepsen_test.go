package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/glint-search/glint/internal/jepsen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runJepsen runs one seeded run on one glintd (the one the tests build); a
// run's history, porcupine's HTML and the node's output stay in a directory
// the failure names when the test fails.
func runJepsen(t *testing.T, cfg jepsen.Config) *jepsen.Result {
	t.Helper()
	out, err := os.MkdirTemp("", "glint-jepsen-")
	require.NoError(t, err)
	cfg.Cluster.Glintd = glintd(t)
	if cfg.Cluster.Nodes == 0 {
		cfg.Cluster.Nodes = 1
	}
	cfg.Cluster.DataDir = t.TempDir()
	cfg.Workloads = []string{jepsen.WorkloadRegister, jepsen.WorkloadSet}
	cfg.CreateTable = jepsen.DefaultCreateTable
	cfg.Out = out
	// Not 127.0.0.1: the ephemeral ports of loopback connections could take
	// a killed node's port before it starts again (glint-jepsen's hosts).
	cfg.Cluster.Hosts = []string{"127.1.0.1", "127.1.0.2", "127.1.0.3", "127.1.0.4", "127.1.0.5"}[:cfg.Cluster.Nodes]
	if cfg.Cluster.Nodes > 1 {
		jepsen.Replicated(&cfg, "jepsen")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if !t.Failed() {
			_ = os.RemoveAll(out)
		}
	})
	res, err := jepsen.Run(ctx, cfg)
	require.NoError(t, err)
	return res
}

// TestJepsenShort is `make jepsen` made short: one glintd, the register and
// set workloads at once under kill -9 and SIGSTOP (then, through a client
// proxy, partitions and one-way cuts, then slow and lossy links), each fault
// a tenth of Jepsen's length. No acknowledged INSERT may be lost across the kills (glintd
// acknowledges a write once it survives a crash of the process), and the
// register must be linearizable. It asserts nothing about speed.
func TestJepsenShort(t *testing.T) {
	if testing.Short() {
		t.Skip("30 s of faults")
	}
	for _, tc := range []struct {
		name    string
		nemeses []string
		proxies bool
	}{
		{"kill and stop", []string{jepsen.NemesisKill, jepsen.NemesisPause}, false},
		{"partition and cut", []string{jepsen.NemesisPartition, jepsen.NemesisCut}, true},
		{"delay and loss", []string{jepsen.NemesisDelay, jepsen.NemesisLoss}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runJepsen(t, jepsen.Config{
				Cluster:  jepsen.ClusterConfig{ClientProxies: tc.proxies},
				Duration: 10 * time.Second, Nemeses: tc.nemeses, Seed: 27, Scale: 0.1,
			})
			assert.Empty(t, res.Violations, "history, HTML and logs in %s", res.Artifacts)
			for _, n := range tc.nemeses {
				assert.Positive(t, res.Faults[n], "nemesis %s ran", n)
			}
			assert.Positive(t, res.Ok)
			assert.Positive(t, res.Fail+res.Unkn, "the faults cost some operations")
			require.NotNil(t, res.Register)
			assert.True(t, res.Register.Linearizable)
			assert.Positive(t, res.Register.Reads)
			assert.Positive(t, res.Register.Writes)
			require.Len(t, res.Sets, 1)
			assert.Positive(t, res.Sets[0].Acknowledged)
			assert.Equal(t, res.Sets[0].Acknowledged+res.Sets[0].RecoveredUnknown, res.Sets[0].Read)
			if tc.nemeses[0] == jepsen.NemesisKill {
				assert.Len(t, res.Failovers, res.Faults[jepsen.NemesisKill], "a write was acknowledged after every kill")
			}
		})
	}
}

// TestJepsenClusterShort runs the workloads on a cluster of three glintd,
// each node reaching the others through fault proxies: kill -9 (of the
// leader when one is known) and SIGSTOP, then partitions and one-way cuts
// between the nodes. No acknowledged write may be lost, the register
// (read with consistency='linearizable') must be linearizable, and every
// node must hold every acknowledged id at the end.
func TestJepsenClusterShort(t *testing.T) {
	if testing.Short() {
		t.Skip("three servers and 20 s of faults")
	}
	for _, tc := range []struct {
		name    string
		nemeses []string
	}{
		{"kill and stop", []string{jepsen.NemesisKill, jepsen.NemesisPause}},
		{"partition and cut", []string{jepsen.NemesisPartition, jepsen.NemesisCut}},
		{"wipe and membership", []string{jepsen.NemesisWipe, jepsen.NemesisMember}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runJepsen(t, jepsen.Config{
				Cluster:  jepsen.ClusterConfig{Nodes: 3},
				Duration: 10 * time.Second, Nemeses: tc.nemeses, Seed: 5, Scale: 0.1,
			})
			assert.Empty(t, res.Violations, "history, HTML and logs in %s", res.Artifacts)
			assert.Positive(t, res.Ok)
			require.NotNil(t, res.Register)
			assert.True(t, res.Register.Linearizable)
			require.Len(t, res.Sets, 3, "a final read on every node")
			assert.True(t, res.ConvergeChecked && res.Converged, "every node answers the searches alike")
			for _, set := range res.Sets {
				assert.Empty(t, set.Lost)
				assert.Positive(t, set.Acknowledged)
			}
		})
	}
}

// TestJepsenCatchesDataLoss: wiping the only node's data (its tables are
// made again, empty) loses acknowledged writes, and both checkers must say
// so end to end, so that a run that passes has not passed vacuously.
func TestJepsenCatchesDataLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("3 s of faults")
	}
	res := runJepsen(t, jepsen.Config{
		Duration: 3 * time.Second, Nemeses: []string{jepsen.NemesisWipe}, Seed: 1, Scale: 0.1, AllowDataLoss: true,
	})
	require.Positive(t, res.Faults[jepsen.NemesisWipe])
	require.Len(t, res.Sets, 1)
	assert.False(t, res.Sets[0].NoTable, "the tables are made again")
	assert.Positive(t, len(res.Sets[0].Lost))
	assert.False(t, res.Register.Linearizable, "reads after the wipe miss acknowledged writes")
	require.NotEmpty(t, res.Violations)
	require.NotEmpty(t, res.Artifacts)
	for _, f := range []string{"history.jsonl", "register.html", "violations.txt", "node0.log"} {
		assert.FileExists(t, filepath.Join(res.Artifacts, f))
	}
	// the saved history alone gives the same verdict
	f, err := os.Open(filepath.Join(res.Artifacts, "history.jsonl"))
	require.NoError(t, err)
	ops, err := jepsen.ReadJSONL(f)
	f.Close()
	require.NoError(t, err)
	again, err := jepsen.Check(ops, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, res.Violations, again.Violations)
}

// A node the harness gives up on is ended with SIGQUIT, paused or not, and
// its output then holds every goroutine's stack.
func TestJepsenNodeDumpGoroutines(t *testing.T) {
	n, err := jepsen.NewNode(1, jepsen.NodeSpec{Glintd: glintd(t), Host: "127.1.0.9", DataDir: t.TempDir()})
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	t.Cleanup(func() { _ = n.Stop(10 * time.Second) })
	require.NoError(t, n.Pause())
	require.NoError(t, n.DumpGoroutines())
	require.False(t, n.Running())
	out := n.Output()
	require.Contains(t, out, "SIGQUIT")
	require.Contains(t, out, "goroutine ")
	// glint's own goroutines among them: the index's, started before the
	// server says it listens (the listeners' own may not have run yet
	// when the signal comes, right after).
	require.Contains(t, out, "github.com/glint-search/glint/index.", "glint's goroutines among them")
}
