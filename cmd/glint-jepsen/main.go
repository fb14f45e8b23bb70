// Command glint-jepsen runs seeded Jepsen-style runs against glintd and prints
// a summary: operations by outcome, acknowledged writes lost, linearizability
// violations, and the failover time from each kill -9 to the next
// acknowledged write. It exits 1 when any run found a violation, and 2 when
// the harness itself failed. It is `make jepsen`:
//
//	go run ./cmd/glint-jepsen -glintd bin/glintd -runs 5 -duration 60s -nemeses kill,stop
//
// Run i uses seed -seed + i, so a failed run is repeated with -runs 1 and its
// seed. -parallel N does N runs at once (a long campaign on a machine with
// cores to spare; each run has its own nodes, on loopback addresses of its
// own, and the load lengthens failovers). A failed run's history (JSON lines), porcupine's HTML view of the
// register and the nodes' output are left in -out/seed-N. -check checks such
// a saved history again (after a change to a checker, say) and writes
// porcupine's HTML beside it:
//
//	go run ./cmd/glint-jepsen -check jepsen-results/seed-7/history.jsonl
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/glint-search/glint/internal/jepsen"
)

type options struct {
	glintd, nemeses, workloads, out, glintdArgs string
	check, registerTable, setTable, createTable string
	runs, parallel, clients, nodes              int
	seed                                        int64
	duration, opTimeout                         time.Duration
	scale                                       float64
	clientProxies                               bool
}

func main() {
	var o options
	flag.StringVar(&o.glintd, "glintd", "bin/glintd", "the glintd binary")
	flag.StringVar(&o.glintdArgs, "glintd-args", "", "extra glintd flags, space-separated (e.g. --sync-writes)")
	flag.IntVar(&o.runs, "runs", 1, "seeded runs")
	flag.IntVar(&o.parallel, "parallel", 1, "runs at once (each its own nodes on free ports; the machine's load lengthens failovers)")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "length of each run")
	flag.StringVar(&o.nemeses, "nemeses", "kill,stop", "comma-separated: "+strings.Join(jepsen.AllNemeses, ", ")+"; none for no faults")
	flag.StringVar(&o.workloads, "workloads", "register,set", "comma-separated: register, set")
	flag.Int64Var(&o.seed, "seed", 1, "the first run's seed; run i uses seed+i")
	flag.IntVar(&o.clients, "clients", 4, "clients per workload")
	flag.IntVar(&o.nodes, "nodes", 1, "glintd nodes (on 127.1.0.1, .2, ...; -parallel slot k on 127.k.0.x): more than one makes them a replication cluster")
	flag.Float64Var(&o.scale, "scale", 1, "multiplies the faults' durations (SIGSTOP 5-15 s at 1)")
	flag.DurationVar(&o.opTimeout, "op-timeout", time.Second, "a statement's limit; past it the operation is unknown")
	flag.BoolVar(&o.clientProxies, "client-proxies", false, "put a fault proxy between clients and nodes (needed by partition and cut on one node)")
	flag.StringVar(&o.out, "out", "jepsen-results", "where failed runs leave their history, HTML and logs")
	flag.StringVar(&o.registerTable, "register-table", "jepsen_register", "the register workload's table (a cluster's: c:t)")
	flag.StringVar(&o.setTable, "set-table", "jepsen_set", "the set workload's table")
	flag.StringVar(&o.createTable, "create-table", jepsen.DefaultCreateTable, "the statement that makes each table (%s is its name); empty: the tables exist")
	flag.StringVar(&o.check, "check", "", "check this saved history.jsonl again instead of running (writes register.html beside it)")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(2, fmt.Errorf("unexpected arguments %q", flag.Args()))
	}
	if o.check != "" {
		ok, err := recheck(o.check)
		if err != nil {
			fail(2, err)
		}
		if !ok {
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := run(ctx, o)
	if err != nil {
		fail(2, err)
	}
	if !sum.OK() {
		os.Exit(1)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "glint-jepsen:", err)
	os.Exit(code)
}

func run(ctx context.Context, o options) (jepsen.Summary, error) {
	nemeses, err := jepsen.ParseNemeses(o.nemeses)
	if err != nil {
		return jepsen.Summary{}, err
	}
	var workloads []string
	for w := range strings.SplitSeq(o.workloads, ",") {
		workloads = append(workloads, strings.TrimSpace(w))
	}
	switch {
	case o.runs < 1:
		return jepsen.Summary{}, fmt.Errorf("-runs %d: at least 1", o.runs)
	case o.parallel < 1:
		return jepsen.Summary{}, fmt.Errorf("-parallel %d: at least 1", o.parallel)
	case o.scale <= 0:
		return jepsen.Summary{}, fmt.Errorf("-scale %v: must be positive", o.scale)
	case o.createTable != "" && strings.Count(o.createTable, "%s") != 1:
		return jepsen.Summary{}, fmt.Errorf("-create-table %q: needs one %%s for the table's name", o.createTable)
	}
	if _, err := os.Stat(o.glintd); err != nil {
		return jepsen.Summary{}, fmt.Errorf("-glintd: %w (make build makes bin/glintd)", err)
	}
	// Runs go -parallel at a time, in seed order; the first harness error
	// stops the others (each cleans up its nodes) and is the answer.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*jepsen.Result, o.runs)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		next     int
	)
	for slot := range min(o.parallel, o.runs) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stopped := firstErr != nil || ctx.Err() != nil
				mu.Unlock()
				if i >= o.runs || stopped {
					return
				}
				res, line, err := runOne(ctx, o, workloads, nemeses, i, slot)
				mu.Lock()
				if err != nil && firstErr == nil && ctx.Err() == nil {
					firstErr = err
					cancel()
				}
				if err == nil {
					results[i] = res
					fmt.Print(line)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return jepsen.Summary{}, firstErr
	}
	results = slices.DeleteFunc(results, func(r *jepsen.Result) bool { return r == nil })
	sum := jepsen.Summarize(results)
	fmt.Println()
	return sum, sum.Write(os.Stdout)
}

