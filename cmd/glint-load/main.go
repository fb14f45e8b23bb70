// Command glint-load is the benchmark load generator: it runs workloads against
// glint or the peer (Sphinx 2.2) for a fixed time and writes one JSON report per
// run (see package bench/load for what a run measures).
//
//	glint-load -target glint -mysql 127.0.0.1:9306 -http 127.0.0.1:9308 \
//	    -corpus brown -workload load,search -c 1,8 -duration 10s -runs 3 \
//	    -server-pid $(pidof-your-server) -out bench/results/tmp/x
//
// -fill loads the corpus once (ids 1..N) before the search workloads. The
// corpus comes from bench/cache (prepared on first use) or from -docs FILE.JSONL.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

type options struct {
	target, mysqlAddr, httpAddr string
	corpusName, cache, docsFile string
	workloads, concurrency      string
	duration, warmup            time.Duration
	runs, batch, serverPID      int
	fill                        bool
	out                         string
}

func main() {
	var o options
	flag.StringVar(&o.target, "target", "glint", "server kind: glint or sphinx")
	flag.StringVar(&o.mysqlAddr, "mysql", "127.0.0.1:9306", "MySQL protocol address")
	flag.StringVar(&o.httpAddr, "http", "127.0.0.1:9308", "HTTP address (json-search+highlight)")
	flag.StringVar(&o.corpusName, "corpus", "brown", "corpus: brown, debian or ladder (the report's label with -docs)")
	flag.StringVar(&o.cache, "cache", "bench/cache", "corpus cache directory")
	flag.StringVar(&o.docsFile, "docs", "", "read documents from this JSONL file instead of the cache")
	flag.StringVar(&o.workloads, "workload", "load", "comma-separated workloads: "+strings.Join(load.Workloads, ", "))
	flag.StringVar(&o.concurrency, "c", "1", "comma-separated concurrencies (load always runs at 1)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time of each run")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "uncounted warm-up before each run")
	flag.IntVar(&o.runs, "runs", 3, "runs of each workload and concurrency")
	flag.IntVar(&o.batch, "batch", load.DefaultBatch, "documents per INSERT")
	flag.IntVar(&o.serverPID, "server-pid", 0, "the server's pid, for its CPU time (0: not measured)")
	flag.BoolVar(&o.fill, "fill", false, "load the corpus once before the search workloads")
	flag.StringVar(&o.out, "out", ".", "directory for the JSON reports")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "glint-load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	docs, err := readDocs(ctx, o)
	if err != nil {
		return err
	}
	conc, err := load.ParseCounts(o.concurrency, "number")
	if err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	base := load.Config{
		Target: load.Target(o.target), MySQLAddr: o.mysqlAddr, HTTPAddr: o.httpAddr,
		Corpus: o.corpusName, Docs: docs, Queries: corpus.Queries(docs, corpus.DefaultSeed),
		Duration: o.duration, Warmup: o.warmup, BatchSize: o.batch, ServerPID: o.serverPID,
	}
	filled := false
	for _, wl := range strings.Split(o.workloads, ",") {
		cfg := base
		cfg.Workload = strings.TrimSpace(wl)
		cs := conc
		if cfg.Workload == load.Insert {
			cs = []int{1}
			cfg.Warmup = 0 // every run starts from an empty table
			filled = false
		} else if o.fill && !filled {
			if err := load.Fill(ctx, cfg); err != nil {
				return err
			}
			filled = true
		}
		for _, c := range cs {
			cfg.Concurrency = c
			for n := 1; n <= o.runs; n++ {
				r, err := load.Run(ctx, cfg, n)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("%s-%s-%s-c%d-run%d.json", r.Target, r.Corpus, r.Workload, c, n)
				path := filepath.Join(o.out, name)
				if err := r.WriteFile(path); err != nil {
					return err
				}
				fmt.Printf("%s\t%.0f %s/s\tp50 %.2f ms\tp99 %.2f ms\terrors %d\n", path, r.Throughput, r.Unit, r.P50Ms, r.P99Ms, r.Errors)
			}
		}
	}
	return nil
}

func readDocs(ctx context.Context, o options) ([]corpus.Doc, error) {
	if o.docsFile != "" {
		return corpus.ReadFile(o.docsFile)
	}
	name, err := corpus.ParseName(o.corpusName)
	if err != nil {
		return nil, err
	}
	return corpus.Load(ctx, o.cache, name)
}
