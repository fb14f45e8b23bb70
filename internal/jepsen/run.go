package jepsen

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config is one run: a cluster, the workloads its clients run, the nemeses
// and the seed that schedules them.
type Config struct {
	Cluster   ClusterConfig
	Workloads []string      // WorkloadRegister, WorkloadSet; both run at once, on tables of their own
	Clients   int           // clients per workload, spread over the nodes; default 4
	Duration  time.Duration // how long the clients run; the faults stop for its last fifth, and are healed at the end
	Nemeses   []string      // see ParseNemeses
	Seed      int64
	// Scale multiplies the nemeses' durations: 1 is Jepsen's own (SIGSTOP
	// and partitions of 5-15 s, 2-5 s between faults); go test's short
	// version uses 0.1.
	Scale     float64
	OpTimeout time.Duration // one statement's limit, after which it is Unknown; default 1 s

	RegisterTable, SetTable string // default jepsen_register, jepsen_set; a cluster's are c:t
	// CreateTable is the statement (a format with one %s, the table) run on
	// node 0 before the clients start; "" leaves it to ClusterConfig.Setup.
	CreateTable string
	// ReadOption is appended to the register's SELECT: a cluster's
	// " OPTION consistency='linearizable'".
	ReadOption string
	// Indeterminate names the server error codes that leave a write's
	// outcome unknown (see Classify); nil: none, as on one node.
	Indeterminate func(code uint16) bool

	RegisterKeys int           // register keys in play at once; default 8
	OpsPerKey    int           // operations on a key before it is retired; default 300
	CheckTimeout time.Duration // porcupine's limit; default 1 min
	// AllowDataLoss lets the wipe nemesis run on one node, where it loses the
	// data by design: the harness's own end-to-end check that a real loss is
	// caught. Never set it for a run meant to pass.
	AllowDataLoss bool
	Out           string // where a failed run leaves its history, porcupine's HTML and the nodes' output; "" keeps nothing
}

// DefaultCreateTable makes the workloads' tables: one integer attribute
// and a text field, which the set workload fills (bodyOf) and a cluster's
// convergence check searches. A CreateTable of one's own needs both.
const DefaultCreateTable = "CREATE TABLE IF NOT EXISTS %s (body text, v bigint)"

