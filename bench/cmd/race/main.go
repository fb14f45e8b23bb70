// Command race is the side-by-side benchmark of glint and its peers
// (bench/README.md): Sphinx 2.2.11 and PostgreSQL's
// full-text search, servers, and SQLite FTS5 and Bleve, libraries driven
// in-process. It prepares the corpora, starts searchd (scripts/sphinx.sh),
// glintd (twice: a plain table, then one with morphology='stem_en', the
// counterpart of the peers that stem) and a private PostgreSQL cluster
// (scripts/postgres.sh) on free loopback ports with temporary data
// directories, loads the same documents into each, runs the same workloads
// against each, and stops each by pid. PostgreSQL and SQLite are driven by
// bench/peers's peer-bench, Bleve (the highlight workloads and the
// field-size ladder) by bench/bleve's bleve-bench, each built from its own Go
// module (glint never depends on them); the libraries' figures carry no
// protocol cost. The race writes:
//
//	bench/results/<timestamp>.json             every run's report and the medians (load.Summary)
//	bench/results/<timestamp>.md               a table of medians with the ratios glint/peer
//	bench/results/<timestamp>-throughput.svg   throughput by workload and concurrency
//	bench/results/<timestamp>-fieldsize.svg    highlighting cost against field size (the ladder)
//	bench/results/latest-*.svg                 copies of the two charts, for the README
//	bench/results/tmp/<timestamp>/             one JSON file per run (git-ignored)
//
// Usage (from the repository root; make bench and make bench-quick do this):
//
//	go run ./bench/cmd/race [-quick] [-targets sphinx,glint,glint-stem,postgres,sqlite,bleve] [-corpora brown,debian]
//
// The distributed workload (glint only, on Brown) runs five glintd on
// 127.0.0.1 to 127.0.0.5 and asks the same page of highlighted rows of a
// local table, of a distributed table of one remote agent, and of one of
// four agents (distributed.go).
//
// The ladder workload highlights one document of each field size (1 KB to
// 1 MB) per operation, at concurrency 1: CALL SNIPPETS on the servers,
// ts_headline on PostgreSQL, the snippets stand-ins on SQLite and Bleve. A
// target that cannot be started (glintd not built yet, a module not
// building, PostgreSQL not installable) is reported and skipped; a workload a
// server does not support shows its errors in the reports and "not supported
// yet" in the table.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/glint-search/glint/bench/chart"
	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// How -targets names Bleve (its reports say load.Bleve) and glint with
// morphology='stem_en' (load.GlintStem).
const (
	bleveTarget     = "bleve"
	glintStemTarget = "glint-stem"
)

// targetOf is the target a -targets name stands for.
func targetOf(name string) load.Target {
	switch name {
	case glintStemTarget:
		return load.GlintStem
	case bleveTarget:
		return load.Bleve
	case sqliteTarget:
		return load.SQLite
	}
	return load.Target(name)
}

