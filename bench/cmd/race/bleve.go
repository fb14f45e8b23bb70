package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// bleveWorkloads are the workloads the race asks of Bleve: the highlight ones
// (the ladder is run apart, on the ladder corpus).
var bleveWorkloads = []string{load.SearchHL, load.Snippets}

// raceBleve builds bench/bleve's program and runs it on each corpus with the
// highlight workloads among workloads, then on the ladder if there is one. The
// program reads the corpora from the cache the race prepared.
func raceBleve(ctx context.Context, o options, corpora, workloads []string, ladder []corpus.Doc, conc []int, tmp string) ([]*load.Report, error) {
	bin, err := buildBleve(ctx, o)
	if err != nil {
		return nil, err
	}
	var wls []string
	for _, wl := range workloads {
		if slices.Contains(bleveWorkloads, wl) {
			wls = append(wls, wl)
		}
	}
	var reports []*load.Report
	if len(wls) > 0 {
		for _, n := range corpora {
			name, err := corpus.ParseName(n)
			if err != nil {
				return reports, err
			}
			rs, err := runBleve(ctx, bin, tmp, corpus.Path(o.cache, name), n, wls, conc, o.duration, o.warmup, o.runs)
			reports = append(reports, rs...)
			if err != nil {
				return reports, err
			}
		}
	}
	if len(ladder) > 0 {
		rs, err := runBleve(ctx, bin, tmp, corpus.Path(o.cache, corpus.Ladder), string(corpus.Ladder),
			[]string{load.Ladder}, []int{1}, o.ladderTime, min(o.warmup, o.ladderTime/4), o.runs)
		reports = append(reports, rs...)
		if err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// buildBleve builds the program of the module o.bleveModule into o.bleveBench
// and returns the binary's absolute path.
func buildBleve(ctx context.Context, o options) (string, error) {
	return buildProgram(ctx, o.bleveModule, "./cmd/bleve-bench", o.bleveBench)
}

// buildProgram builds the package pkg of the Go module in dir into out, with
// the build flags args, and returns the binary's absolute path.
func buildProgram(ctx context.Context, dir, pkg, out string, args ...string) (string, error) {
	bin, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, args...), "-o", bin, pkg)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s/%s: %w\n%s", dir, strings.TrimPrefix(pkg, "./"), err, out)
	}
	return bin, nil
}

// runBleve runs the Bleve program once on one corpus.
func runBleve(ctx context.Context, bin, tmp, docsFile, corpusName string, workloads []string, conc []int,
	duration, warmup time.Duration, runs int) ([]*load.Report, error) {
	args := []string{"-docs", docsFile, "-corpus", corpusName,
		"-workloads", strings.Join(workloads, ","), "-c", joinInts(conc),
		"-duration", duration.String(), "-warmup", warmup.String(), "-runs", strconv.Itoa(runs),
		"-snippet-docs", strconv.Itoa(load.DefaultSnippetDocs), "-out", tmp}
	fmt.Printf("bleve  %s: running %s in-process\n", corpusName, strings.Join(workloads, ", "))
	reports, _, err := runReports(ctx, bin, args, load.Bleve, corpusName)
	return reports, err
}

// runReports runs a program that prints load reports, one JSON object a line
// on its standard output (bleve-bench, peer-bench), and reads them as they
// come; a line {"size": load.Size} is a table's size on disk instead. Every
// report and size must be of target.
func runReports(ctx context.Context, bin string, args []string, target load.Target, corpusName string) ([]*load.Report, []load.Size, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	name := filepath.Base(bin)
	var reports []*load.Report
	var sizes []load.Size
	dec := json.NewDecoder(stdout)
	var decodeErr error
	for {
		var line struct {
			load.Report
			Size *load.Size `json:"size"`
		}
		if err := dec.Decode(&line); err != nil {
			if !errors.Is(err, io.EOF) {
				decodeErr = fmt.Errorf("reading %s's reports: %w", name, err)
				io.Copy(io.Discard, stdout)
			}
			break
		}
		if line.Size != nil {
			sizes = append(sizes, *line.Size)
			continue
		}
		r := line.Report
		reports = append(reports, &r)
		printRun(&r)
	}
	if err := cmd.Wait(); err != nil {
		return reports, sizes, fmt.Errorf("%s on %s: %w\n%s", name, corpusName, err, strings.TrimSpace(stderr.String()))
	}
	if decodeErr != nil {
		return reports, sizes, decodeErr
	}
	for _, r := range reports {
		if r.Target != target {
			return reports, sizes, fmt.Errorf("%s reported target %q, not %q", name, r.Target, target)
		}
	}
	for _, z := range sizes {
		if z.Target != target {
			return reports, sizes, fmt.Errorf("%s reported a size of target %q, not %q", name, z.Target, target)
		}
	}
	if len(reports) == 0 {
		fmt.Fprint(os.Stderr, stderr.String())
	}
	return reports, sizes, nil
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}
