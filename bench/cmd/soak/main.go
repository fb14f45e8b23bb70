// Command soak runs a long mixed load against one server and writes what each
// interval measured: per operation p50/p99 and count, throughput, the server's
// RSS and (glint) goroutines and Go heap. It is `make soak`.
//
// By default it starts bin/glintd on free loopback ports with a temporary data
// directory, loads the corpus, runs the mix and stops the server:
//
//	go run ./bench/cmd/soak -clients 8 -duration 10m
//
// With -mysql it drives a server that is already running instead (Sphinx:
// -target sphinx -mysql 127.0.0.1:PORT -server-pid PID, started with
// scripts/sphinx.sh). The results are bench/results/soak-<stamp>.json and
// soak-<stamp>.svg (and latest-soak.svg with -latest). It exits 1 when an
// operation failed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/glint-search/glint/bench/chart"
	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/bench/soak"
	"github.com/glint-search/glint/e2e/daemon"
)

type options struct {
	target, mysqlAddr, glintd, glintArgs  string
	corpusName, cache, docsFile, out, mix string
	clients, fill, serverPID              int
	duration, interval, warmup            time.Duration
	latest, grow                          bool
	redraw                                string
}

func main() {
	var o options
	flag.StringVar(&o.target, "target", "glint", "glint or sphinx (sphinx needs -mysql)")
	flag.StringVar(&o.mysqlAddr, "mysql", "", "a running server's MySQL address; empty: start -glintd")
	flag.IntVar(&o.serverPID, "server-pid", 0, "the running server's pid, for its RSS (with -mysql)")
	flag.StringVar(&o.glintd, "glintd", "bin/glintd", "the glintd binary to start")
	flag.StringVar(&o.glintArgs, "glintd-args", "", "extra glintd flags, space-separated (e.g. --memory-limit=512M)")
	flag.StringVar(&o.corpusName, "corpus", "brown", "corpus: brown or debian")
	flag.StringVar(&o.cache, "cache", "bench/cache", "corpus cache directory")
	flag.StringVar(&o.docsFile, "docs", "", "read documents from this JSONL file instead of the cache (-corpus labels them)")
	flag.StringVar(&o.out, "out", "bench/results", "directory for soak-<stamp>.json and .svg")
	flag.StringVar(&o.mix, "mix", soak.DefaultMix.String(), "operation weights")
	flag.IntVar(&o.clients, "clients", 8, "clients, one connection each")
	flag.IntVar(&o.fill, "fill", 0, "documents loaded before the run, the corpus cycled (0: the corpus once)")
	flag.DurationVar(&o.duration, "duration", 10*time.Minute, "measured time")
	flag.DurationVar(&o.warmup, "warmup", 0, "the same load first, not measured (caches and buffers fill)")
	flag.DurationVar(&o.interval, "interval", 10*time.Second, "one window of the report")
	flag.BoolVar(&o.grow, "grow", false, "let the table grow or shrink with the mix (default: inserts and deletes keep its size)")
	flag.StringVar(&o.redraw, "redraw", "", "draw the chart of this soak-<stamp>.json again (into -out) instead of running")
	flag.BoolVar(&o.latest, "latest", false, "also write latest-soak.svg (the README's chart)")
	flag.Parse()

	if o.redraw != "" {
		if err := redraw(o); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if ops, errs := res.Totals(); errs > 0 || len(res.Errors) > 0 {
		fmt.Fprintf(os.Stderr, "soak: %d of %d operations failed: %v\n", errs, ops, res.Errors)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) (*soak.Result, error) {
	mix, err := soak.ParseMix(o.mix)
	if err != nil {
		return nil, err
	}
	docs, err := readDocs(ctx, o)
	if err != nil {
		return nil, err
	}
	cfg := soak.Config{Target: load.Target(o.target), MySQLAddr: o.mysqlAddr, ServerPID: o.serverPID,
		Corpus: o.corpusName, Docs: docs, Queries: corpus.Queries(docs, corpus.DefaultSeed),
		Clients: o.clients, Duration: o.duration, Warmup: o.warmup, Interval: o.interval, Mix: mix, FillDocs: o.fill, Grow: o.grow, Seed: 1}

	if o.mysqlAddr == "" {
		if cfg.Target != load.Glint {
			return nil, fmt.Errorf("-target %s needs -mysql (start it with scripts/sphinx.sh)", o.target)
		}
		dir, err := os.MkdirTemp("", "glint-soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		p, err := daemon.Start(ctx, daemon.Options{Binary: o.glintd, DataDir: dir, Args: strings.Fields(o.glintArgs)})
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := p.Stop(time.Minute); err != nil {
				fmt.Fprintf(os.Stderr, "soak: stopping glintd: %v\n%s", err, p.Output())
			}
		}()
		cfg.MySQLAddr, cfg.ServerPID, cfg.DataDir = p.MySQLAddr, p.Pid(), dir
	}

	fmt.Printf("soak: %s at %s, %d clients for %s, mix %s; loading %s\n",
		cfg.Target, cfg.MySQLAddr, cfg.Clients, cfg.Duration, mix, o.corpusName)
	if err := soak.Fill(ctx, cfg); err != nil {
		return nil, err
	}
	res, err := soak.Run(ctx, cfg, os.Stdout)
	if res == nil {
		return nil, err
	}
	if werr := write(o, res); werr != nil {
		return res, werr
	}
	return res, err
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

// redraw reads a results file and writes its chart again.
func redraw(o options) error {
	b, err := os.ReadFile(o.redraw)
	if err != nil {
		return err
	}
	var res soak.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: %w", o.redraw, err)
	}
	return write(o, &res)
}

// write saves the result as JSON and its chart as SVG.
func write(o options, res *soak.Result) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if res.Machine == "" {
		res.Machine = load.Machine()
	}
	stamp := "soak-" + res.Started.Format("20060102-150405")
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	var svg bytes.Buffer
	if err := chart.Soak(&svg, res); err != nil {
		return err
	}
	files := map[string][]byte{stamp + ".json": append(js, '\n'), stamp + ".svg": svg.Bytes()}
	if o.latest {
		files["latest-soak.svg"] = svg.Bytes()
	}
	for name, b := range files {
		path := filepath.Join(o.out, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		fmt.Println("soak: wrote", path)
	}
	return nil
}