type options struct {
	quick                         bool
	targets, corpora, workloads   string
	concurrency                   string
	duration, warmup, ladderTime  time.Duration
	runs                          int
	glintd, cache, out, sphinxSrc string
	bleveModule, bleveBench       string
	postgresSrc                   string
	peersModule, peerBench        string
}

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "short race (make bench-quick, ~6 min in all on 2 cores): Brown only, 1 run of 2 s (ladder runs 1 s)")
	flag.StringVar(&o.targets, "targets", strings.Join([]string{"sphinx", "glint", glintStemTarget, postgresTarget, sqliteTarget, bleveTarget}, ","),
		"targets: sphinx, glint, "+glintStemTarget+" (glint, morphology='stem_en'), "+postgresTarget+", "+sqliteTarget+", "+bleveTarget)
	flag.StringVar(&o.corpora, "corpora", "brown,debian", "corpora")
	flag.StringVar(&o.workloads, "workloads", strings.Join(load.Workloads, ","), "workloads")
	flag.StringVar(&o.concurrency, "c", "1,8", "concurrencies of the search and snippets workloads (the ladder runs at 1)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time of a run")
	flag.DurationVar(&o.ladderTime, "ladder-duration", 0, "measured time of a ladder run (default: -duration)")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before a search run")
	flag.IntVar(&o.runs, "runs", 3, "runs per workload and concurrency (the table shows medians)")
	flag.StringVar(&o.glintd, "glintd", "bin/glintd", "the glintd binary")
	flag.StringVar(&o.cache, "cache", "bench/cache", "corpus cache directory")
	flag.StringVar(&o.out, "out", "bench/results", "results directory")
	flag.StringVar(&o.sphinxSrc, "sphinx-script", "scripts/sphinx.sh", "the peer's start/stop script")
	flag.StringVar(&o.bleveModule, "bleve-module", "bench/bleve", "the Go module of the Bleve program")
	flag.StringVar(&o.bleveBench, "bleve-bench", "bin/bleve-bench", "where to build the Bleve program")
	flag.StringVar(&o.postgresSrc, "postgres-script", "scripts/postgres.sh", "PostgreSQL's start/stop script")
	flag.StringVar(&o.peersModule, "peers-module", "bench/peers", "the Go module of the PostgreSQL and SQLite program")
	flag.StringVar(&o.peerBench, "peer-bench", "bin/peer-bench", "where to build the PostgreSQL and SQLite program")
	flag.Parse()
	if o.quick {
		o.corpora, o.duration, o.warmup, o.runs = "brown", 2*time.Second, 500*time.Millisecond, 1
		if o.ladderTime == 0 {
			o.ladderTime = time.Second
		}
	}
	if o.ladderTime == 0 {
		o.ladderTime = o.duration
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "race:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	conc, err := load.ParseCounts(o.concurrency, "concurrency")
	if err != nil {
		return err
	}
	start := time.Now().UTC()
	stamp := start.Format("20060102-150405")
	tmp := filepath.Join(o.out, "tmp", stamp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	sum := &load.Summary{StartedAt: start, Quick: o.quick, CPUs: runtime.NumCPU(), Machine: load.Machine()}

	corpora := map[string][]corpus.Doc{}
	names := load.SplitList(o.corpora)
	for _, n := range names {
		name, err := corpus.ParseName(n)
		if err != nil {
			return err
		}
		if corpora[n], err = corpus.Load(ctx, o.cache, name); err != nil {
			return err
		}
	}
	workloads := load.SplitList(o.workloads)
	var ladder []corpus.Doc
	if slices.Contains(workloads, load.Ladder) {
		if ladder, err = corpus.Load(ctx, o.cache, corpus.Ladder); err != nil {
			return err
		}
	}

	for _, target := range load.SplitList(o.targets) {
		if target == bleveTarget || target == postgresTarget || target == sqliteTarget {
			var reports []*load.Report
			var err error
			if target == bleveTarget {
				reports, err = raceBleve(ctx, o, names, workloads, ladder, conc, tmp)
			} else {
				var sizes []load.Size
				reports, sizes, err = racePeer(ctx, o, target, names, workloads, ladder, conc, tmp)
				sum.Sizes = append(sum.Sizes, sizes...)
			}
			sum.Reports = append(sum.Reports, reports...)
			if err != nil {
				note := fmt.Sprintf("%s skipped or stopped: %v", target, err)
				fmt.Fprintln(os.Stderr, "race:", note)
				sum.Notes = append(sum.Notes, note)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		if load.IsGlint(targetOf(target)) {
			for _, n := range names {
				size, err := measureSize(ctx, o, targetOf(target), n, corpora[n], tmp)
				if err != nil {
					sum.Notes = append(sum.Notes, fmt.Sprintf("%s: size on disk of %s: %v", target, n, err))
					continue
				}
				sum.Sizes = append(sum.Sizes, size)
			}
		}
		srv, err := startServer(ctx, o, targetOf(target), tmp)
		if err != nil {
			note := fmt.Sprintf("%s skipped: %v", target, err)
			fmt.Fprintln(os.Stderr, "race:", note)
			sum.Notes = append(sum.Notes, note)
			continue
		}
		for _, n := range names {
			reports, err := raceOne(ctx, o, srv, n, corpora[n], workloads, conc, tmp)
			sum.Reports = append(sum.Reports, reports...)
			if err != nil {
				sum.Notes = append(sum.Notes, fmt.Sprintf("%s on %s stopped: %v", target, n, err))
				fmt.Fprintln(os.Stderr, "race:", err)
			}
			if ctx.Err() != nil {
				break
			}
		}
		if len(ladder) > 0 && ctx.Err() == nil {
			reports, err := raceLadder(ctx, o, srv, ladder, tmp)
			sum.Reports = append(sum.Reports, reports...)
			if err != nil {
				sum.Notes = append(sum.Notes, fmt.Sprintf("%s on the ladder stopped: %v", target, err))
				fmt.Fprintln(os.Stderr, "race:", err)
			}
		}
		if err := srv.stop(); err != nil {
			sum.Notes = append(sum.Notes, fmt.Sprintf("%s: stopping: %v", target, err))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if slices.Contains(workloads, load.Distributed) && slices.Contains(load.SplitList(o.targets), string(load.Glint)) {
		brown, ok := corpora[string(corpus.Brown)]
		if !ok {
			if brown, err = corpus.Load(ctx, o.cache, corpus.Brown); err != nil {
				return err
			}
		}
		reports, err := raceDistributed(ctx, o, brown, conc, tmp)
		sum.Reports = append(sum.Reports, reports...)
		if err != nil {
			note := fmt.Sprintf("glint, %s stopped: %v", load.Distributed, err)
			fmt.Fprintln(os.Stderr, "race:", note)
			sum.Notes = append(sum.Notes, note)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	sum.Medians = load.Medians(sum.Reports)
	return writeSummary(o.out, stamp, sum)
}

// raceOne runs every workload but the ladder on one corpus against one server.
func raceOne(ctx context.Context, o options, srv *server, corpusName string, docs []corpus.Doc, workloads []string, conc []int, tmp string) ([]*load.Report, error) {
	var reports []*load.Report
	base := load.Config{
		Target: srv.target, MySQLAddr: srv.mysql, HTTPAddr: srv.http, Corpus: corpusName,
		Docs: docs, Queries: corpus.Queries(docs, corpus.DefaultSeed),
		Duration: o.duration, Warmup: o.warmup, ServerPID: srv.pid,
	}
	filled := false
	for _, wl := range workloads {
		if wl == load.Ladder || wl == load.Distributed {
			continue // raceLadder, raceDistributed
		}
		cfg := base
		cfg.Workload = wl
		cs := conc
		if wl == load.Insert {
			cs, cfg.Warmup, filled = []int{1}, 0, false
		} else if !filled {
			fmt.Printf("%s %s: filling\n", srv.target, corpusName)
			if err := load.Fill(ctx, cfg); err != nil {
				return reports, err
			}
			filled = true

		}
		if load.AbsentLabel(srv.target, wl) != "not run" {
			continue // Sphinx 2.2 has no HTTP API
		}
		for _, c := range cs {
			cfg.Concurrency = c
			rs, err := runs(ctx, o.runs, cfg, tmp)
			reports = append(reports, rs...)
			if err != nil {
				return reports, err
			}
		}
	}
	return reports, nil
}

// measureSize loads a corpus once into a fresh glintd and measures its data
// directory (a server the race has used holds the earlier loads too, until
// badger reclaims them). Background merges are off: the keys of merged
// segments and the value-log space of their texts are reclaimed minutes
// later, and counting them would measure the moment, not the format. Of
// the servers only glintd is measured (plain and stem_en; PostgreSQL's and
// SQLite's sizes come from peer-bench): searchd's directory holds a binlog of
// every text, and its RT index's RAM chunk is not on disk, so its size would
// compare nothing.
func measureSize(ctx context.Context, o options, target load.Target, corpusName string, docs []corpus.Doc, tmp string) (load.Size, error) {
	size := load.Size{Target: target, Corpus: corpusName, Docs: len(docs)}
	for _, d := range docs {
		size.RawBytes += int64(len(d.Title) + len(d.Content))
	}
	srv, err := startServer(ctx, o, target, tmp, "--merge-factor", "0")
	if err != nil {
		return size, err
	}
	err = load.Fill(ctx, load.Config{Target: target, Workload: load.Insert, MySQLAddr: srv.mysql, HTTPAddr: srv.http, Corpus: corpusName, Docs: docs})
	if err == nil {
		size.DiskBytes, err = load.DiskUsage(srv.dir)
	}
	if stopErr := srv.stop(); err == nil {
		err = stopErr
	}
	if err == nil {
		fmt.Printf("%s %s: %d documents, %.1f MB of text, %.1f MB on disk\n", srv.target, corpusName,
			size.Docs, float64(size.RawBytes)/1e6, float64(size.DiskBytes)/1e6)
	}
	return size, err
}

// raceLadder highlights each document of the ladder on its own (CALL SNIPPETS
// of one document), at concurrency 1. The table t must exist for glint, so it
// is reset first; CALL SNIPPETS does not read it.
func raceLadder(ctx context.Context, o options, srv *server, ladder []corpus.Doc, tmp string) ([]*load.Report, error) {
	db, err := load.Open(srv.mysql)
	if err != nil {
		return nil, err
	}
	err = load.Reset(ctx, db, srv.target)
	db.Close()
	if err != nil {
		return nil, err
	}
	var reports []*load.Report
	queries := corpus.LadderQueries(ladder, corpus.DefaultSeed)
	for _, d := range ladder {
		cfg := load.Config{
			Target: srv.target, Workload: load.Ladder, MySQLAddr: srv.mysql, Corpus: string(corpus.Ladder),
			Docs: []corpus.Doc{d}, Queries: queries, Concurrency: 1,
			Duration: o.ladderTime, Warmup: min(o.warmup, o.ladderTime/4), ServerPID: srv.pid,
		}
		rs, err := runs(ctx, o.runs, cfg, tmp)
		reports = append(reports, rs...)
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// runs does n runs of cfg, writes each report into tmp and prints a line for it.
func runs(ctx context.Context, n int, cfg load.Config, tmp string) ([]*load.Report, error) {
	var reports []*load.Report
	for i := 1; i <= n; i++ {
		r, err := runOnce(ctx, cfg, i, tmp)
		if r != nil {
			reports = append(reports, r)
		}
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// runOnce does run number i of cfg, writes its report into tmp and prints a
// line for it.
func runOnce(ctx context.Context, cfg load.Config, i int, tmp string) (*load.Report, error) {
	r, err := load.Run(ctx, cfg, i)
	if err != nil {
		return nil, err
	}
	printRun(r)
	return r, r.WriteFile(filepath.Join(tmp, fileName(r)))
}

// fileName names the file of one run's report in tmp.
func fileName(r *load.Report) string {
	wl := r.Workload
	if r.FieldBytes > 0 {
		wl += "-" + strconv.FormatInt(r.FieldBytes, 10)
	}
	wl = strings.NewReplacer(": ", "-", " ", "-").Replace(wl)
	return fmt.Sprintf("%s-%s-%s-c%d-run%d.json", shortName(r.Target), r.Corpus, wl, r.Concurrency, r.Run)
}

func printRun(r *load.Report) {
	wl := r.Workload
	if r.FieldBytes > 0 {
		wl = workloadLabel(r.Workload, r.FieldBytes)
	}
	fmt.Printf("%-6s %-7s %-22s c=%d run %d: %9.1f %s/s  p50 %7.2f ms  p99 %7.2f ms  errors %d %s\n",
		shortName(r.Target), r.Corpus, wl, r.Concurrency, r.Run, r.Throughput, r.Unit, r.P50Ms, r.P99Ms, r.Errors, clip(r.FirstError, 100))
}

// shortName is a target's name as -targets has it (without the in-process
// qualification), for file names and progress lines.
func shortName(t load.Target) string {
	switch t {
	case load.Bleve:
		return bleveTarget
	case load.GlintStem:
		return glintStemTarget
	case load.SQLite:
		return sqliteTarget
	}
	return string(t)
}

func writeSummary(dir, stamp string, sum *load.Summary) error {
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	jsonPath := filepath.Join(dir, stamp+".json")
	if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
		return err
	}
	md := markdown(sum)
	mdPath := filepath.Join(dir, stamp+".md")
	if err := os.WriteFile(mdPath, []byte(md), 0o644); err != nil {
		return err
	}
	charts, err := chart.WriteFiles(dir, stamp, sum, true)
	if err != nil {
		return err
	}
	fmt.Print("\n" + md)
	fmt.Printf("\nwrote %s, %s and %s\n", jsonPath, mdPath, strings.Join(charts, ", "))
	return nil
}
