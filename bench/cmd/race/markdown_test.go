package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/glint-search/glint/bench/load"
)

func TestMarkdown(t *testing.T) {
	ok := func(t load.Target, corpus, wl string, c int, unit string, tp float64) load.Median {
		return load.Median{Target: t, Corpus: corpus, Workload: wl, Concurrency: c, Unit: unit, Throughput: tp,
			P50Ms: 1, P99Ms: 2, Runs: 3, Ops: 100, RowsPerOp: 18}
	}
	failed := func(t load.Target, wl string, c int, field int64) load.Median {
		corpus := "brown"
		if field > 0 {
			corpus = "ladder"
		}
		return load.Median{Target: t, Corpus: corpus, Workload: wl, Concurrency: c, FieldBytes: field, Unit: "queries",
			Runs: 3, Errors: 303, FirstError: "Error 1064 (42000): syntax error\nnear HIGHLIGHT"}
	}
	ladder := ok(load.Bleve, "ladder", load.Ladder, 1, "docs", 61)
	ladder.FieldBytes = 1048570
	sum := &load.Summary{
		StartedAt: time.Date(2026, 11, 23, 3, 20, 34, 0, time.UTC), CPUs: 2, Machine: "Test CPU, linux/amd64",
		Notes: []string{"nothing skipped"},
		Sizes: []load.Size{{Target: load.Glint, Corpus: "brown", Docs: 500, RawBytes: 6_000_000, DiskBytes: 8_100_000},
			{Target: load.Postgres, Corpus: "brown", Docs: 500, RawBytes: 6_000_000, DiskBytes: 12_000_000}},
		Medians: []load.Median{
			ok(load.Sphinx, "brown", load.Search, 1, "queries", 1000),
			ok(load.Sphinx, "brown", load.SearchHL, 1, "queries", 100),
			ok(load.Glint, "brown", load.Search, 1, "queries", 1500),
			failed(load.Glint, load.SearchHL, 1, 0),
			failed(load.Glint, load.JSONSearchHL, 1, 0),
			failed(load.Glint, load.Ladder, 1, 1048570),
			ok(load.Bleve, "brown", load.SearchHL, 1, "queries", 1200),
			ok(load.GlintStem, "brown", load.Search, 1, "queries", 1400),
			ok(load.Postgres, "brown", load.Search, 1, "queries", 700),
			ok(load.SQLite, "brown", load.Search, 1, "queries", 2800),
			ladder,
		},
	}
	md := markdown(sum)
	for _, want := range []string{
		"Test CPU, linux/amd64, 2 CPUs, loopback; medians of 3 run(s)",
		"| corpus | workload | c | sphinx | glint | glint stem_en | postgres | sqlite fts5 (in-process, no protocol cost) | " +
			"bleve (in-process, no protocol cost) | glint/sphinx | glint stem_en/postgres | glint stem_en/sqlite | glint/bleve |",
		"| brown | search | 1 | 1000 queries/s (1.00 / 2.00) | 1500 queries/s (1.00 / 2.00) | 1400 queries/s (1.00 / 2.00) | " +
			"700 queries/s (1.00 / 2.00) | 2800 queries/s (1.00 / 2.00) | - | 1.50x | 2.00x | 0.50x | - |",
		"| brown | search+highlight | 1 | 100 queries/s (1.00 / 2.00) | not supported yet | - | - | - | 1200 queries/s (1.00 / 2.00) | - | - | - | - |",
		"| brown | json-search+highlight | 1 | n/a (no HTTP API) | not supported yet | - | n/a (no HTTP JSON API) | n/a (a library: no HTTP API) | - | - | - | - | - |",
		"| ladder | ladder 1 MB | 1 | - | not supported yet | - | - | - | 61 docs/s (1.00 / 2.00) | - | - | - | - |",
		"| brown | search | 1 | 18.0 | 18.0 | 18.0 | 18.0 | 18.0 | - |",
		"- nothing skipped",
		"| glint | brown | 500 | 6.0 MB | 8.1 MB | 1.35 |",
		"| postgres | brown | 500 | 6.0 MB | 12.0 MB | 2.00 |",
		"- glint, search+highlight: not supported yet (first error: Error 1064 (42000): syntax error near HIGHLIGHT)",
	} {
		assert.Contains(t, md, want)
	}
	lines := strings.Split(md, "\n")
	lines = lines[:slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Rows per operation") })]
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| brown") || strings.HasPrefix(l, "| ladder") {
			rows = append(rows, l[:strings.Index(l[2:], "|")+2])
		}
	}
	assert.Equal(t, []string{"| brown ", "| brown ", "| brown ", "| ladder "}, rows, "corpora in order, the ladder last")
	assert.Less(t, strings.Index(md, "| search |"), strings.Index(md, "| search+highlight |"), "workloads in the race's order")
}