// runOne does run i (seed o.seed+i) in a data directory of its own, its
// nodes on the loopback addresses of slot (one per run going at once), and
// returns its result and the line that tells it.
func runOne(ctx context.Context, o options, workloads []string, nemeses []string, i, slot int) (*jepsen.Result, string, error) {
	dir, err := os.MkdirTemp("", "glint-jepsen-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	cfg := jepsen.Config{
		Cluster: jepsen.ClusterConfig{Glintd: o.glintd, Nodes: o.nodes, DataDir: dir,
			Args: strings.Fields(o.glintdArgs), ClientProxies: o.clientProxies},
		Workloads: workloads, Clients: o.clients, Duration: o.duration, Nemeses: nemeses,
		Seed: o.seed + int64(i), Scale: o.scale, OpTimeout: o.opTimeout,
		RegisterTable: o.registerTable, SetTable: o.setTable, CreateTable: o.createTable, Out: o.out,
	}
	cfg.Cluster.Hosts = loopbackHosts(slot, o.nodes)
	if o.nodes > 1 {
		jepsen.Replicated(&cfg, "jepsen")
	}
	start := time.Now()
	res, err := jepsen.Run(ctx, cfg)
	if err != nil {
		return nil, "", fmt.Errorf("run %d (seed %d): %w", i+1, cfg.Seed, err)
	}
	verdict := "ok"
	if len(res.Violations) > 0 {
		verdict = "VIOLATION: " + strings.Join(res.Violations, "; ")
	}
	var failovers string
	for _, d := range res.Failovers {
		// (Each run's, so that a slow one can be set beside what else ran then.)
		failovers += " " + d.Round(time.Millisecond).String()
	}
	if failovers != "" {
		failovers = ", failovers" + failovers
	}
	line := fmt.Sprintf("run %d/%d seed %d: %d ops (%d ok, %d fail, %d unknown), faults %v%s, %v: %s\n", i+1, o.runs, cfg.Seed,
		res.Ops, res.Ok, res.Fail, res.Unkn, res.Faults, failovers, time.Since(start).Round(time.Millisecond), verdict)
	return res, line, nil
}

// recheck checks a saved history again, prints the verdict and writes
// porcupine's view of the register beside it.
func recheck(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	ops, err := jepsen.ReadJSONL(f)
	f.Close()
	if err != nil {
		return false, err
	}
	res, err := jepsen.Check(ops, 10*time.Minute)
	if err != nil {
		return false, err
	}
	if res.Register != nil {
		html := filepath.Join(filepath.Dir(path), "register.html")
		h, err := os.Create(html)
		if err != nil {
			return false, err
		}
		if err := res.Register.Visualize(h); err != nil {
			h.Close()
			return false, err
		}
		if err := h.Close(); err != nil {
			return false, err
		}
		fmt.Printf("register: %d reads, %d writes (%d unknown) on %d keys, linearizable: %v; %s\n",
			res.Register.Reads, res.Register.Writes, res.Register.UnknownWrites, res.Register.Keys, res.Register.Linearizable, html)
	}
	for _, s := range res.Sets {
		fmt.Println("set:", s.String())
	}
	for _, v := range res.Violations {
		fmt.Println("VIOLATION:", v)
	}
	return len(res.Violations) == 0, nil
}

// loopbackHosts gives the n nodes of the runs of slot an address each:
// 127.<slot+1>.0.1, 127.<slot+1>.0.2, ... Never 127.0.0.1: the source
// address of every connection over loopback, whose ephemeral ports could
// take a node's fixed port while it is down after a kill (it then cannot
// start again); and never another slot's, so that runs going at once
// cannot take each other's.
func loopbackHosts(slot, n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("127.%d.0.%d", slot+1, i+1)
	}
	return hosts
}
