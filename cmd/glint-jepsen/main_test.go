package main

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

func TestRunRefusesBadOptions(t *testing.T) {
	good := options{glintd: "main.go", nemeses: "kill,stop", workloads: "register,set", runs: 1, parallel: 1, clients: 4, nodes: 1,
		duration: time.Second, opTimeout: time.Second, scale: 1, createTable: jepsen.DefaultCreateTable}
	for name, tc := range map[string]struct {
		change func(*options)
		err    string
	}{
		"unknown nemesis":  {func(o *options) { o.nemeses = "kill,flood" }, `unknown nemesis "flood"`},
		"no runs":          {func(o *options) { o.runs = 0 }, "-runs 0: at least 1"},
		"no parallel":      {func(o *options) { o.parallel = 0 }, "-parallel 0: at least 1"},
		"zero scale":       {func(o *options) { o.scale = 0 }, "-scale 0: must be positive"},
		"missing glintd":   {func(o *options) { o.glintd = "no/such/glintd" }, "make build makes bin/glintd"},
		"unknown workload": {func(o *options) { o.workloads = "register,bank" }, `unknown workload "bank"`},
		"wipe on one node": {func(o *options) { o.nemeses = "wipe" }, `nemesis "wipe" needs a cluster`},
		"create, no %s":    {func(o *options) { o.createTable = "CREATE TABLE t (v int)" }, "needs one %s for the table's name"},
	} {
		t.Run(name, func(t *testing.T) {
			o := good
			tc.change(&o)
			_, err := run(context.Background(), o)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// TestRecheck checks a saved history again: a stale read is caught and the
// HTML is written beside the history.
func TestRecheck(t *testing.T) {
	dir := t.TempDir()
	ms := int64(time.Millisecond)
	ops := []jepsen.Op{
		{Index: 0, Process: 0, Type: jepsen.Invoke, Kind: jepsen.Write, Workload: jepsen.WorkloadRegister, Key: 1, Value: 5, Time: 0},
		{Index: 0, Process: 0, Type: jepsen.Ok, Kind: jepsen.Write, Workload: jepsen.WorkloadRegister, Key: 1, Value: 5, Time: 10 * ms},
		{Index: 1, Process: 1, Type: jepsen.Invoke, Kind: jepsen.Read, Workload: jepsen.WorkloadRegister, Key: 1, Time: 20 * ms},
		{Index: 1, Process: 1, Type: jepsen.Ok, Kind: jepsen.Read, Workload: jepsen.WorkloadRegister, Key: 1, Value: 0, Time: 30 * ms},
	}
	path := filepath.Join(dir, "history.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, jepsen.WriteJSONL(f, ops))
	require.NoError(t, f.Close())
	ok, err := recheck(path)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.FileExists(t, filepath.Join(dir, "register.html"))

	_, err = recheck(filepath.Join(dir, "none.jsonl"))
	assert.Error(t, err)
}
