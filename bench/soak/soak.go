package soak

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// The operations of the mix.
const (
	Search   = "search"           // SELECT id ... WHERE MATCH(q) LIMIT 20
	SearchHL = "search+highlight" // the same with HIGHLIGHT() (Sphinx: SNIPPET() on its stored index)
	Snippets = "snippets"         // CALL SNIPPETS of SnippetDocs corpus documents, limit 256
	Insert   = "insert"           // INSERT of one corpus document under a new id
	Delete   = "delete"           // DELETE of the oldest document in the table
)

// Ops lists the operations in the order reports show them.
var Ops = []string{Search, SearchHL, Snippets, Insert, Delete}

// DefaultMix is the share of each operation, in percent: searches and
// highlighting dominate; writes are three in ten, as many deletes as inserts
// (and runner.balance keeps the table's size within a few documents).
var DefaultMix = Mix{Search: 30, SearchHL: 25, Snippets: 15, Insert: 15, Delete: 15}

// Mix gives each operation a weight; an operation left out is not run.
type Mix map[string]int

// ParseMix reads "search=30,insert=15,..." (operations as in Ops).
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("soak: mix %q: want op=weight, got %q", s, part)
		}
		if !slices.Contains(Ops, name) {
			return nil, fmt.Errorf("soak: mix: unknown operation %q (want one of %s)", name, strings.Join(Ops, ", "))
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("soak: mix: %s given twice", name)
		}
		w, err := strconv.Atoi(val)
		if err != nil || w < 0 {
			return nil, fmt.Errorf("soak: mix: %s=%s: want a non-negative integer", name, val)
		}
		m[name] = w
	}
	return m, m.check()
}

func (m Mix) check() error {
	total := 0
	for _, w := range m {
		total += w
	}
	if total == 0 {
		return fmt.Errorf("soak: mix: every weight is 0")
	}
	return nil
}

func (m Mix) String() string {
	var parts []string
	for _, op := range Ops {
		if w := m[op]; w > 0 {
			parts = append(parts, op+"="+strconv.Itoa(w))
		}
	}
	return strings.Join(parts, ",")
}

// Config is one soak run.
type Config struct {
	Target      load.Target
	MySQLAddr   string
	ServerPID   int    // for RSS (from /proc); 0: not measured
	DataDir     string // the server's data directory, for its size; "": not measured
	Corpus      string
	Docs        []corpus.Doc
	Queries     []corpus.Query
	Clients     int           // default 8
	Duration    time.Duration // measured time; default 10 minutes
	Warmup      time.Duration // the same load before it, not in the result (its errors are)
	Interval    time.Duration // one window of the report; default 10 s
	Mix         Mix           // default DefaultMix
	FillDocs    int           // documents loaded before the run (the corpus cycled); default len(Docs)
	SnippetDocs int           // documents per CALL SNIPPETS; default 5
	Grow        bool          // let the table grow and shrink with the mix (default: keep its size)
	Seed        uint64
}

func (c *Config) setDefaults() error {
	if c.Target != load.Glint && c.Target != load.Sphinx {
		return fmt.Errorf("soak: unknown target %q (want glint or sphinx)", c.Target)
	}
	if len(c.Docs) == 0 || len(c.Queries) == 0 {
		return fmt.Errorf("soak: no documents or no queries")
	}
	if c.Clients <= 0 {
		c.Clients = 8
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Minute
	}
	if c.Interval <= 0 {
		c.Interval = 10 * time.Second
	}
	if c.Mix == nil {
		c.Mix = DefaultMix
	}
	if c.FillDocs <= 0 {
		c.FillDocs = len(c.Docs)
	}
	if c.SnippetDocs <= 0 {
		c.SnippetDocs = 5
	}
	return c.Mix.check()
}

// Result is a soak run: its setting and one Window per interval.
type Result struct {
	Target      load.Target `json:"target"`
	Corpus      string      `json:"corpus"`
	Machine     string      `json:"machine,omitempty"`
	Started     time.Time   `json:"started"`
	Clients     int         `json:"clients"`
	DurationSec float64     `json:"duration_sec"`
	IntervalSec float64     `json:"interval_sec"`
	WarmupSec   float64     `json:"warmup_sec,omitempty"`
	Mix         string      `json:"mix"`
	FillDocs    int         `json:"fill_docs"`
	Grow        bool        `json:"grow,omitempty"`
	Windows     []Window    `json:"windows"`
	// Errors holds the first few distinct error messages, per operation,
	// warm-up included.
	Errors map[string][]string `json:"errors,omitempty"`
}