func TestWorkloadLabel(t *testing.T) {
	assert.Equal(t, "snippets", workloadLabel("snippets", 0))
	assert.Equal(t, "ladder 1 KB", workloadLabel("ladder", 1020))
	assert.Equal(t, "ladder 100 KB", workloadLabel("ladder", 102390))
	assert.Equal(t, "ladder 1 MB", workloadLabel("ladder", 1048570))
}

func TestFileName(t *testing.T) {
	assert.Equal(t, "bleve-brown-snippets-c8-run2.json",
		fileName(&load.Report{Target: load.Bleve, Corpus: "brown", Workload: "snippets", Concurrency: 8, Run: 2}))
	assert.Equal(t, "sphinx-ladder-ladder-1020-c1-run1.json",
		fileName(&load.Report{Target: load.Sphinx, Corpus: "ladder", Workload: "ladder", FieldBytes: 1020, Concurrency: 1, Run: 1}))
}

func TestMarkdownDistributed(t *testing.T) {
	m := func(wl string, c int, tp, p50 float64) load.Median {
		return load.Median{Target: load.Glint, Corpus: "brown", Workload: wl, Concurrency: c, Unit: "queries",
			Throughput: tp, P50Ms: p50, P99Ms: 2 * p50, Runs: 3, Ops: 100, RowsPerOp: 12.5, CPUPerOp: 0.002}
	}
	sum := &load.Summary{StartedAt: time.Date(2026, 11, 26, 17, 0, 0, 0, time.UTC), CPUs: 2, Medians: []load.Median{
		m(load.DistLocal, 1, 1000, 1.00), m(load.DistRemote, 1, 800, 1.20), m(load.DistAgents, 1, 700, 1.35),
		m(load.DistLocal, 8, 2000, 4), m(load.DistRemote, 8, 1000, 8),
		{Target: load.Glint, Corpus: "brown", Workload: load.DistAgents, Concurrency: 8, Unit: "queries", Runs: 3, Errors: 9, FirstError: "refused"},
	}}
	md := markdown(sum)
	assert.NotContains(t, md, "| brown | distributed", "not in the table of the race")
	for _, want := range []string{
		"| c | local table | 1 remote agent | 4 agents | cost of 1 agent | 4 agents: p50 added |",
		"| 1 | 1000 queries/s (1.00 / 2.00), 12.5 rows, 2.00 ms CPU | 800 queries/s (1.20 / 2.40), 12.5 rows, 2.00 ms CPU | 700 queries/s (1.35 / 2.70), 12.5 rows, 2.00 ms CPU | 1.25x; p50 1.20x | +0.35 ms |",
		"| 8 | 2000 queries/s (4.00 / 8.00), 12.5 rows, 2.00 ms CPU | 1000 queries/s (8.00 / 16.00), 12.5 rows, 2.00 ms CPU | not supported yet | 2.00x; p50 2.00x | - |",
		"- glint, distributed: 4 agents: not supported yet (first error: refused)",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, markdown(&load.Summary{}), "Distributed tables")
}
