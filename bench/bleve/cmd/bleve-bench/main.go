// Command bleve-bench runs the race's highlight workloads on Bleve, in-process
// (see package blevebench for what each measures), and writes bench/load
// reports with target "bleve (in-process, no protocol cost)": one JSON object a
// line on standard output (what bench/cmd/race reads) and, with -out, one file
// per run named like the race's. Progress goes to standard error.
//
// From bench/bleve (it is its own Go module):
//
//	go run ./cmd/bleve-bench -docs ../cache/corpora/brown.jsonl -corpus brown \
//	    -workloads search+highlight,snippets -c 1,8 -duration 10s -runs 3
//	go run ./cmd/bleve-bench -docs ../cache/corpora/ladder.jsonl -corpus ladder -workloads ladder
//
// The corpora are prepared by go run ./bench/cmd/corpus in the main module.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/glint-search/glint/bench/bleve/blevebench"
	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

func main() {
	var (
		cfg                            blevebench.Config
		docsFile, workloads, conc, out string
	)
	flag.StringVar(&docsFile, "docs", "", "the corpus, a JSONL file of documents (bench/cache/corpora/NAME.jsonl)")
	flag.StringVar(&cfg.Corpus, "corpus", "", "the corpus's name in the reports (default: the file's base name)")
	flag.StringVar(&workloads, "workloads", load.SearchHL+","+load.Snippets, "comma-separated workloads: "+strings.Join(blevebench.Workloads, ", "))
	flag.StringVar(&conc, "c", "1,8", "comma-separated concurrencies")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "measured time of each run")
	flag.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "uncounted warm-up before each run")
	flag.IntVar(&cfg.Runs, "runs", 3, "runs of each workload and concurrency")
	flag.IntVar(&cfg.SnippetDocs, "snippet-docs", load.DefaultSnippetDocs, "documents per snippets operation")
	flag.StringVar(&cfg.IndexDir, "index", "", "build the index in this new directory and keep it (default: a temporary one)")
	flag.StringVar(&out, "out", "", "also write each report to this directory")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, docsFile, workloads, conc, out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bleve-bench:", err)
		os.Exit(1)
	}
}

// run runs cfg on the documents of docsFile and writes the reports to stdout,
// one JSON object a line, and into the directory out unless it is "".
func run(ctx context.Context, cfg blevebench.Config, docsFile, workloads, conc, out string, stdout io.Writer) error {
	if docsFile == "" {
		return fmt.Errorf("-docs is required")
	}
	var err error
	if cfg.Docs, err = corpus.ReadFile(docsFile); err != nil {
		return err
	}
	if cfg.Corpus == "" {
		cfg.Corpus = strings.TrimSuffix(filepath.Base(docsFile), ".jsonl")
	}
	cfg.Workloads = load.SplitList(workloads)
	if cfg.Concurrency, err = load.ParseCounts(conc, "concurrency"); err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
	}
	cfg.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	return blevebench.Run(ctx, cfg, func(r *load.Report) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if out == "" {
			return nil
		}
		return r.WriteFile(filepath.Join(out, FileName(r)))
	})
}

// FileName names a report's file as the race names its runs, with "bleve" for
// the target (whose full name has spaces) and the field size for a ladder run.
func FileName(r *load.Report) string {
	wl := r.Workload
	if r.FieldBytes > 0 {
		wl += "-" + strconv.FormatInt(r.FieldBytes, 10)
	}
	return fmt.Sprintf("bleve-%s-%s-c%d-run%d.json", r.Corpus, wl, r.Concurrency, r.Run)
}
