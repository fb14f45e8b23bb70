package sql

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/zipftext"
)

// benchRemote serves agents from in-process engines as glintd's MySQL
// listener does: one session per agent (a pooled connection), and a
// call's statements run as one multi-statement text.
type benchRemote struct {
	mu       sync.Mutex
	sessions map[string]*Session
}

func (r *benchRemote) Query(ctx context.Context, addr string, _ time.Duration, stmts ...string) ([]*Result, error) {
	r.mu.Lock()
	s := r.sessions[addr]
	r.mu.Unlock()
	return s.Exec(ctx, strings.Join(stmts, ";\n"))
}

// BenchmarkDistributedSQL is BenchmarkDistributedHighlight (e2e) without
// the protocol: a page of 20 highlighted rows of 10,000 documents of
// 2,000 Zipf-distributed words, from one local table (local) and from a
// distributed table of four in-process agents holding a quarter each
// (agents4), in one process. It counts what a query costs the
// coordinator's and the agents' SQL layers together (allocs/op, and
// cpu-ms/op, the process's CPU time per query, which a shared machine
// disturbs less than ns/op), without the wire and five processes'
// scheduling. With -short, the tables hold 1,000 documents.
func BenchmarkDistributedSQL(b *testing.B) {
	text := zipftext.Words(1158)
	ctx := context.Background()
	create := func(e *Engine, name string) *index.Table {
		if _, err := e.NewSession("root").Exec(ctx, "CREATE TABLE "+name+" (title text, body text)"); err != nil {
			b.Fatal(err)
		}
		t, err := e.db.Table(name)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	newEngine := func() *Engine {
		db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = db.Close() })
		return NewEngine(db)
	}
	coord := newEngine()
	remote := &benchRemote{sessions: map[string]*Session{}}
	coord.SetRemote(remote)
	local := create(coord, "local")
	var parts []*index.Table
	var engines []*Engine
	agents := "CREATE TABLE agents4 type='distributed'"
	for k := range 4 {
		e := newEngine()
		addr := fmt.Sprintf("agent%d:9306", k)
		engines = append(engines, e)
		remote.sessions[addr] = e.NewSession("root")
		parts = append(parts, create(e, "quarter"))
		agents += " agent='" + addr + ":quarter'"
	}
	docs, words, batch := 10000, 2000, 100
	if testing.Short() {
		// Small enough for valgrind (scripts/instructions.sh) to fill in
		// a minute: the fixed costs of a query are the same.
		docs = 1000
	}
	for start := 1; start <= docs; start += batch {
		var all []index.Document
		split := make([][]index.Document, 4)
		for id := start; id < start+batch; id++ {
			d := index.Document{ID: uint64(id), Values: []index.Value{text(8), text(words)}}
			all = append(all, d)
			split[id%4] = append(split[id%4], d)
		}
		write := func(t *index.Table, batch []index.Document) {
			err := t.Write(ctx, func(w *index.Writer) error {
				_, err := w.Insert(batch)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		write(local, all)
		for k, t := range parts {
			write(t, split[k])
		}
	}
	for _, e := range append([]*Engine{coord}, engines...) {
		for e.db.MergesPending() > 0 { // search the tables as their merges leave them
			time.Sleep(time.Millisecond)
		}
	}
	s := coord.NewSession("root")
	if _, err := s.Exec(ctx, agents); err != nil {
		b.Fatal(err)
	}
	queries := []string{"w60", "w2500", "w300 | w700 | w1100", "w90 w140", "w33", "w5000"}
	for _, table := range []string{"local", "agents4"} {
		b.Run(table, func(b *testing.B) {
			q := "SELECT id, HIGHLIGHT() FROM " + table + " WHERE MATCH('%s') LIMIT 20"
			i := 0
			b.ReportAllocs()
			before := processCPU(b)
			for b.Loop() {
				r, err := s.Exec(ctx, fmt.Sprintf(q, queries[i%len(queries)]))
				i++
				if err != nil {
					b.Fatal(err)
				}
				if len(r[0].Rows) != 20 {
					b.Fatalf("%d rows", len(r[0].Rows))
				}
			}
			b.ReportMetric(float64((processCPU(b)-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