// Window is what one interval measured.
type Window struct {
	EndSec float64            `json:"end_sec"` // since the measured phase began
	Ops    map[string]OpStats `json:"ops"`
	Total  int                `json:"total"`  // operations finished in the window
	Errors int                `json:"errors"` // of which failed
	PerSec float64            `json:"per_sec"`
	// CPUMsPerOp is the server's CPU time (user + system) in the window per
	// operation finished in it: the work an operation costs, which other
	// programs on the machine do not change the way they change throughput.
	CPUMsPerOp float64 `json:"cpu_ms_per_op,omitempty"`
	RSSBytes   int64   `json:"rss_bytes"`            // the server's resident set at the window's end; 0: unknown
	AnonBytes  int64   `json:"rss_anon_bytes"`       // of which anonymous memory (heap, stacks)
	FileBytes  int64   `json:"rss_file_bytes"`       // of which pages of mapped files (badger's tables and value log)
	DataBytes  int64   `json:"data_bytes,omitempty"` // the data directory's size, when known
	Goroutines int     `json:"goroutines,omitempty"` // glint's SHOW STATUS goroutines
	HeapBytes  int64   `json:"heap_bytes,omitempty"` // glint's SHOW STATUS heap_bytes
	TableDocs  int64   `json:"table_docs"`           // documents in the table (fill + inserted - deleted)
	Segments   int     `json:"segments,omitempty"`   // glint's SHOW STATUS segments
	Deleted    int     `json:"deleted_docs,omitempty"`
	Merging    int     `json:"merges_pending,omitempty"`
}