func (c *Config) defaults() error {
	if c.Clients == 0 {
		c.Clients = 4
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	if c.OpTimeout == 0 {
		c.OpTimeout = time.Second
	}
	if c.RegisterTable == "" {
		c.RegisterTable = "jepsen_register"
	}
	if c.SetTable == "" {
		c.SetTable = "jepsen_set"
	}
	if c.RegisterKeys == 0 {
		c.RegisterKeys = 8
	}
	if c.OpsPerKey == 0 {
		c.OpsPerKey = 300
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = time.Minute
	}
	switch {
	case len(c.Workloads) == 0:
		return errors.New("jepsen: no workload (register, set)")
	case c.Duration <= 0:
		return fmt.Errorf("jepsen: duration %v must be positive", c.Duration)
	case c.Clients < 0 || c.Scale < 0 || c.OpTimeout < 0 || c.RegisterKeys < 0 || c.OpsPerKey < 0:
		return errors.New("jepsen: Clients, Scale, OpTimeout, RegisterKeys and OpsPerKey must not be negative")
	case c.RegisterTable == c.SetTable:
		return fmt.Errorf("jepsen: the register and set workloads share table %s: their ids would collide", c.SetTable)
	case c.CreateTable != "" && strings.Count(c.CreateTable, "%s") != 1:
		return fmt.Errorf("jepsen: CreateTable %q needs one %%s for the table's name", c.CreateTable)
	}
	for _, w := range c.Workloads {
		if w != WorkloadRegister && w != WorkloadSet {
			return fmt.Errorf("jepsen: unknown workload %q (register, set)", w)
		}
	}
	return checkNemeses(c.Nemeses, c.Cluster, c.AllowDataLoss)
}

// Result is what one run did and what the checkers found.
type Result struct {
	Seed                int64
	Ops, Ok, Fail, Unkn int            // client operations by outcome
	Faults              map[string]int // nemesis faults run, by name
	Register            *RegisterResult
	Sets                []SetResult     // one per node
	Failovers           []time.Duration // from each kill -9 to the next acknowledged write
	Restarts            []time.Duration // from each kill -9 to the node's ready lines (its down time included)
	ConvergeChecked     bool            // a cluster's nodes were asked the convergence queries (checkConverged)
	Converged           bool            // and answered them alike
	Violations          []string        // empty: the run passed
	Artifacts           string          // the directory holding the failed run's files
}

// LostWrites counts acknowledged adds missing on some node (the most any
// node lost).
func (r *Result) LostWrites() int {
	lost := 0
	for _, s := range r.Sets {
		lost = max(lost, len(s.Lost))
	}
	return lost
}

// Run starts a cluster, runs the workloads and the nemeses for
// cfg.Duration, heals every fault, reads the final state and checks it. An
// error is a failure of the harness (a node that would not start); what the
// checkers find is in Result.Violations.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	cfg.Cluster.Seed = cfg.Seed
	c, err := StartCluster(ctx, cfg.Cluster)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			res, err = nil, cerr // a node that does not stop cleanly is a finding too
		}
	}()
	createTables := func(ctx context.Context, node int) error {
		for _, w := range cfg.Workloads {
			if err := execOn(ctx, c.ClientAddr(node), fmt.Sprintf(cfg.CreateTable, cfg.table(w)), 30*time.Second); err != nil {
				return fmt.Errorf("jepsen: creating the %s table on node %d: %w", w, node, err)
			}
		}
		return nil
	}
	if cfg.CreateTable != "" {
		if err := createTables(ctx, 0); err != nil {
			return nil, err
		}
	}

	hist := NewHistory()
	defer func() {
		// a harness failure after the start (a node that would not come
		// back after a kill, say) leaves the history and logs too, with
		// each running node's goroutines (a node that stopped answering
		// shows what it waits for)
		if err != nil && res == nil && cfg.Out != "" {
			for _, n := range c.Nodes {
				if derr := n.DumpGoroutines(); derr != nil {
					err = fmt.Errorf("%w; %v", err, derr)
				}
			}
			failed := &Result{Seed: cfg.Seed, Violations: []string{"harness: " + err.Error()}}
			if dir, serr := saveArtifacts(cfg.Out, c, hist.Ops(), failed); serr == nil {
				err = fmt.Errorf("%w (history and logs in %s)", err, dir)
			}
		}
	}()
	rng := rand.New(rand.NewSource(cfg.Seed))
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, 1+len(cfg.Workloads)*cfg.Clients)
	procs := &counter{}
	regKeys := newKeys(cfg.RegisterKeys, cfg.OpsPerKey, 1)
	setIDs := &counter{}
	readWhere := ""
	if cfg.ReadOption != "" {
		readWhere = " " + strings.TrimSpace(cfg.ReadOption)
	}
	for _, w := range cfg.Workloads {
		for i := range cfg.Clients {
			node := i % len(c.Nodes)
			cl := &client{workload: w, table: cfg.table(w), node: node, addr: c.ClientAddr(node), cfg: &cfg, hist: hist,
				rng: rand.New(rand.NewSource(rng.Int63())), procs: procs, keys: regKeys, ids: setIDs, readWhere: readWhere}
			wg.Add(1)
			go func() { defer wg.Done(); errs <- cl.run(runCtx) }()
		}
	}
	nem := &nemesis{c: c, hist: hist, rng: rand.New(rand.NewSource(rng.Int63())), names: cfg.Nemeses, scale: cfg.Scale}
	switch {
	case len(c.Nodes) == 1 && cfg.CreateTable != "":
		nem.afterWipe = createTables // a wiped lone node comes back empty, as a rejoin that lost its data would
	case len(c.Nodes) > 1 && c.Config.Rejoin != nil:
		nem.afterWipe = func(ctx context.Context, node int) error { return c.Config.Rejoin(ctx, c, node) }
	}
	// the faults stop for the last fifth of the run, so that the clients
	// see the system recover from the last one (and every kill has a write
	// after it for its failover time)
	nemCtx, nemStop := context.WithTimeout(runCtx, cfg.Duration-cfg.Duration/5)
	defer nemStop()
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := nem.run(nemCtx)
		if err != nil {
			stop() // the clients too: the run is over
		}
		errs <- err
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			return nil, e
		}
	}
	if err := c.HealAll(ctx); err != nil {
		return nil, err
	}

	if slices.Contains(cfg.Workloads, WorkloadSet) {
		for i := range c.Nodes {
			final, err := finalRead(ctx, c.ClientAddr(i), cfg.SetTable, cfg.ReadOption)
			noTable := errors.Is(err, errNoTable) // it holds nothing: whatever was acknowledged is lost
			if err != nil && !noTable {
				return nil, fmt.Errorf("jepsen: final read of node %d: %w", i, err)
			}
			hist.FinalRead(i, final, noTable)
		}
	}
	ops := hist.Ops()
	checked, err := Check(ops, cfg.CheckTimeout)
	if err != nil {
		return nil, err
	}
	res = checked
	res.Seed = cfg.Seed
	if len(c.Nodes) > 1 && slices.Contains(cfg.Workloads, WorkloadSet) {
		diverged, err := checkConverged(ctx, c, cfg.SetTable, cfg.ReadOption)
		if err != nil {
			return nil, err
		}
		res.ConvergeChecked, res.Converged = true, len(diverged) == 0
		res.Violations = append(res.Violations, diverged...)
	}
	if len(res.Violations) > 0 && cfg.Out != "" {
		res.Artifacts, err = saveArtifacts(cfg.Out, c, ops, res)
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (c *Config) table(workload string) string {
	if workload == WorkloadRegister {
		return c.RegisterTable
	}
	return c.SetTable
}

// Check checks a whole history, as Run records it or ReadJSONL reads it
// back: the register's operations with CheckRegister (timeout bounds
// porcupine), the set's adds against each FinalRead entry with CheckSet,
// and the counts and failover times.
func Check(ops []Op, timeout time.Duration) (*Result, error) {
	res := &Result{Faults: map[string]int{}}
	if err := res.count(ops); err != nil {
		return nil, err
	}
	hasRegister := slices.ContainsFunc(ops, func(op Op) bool { return op.Workload == WorkloadRegister })
	if hasRegister {
		reg, err := CheckRegister(ops, timeout)
		if err != nil {
			return nil, err
		}
		res.Register = &reg
		switch {
		case reg.Inconclusive:
			res.Violations = append(res.Violations, fmt.Sprintf("register: porcupine gave no answer within %v", timeout))
		case !reg.Linearizable:
			res.Violations = append(res.Violations, "register: not linearizable: "+reg.Explanation)
		}
	}
	for _, op := range ops {
		if op.Kind != FinalRead {
			continue
		}
		s, err := CheckSet(ops, op.Node, op.IDs)
		if err != nil {
			return nil, err
		}
		s.NoTable = op.Error == noTableNote
		res.Sets = append(res.Sets, s)
		if !s.OK() {
			res.Violations = append(res.Violations, "set: "+s.String())
		}
	}
	return res, nil
}

// count fills the operation counts, the faults, the restart times and the
// failover times: from
// each kill -9 to the first acknowledged write invoked after it (a write
// invoked before may have been answered by the dying process).
func (r *Result) count(ops []Op) error {
	var kills []int64
	killed := map[int]int64{} // node -> time of its kill, until it is up
	for _, op := range ops {
		switch op.Type {
		case Info:
			if op.Kind == NemesisStart {
				r.Faults[op.Nemesis]++
				if op.Nemesis == NemesisKill {
					kills = append(kills, op.Time)
					killed[op.Node] = op.Time
				}
			}
			if at, ok := killed[op.Node]; ok && op.Kind == NemesisStop && op.Nemesis == NemesisKill {
				r.Restarts = append(r.Restarts, time.Duration(op.Time-at))
				delete(killed, op.Node)
			}
		case Invoke:
			r.Ops++
		case Ok:
			r.Ok++
		case Fail:
			r.Fail++
		case Unknown:
			r.Unkn++
		}
	}
	r.Unkn += r.Ops - r.Ok - r.Fail - r.Unkn // still in flight at the end
	pairs, err := Pairs(ops)
	if err != nil {
		return err
	}
	for _, k := range kills {
		first := int64(-1)
		for _, p := range pairs {
			if p.Invoke.Time > k && p.Complete.Type == Ok && (p.Invoke.Kind == Write || p.Invoke.Kind == Add) &&
				(first < 0 || p.Complete.Time < first) {
				first = p.Complete.Time
			}
		}
		if first >= 0 {
			r.Failovers = append(r.Failovers, time.Duration(first-k))
		}
	}
	return nil
}

// execOn runs one statement on addr, retrying while the node comes up.
func execOn(ctx context.Context, addr, stmt string, within time.Duration) error {
	return retry(ctx, within, func(ctx context.Context) error {
		db, err := openDB(addr, 5*time.Second)
		if err != nil {
			return err
		}
		defer func() { _ = db.Close() }()
		_, err = db.ExecContext(ctx, stmt)
		return err
	})
}

// finalRead reads the set's ids on one node once the faults are over,
// retrying while it recovers. With the cluster's read option
// (linearizable), the node first applies every write acknowledged
// anywhere, so a write acknowledged by another node at the very end is not
// taken for lost.
func finalRead(ctx context.Context, addr, table, option string) ([]int64, error) {
	var ids []int64
	err := retry(ctx, 60*time.Second, func(ctx context.Context) error {
		var err error
		ids, err = readSet(ctx, addr, table, option, 10*time.Second)
		if errors.Is(err, errNoTable) {
			return retryStop{err}
		}
		return err
	})
	if rs, ok := err.(retryStop); ok {
		return nil, rs.err
	}
	return ids, err
}

// retryStop wraps an error retry does not retry.
type retryStop struct{ err error }

func (r retryStop) Error() string { return r.err.Error() }

// retry calls f until it succeeds, returns a retryStop, or within has
// passed.
func retry(ctx context.Context, within time.Duration, f func(context.Context) error) error {
	deadline := time.Now().Add(within)
	for {
		err := f(ctx)
		if _, stop := err.(retryStop); err == nil || stop || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		if !sleep(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// saveArtifacts writes a failed run's history (history.jsonl), porcupine's
// view of the register (register.html) and each node's output into
// out/seed-<seed>.
func saveArtifacts(out string, c *Cluster, ops []Op, res *Result) (string, error) {
	dir := filepath.Join(out, fmt.Sprintf("seed-%d", res.Seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return "", err
	}
	if err := WriteJSONL(f, ops); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if res.Register != nil {
		h, err := os.Create(filepath.Join(dir, "register.html"))
		if err != nil {
			return "", err
		}
		if err := res.Register.Visualize(h); err != nil {
			h.Close()
			return "", err
		}
		if err := h.Close(); err != nil {
			return "", err
		}
	}
	var report strings.Builder
	for _, v := range res.Violations {
		report.WriteString(v + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "violations.txt"), []byte(report.String()), 0o644); err != nil {
		return "", err
	}
	for _, n := range c.Nodes {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("node%d.log", n.ID)), []byte(n.Output()), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
