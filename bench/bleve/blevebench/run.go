package blevebench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// Workloads lists the workloads Run knows, in the order it runs them.
var Workloads = []string{load.Search, load.SearchHL, load.Snippets, load.Ladder}

// searchLimit is the number of hits of the search workloads (the servers' LIMIT 20).
const searchLimit = 20

// Config is what Run runs.
type Config struct {
	Corpus      string       // the corpus's name, for the reports
	Docs        []corpus.Doc // for ladder, the rungs: each is run on its own
	Workloads   []string     // of Workloads
	Concurrency []int        // workers of each run; default 1
	Duration    time.Duration
	Warmup      time.Duration
	Runs        int    // runs of each workload and concurrency; default 1
	SnippetDocs int    // documents per snippets operation; default load.DefaultSnippetDocs
	IndexDir    string // where the index is built (it must not exist); default a temporary directory, removed after
	// Log, when set, is told what is being done (indexing, each run).
	Log func(format string, args ...any)
}

// Run runs every workload of cfg at every concurrency, cfg.Runs times, and hands
// each report to emit as soon as it is made. The index is built only when a
// search workload needs it.
func Run(ctx context.Context, cfg Config, emit func(*load.Report) error) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	m, err := NewMapping()
	if err != nil {
		return err
	}
	a, err := Analyzer(m)
	if err != nil {
		return err
	}
	snip, err := NewSnippeter(a)
	if err != nil {
		return err
	}
	var idx bleve.Index
	var closeIndex func()
	defer func() {
		if closeIndex != nil {
			closeIndex()
		}
	}()
	for _, wl := range cfg.Workloads {
		queries := corpus.Queries(cfg.Docs, corpus.DefaultSeed)
		if wl == load.Ladder {
			queries = corpus.LadderQueries(cfg.Docs, corpus.DefaultSeed)
		}
		compiled, err := compileAll(queries, a)
		if err != nil {
			return err
		}
		spec := load.Spec{Target: load.Bleve, Workload: wl, Corpus: cfg.Corpus,
			Duration: cfg.Duration, Warmup: cfg.Warmup, PID: os.Getpid()}
		switch wl {
		case load.Search, load.SearchHL:
			if idx == nil {
				if idx, closeIndex, err = cfg.buildIndex(ctx); err != nil {
					return err
				}
			}
			op := searchOp(idx, compiled, wl == load.SearchHL)
			if err := cfg.runs(ctx, spec, op, emit); err != nil {
				return err
			}
		case load.Snippets:
			op := snippetsOp(snip, compiled, cfg.Docs, cfg.SnippetDocs)
			if err := cfg.runs(ctx, spec, op, emit); err != nil {
				return err
			}
		case load.Ladder:
			for _, d := range cfg.Docs {
				spec.FieldBytes = int64(len(d.Content))
				op := snippetsOp(snip, compiled, []corpus.Doc{d}, 1)
				if err := cfg.runs(ctx, spec, op, emit); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (cfg *Config) setDefaults() error {
	if len(cfg.Docs) == 0 {
		return fmt.Errorf("blevebench: no documents")
	}
	for _, wl := range cfg.Workloads {
		if !slices.Contains(Workloads, wl) {
			return fmt.Errorf("blevebench: workload %q is not one of %v", wl, Workloads)
		}
	}
	if len(cfg.Concurrency) == 0 {
		cfg.Concurrency = []int{1}
	}
	if cfg.Runs <= 0 {
		cfg.Runs = 1
	}
	if cfg.SnippetDocs <= 0 {
		cfg.SnippetDocs = load.DefaultSnippetDocs
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	return nil
}

// runs measures op at every concurrency, cfg.Runs times each.
func (cfg *Config) runs(ctx context.Context, spec load.Spec, op load.Op, emit func(*load.Report) error) error {
	for _, c := range cfg.Concurrency {
		spec.Concurrency = c
		for n := 1; n <= cfg.Runs; n++ {
			r, err := load.RunInProcess(ctx, spec, n, op)
			if err != nil {
				return err
			}
			cfg.Log("bleve %s %s c=%d run %d: %.1f %s/s, p50 %.3f ms, p99 %.3f ms, errors %d %s",
				r.Corpus, r.Workload, c, n, r.Throughput, r.Unit, r.P50Ms, r.P99Ms, r.Errors, r.FirstError)
			if err := emit(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildIndex indexes the corpus in cfg.IndexDir or, without one, in a
// temporary directory; cleanup closes the index and removes that directory.
func (cfg *Config) buildIndex(ctx context.Context) (idx bleve.Index, cleanup func(), err error) {
	dir, remove := cfg.IndexDir, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "glint-bleve-")
		if err != nil {
			return nil, nil, err
		}
		dir, remove = filepath.Join(tmp, "index"), func() { os.RemoveAll(tmp) }
	}
	start := time.Now()
	if idx, err = BuildIndex(ctx, dir, cfg.Docs); err != nil {
		remove()
		return nil, nil, err
	}
	cfg.Log("bleve %s: indexed %d documents in %.1f s", cfg.Corpus, len(cfg.Docs), time.Since(start).Seconds())
	return idx, func() { idx.Close(); remove() }, nil
}

func compileAll(queries []corpus.Query, a analysis.Analyzer) ([]*Query, error) {
	out := make([]*Query, 0, len(queries))
	for _, q := range queries {
		c, err := Compile(q.Text, a)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("blevebench: no queries")
	}
	return out, nil
}
