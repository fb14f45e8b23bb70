package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// How -targets names the peers of bench/peers.
const (
	postgresTarget = "postgres"
	sqliteTarget   = "sqlite"
)

// peerWorkloads are the workloads bench/peers has a counterpart of (the
// ladder is run apart, on the ladder corpus).
var peerWorkloads = []string{load.Insert, load.Search, load.SearchHL, load.Snippets, load.SnippetsNoLimit,
	load.GroupBy, load.Facet}

// racePeer runs one peer of bench/peers (postgres or sqlite) on each corpus
// and then on the ladder, through the module's peer-bench program, and
// returns its reports and its table's size on disk after each corpus. For
// PostgreSQL it starts a private cluster first (scripts/postgres.sh) and
// stops and removes it at the end, whatever happened; SQLite's database is
// made in a temporary directory, removed at the end.
func racePeer(ctx context.Context, o options, target string, corpora, workloads []string, ladder []corpus.Doc,
	conc []int, tmp string) (reports []*load.Report, sizes []load.Size, err error) {
	bin, err := buildProgram(ctx, o.peersModule, "./cmd/peer-bench", o.peerBench, "-tags", "sqlite_fts5")
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "glint-race-"+target+"-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	want := load.SQLite
	base := []string{"-target", target}
	if target == postgresTarget {
		want = load.Postgres
		port, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		out, err := exec.CommandContext(ctx, o.postgresSrc, "start", dir, strconv.Itoa(port)).Output()
		if err != nil {
			// A cluster that started and then failed is stopped all the same.
			exec.Command(o.postgresSrc, "stop", dir).Run()
			return nil, nil, fmt.Errorf("%s start: %w", o.postgresSrc, stderrOf(err))
		}
		defer func() {
			if err := exec.Command(o.postgresSrc, "stop", dir).Run(); err != nil {
				fmt.Fprintf(os.Stderr, "race: %s stop: %v\n", o.postgresSrc, err)
			}
		}()
		pid := strings.TrimSpace(string(out))
		if _, err := strconv.Atoi(pid); err != nil {
			return nil, nil, fmt.Errorf("%s start printed %q, not a pid", o.postgresSrc, out)
		}
		base = append(base, "-dsn", fmt.Sprintf("postgres://glint@127.0.0.1:%d/postgres?sslmode=disable", port), "-pid", pid)
	} else {
		base = append(base, "-dir", dir)
	}
	common := func(docsFile, corpusName string, wls []string, cs []int, duration, warmup string) []string {
		return append(slices.Clone(base), "-docs", docsFile, "-corpus", corpusName,
			"-workloads", strings.Join(wls, ","), "-c", joinInts(cs), "-duration", duration, "-warmup", warmup,
			"-runs", strconv.Itoa(o.runs), "-snippet-docs", strconv.Itoa(load.DefaultSnippetDocs), "-out", tmp)
	}

	var wls []string
	for _, wl := range workloads {
		if slices.Contains(peerWorkloads, wl) {
			wls = append(wls, wl)
		}
	}
	if len(wls) > 0 {
		for _, n := range corpora {
			name, err := corpus.ParseName(n)
			if err != nil {
				return reports, sizes, err
			}
			fmt.Printf("%-6s %s: running %s\n", target, n, strings.Join(wls, ", "))
			rs, zs, err := runReports(ctx, bin, common(corpus.Path(o.cache, name), n, wls, conc, o.duration.String(), o.warmup.String()), want, n)
			reports, sizes = append(reports, rs...), append(sizes, zs...)
			if err != nil {
				return reports, sizes, err
			}
		}
	}
	if len(ladder) > 0 {
		fmt.Printf("%-6s ladder: running %s\n", target, load.Ladder)
		args := common(corpus.Path(o.cache, corpus.Ladder), string(corpus.Ladder), []string{load.Ladder}, []int{1},
			o.ladderTime.String(), min(o.warmup, o.ladderTime/4).String())
		rs, _, err := runReports(ctx, bin, args, want, string(corpus.Ladder))
		reports = append(reports, rs...)
		if err != nil {
			return reports, sizes, err
		}
	}
	return reports, sizes, nil
}

// stderrOf adds a failed command's standard error to its error.
func stderrOf(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}
