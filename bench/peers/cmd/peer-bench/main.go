// Command peer-bench runs the race's workloads on one of the peers of
// package peers, PostgreSQL or SQLite FTS5, and writes bench/load reports:
// one JSON object a line on standard output (what bench/cmd/race reads) and,
// with -out, one file per run named like the race's. Once the corpus is
// loaded for the searches, a line {"size": load.Size} says how much disk
// the table takes. Progress goes to standard error.
//
// From bench/peers (it is its own Go module; SQLite needs cgo and the build
// tag sqlite_fts5):
//
//	go build -tags sqlite_fts5 -o ../../bin/peer-bench ./cmd/peer-bench
//	../../bin/peer-bench -target postgres -dsn postgres://glint@127.0.0.1:5432/postgres \
//	    -docs ../cache/corpora/brown.jsonl -workloads search,search+highlight -c 1,8
//	../../bin/peer-bench -target sqlite -docs ../cache/corpora/brown.jsonl
//
// PostgreSQL must be running (scripts/postgres.sh start DIR PORT starts a
// private cluster); SQLite's database is made in -dir, by default a
// temporary directory removed at the end.
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

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/bench/peers"
)

type options struct {
	target, dsn, tsConfig, dir string
	pid                        int
	docsFile, workloads, conc  string
	out                        string
	cfg                        peers.Config
}

func main() {
	var o options
	flag.StringVar(&o.target, "target", "", "the peer: postgres or sqlite")
	flag.StringVar(&o.dsn, "dsn", "", "postgres: the connection string")
	flag.StringVar(&o.tsConfig, "pg-config", peers.DefaultPGConfig, "postgres: the text search configuration (english keeps its stop list)")
	flag.IntVar(&o.pid, "pid", 0, "postgres: the postmaster's pid, for its CPU time (0: none)")
	flag.StringVar(&o.dir, "dir", "", "sqlite: the directory of its database (default: a temporary one, removed after)")
	flag.StringVar(&o.docsFile, "docs", "", "the corpus, a JSONL file of documents (bench/cache/corpora/NAME.jsonl)")
	flag.StringVar(&o.cfg.Corpus, "corpus", "", "the corpus's name in the reports (default: the file's base name)")
	flag.StringVar(&o.workloads, "workloads", strings.Join(peers.Workloads[:len(peers.Workloads)-1], ","), "comma-separated workloads: "+strings.Join(peers.Workloads, ", "))
	flag.StringVar(&o.conc, "c", "1,8", "comma-separated concurrencies")
	flag.DurationVar(&o.cfg.Duration, "duration", 10*time.Second, "measured time of each run")
	flag.DurationVar(&o.cfg.Warmup, "warmup", 2*time.Second, "uncounted warm-up before each run")
	flag.IntVar(&o.cfg.Runs, "runs", 3, "runs of each workload and concurrency")
	flag.IntVar(&o.cfg.SnippetDocs, "snippet-docs", load.DefaultSnippetDocs, "documents per snippets operation")
	flag.StringVar(&o.out, "out", "", "also write each report to this directory")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peer-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, stdout io.Writer) error {
	if o.docsFile == "" {
		return fmt.Errorf("-docs is required")
	}
	var err error
	if o.cfg.Docs, err = corpus.ReadFile(o.docsFile); err != nil {
		return err
	}
	if o.cfg.Corpus == "" {
		o.cfg.Corpus = strings.TrimSuffix(filepath.Base(o.docsFile), ".jsonl")
	}
	o.cfg.Workloads = load.SplitList(o.workloads)
	if o.cfg.Concurrency, err = load.ParseCounts(o.conc, "concurrency"); err != nil {
		return fmt.Errorf("-c: %w", err)
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
	}
	o.cfg.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	var sys peers.System
	switch o.target {
	case "postgres":
		if o.dsn == "" {
			return fmt.Errorf("-dsn is required for postgres")
		}
		sys = peers.NewPostgres(o.dsn, o.tsConfig, o.pid)
	case "sqlite":
		dir := o.dir
		if dir == "" {
			tmp, err := os.MkdirTemp("", "glint-sqlite-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			dir = tmp
		}
		s, err := peers.NewSQLite(dir)
		if err != nil {
			return err
		}
		defer s.Close()
		sys = s
	default:
		return fmt.Errorf("-target must be postgres or sqlite, not %q", o.target)
	}

	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	var sizeErr error
	o.cfg.Sized = func(s load.Size) {
		if err := enc.Encode(map[string]load.Size{"size": s}); err != nil && sizeErr == nil {
			sizeErr = err
		}
	}
	defer func() {
		if sizeErr != nil {
			fmt.Fprintln(os.Stderr, "peer-bench: writing the size:", sizeErr)
		}
	}()
	return peers.Run(ctx, sys, o.cfg, func(r *load.Report) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if o.out == "" {
			return nil
		}
		return r.WriteFile(filepath.Join(o.out, FileName(r)))
	})
}

// FileName names a report's file as the race names its runs: the peer's
// short name, and the field size for a ladder run.
func FileName(r *load.Report) string {
	target := "postgres"
	if r.Target == load.SQLite {
		target = "sqlite"
	}
	wl := r.Workload
	if r.FieldBytes > 0 {
		wl += "-" + strconv.FormatInt(r.FieldBytes, 10)
	}
	return fmt.Sprintf("%s-%s-%s-c%d-run%d.json", target, r.Corpus, wl, r.Concurrency, r.Run)
}
