// Command race is the side-by-side benchmark of glint and its peer, Sphinx
// 2.2.11 (shared/bench/README.md). It prepares the corpora, starts searchd
// (scripts/sphinx.sh) and glintd on free loopback ports with temporary data
// directories, loads the same documents into both, runs the same workloads
// against both, stops both by pid, and writes:
//
//	bench/results/<timestamp>.json   every run's report and the medians
//	bench/results/<timestamp>.md     a table of medians with the ratio glint/peer
//	bench/results/tmp/<timestamp>/   one JSON file per run (git-ignored)
//
// Usage (from the repository root; make bench and make bench-quick do this):
//
//	go run ./bench/cmd/race [-quick] [-targets sphinx,glint] [-corpora brown,debian]
//
// A target whose server cannot be started (glintd not built yet) is reported
// and skipped; a workload a server does not support shows its errors in the
// reports. Charts are a later step: they are to be drawn from the "medians"
// of the JSON file, whose shape is the summary type below.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/e2e/daemon"
)

type options struct {
	quick                         bool
	targets, corpora, workloads   string
	concurrency                   string
	duration, warmup              time.Duration
	runs                          int
	glintd, cache, out, sphinxSrc string
}

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "short race (< 2 min): Brown only, load and search, 1 run of 3 s")
	flag.StringVar(&o.targets, "targets", "sphinx,glint", "servers to race")
	flag.StringVar(&o.corpora, "corpora", "brown,debian", "corpora")
	flag.StringVar(&o.workloads, "workloads", strings.Join(load.Workloads, ","), "workloads")
	flag.StringVar(&o.concurrency, "c", "1,8", "concurrencies of the search workloads")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time of a run")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before a search run")
	flag.IntVar(&o.runs, "runs", 3, "runs per workload and concurrency (the table shows medians)")
	flag.StringVar(&o.glintd, "glintd", "bin/glintd", "the glintd binary")
	flag.StringVar(&o.cache, "cache", "bench/cache", "corpus cache directory")
	flag.StringVar(&o.out, "out", "bench/results", "results directory")
	flag.StringVar(&o.sphinxSrc, "sphinx-script", "scripts/sphinx.sh", "the peer's start/stop script")
	flag.Parse()
	if o.quick {
		o.corpora, o.workloads, o.duration, o.warmup, o.runs = "brown", "load,search", 3*time.Second, 500*time.Millisecond, 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "race:", err)
		os.Exit(1)
	}
}

// summary is the results file.
type summary struct {
	StartedAt time.Time      `json:"started_at"`
	Quick     bool           `json:"quick"`
	CPUs      int            `json:"cpus"`
	Notes     []string       `json:"notes,omitempty"` // targets skipped and why
	Reports   []*load.Report `json:"reports"`
	Medians   []median       `json:"medians"`
}

// median is one cell of the table: the median run of a target on a corpus,
// workload and concurrency.
type median struct {
	Target      load.Target `json:"target"`
	Corpus      string      `json:"corpus"`
	Workload    string      `json:"workload"`
	Concurrency int         `json:"concurrency"`
	Unit        string      `json:"unit"`
	Throughput  float64     `json:"throughput"`
	MBPerSec    float64     `json:"mb_per_s,omitempty"`
	P50Ms       float64     `json:"p50_ms"`
	P99Ms       float64     `json:"p99_ms"`
	CPUPerOp    float64     `json:"server_cpu_s_per_op"`
	Runs        int         `json:"runs"`
	Errors      int64       `json:"errors"`
}

