package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/go-sql-driver/mysql"
)

// Open returns a connection pool to a server's MySQL listener. Arguments are
// interpolated by the client (Sphinx 2.2 has no server-side prepared
// statements, so both servers get the same text), packets may be 128 MB
// (an INSERT of 1,000 documents can be tens of MB), and a query may hold
// several statements (the facet workload's peer form).
func Open(addr string) (*sql.DB, error) {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "tcp"
	c.Addr = addr
	c.InterpolateParams = true
	c.MultiStatements = true
	c.MaxAllowedPacket = 128 << 20
	c.Timeout = 10 * time.Second
	connector, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// Reset empties the benchmark tables: Sphinx's two RT indexes are truncated;
// glint's table t is dropped and created again (with morphology='stem_en'
// for GlintStem).
func Reset(ctx context.Context, db *sql.DB, target Target) error {
	var stmts []string
	if target == Sphinx {
		stmts = []string{"TRUNCATE RTINDEX " + DefaultTable, "TRUNCATE RTINDEX " + StoredTable}
	} else {
		create := "CREATE TABLE " + DefaultTable + " (title text, content text, gid int)"
		if target == GlintStem {
			create += " morphology='stem_en'"
		}
		stmts = []string{"DROP TABLE IF EXISTS " + DefaultTable, create}
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("load: %s: %w", s, err)
		}
	}
	return nil
}

// Fill resets the tables and inserts every document of cfg once, ids 1..N, in
// batches of cfg.BatchSize, so that the search workloads have the corpus to
// search. Sphinx gets the documents in both its indexes.
func Fill(ctx context.Context, cfg Config) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	db, err := Open(cfg.MySQLAddr)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := Reset(ctx, db, cfg.Target); err != nil {
		return err
	}
	tables := []string{DefaultTable}
	if cfg.Target == Sphinx {
		tables = append(tables, StoredTable)
	}
	docs := quoteDocs(cfg.Docs)
	for _, table := range tables {
		if err := insertRange(ctx, db, table, docs, 0, len(cfg.Docs), cfg.BatchSize); err != nil {
			return err
		}
	}
	if IsGlint(cfg.Target) {
		return settle(ctx, db)
	}
	return nil
}

// FillRange makes table on the glintd at addr anew (the columns of the
// race's table t) and inserts n documents with ids first+1 to first+n, the
// k-th being docs[(first+k) % len(docs)] (so a corpus can stand for a
// larger one, and ranges of one numbering can go to several shards), then
// waits for the merges.
func FillRange(ctx context.Context, addr, table string, docs []corpus.Doc, first, n int) error {
	if len(docs) == 0 {
		return fmt.Errorf("load: no documents")
	}
	db, err := Open(addr)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (title text, content text, gid int)"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("load: %s: %w", s, err)
		}
	}
	if err := insertRange(ctx, db, table, quoteDocs(docs), first, n, DefaultBatch); err != nil {
		return err
	}
	return settle(ctx, db)
}

// insertRange inserts n documents into table, ids first+1 onwards (as
// insertStatement numbers them), batch documents a statement.
func insertRange(ctx context.Context, db *sql.DB, table string, docs []quotedDoc, first, n, batch int) error {
	for at := first; at < first+n; at += batch {
		stmt, _ := insertStatement(table, docs, int64(at), min(batch, first+n-at))
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("load: filling %s: %w", table, err)
		}
	}
	return nil
}

// settle waits until glintd has merged the segments of what was loaded
// (SHOW STATUS merges_pending is 0), so that a search workload measures the
// table as it stays, not the merges.
func settle(ctx context.Context, db *sql.DB) error {
	for {
		var name, pending string
		if err := db.QueryRowContext(ctx, "SHOW STATUS LIKE 'merges_pending'").Scan(&name, &pending); err != nil {
			return fmt.Errorf("load: waiting for merges: %w", err)
		}
		if pending == "0" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Run does run number n of cfg's workload (n only labels the report). Failed
// operations are counted in the report, not returned: an error means the run
// could not be made at all.
func Run(ctx context.Context, cfg Config, n int) (*Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	w, err := newWorkload(&cfg)
	if err != nil {
		return nil, err
	}
	db, err := Open(cfg.MySQLAddr)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxIdleConns(cfg.Concurrency)
	if cfg.Workload == Insert {
		if err := Reset(ctx, db, cfg.Target); err != nil {
			return nil, err
		}
	}
	conns := make([]*sql.Conn, cfg.Concurrency)
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			return nil, fmt.Errorf("load: connecting to %s: %w", cfg.MySQLAddr, err)
		}
		defer conns[i].Close()
	}

	spec := Spec{
		Target: cfg.Target, Workload: cfg.Workload, Corpus: cfg.Corpus, Concurrency: cfg.Concurrency,
		Duration: cfg.Duration, Warmup: cfg.Warmup, PID: cfg.ServerPID, OtherPIDs: cfg.OtherPIDs,
	}
	if cfg.Workload == Ladder {
		spec.FieldBytes = int64(len(cfg.Docs[0].Content))
	}
	return measure(ctx, spec, n, func(ctx context.Context, worker int, seq int64) (Done, error) {
		return w.op(ctx, worker, conns[worker], seq)
	}), ctx.Err()
}

