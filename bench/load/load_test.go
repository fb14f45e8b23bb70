package load

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name, stat string
		want       float64
		wantErr    bool
	}{
		{"plain", "1234 (glintd) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0", 3.0, false},
		{"name with spaces and parens", "9 (a (b) c) R 1 9 9 0 -1 0 0 0 0 0 7 3 0 0", 0.1, false},
		{"short", "9 (x) R 1 2", 0, true},
		{"no name", "garbage", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatCPU(tt.stat)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want, got, 1e-9)
		})
	}
}

// TestProcessTreeCPUSeconds counts a child's CPU time under its parent: a
// shell that runs a busy child (the shell itself stays idle).
func TestProcessTreeCPUSeconds(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & wait")
	require.NoError(t, cmd.Start())
	defer func() {
		for _, c := range children(cmd.Process.Pid) {
			syscall.Kill(c, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}()
	require.Eventually(t, func() bool {
		tree, err := ProcessTreeCPUSeconds(cmd.Process.Pid)
		require.NoError(t, err)
		own, err := ProcessCPUSeconds(cmd.Process.Pid)
		require.NoError(t, err)
		return tree >= own+0.05
	}, 10*time.Second, 20*time.Millisecond, "the busy child's time counts")
	_, err := ProcessTreeCPUSeconds(1 << 30)
	assert.Error(t, err, "no such process")
}

func TestPercentileMs(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var d []time.Duration
		for _, n := range ns {
			d = append(d, time.Duration(n)*time.Millisecond)
		}
		return d
	}
	tests := []struct {
		name string
		d    []time.Duration
		p    float64
		want float64
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7},
		{"median of unsorted", ms(5, 1, 3, 2, 4), 0.5, 3},
		{"p99 of 100", ms(func() []int {
			var v []int
			for i := 100; i >= 1; i-- {
				v = append(v, i)
			}
			return v
		}()...), 0.99, 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, percentileMs(tt.d, tt.p), 1e-9)
		})
	}
}

func TestInsertStatement(t *testing.T) {
	docs := []corpus.Doc{{Title: "it's", Content: "back\\slash\nnew"}, {Title: "b", Content: "c"}}
	stmt, size := insertStatement("t", quoteDocs(docs), 1, 3)
	assert.Equal(t, `INSERT INTO t (id, title, content, gid) VALUES (2,'b','c',1),(3,'it\'s','back\\slash\nnew',2),(4,'b','c',3)`, stmt)
	assert.Equal(t, docs[1].Bytes()+docs[0].Bytes()+docs[1].Bytes(), size)
}

func TestAppendQuoted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `''`},
		{"plain text", `'plain text'`},
		{"it's", `'it\'s'`},
		{`a\b`, `'a\\b'`},
		{"line\nbreak\r", `'line\nbreak\r'`},
		{"nul\x00", `'nul\0'`},
		{"ünï'cödé", `'ünï\'cödé'`},
		{"\xff'\xfe", "'\xff\\'\xfe'"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendQuoted([]byte("x"), tt.in))[1:], "%q", tt.in)
	}
}

func TestSnippetsStatement(t *testing.T) {
	cfg := &Config{Docs: []corpus.Doc{{Title: "x", Content: "one's"}, {Content: "two"}, {Content: "three"}},
		Queries: []corpus.Query{{Text: "a"}, {Text: `"b c"`}}}
	w := newSnippetsWorkload(cfg, 2, 0)
	stmt, size := w.statement(1)
	assert.Equal(t, `CALL SNIPPETS(('three','one\'s'), 't', '"b c"', 0 AS limit, 1 AS query_mode)`, stmt)
	assert.Equal(t, int64(10), size)
}

func TestConfigDefaults(t *testing.T) {
	c := Config{Target: Glint, Workload: Insert, Docs: []corpus.Doc{{}}}
	require.NoError(t, c.setDefaults())
	assert.Equal(t, 1, c.Concurrency)
	assert.Equal(t, DefaultBatch, c.BatchSize)
	assert.Equal(t, 10*time.Second, c.Duration)

	bad := []Config{
		{Target: "mysql", Workload: Insert, Docs: []corpus.Doc{{}}},
		{Target: Glint, Workload: Insert},
		{Target: Glint, Workload: Search, Docs: []corpus.Doc{{}}},
		{Target: Glint, Workload: Ladder, Docs: []corpus.Doc{{}, {}}, Queries: []corpus.Query{{Text: "a"}}},
	}
	for _, c := range bad {
		assert.Error(t, c.setDefaults())
	}
}

func TestUnitOf(t *testing.T) {
	for wl, want := range map[string]string{Insert: "docs", Search: "queries", SearchHL: "queries",
		Snippets: "docs", JSONSearchHL: "queries", GroupBy: "queries", Facet: "queries", Ladder: "docs"} {
		assert.Equal(t, want, UnitOf(wl), wl)
	}
}