func run(ctx context.Context, o options) error {
	conc, err := parseInts(o.concurrency)
	if err != nil {
		return err
	}
	start := time.Now().UTC()
	stamp := start.Format("20060102-150405")
	tmp := filepath.Join(o.out, "tmp", stamp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	sum := &summary{StartedAt: start, Quick: o.quick, CPUs: runtime.NumCPU()}

	corpora := map[string][]corpus.Doc{}
	names := split(o.corpora)
	for _, n := range names {
		name, err := corpus.ParseName(n)
		if err != nil {
			return err
		}
		if corpora[n], err = corpus.Load(ctx, o.cache, name); err != nil {
			return err
		}
	}

	for _, target := range split(o.targets) {
		srv, err := startServer(ctx, o, load.Target(target), tmp)
		if err != nil {
			note := fmt.Sprintf("%s skipped: %v", target, err)
			fmt.Fprintln(os.Stderr, "race:", note)
			sum.Notes = append(sum.Notes, note)
			continue
		}
		for _, n := range names {
			reports, err := raceOne(ctx, o, srv, n, corpora[n], conc, tmp)
			sum.Reports = append(sum.Reports, reports...)
			if err != nil {
				sum.Notes = append(sum.Notes, fmt.Sprintf("%s on %s stopped: %v", target, n, err))
				fmt.Fprintln(os.Stderr, "race:", err)
			}
			if ctx.Err() != nil {
				break
			}
		}
		if err := srv.stop(); err != nil {
			sum.Notes = append(sum.Notes, fmt.Sprintf("%s: stopping: %v", target, err))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	sum.Medians = medians(sum.Reports)
	return writeSummary(o.out, stamp, sum)
}

// raceOne runs every workload on one corpus against one server.
func raceOne(ctx context.Context, o options, srv *server, corpusName string, docs []corpus.Doc, conc []int, tmp string) ([]*load.Report, error) {
	var reports []*load.Report
	base := load.Config{
		Target: srv.target, MySQLAddr: srv.mysql, HTTPAddr: srv.http, Corpus: corpusName,
		Docs: docs, Queries: corpus.Queries(docs, corpus.DefaultSeed),
		Duration: o.duration, Warmup: o.warmup, ServerPID: srv.pid,
	}
	filled := false
	for _, wl := range split(o.workloads) {
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
		if wl == load.JSONSearchHL && srv.target == load.Sphinx {
			continue // Sphinx 2.2 has no HTTP API
		}
		for _, c := range cs {
			cfg.Concurrency = c
			for n := 1; n <= o.runs; n++ {
				r, err := load.Run(ctx, cfg, n)
				if err != nil {
					return reports, err
				}
				reports = append(reports, r)
				name := fmt.Sprintf("%s-%s-%s-c%d-run%d.json", r.Target, r.Corpus, r.Workload, c, n)
				if err := r.WriteFile(filepath.Join(tmp, name)); err != nil {
					return reports, err
				}
				fmt.Printf("%-6s %-7s %-22s c=%d run %d: %9.1f %s/s  p50 %7.2f ms  p99 %7.2f ms  errors %d %s\n",
					r.Target, r.Corpus, r.Workload, c, n, r.Throughput, r.Unit, r.P50Ms, r.P99Ms, r.Errors, r.FirstError)
			}
		}
	}
	return reports, nil
}

// server is a running glintd or searchd.
type server struct {
	target load.Target
	mysql  string
	http   string
	pid    int
	stop   func() error
}

func startServer(ctx context.Context, o options, target load.Target, tmp string) (*server, error) {
	dir, err := os.MkdirTemp("", "glint-race-"+string(target)+"-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	switch target {
	case load.Sphinx:
		port, err := freePort()
		if err != nil {
			cleanup()
			return nil, err
		}
		out, err := exec.CommandContext(ctx, o.sphinxSrc, "start", dir, strconv.Itoa(port)).Output()
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s start: %w", o.sphinxSrc, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s start printed %q, not a pid", o.sphinxSrc, out)
		}
		return &server{target: target, mysql: fmt.Sprintf("127.0.0.1:%d", port), pid: pid, stop: func() error {
			defer cleanup()
			return exec.Command(o.sphinxSrc, "stop", dir).Run()
		}}, nil
	case load.Glint:
		if _, err := os.Stat(o.glintd); err != nil {
			cleanup()
			return nil, fmt.Errorf("no glintd binary at %s (make build)", o.glintd)
		}
		p, err := daemon.Start(ctx, daemon.Options{Binary: o.glintd, DataDir: dir})
		if err != nil {
			cleanup()
			return nil, err
		}
		return &server{target: target, mysql: p.MySQLAddr, http: p.HTTPAddr, pid: p.Pid(), stop: func() error {
			defer cleanup()
			err := p.Stop(60 * time.Second)
			_ = os.WriteFile(filepath.Join(tmp, "glintd.log"), []byte(p.Output()), 0o644)
			return err
		}}, nil
	}
	cleanup()
	return nil, fmt.Errorf("unknown target %q", target)
}

// freePort asks the kernel for a free loopback port. searchd takes its port from
// a config file, so the port is closed again before searchd binds it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// medians groups the reports by target, corpus, workload and concurrency and
// takes the run with the median throughput of each group.
func medians(reports []*load.Report) []median {
	type key struct {
		target           load.Target
		corpus, workload string
		c                int
	}
	groups := map[key][]*load.Report{}
	var order []key
	for _, r := range reports {
		k := key{r.Target, r.Corpus, r.Workload, r.Concurrency}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []median
	for _, k := range order {
		g := slices.Clone(groups[k])
		slices.SortFunc(g, func(a, b *load.Report) int {
			switch {
			case a.Throughput < b.Throughput:
				return -1
			case a.Throughput > b.Throughput:
				return 1
			}
			return 0
		})
		m := g[len(g)/2]
		var errs int64
		for _, r := range g {
			errs += r.Errors
		}
		out = append(out, median{Target: k.target, Corpus: k.corpus, Workload: k.workload, Concurrency: k.c,
			Unit: m.Unit, Throughput: m.Throughput, MBPerSec: m.MBPerSec, P50Ms: m.P50Ms, P99Ms: m.P99Ms,
			CPUPerOp: m.ServerCPUPerOp, Runs: len(g), Errors: errs})
	}
	return out
}

func writeSummary(dir, stamp string, sum *summary) error {
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
	fmt.Print("\n" + md)
	fmt.Printf("\nwrote %s and %s\n", jsonPath, mdPath)
	return nil
}

// markdown renders the medians as one table: a row per corpus, workload and
// concurrency, a column per target, and the ratio glint/sphinx of throughputs.
func markdown(sum *summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmark %s\n\n", sum.StartedAt.Format(time.RFC3339))
	fmt.Fprintf(&b, "%d CPUs, loopback; medians of runs; throughput (p50 / p99 ms).\n\n", sum.CPUs)
	b.WriteString("| corpus | workload | c | sphinx | glint | glint/sphinx |\n|---|---|---|---|---|---|\n")
	type row struct {
		corpus, workload string
		c                int
	}
	cells := map[row]map[load.Target]median{}
	var rows []row
	for _, m := range sum.Medians {
		r := row{m.Corpus, m.Workload, m.Concurrency}
		if cells[r] == nil {
			cells[r] = map[load.Target]median{}
			rows = append(rows, r)
		}
		cells[r][m.Target] = m
	}
	for _, r := range rows {
		s, okS := cells[r][load.Sphinx]
		g, okG := cells[r][load.Glint]
		ratio := "-"
		if okS && okG && s.Throughput > 0 && g.Errors == 0 {
			ratio = fmt.Sprintf("%.2fx", g.Throughput/s.Throughput)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |\n", r.corpus, r.workload, r.c, cell(s, okS), cell(g, okG), ratio)
	}
	for _, n := range sum.Notes {
		fmt.Fprintf(&b, "\n- %s", n)
	}
	if len(sum.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func cell(m median, ok bool) string {
	if !ok {
		return "-"
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

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range split(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad concurrency %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