// OpStats is one operation's latencies in a window, in milliseconds.
type OpStats struct {
	Count  int     `json:"count"`
	Errors int     `json:"errors"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
}

// Totals sums the windows: operations, errors.
func (r *Result) Totals() (ops, errs int) {
	for _, w := range r.Windows {
		ops += w.Total
		errs += w.Errors
	}
	return ops, errs
}

// Fill empties the table and loads cfg.FillDocs documents, ids 1..FillDocs.
func Fill(ctx context.Context, cfg Config) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	docs := cfg.Docs
	for len(docs) < cfg.FillDocs {
		docs = append(docs, cfg.Docs...)
	}
	return load.Fill(ctx, load.Config{Target: cfg.Target, Workload: load.Insert, MySQLAddr: cfg.MySQLAddr,
		Docs: docs[:cfg.FillDocs], BatchSize: 100})
}

// Run runs the mix for cfg.Duration on a table Fill loaded, writing one line
// per window to progress (nil: none).
func Run(ctx context.Context, cfg Config, progress io.Writer) (*Result, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	db, err := load.Open(cfg.MySQLAddr)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxIdleConns(cfg.Clients + 1)
	r := newRunner(&cfg)
	res := &Result{Target: cfg.Target, Corpus: cfg.Corpus, Started: time.Now().UTC(), Clients: cfg.Clients,
		DurationSec: cfg.Duration.Seconds(), IntervalSec: cfg.Interval.Seconds(), WarmupSec: cfg.Warmup.Seconds(), Mix: cfg.Mix.String(),
		FillDocs: cfg.FillDocs, Grow: cfg.Grow}

	conns := make([]*sql.Conn, cfg.Clients)
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			return nil, fmt.Errorf("soak: connecting client %d: %w", i, err)
		}
		defer conns[i].Close()
	}
	status, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer status.Close()

	runCtx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Go(func() { r.client(runCtx, conn, cfg.Seed+uint64(i)) })
	}
	if cfg.Warmup > 0 {
		select {
		case <-time.After(cfg.Warmup):
		case <-runCtx.Done():
		}
		w, _ := r.window(time.Since(start)) // dropped: only its errors stay (firstErrors)
		if progress != nil {
			fmt.Fprintf(progress, "warm-up: %d operations, %d errors\n", w.Total, w.Errors)
		}
		start = time.Now()
		r.taken = 0
	}
	lastCPU, _ := load.ProcessCPUSeconds(cfg.ServerPID)
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-tick.C:
		case <-runCtx.Done():
			wg.Wait()
			done = true
		}
		w, span := r.window(time.Since(start))
		if done && span < cfg.Interval/2 {
			break // the end came just after a tick: too short a window to weigh
		}
		if cpu, err := load.ProcessCPUSeconds(cfg.ServerPID); err == nil && cfg.ServerPID > 0 && w.Total > 0 {
			w.CPUMsPerOp = (cpu - lastCPU) * 1000 / float64(w.Total)
			lastCPU = cpu
		}
		w.RSSBytes, w.AnonBytes, w.FileBytes = rss(cfg.ServerPID)
		if cfg.DataDir != "" {
			w.DataBytes, _ = load.DiskUsage(cfg.DataDir) // 0 when it cannot be read
		}
		if cfg.Target == load.Glint {
			st := glintStatus(ctx, status)
			w.Goroutines, w.HeapBytes = int(st["goroutines"]), st["heap_bytes"]
			w.Segments, w.Deleted, w.Merging = int(st["segments"]), int(st["deleted_docs"]), int(st["merges_pending"])
		}
		res.Windows = append(res.Windows, w)
		if progress != nil {
			fmt.Fprintln(progress, w.line(cfg.Interval))
		}
	}
	res.Errors = r.firstErrors()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// line is a window in one line of text, for a person watching the run.
func (w Window) line(interval time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4.0fs %7.0f ops/s cpu %.2f ms/op err %d rss %s (anon %s) docs %d", w.EndSec, w.PerSec, w.CPUMsPerOp, w.Errors, mb(w.RSSBytes), mb(w.AnonBytes), w.TableDocs)
	if w.DataBytes > 0 {
		fmt.Fprintf(&b, " data %s", mb(w.DataBytes))
	}
	if w.Goroutines > 0 {
		fmt.Fprintf(&b, " goroutines %d heap %s segs %d del %d merging %d", w.Goroutines, mb(w.HeapBytes), w.Segments, w.Deleted, w.Merging)
	}
	for _, op := range Ops {
		if s, ok := w.Ops[op]; ok {
			fmt.Fprintf(&b, " | %s %d p50 %.1f p99 %.1f", op, s.Count, s.P50Ms, s.P99Ms)
		}
	}
	return b.String()
}

func mb(b int64) string { return strconv.FormatInt(b>>20, 10) + "MB" }

// runner holds what the clients share: the statements' parts, the id
// counters and the current window's latencies.
type runner struct {
	cfg     *Config
	table   string
	docs    []string     // each document's VALUES tuple after its id: ,'title','content',gid)
	texts   []string     // each document's content, quoted
	queries []string     // quoted
	ops     []string     // the mix as a wheel: op i appears Mix[op] times
	nextID  atomic.Int64 // the next id to insert
	oldest  atomic.Int64 // the next id to delete
	docsIn  atomic.Int64 // documents in the table

	mu    sync.Mutex
	lat   map[string][]float64 // this window's latencies in ms, by op
	errs  map[string]int
	first map[string][]string
	taken time.Duration // the end of the last window taken
}

func newRunner(cfg *Config) *runner {
	r := &runner{cfg: cfg, table: load.DefaultTable, lat: map[string][]float64{}, errs: map[string]int{},
		first: map[string][]string{}}
	for i, d := range cfg.Docs {
		var b []byte
		b = append(b, ',')
		b = load.AppendQuoted(b, d.Title)
		b = append(b, ',')
		b = load.AppendQuoted(b, d.Content)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i%10), 10)
		b = append(b, ')')
		r.docs = append(r.docs, string(b))
		r.texts = append(r.texts, string(load.AppendQuoted(nil, d.Content)))
	}
	for _, q := range cfg.Queries {
		r.queries = append(r.queries, string(load.AppendQuoted(nil, q.Text)))
	}
	for _, op := range Ops {
		for range cfg.Mix[op] {
			r.ops = append(r.ops, op)
		}
	}
	r.nextID.Store(int64(cfg.FillDocs) + 1)
	r.oldest.Store(1)
	r.docsIn.Store(int64(cfg.FillDocs))
	return r
}

// client runs operations drawn from the mix until ctx ends.
func (r *runner) client(ctx context.Context, conn *sql.Conn, seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, 0x50a6))
	for ctx.Err() == nil {
		op := r.balance(r.ops[rnd.IntN(len(r.ops))])
		begin := time.Now()
		err := r.do(ctx, conn, op, rnd)
		if ctx.Err() != nil {
			return // cut short by the end of the run: not counted
		}
		r.record(op, time.Since(begin), err)
	}
}

// balance keeps the table between FillDocs and FillDocs plus a few per
// client: an INSERT drawn when the table is at the top deletes instead, a
// DELETE drawn at the bottom inserts. The table then keeps its size (and
// deletes always find their row: the oldest ids were inserted long before),
// and what changes over a run is the server, not the data.
func (r *runner) balance(op string) string {
	if r.cfg.Grow {
		return op
	}
	n := r.docsIn.Load()
	switch {
	case op == Insert && n >= int64(r.cfg.FillDocs+4*r.cfg.Clients):
		return Delete
	case op == Delete && n <= int64(r.cfg.FillDocs):
		return Insert
	}
	return op
}

func (r *runner) do(ctx context.Context, conn *sql.Conn, op string, rnd *rand.Rand) error {
	q := r.queries[rnd.IntN(len(r.queries))]
	switch op {
	case Search:
		return query(ctx, conn, "SELECT id FROM "+r.table+" WHERE MATCH("+q+") LIMIT 20")
	case SearchHL:
		if r.cfg.Target == load.Sphinx {
			return query(ctx, conn, "SELECT id, SNIPPET(content, "+q+") FROM "+load.StoredTable+" WHERE MATCH("+q+") LIMIT 20")
		}
		return query(ctx, conn, "SELECT id, HIGHLIGHT() FROM "+r.table+" WHERE MATCH("+q+") LIMIT 20")
	case Snippets:
		var b strings.Builder
		b.WriteString("CALL SNIPPETS((")
		for k := range r.cfg.SnippetDocs {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(r.texts[rnd.IntN(len(r.texts))])
		}
		b.WriteString("), '" + r.table + "', " + q + ", 256 AS limit)")
		return query(ctx, conn, b.String())
	case Insert:
		id := r.nextID.Add(1) - 1
		tuple := r.docs[int(id)%len(r.docs)]
		for _, table := range r.tables() {
			stmt := "INSERT INTO " + table + " (id, title, content, gid) VALUES (" + strconv.FormatInt(id, 10) + tuple
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		r.docsIn.Add(1)
		return nil
	case Delete:
		id := r.oldest.Add(1) - 1
		for _, table := range r.tables() {
			if _, err := conn.ExecContext(ctx, "DELETE FROM "+table+" WHERE id = "+strconv.FormatInt(id, 10)); err != nil {
				return err
			}
		}
		r.docsIn.Add(-1)
		return nil
	}
	return fmt.Errorf("soak: unknown operation %q", op)
}

// tables are the tables a write goes to: Sphinx keeps the stored copy its
// SNIPPET() path reads in a second index.
func (r *runner) tables() []string {
	if r.cfg.Target == load.Sphinx {
		return []string{r.table, load.StoredTable}
	}
	return []string{r.table}
}

func query(ctx context.Context, conn *sql.Conn, stmt string) error {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

const keepErrors = 5 // distinct messages kept per operation

func (r *runner) record(op string, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lat[op] = append(r.lat[op], float64(d.Microseconds())/1000)
	if err != nil {
		r.errs[op]++
		msg := err.Error()
		if len(r.first[op]) < keepErrors && !slices.Contains(r.first[op], msg) {
			r.first[op] = append(r.first[op], msg)
		}
	}
}

// window takes the latencies recorded since the last window, and says how
// long that was.
func (r *runner) window(elapsed time.Duration) (Window, time.Duration) {
	r.mu.Lock()
	lat, errs := r.lat, r.errs
	r.lat, r.errs = map[string][]float64{}, map[string]int{}
	span := elapsed - r.taken
	r.taken = elapsed
	r.mu.Unlock()

	w := Window{EndSec: elapsed.Seconds(), Ops: map[string]OpStats{}, TableDocs: r.docsIn.Load()}
	for op, ms := range lat {
		slices.Sort(ms)
		w.Ops[op] = OpStats{Count: len(ms), Errors: errs[op], P50Ms: quantile(ms, 0.50), P99Ms: quantile(ms, 0.99)}
		w.Total += len(ms)
		w.Errors += errs[op]
	}
	if span > 0 {
		w.PerSec = float64(w.Total) / span.Seconds()
	}
	return w, span
}

func (r *runner) firstErrors() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.first) == 0 {
		return nil
	}
	return r.first
}

// quantile of sorted values, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// rss is the resident set of process pid in bytes, and its anonymous and
// file-backed parts (VmRSS, RssAnon, RssFile of /proc/PID/status); zeros when
// unknown.
func rss(pid int) (total, anon, file int64) {
	if pid <= 0 {
		return 0, 0, 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			total = kb << 10
		case "RssAnon":
			anon = kb << 10
		case "RssFile":
			file = kb << 10
		}
	}
	return total, anon, file
}

// glintStatus reads glint's numeric SHOW STATUS counters; nil when it
// cannot.
func glintStatus(ctx context.Context, conn *sql.Conn) map[string]int64 {
	rows, err := conn.QueryContext(ctx, "SHOW STATUS")
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name, value string
		if rows.Scan(&name, &value) != nil {
			return nil
		}
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			out[name] = n
		}
	}
	return out
}
