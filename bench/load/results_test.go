package load

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunInProcess measures a trivial operation and checks the report's shape;
// nothing about timing.
func TestRunInProcess(t *testing.T) {
	op := func(_ context.Context, worker int, seq int64) (Done, error) {
		if worker < 0 || worker > 1 {
			return Done{}, errors.New("worker out of range")
		}
		if seq%10 == 9 {
			return Done{}, errors.New("every tenth fails")
		}
		return Done{Docs: 2, Bytes: 100, Rows: 3}, nil
	}
	spec := Spec{Target: Bleve, Workload: Ladder, Corpus: "ladder", Concurrency: 2,
		Duration: 50 * time.Millisecond, Warmup: 10 * time.Millisecond, FieldBytes: 1020}
	r, err := RunInProcess(context.Background(), spec, 3, op)
	require.NoError(t, err)
	assert.Equal(t, Bleve, r.Target)
	assert.Equal(t, "docs", r.Unit)
	assert.Equal(t, 3, r.Run)
	assert.Equal(t, 2, r.Concurrency)
	assert.EqualValues(t, 1020, r.FieldBytes)
	assert.Positive(t, r.Ops)
	assert.Positive(t, r.Errors)
	assert.Equal(t, "every tenth fails", r.FirstError)
	assert.Equal(t, 2*r.Ops, r.Docs)
	assert.Equal(t, 100*r.Ops, r.Bytes)
	assert.Equal(t, 3*r.Ops, r.Rows)
	assert.InDelta(t, float64(r.Docs)/r.Seconds, r.Throughput, 1e-6)
	assert.Zero(t, r.ServerCPUSeconds, "no pid, no CPU time")
}

func TestMedians(t *testing.T) {
	rep := func(target Target, wl string, field int64, tp float64, ops, errs int64, firstErr string) *Report {
		return &Report{Target: target, Corpus: "c", Workload: wl, Concurrency: 1, FieldBytes: field,
			Unit: UnitOf(wl), Throughput: tp, Ops: ops, Errors: errs, FirstError: firstErr}
	}
	ms := Medians([]*Report{
		rep(Sphinx, Search, 0, 30, 30, 0, ""),
		rep(Sphinx, Search, 0, 10, 10, 0, ""),
		rep(Sphinx, Search, 0, 20, 20, 1, "one"),
		rep(Glint, SearchHL, 0, 0, 0, 101, "no HIGHLIGHT"),
		rep(Bleve, Ladder, 1020, 500, 500, 0, ""),
		rep(Bleve, Ladder, 10230, 50, 50, 0, ""),
	})
	require.Len(t, ms, 4)
	assert.Equal(t, Sphinx, ms[0].Target)
	assert.InDelta(t, 20, ms[0].Throughput, 1e-9, "the median run")
	assert.Equal(t, 3, ms[0].Runs)
	assert.EqualValues(t, 60, ms[0].Ops)
	assert.EqualValues(t, 1, ms[0].Errors)
	assert.Equal(t, "one", ms[0].FirstError)
	assert.False(t, ms[0].Failed())
	assert.True(t, ms[1].Failed())
	assert.Equal(t, "not supported yet", FailureLabel(ms[1].Target))
	assert.Equal(t, "failed", FailureLabel(Sphinx))
	assert.EqualValues(t, 1020, ms[2].FieldBytes, "field sizes are groups of their own")
	assert.EqualValues(t, 10230, ms[3].FieldBytes)
	assert.Equal(t, "not supported yet", FailureLabel(GlintStem))
}

func TestMedianRowsPerOp(t *testing.T) {
	ms := Medians([]*Report{
		{Target: Postgres, Workload: Search, Throughput: 10, Ops: 10, Rows: 150},
		{Target: Postgres, Workload: Search, Throughput: 30, Ops: 30, Rows: 600},
		{Target: Postgres, Workload: Search, Throughput: 20, Ops: 20, Rows: 360},
	})
	require.Len(t, ms, 1)
	assert.InDelta(t, 18, ms[0].RowsPerOp, 1e-9, "the median run's rows over its operations")
}

func TestAbsentLabel(t *testing.T) {
	assert.Equal(t, "no HTTP API", AbsentLabel(Sphinx, JSONSearchHL))
	assert.Equal(t, "no HTTP JSON API", AbsentLabel(Postgres, JSONSearchHL))
	assert.Equal(t, "a library: no HTTP API", AbsentLabel(SQLite, JSONSearchHL))
	assert.Equal(t, "not run", AbsentLabel(Postgres, Search))
}

func TestSummaryRoundTrip(t *testing.T) {
	s := &Summary{StartedAt: time.Date(2026, 11, 23, 3, 20, 34, 0, time.UTC), CPUs: 2, Machine: "m",
		Reports: []*Report{{Target: Glint, Workload: Search, Unit: "queries", Throughput: 5, Ops: 5}}}
	s.Medians = Medians(s.Reports)
	path := filepath.Join(t.TempDir(), "r.json")
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	back, err := ReadSummary(path)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	_, err = ReadSummary(filepath.Join(t.TempDir(), "missing.json"))
	assert.Error(t, err)
}
