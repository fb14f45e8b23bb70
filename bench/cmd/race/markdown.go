package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// columns are the targets of the table, in its order.
var columns = []load.Target{load.Sphinx, load.Glint, load.GlintStem, load.Postgres, load.SQLite, load.Bleve}

// ratios are the table's ratio columns: a glint target's throughput over a
// peer's. glint's plain table is set against Sphinx and Bleve, which do not
// stem here; its stem_en table against PostgreSQL and SQLite, which do.
var ratios = []struct {
	glint, peer load.Target
	heading     string
}{
	{load.Glint, load.Sphinx, "glint/sphinx"},
	{load.GlintStem, load.Postgres, "glint stem_en/postgres"},
	{load.GlintStem, load.SQLite, "glint stem_en/sqlite"},
	{load.Glint, load.Bleve, "glint/bleve"},
}

// markdown renders the medians as one table: a row per corpus, workload (and
// field size) and concurrency, a column per target, and the ratios of glint's
// throughput to each peer's. A second table gives the rows each answer held
// on average, so that a reader sees whether the targets did the same work.
// Notes follow: why targets were skipped and the first error of each
// workload a target failed.
func markdown(sum *load.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark %s\n\n", sum.StartedAt.Format(time.RFC3339))
	where := fmt.Sprintf("%d CPUs", sum.CPUs)
	if sum.Machine != "" {
		where = sum.Machine + ", " + where
	}
	runs := 0
	for _, m := range sum.Medians {
		runs = max(runs, m.Runs)
	}
	fmt.Fprintf(&b, "%s, loopback; medians of %d run(s); throughput (p50 / p99 ms).\n", where, runs)
	b.WriteString("SQLite FTS5 and Bleve are libraries driven in-process: their figures carry no protocol or network cost " +
		"(a ceiling for a server, not a server figure). Bleve runs the highlight workloads only; " +
		"its snippets are a stand-in (tokenize, mark, best fragment), and so are SQLite's " +
		"(the texts indexed in a temporary FTS5 table, snippet() of those that match, rolled back). " +
		"glint stem_en, PostgreSQL and SQLite stem English words; glint and Sphinx do not. " +
		"A ladder row highlights one document of that size per operation.\n\n")
	b.WriteString("| corpus | workload | c |")
	for _, t := range columns {
		b.WriteString(" " + string(t) + " |")
	}
	for _, r := range ratios {
		b.WriteString(" " + r.heading + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(columns)+len(ratios)) + "\n")

	type row struct {
		corpus, workload string
		field            int64
		c                int
	}
	cells := map[row]map[load.Target]load.Median{}
	var rows []row
	var corpora []string
	for _, m := range sum.Medians {
		if load.IsDistributed(m.Workload) {
			continue // distributedTable
		}
		r := row{m.Corpus, m.Workload, m.FieldBytes, m.Concurrency}
		if cells[r] == nil {
			cells[r] = map[load.Target]load.Median{}
			rows = append(rows, r)
		}
		cells[r][m.Target] = m
		if !slices.Contains(corpora, m.Corpus) {
			corpora = append(corpora, m.Corpus)
		}
	}
	corpusRank := func(c string) int {
		if c == string(corpus.Ladder) {
			return math.MaxInt
		}
		return slices.Index(corpora, c)
	}
	workloadRank := func(w string) int {
		if i := slices.Index(load.Workloads, w); i >= 0 {
			return i
		}
		return math.MaxInt
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(corpusRank(a.corpus), corpusRank(b.corpus)),
			cmp.Compare(workloadRank(a.workload), workloadRank(b.workload)),
			cmp.Compare(a.field, b.field), cmp.Compare(a.c, b.c))
	})
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d |", r.corpus, workloadLabel(r.workload, r.field), r.c)
		for _, t := range columns {
			m, ok := cells[r][t]
			b.WriteString(" " + cell(t, r.workload, m, ok) + " |")
		}
		for _, rt := range ratios {
			g, okG := cells[r][rt.glint]
			p, okP := cells[r][rt.peer]
			b.WriteString(" " + ratio(g, okG, p, okP) + " |")
		}
		b.WriteByte('\n')
	}

	b.WriteString("\nRows per operation (mean, median run): the hits of a search (at most 20), the groups of a " +
		"GROUP BY, the rows of a facet's three result sets, the snippets of a CALL SNIPPETS of 10 texts " +
		"(SQLite's stand-in returns only the texts that match). The same queries on every target; " +
		"stemming, ranking ties and phrase rules make the counts differ.\n\n")
	b.WriteString("| corpus | workload | c |")
	for _, t := range columns {
		b.WriteString(" " + string(t) + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(columns)) + "\n")
	for _, r := range rows {
		if !rowsCounted(r.workload) {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d |", r.corpus, workloadLabel(r.workload, r.field), r.c)
		for _, t := range columns {
			m, ok := cells[r][t]
			if !ok || m.Failed() {
				b.WriteString(" - |")
				continue
			}
			fmt.Fprintf(&b, " %.1f |", m.RowsPerOp)
		}
		b.WriteByte('\n')
	}

	if len(sum.Sizes) > 0 {
		b.WriteString("\nOn disk after loading each corpus once into a fresh table (blocks allocated): glint's data directory " +
			"(index and stored text); PostgreSQL's pg_total_relation_size (heap, TOAST, GIN index and primary key; not the WAL); " +
			"the pages of SQLite's database in use after a checkpoint (the FTS5 index and the text it keeps):\n\n")
		b.WriteString("| target | corpus | documents | text | on disk | on disk / text |\n|---|---|---|---|---|---|\n")
		for _, z := range sum.Sizes {
			fmt.Fprintf(&b, "| %s | %s | %d | %.1f MB | %.1f MB | %.2f |\n", z.Target, z.Corpus, z.Docs,
				float64(z.RawBytes)/1e6, float64(z.DiskBytes)/1e6, float64(z.DiskBytes)/float64(max(1, z.RawBytes)))
		}
	}

	b.WriteString(distributedTable(sum.Medians))

	notes := slices.Clone(sum.Notes)
	seen := map[string]bool{}
	for _, m := range sum.Medians {
		key := string(m.Target) + "\x00" + m.Workload
		if m.Failed() && !seen[key] {
			seen[key] = true
			notes = append(notes, fmt.Sprintf("%s, %s: %s (first error: %s)", m.Target, m.Workload, load.FailureLabel(m.Target), clip(m.FirstError, 160)))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

// rowsCounted says that the rows of a workload's answers are counted: not
// for load (no rows), json-search+highlight (answers not parsed) and the
// ladder (one text, one snippet).
func rowsCounted(workload string) bool {
	return workload != load.Insert && workload != load.JSONSearchHL && workload != load.Ladder
}

// workloadLabel names a row's workload; a ladder row says its field size.
func workloadLabel(workload string, fieldBytes int64) string {
	if fieldBytes <= 0 {
		return workload
	}
	rung := corpus.LadderRung(fieldBytes)
	if rung >= 1<<20 && rung%(1<<20) == 0 {
		return fmt.Sprintf("%s %d MB", workload, rung>>20)
	}
	if rung%(1<<10) == 0 {
		return fmt.Sprintf("%s %d KB", workload, rung>>10)
	}
	return fmt.Sprintf("%s %d B", workload, rung)
}

// cell renders one target's median, or says why there is none.
func cell(t load.Target, workload string, m load.Median, ok bool) string {
	switch {
	case !ok && load.AbsentLabel(t, workload) != "not run":
		return "n/a (" + load.AbsentLabel(t, workload) + ")"
	case !ok:
		return "-"
	case m.Failed():
		return load.FailureLabel(t)
	}
	s := fmt.Sprintf("%.0f %s/s", m.Throughput, m.Unit)
	if m.MBPerSec > 0 {
		s += fmt.Sprintf(", %.1f MB/s", m.MBPerSec)
	}
	s += fmt.Sprintf(" (%.2f / %.2f)", m.P50Ms, m.P99Ms)
	if m.Errors > 0 {
		s += fmt.Sprintf(", %d errors", m.Errors)
	}
	return s
}

// ratio is glint's throughput over a peer's, when glint ran without errors.
func ratio(g load.Median, okG bool, p load.Median, okP bool) string {
	if !okG || !okP || g.Errors > 0 || p.Failed() || p.Throughput <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", g.Throughput/p.Throughput)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// distributedTable renders the distributed stage's medians (glint only): a
// row per concurrency, the three tables' figures, the cost of one remote
// agent over the local table (throughput local/remote and p50
// remote/local: issue 26 asks at most 1.3x) and what four agents add to
// the local table's p50 (at most 0.5 ms). "" when the stage did not run.
func distributedTable(ms []load.Median) string {
	cells := map[int]map[string]load.Median{}
	var cs []int
	for _, m := range ms {
		if !load.IsDistributed(m.Workload) || m.Target != load.Glint {
			continue
		}
		if cells[m.Concurrency] == nil {
			cells[m.Concurrency] = map[string]load.Median{}
			cs = append(cs, m.Concurrency)
		}
		cells[m.Concurrency][m.Workload] = m
	}
	if len(cs) == 0 {
		return ""
	}
	slices.Sort(cs)
	var b strings.Builder
	b.WriteString("\nDistributed tables (glint; Brown cycled to 10,000 documents; `SELECT id, HIGHLIGHT() ... WHERE MATCH(q) LIMIT 20`; " +
		"five glintd on 127.0.0.1-5 sharing the CPUs): the coordinator's local table, a distributed table of one remote agent " +
		"holding the same documents, and one of four agents holding a quarter each; throughput (p50 / p99 ms), rows per query, " +
		"CPU per query of the five servers together. " +
		"Cost of 1 agent: throughput local/remote and p50 remote/local; 4 agents: p50 minus the local table's.\n\n")
	b.WriteString("| c |")
	for _, wl := range load.DistWorkloads {
		b.WriteString(" " + strings.TrimPrefix(wl, load.Distributed+": ") + " |")
	}
	b.WriteString(" cost of 1 agent | 4 agents: p50 added |\n|---|" + strings.Repeat("---|", len(load.DistWorkloads)+2) + "\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %d |", c)
		for _, wl := range load.DistWorkloads {
			m, ok := cells[c][wl]
			text := cell(load.Glint, wl, m, ok)
			if ok && !m.Failed() {
				text += fmt.Sprintf(", %.1f rows, %.2f ms CPU", m.RowsPerOp, m.CPUPerOp*1000)
			}
			b.WriteString(" " + text + " |")
		}
		local, okL := cells[c][load.DistLocal]
		remote, okR := cells[c][load.DistRemote]
		agents, okA := cells[c][load.DistAgents]
		good := func(m load.Median, ok bool) bool { return ok && m.Errors == 0 && m.Throughput > 0 && m.P50Ms > 0 }
		if good(local, okL) && good(remote, okR) {
			fmt.Fprintf(&b, " %.2fx; p50 %.2fx |", local.Throughput/remote.Throughput, remote.P50Ms/local.P50Ms)
		} else {
			b.WriteString(" - |")
		}
		if good(local, okL) && good(agents, okA) {
			fmt.Fprintf(&b, " %+.2f ms |", agents.P50Ms-local.P50Ms)
		} else {
			b.WriteString(" - |")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
