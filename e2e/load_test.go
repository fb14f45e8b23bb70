package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/e2e/daemon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadGenerator runs cmd/glint-load against the real server for about a
// second per workload and checks that its reports are well-formed. It asserts
// nothing about speed.
func TestLoadGenerator(t *testing.T) {
	s := StartServer(t)
	dir := t.TempDir()
	root, err := daemon.FindRepoRoot(".")
	require.NoError(t, err)
	bin := filepath.Join(dir, "glint-load")
	build := exec.Command("go", "build", "-o", bin, "./cmd/glint-load")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	var docs []corpus.Doc
	for i := 1; i <= 120; i++ {
		docs = append(docs, corpus.Doc{ID: uint64(i), Title: fmt.Sprintf("document %d", i),
			Content: fmt.Sprintf("alpha beta gamma delta word%d shared text about number %d", i%7, i)})
	}
	var jsonl bytes.Buffer
	require.NoError(t, corpus.WriteJSONL(&jsonl, docs))
	docsFile := filepath.Join(dir, "docs.jsonl")
	require.NoError(t, os.WriteFile(docsFile, jsonl.Bytes(), 0o644))

	reports := filepath.Join(dir, "reports")
	cmd := exec.Command(bin, "-target", "glint", "-mysql", s.MySQLAddr, "-http", s.HTTPAddr,
		"-docs", docsFile, "-corpus", "tiny", "-workload", "load,search", "-fill",
		"-c", "1,2", "-duration", "1s", "-warmup", "0s", "-runs", "1", "-batch", "50",
		"-server-pid", strconv.Itoa(s.Pid()), "-out", reports)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	tests := []struct {
		file, workload, unit string
		concurrency          int
	}{
		{"glint-tiny-load-c1-run1.json", load.Insert, "docs", 1},
		{"glint-tiny-search-c1-run1.json", load.Search, "queries", 1},
		{"glint-tiny-search-c2-run1.json", load.Search, "queries", 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(reports, tt.file))
			require.NoError(t, err)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			var r load.Report
			require.NoError(t, dec.Decode(&r))
			assert.Equal(t, load.Glint, r.Target)
			assert.Equal(t, tt.workload, r.Workload)
			assert.Equal(t, "tiny", r.Corpus)
			assert.Equal(t, tt.unit, r.Unit)
			assert.Equal(t, tt.concurrency, r.Concurrency)
			assert.Zero(t, r.Errors, r.FirstError)
			assert.Positive(t, r.Ops)
			assert.Positive(t, r.Seconds)
			assert.Positive(t, r.Throughput)
			assert.GreaterOrEqual(t, r.P99Ms, r.P50Ms)
			assert.GreaterOrEqual(t, r.ServerCPUSeconds, 0.0)
			if tt.workload == load.Insert {
				assert.Equal(t, r.Ops*50, r.Docs)
				assert.Positive(t, r.Bytes)
			}
		})
	}
}
