package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Open returns a connection pool to a server's MySQL listener. Arguments are
// interpolated by the client (Sphinx 2.2 has no server-side prepared
// statements, so both servers get the same text), and packets may be 128 MB
// (an INSERT of 1,000 documents can be tens of MB).
func Open(addr string) (*sql.DB, error) {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "tcp"
	c.Addr = addr
	c.InterpolateParams = true
	c.MaxAllowedPacket = 128 << 20
	c.Timeout = 10 * time.Second
	connector, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// Reset empties the benchmark tables: Sphinx's two RT indexes are truncated;
// glint's table t is dropped and created again.
func Reset(ctx context.Context, db *sql.DB, target Target) error {
	var stmts []string
	if target == Sphinx {
		stmts = []string{"TRUNCATE RTINDEX " + DefaultTable, "TRUNCATE RTINDEX " + StoredTable}
	} else {
		stmts = []string{
			"DROP TABLE IF EXISTS " + DefaultTable,
			"CREATE TABLE " + DefaultTable + " (title text, content text, gid int)",
		}
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
	for _, table := range tables {
		for first := 0; first < len(cfg.Docs); first += cfg.BatchSize {
			n := min(cfg.BatchSize, len(cfg.Docs)-first)
			stmt, _ := insertStatement(table, cfg.Docs, int64(first), n)
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("load: filling %s: %w", table, err)
			}
		}
	}
	return nil
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

	var seq atomic.Int64
	if cfg.Warmup > 0 {
		phase(ctx, w, conns, &seq, cfg.Warmup)
	}
	r := &Report{
		Target: cfg.Target, Workload: cfg.Workload, Corpus: cfg.Corpus, Run: n,
		Concurrency: cfg.Concurrency, StartedAt: time.Now().UTC(), Unit: w.unit(),
	}
	cpu0 := serverCPU(cfg.ServerPID)
	res := phase(ctx, w, conns, &seq, cfg.Duration)
	cpu := serverCPU(cfg.ServerPID) - cpu0
	r.Seconds = res.elapsed.Seconds()
	r.Ops, r.Docs, r.Bytes, r.Errors = res.ops, res.docs, res.bytes, res.errors
	if res.firstErr != nil {
		r.FirstError = res.firstErr.Error()
	}
	r.finish(res.latencies, cpu)
	return r, ctx.Err()
}

func serverCPU(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	s, err := ProcessCPUSeconds(pid)
	if err != nil {
		return 0
	}
	return s
}

type phaseResult struct {
	elapsed                  time.Duration
	ops, docs, bytes, errors int64
	firstErr                 error
	latencies                []time.Duration
}

// phase runs one worker per connection until d is over (an operation under way
// then is finished and counted) and returns what they did. A phase whose
// operations keep failing stops early.
func phase(ctx context.Context, w workload, conns []*sql.Conn, seq *atomic.Int64, d time.Duration) phaseResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu  sync.Mutex
		res phaseResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for _, conn := range conns {
		wg.Go(func() {
			var lat []time.Duration
			var ops, docs, bytes, errs int64
			var firstErr error
			for ctx.Err() == nil && time.Now().Before(deadline) {
				t0 := time.Now()
				nd, nb, err := w.op(ctx, conn, seq.Add(1)-1)
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
				docs += int64(nd)
				bytes += nb
			}
			mu.Lock()
			defer mu.Unlock()
			res.latencies = append(res.latencies, lat...)
			res.ops += ops
			res.docs += docs
			res.bytes += bytes
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
