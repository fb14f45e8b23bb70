package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/bleve/blevebench"
	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// TestReportFormat runs the command's work on 50 documents for 0.2 s a run and
// checks what it prints and writes: one well-formed report a line, the same in
// the -out files. No timing is asserted.
func TestReportFormat(t *testing.T) {
	dir := t.TempDir()
	docs := make([]corpus.Doc, 50)
	for i := range docs {
		docs[i] = corpus.Doc{ID: uint64(i + 1), Title: fmt.Sprintf("doc %d", i+1),
			Content: strings.Repeat(fmt.Sprintf("alpha beta gamma%d delta epsilon. ", i%7), 20+i)}
	}
	var jsonl bytes.Buffer
	require.NoError(t, corpus.WriteJSONL(&jsonl, docs))
	docsFile := filepath.Join(dir, "small.jsonl")
	require.NoError(t, os.WriteFile(docsFile, jsonl.Bytes(), 0o644))

	cfg := blevebench.Config{Duration: 200 * time.Millisecond, Runs: 1, SnippetDocs: 10}
	out := filepath.Join(dir, "out")
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), cfg, docsFile, "search+highlight,snippets", "1,8", out, &stdout))

	var reports []load.Report
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var r load.Report
		require.NoError(t, dec.Decode(&r), sc.Text())
		reports = append(reports, r)
	}
	require.Len(t, reports, 4)
	want := []struct {
		workload string
		c        int
	}{{load.SearchHL, 1}, {load.SearchHL, 8}, {load.Snippets, 1}, {load.Snippets, 8}}
	for i, r := range reports {
		assert.Equal(t, want[i].workload, r.Workload)
		assert.Equal(t, want[i].c, r.Concurrency)
		assert.Equal(t, load.Target("bleve (in-process, no protocol cost)"), r.Target)
		assert.Equal(t, "small", r.Corpus, "the corpus is named after the file")
		assert.Equal(t, load.UnitOf(r.Workload), r.Unit)
		assert.Positive(t, r.Ops)
		assert.Zero(t, r.Errors)
		assert.Positive(t, r.Throughput)
		assert.False(t, r.StartedAt.IsZero())

		b, err := os.ReadFile(filepath.Join(out, FileName(&r)))
		require.NoError(t, err)
		var file load.Report
		require.NoError(t, json.Unmarshal(b, &file))
		assert.Equal(t, r, file)
	}
	assert.Equal(t, "bleve-ladder-ladder-1024-c1-run2.json",
		FileName(&load.Report{Corpus: "ladder", Workload: load.Ladder, FieldBytes: 1024, Concurrency: 1, Run: 2}))
}

func TestRunErrors(t *testing.T) {
	var stdout bytes.Buffer
	assert.ErrorContains(t, run(context.Background(), blevebench.Config{}, "", "snippets", "1", "", &stdout), "-docs")
	assert.Error(t, run(context.Background(), blevebench.Config{}, "/nonexistent.jsonl", "snippets", "1", "", &stdout))
	assert.Empty(t, stdout.String())
}
