package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glint-search/glint/internal/zipftext"
)

// BenchmarkDistributedHighlight measures a page of 20 highlighted rows from
// 10,000 documents of about Brown's size (2,000 words), issue 26's query:
//
//   - local: one local table on the coordinator;
//   - wrap: a distributed table of one agent holding them all (the
//     family's issue 1158);
//   - four: a distributed table of one local quarter and three agents;
//   - agents4: a distributed table of four agents, a quarter each (the
//     race's distributed workload).
//
// Five glintd run on loopback (127.0.0.1 to 127.0.0.5). Besides ns/op (a
// mean) it reports p50-ms, the median latency, and cpu-ms/op, the CPU time
// of the five servers per query (from /proc), which a shared machine
// disturbs less than the latency, and docs-read/op, the documents they
// read from their document stores per query (20 when only the rows shown
// are):
//
//	go test ./e2e -run '^$' -bench DistributedHighlight -benchtime 500x -count 5
//
// GLINT_E2E_GLINTD names a glintd binary to start instead of building this
// tree's, so that an old and a new binary can be run in turn (A B A B ...)
// on a shared machine. GLINT_DIST_PROFILE, when set, is a directory that
// gets CPU profiles of the coordinator and the first agent over the first
// 10 s of each case (local-coordinator.pprof, local-agent.pprof, ...): run
// enough queries to fill them (-benchtime 5000x).
func BenchmarkDistributedHighlight(b *testing.B) {
	profDir := os.Getenv("GLINT_DIST_PROFILE")
	debug := make([]string, 5)
	start := func(i int) *Server {
		ip := fmt.Sprintf("127.0.0.%d", i+1)
		var opts []Option
		if i > 0 {
			opts = append(opts, onHost(ip))
		}
		if profDir != "" && i < 2 {
			debug[i] = freeAddr(b, ip)
			opts = append(opts, WithArgs("--debug-listen", debug[i]))
		}
		return StartServer(b, opts...)
	}
	var servers []*Server
	for i := range 5 {
		servers = append(servers, start(i))
	}
	// Words of a Zipf distribution over 20,000, as a natural text's.
	text := zipftext.Words(1158)
	const schema = "(title text, body text)"
	// One pool per server: a pool per statement would leave hundreds of
	// idle connections open on each server for the whole run.
	dbs := make([]*sql.DB, len(servers))
	for i, s := range servers {
		dbs[i] = s.DB(b)
	}
	coord := dbs[0]
	MustExec(b, coord, "CREATE TABLE local "+schema)
	MustExec(b, coord, "CREATE TABLE part0 "+schema)
	MustExec(b, dbs[1], "CREATE TABLE whole "+schema)
	for k := range 4 {
		MustExec(b, dbs[k+1], "CREATE TABLE quarter "+schema)
	}
	const docs, batch = 10000, 100
	for start := 1; start <= docs; start += batch {
		var vals []string
		parts := make([][]string, 4)
		for id := start; id < start+batch; id++ {
			v := fmt.Sprintf("(%d, '%s', '%s')", id, text(8), text(2000))
			vals = append(vals, v)
			parts[id%4] = append(parts[id%4], v)
		}
		MustExec(b, coord, "INSERT INTO local (id, title, body) VALUES "+strings.Join(vals, ","))
		MustExec(b, coord, "INSERT INTO part0 (id, title, body) VALUES "+strings.Join(parts[0], ","))
		MustExec(b, dbs[1], "INSERT INTO whole (id, title, body) VALUES "+strings.Join(vals, ","))
		for k := range 4 {
			MustExec(b, dbs[k+1], "INSERT INTO quarter (id, title, body) VALUES "+strings.Join(parts[k], ","))
		}
	}
	MustExec(b, coord, "CREATE TABLE wrap type='distributed' agent='"+servers[1].MySQLAddr+":whole'")
	four := "CREATE TABLE four type='distributed' local='part0'"
	agents4 := "CREATE TABLE agents4 type='distributed'"
	for k := 1; k <= 4; k++ {
		if k > 1 {
			four += " agent='" + servers[k].MySQLAddr + ":quarter'"
		}
		agents4 += " agent='" + servers[k].MySQLAddr + ":quarter'"
	}
	MustExec(b, coord, four)
	MustExec(b, coord, agents4)
	conn, err := coord.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	// The documents the five servers read from their document stores (to
	// highlight them): as many as the rows shown, if phase two is right.
	docsRead := func() int {
		total := 0
		for _, db := range dbs {
			r := MustQuery(b, db, "SHOW STATUS LIKE 'stored_docs_read'")
			n, err := strconv.Atoi(r.Values[0][1])
			if err != nil {
				b.Fatal(err)
			}
			total += n
		}
		return total
	}
	cpu := func() time.Duration {
		var total time.Duration
		for _, s := range servers {
			total += processCPU(b, s.Pid())
		}
		return total
	}
	// A frequent word, a rarer one, three words OR'ed, two AND'ed, as the
	// race's query shapes (its phrases would seldom match random words).
	queries := []string{"w60", "w2500", "w300 | w700 | w1100", "w90 w140", "w33", "w5000"}
	for _, table := range []string{"local", "wrap", "four", "agents4"} {
		b.Run(table, func(b *testing.B) {
			q := "SELECT id, HIGHLIGHT() FROM " + table + " WHERE MATCH(?) LIMIT 20"
			for _, m := range queries {
				MustQuery(b, conn, q, m)
			}
			took := make([]time.Duration, 0, b.N)
			var profiles sync.WaitGroup
			if profDir != "" {
				for i, name := range []string{"coordinator", "agent"} {
					file := filepath.Join(profDir, table+"-"+name+".pprof")
					profiles.Go(func() { fetchProfile(b, debug[i], "profile", 10, file) })
				}
			}
			before, beforeDocs := cpu(), docsRead()
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if r := MustQuery(b, conn, q, queries[i%len(queries)]); len(r.Values) != 20 {
					b.Fatalf("%d rows", len(r.Values))
				}
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			spent := cpu() - before
			docs := docsRead() - beforeDocs
			profiles.Wait()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(spent.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(docs)/float64(b.N), "docs-read/op")
		})
	}
}

// processCPU is the user and system CPU time process pid has used
// (/proc/pid/stat, in clock ticks of 10 ms).
func processCPU(tb testing.TB, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(data)
	// The fields after the command (which may hold spaces), from the state:
	// utime and stime are the 14th and 15th fields of the line.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		tb.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