// Spec is a run of a workload that RunInProcess measures: what the report is to
// say, and the phases' lengths.
type Spec struct {
	Target      Target
	Workload    string // its unit is UnitOf(Workload)
	Corpus      string
	Concurrency int           // workers; default 1
	Duration    time.Duration // measured phase; default 10 s
	Warmup      time.Duration // uncounted phase before it; 0 for none
	FieldBytes  int64         // the size of the one document a ladder run highlights
	// PID is the process whose CPU time (and its child processes') is charged
	// to the operations; for work done in-process, os.Getpid(). 0 for none.
	PID int
	// OtherPIDs are more processes whose CPU time is charged too.
	OtherPIDs []int
}

// An Op does the seq-th operation of a run (seq counts from 0 across workers)
// on worker number worker (0 to Concurrency-1; a worker calls Op from one
// goroutine only) and says what it handled. A failed operation is counted, not
// fatal.
type Op func(ctx context.Context, worker int, seq int64) (Done, error)

// Done is what one operation handled.
type Done struct {
	Docs  int   // documents inserted or highlighted
	Bytes int64 // the size of their text
	Rows  int   // rows (hits, snippets, groups) the answer held, over all its result sets
}

// RunInProcess measures op as Run measures a server's workload (same warm-up,
// fixed duration, workers, percentiles): it is how a library driven in-process
// (bench/bleve) reports figures comparable with the servers'. n labels the run.
func RunInProcess(ctx context.Context, spec Spec, n int, op Op) (*Report, error) {
	if spec.Concurrency <= 0 {
		spec.Concurrency = 1
	}
	if spec.Duration <= 0 {
		spec.Duration = 10 * time.Second
	}
	return measure(ctx, spec, n, op), ctx.Err()
}

// measure runs the warm-up and the measured phase of op and reports the latter.
func measure(ctx context.Context, spec Spec, n int, op Op) *Report {
	var seq atomic.Int64
	if spec.Warmup > 0 {
		phase(ctx, op, spec.Concurrency, &seq, spec.Warmup)
	}
	r := &Report{
		Target: spec.Target, Workload: spec.Workload, Corpus: spec.Corpus, Run: n,
		Concurrency: spec.Concurrency, StartedAt: time.Now().UTC(), Unit: UnitOf(spec.Workload),
		FieldBytes: spec.FieldBytes,
	}
	pids := append([]int{spec.PID}, spec.OtherPIDs...)
	cpu0 := serverCPU(pids)
	res := phase(ctx, op, spec.Concurrency, &seq, spec.Duration)
	cpu := serverCPU(pids) - cpu0
	r.Seconds = res.elapsed.Seconds()
	r.Ops, r.Docs, r.Bytes, r.Rows, r.Errors = res.ops, res.docs, res.bytes, res.rows, res.errors
	if res.firstErr != nil {
		r.FirstError = res.firstErr.Error()
	}
	r.finish(res.latencies, cpu)
	return r
}

// serverCPU is the CPU seconds the processes pids (and their descendants)
// have used; a pid <= 0 or one that cannot be read counts 0.
func serverCPU(pids []int) float64 {
	total := 0.0
	for _, pid := range pids {
		if pid <= 0 {
			continue
		}
		if s, err := ProcessTreeCPUSeconds(pid); err == nil {
			total += s
		}
	}
	return total
}

type phaseResult struct {
	elapsed                        time.Duration
	ops, docs, bytes, rows, errors int64
	firstErr                       error
	latencies                      []time.Duration
}

// phase runs workers workers until d is over (an operation under way then is
// finished and counted) and returns what they did. A phase whose operations
// keep failing stops early.
func phase(ctx context.Context, op Op, workers int, seq *atomic.Int64, d time.Duration) phaseResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu  sync.Mutex
		res phaseResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for worker := range workers {
		wg.Go(func() {
			var lat []time.Duration
			var ops, docs, bytes, rows, errs int64
			var firstErr error
			for ctx.Err() == nil && time.Now().Before(deadline) {
				t0 := time.Now()
				done, err := op(ctx, worker, seq.Add(1)-1)
				if err != nil {
					errs++
					if firstErr == nil && !errors.Is(err, context.Canceled) {
						firstErr = err
					}
					if errs > 100 && errs > ops {
						cancel()
					}
					continue
				}
				lat = append(lat, time.Since(t0))
				ops++
				docs += int64(done.Docs)
				bytes += done.Bytes
				rows += int64(done.Rows)
			}
			mu.Lock()
			defer mu.Unlock()
			res.latencies = append(res.latencies, lat...)
			res.ops += ops
			res.docs += docs
			res.bytes += bytes
			res.rows += rows
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = firstErr
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}
