package peers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// ErrNoCounterpart is what System.Op returns for a workload the peer has
// nothing like (json-search+highlight needs glint's HTTP JSON API).
var ErrNoCounterpart = errors.New("peers: no counterpart")

// Work is what a workload's operations draw from.
type Work struct {
	Docs        []corpus.Doc
	Queries     []string // translated into the peer's syntax, in the set's order
	BatchSize   int      // documents per INSERT operation
	SnippetDocs int      // documents per snippets operation
}

// A System is one peer: a table of the race's documents and the race's
// workloads on it.
type System interface {
	// Target names the peer in the reports.
	Target() load.Target
	// Translate turns a query of the race's set into the peer's syntax.
	Translate(q string) (string, error)
	// Reset empties the table (and makes it, the first time).
	Reset(ctx context.Context) error
	// Fill resets the table, inserts docs once with ids 1..N and settles the
	// index (merges what the inserts left to merge), as the race waits for
	// glintd's merges before it searches.
	Fill(ctx context.Context, docs []corpus.Doc) error
	// Op opens workers connections and returns the workload's operation on
	// them, and a function that closes them; ErrNoCounterpart when the peer
	// has no such workload.
	Op(ctx context.Context, workload string, w *Work, workers int) (load.Op, func(), error)
	// PID is the process whose CPU time is charged to the operations; 0 for
	// none.
	PID() int
	// DiskBytes is the space the table takes on disk after Fill: its data,
	// its indexes and the text it keeps.
	DiskBytes(ctx context.Context) (int64, error)
}

// Workloads are the workloads Run knows, in the race's order.
var Workloads = []string{load.Insert, load.Search, load.SearchHL, load.Snippets, load.SnippetsNoLimit,
	load.GroupBy, load.Facet, load.Ladder}

// Config is what Run runs.
type Config struct {
	Corpus      string
	Docs        []corpus.Doc // for ladder, the rungs: each is run on its own
	Workloads   []string
	Concurrency []int
	Duration    time.Duration
	Warmup      time.Duration
	Runs        int
	SnippetDocs int
	BatchSize   int
	// Log, when set, is told what is being done.
	Log func(format string, args ...any)
	// Sized, when set, is given the table's size on disk once the corpus
	// is loaded and settled, before the first search.
	Sized func(load.Size)
}

// Run runs every workload of cfg on sys as the race runs them on a server:
// load first at concurrency 1 (each run into an emptied table), then the
// corpus loaded once and settled, then the other workloads at every
// concurrency, cfg.Runs times; each report goes to emit as it is made. A
// workload without a counterpart is skipped.
func Run(ctx context.Context, sys System, cfg Config, emit func(*load.Report) error) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	work := &Work{Docs: cfg.Docs, BatchSize: cfg.BatchSize, SnippetDocs: cfg.SnippetDocs}
	filled := false
	for _, wl := range cfg.Workloads {
		queries := corpus.Queries(cfg.Docs, corpus.DefaultSeed)
		if wl == load.Ladder {
			queries = corpus.LadderQueries(cfg.Docs, corpus.DefaultSeed)
		}
		work.Queries = work.Queries[:0]
		for _, q := range queries {
			t, err := sys.Translate(q.Text)
			if err != nil {
				return err
			}
			work.Queries = append(work.Queries, t)
		}
		spec := load.Spec{Target: sys.Target(), Workload: wl, Corpus: cfg.Corpus,
			Duration: cfg.Duration, Warmup: cfg.Warmup, PID: sys.PID()}
		switch wl {
		case load.Insert:
			spec.Warmup, filled = 0, false
			if err := cfg.runs(ctx, sys, spec, work, []int{1}, true, emit); err != nil {
				return err
			}
		case load.Ladder:
			for _, d := range cfg.Docs {
				spec.FieldBytes = int64(len(d.Content))
				rung := *work
				rung.Docs = []corpus.Doc{d}
				rung.SnippetDocs = 1
				if err := cfg.runs(ctx, sys, spec, &rung, []int{1}, false, emit); err != nil {
					return err
				}
			}
		default:
			if !filled {
				start := time.Now()
				if err := sys.Fill(ctx, cfg.Docs); err != nil {
					return err
				}
				filled = true
				cfg.Log("%s %s: loaded %d documents in %.1f s", sys.Target(), cfg.Corpus, len(cfg.Docs), time.Since(start).Seconds())
				if cfg.Sized != nil {
					size := load.Size{Target: sys.Target(), Corpus: cfg.Corpus, Docs: len(cfg.Docs)}
					for _, d := range cfg.Docs {
						size.RawBytes += int64(len(d.Title) + len(d.Content))
					}
					var err error
					if size.DiskBytes, err = sys.DiskBytes(ctx); err != nil {
						return err
					}
					cfg.Sized(size)
				}
			}
			if err := cfg.runs(ctx, sys, spec, work, cfg.Concurrency, false, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

func (cfg *Config) setDefaults() error {
	if len(cfg.Docs) == 0 {
		return fmt.Errorf("peers: no documents")
	}
	for _, wl := range cfg.Workloads {
		if !slices.Contains(Workloads, wl) && wl != load.JSONSearchHL {
			return fmt.Errorf("peers: workload %q is not one of %v", wl, Workloads)
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
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = load.DefaultBatch
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	return nil
}

// runs measures the workload of spec at every concurrency, cfg.Runs times
// each; with reset, the table is emptied before each run.
func (cfg *Config) runs(ctx context.Context, sys System, spec load.Spec, work *Work, conc []int, reset bool,
	emit func(*load.Report) error) error {
	for _, c := range conc {
		spec.Concurrency = c
		for n := 1; n <= cfg.Runs; n++ {
			if reset {
				if err := sys.Reset(ctx); err != nil {
					return err
				}
			}
			op, closeOp, err := sys.Op(ctx, spec.Workload, work, c)
			if errors.Is(err, ErrNoCounterpart) {
				cfg.Log("%s %s: %s has no counterpart, skipped", sys.Target(), cfg.Corpus, spec.Workload)
				return nil
			}
			if err != nil {
				return err
			}
			r, err := load.RunInProcess(ctx, spec, n, op)
			closeOp()
			if err != nil {
				return err
			}
			cfg.Log("%s %s %s c=%d run %d: %.1f %s/s, p50 %.3f ms, p99 %.3f ms, errors %d %s",
				sys.Target(), r.Corpus, r.Workload, c, n, r.Throughput, r.Unit, r.P50Ms, r.P99Ms, r.Errors, r.FirstError)
			if err := emit(r); err != nil {
				return err
			}
		}
	}
	return nil
}
