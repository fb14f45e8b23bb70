package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkDistributedHighlight measures a page of 20 highlighted rows from
// 10,000 documents: from one local table, through a distributed table that
// wraps one agent holding them (the family's issue 1158), and through a
// distributed table over four shards (one local, three agents), each on its
// own glintd on loopback.
//
//	go test ./e2e -run '^$' -bench DistributedHighlight -benchtime 300x
func BenchmarkDistributedHighlight(b *testing.B) {
	servers := []*Server{StartServer(b)}
	for i := 2; i <= 4; i++ {
		servers = append(servers, StartServer(b, onHost(fmt.Sprintf("127.0.0.%d", i))))
	}
	rng := rand.New(rand.NewPCG(1158, 1))
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[int(rng.ExpFloat64()*40)%len(vocab)]
		}
		return strings.Join(w, " ")
	}
	const schema = "(title text, body text)"
	coord := servers[0].DB(b)
	MustExec(b, coord, "CREATE TABLE local "+schema)
	MustExec(b, servers[1].DB(b), "CREATE TABLE whole "+schema)
	for k := range 4 {
		MustExec(b, servers[k].DB(b), fmt.Sprintf("CREATE TABLE part%d %s", k, schema))
	}
	const docs, batch = 10000, 500
	for start := 1; start <= docs; start += batch {
		var vals []string
		parts := make([][]string, 4)
		for id := start; id < start+batch; id++ {
			v := fmt.Sprintf("(%d, '%s', '%s')", id, text(6), text(80))
			vals = append(vals, v)
			parts[id%4] = append(parts[id%4], v)
		}
		MustExec(b, coord, "INSERT INTO local (id, title, body) VALUES "+strings.Join(vals, ","))
		MustExec(b, servers[1].DB(b), "INSERT INTO whole (id, title, body) VALUES "+strings.Join(vals, ","))
		for k := range 4 {
			MustExec(b, servers[k].DB(b), fmt.Sprintf("INSERT INTO part%d (id, title, body) VALUES %s", k, strings.Join(parts[k], ",")))
		}
	}
	MustExec(b, coord, "CREATE TABLE wrap type='distributed' agent='"+servers[1].MySQLAddr+":whole'")
	ddl := "CREATE TABLE four type='distributed' local='part0'"
	for k := 1; k < 4; k++ {
		ddl += " agent='" + servers[k].MySQLAddr + fmt.Sprintf(":part%d'", k)
	}
	MustExec(b, coord, ddl)
	conn, err := coord.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	for _, table := range []string{"local", "wrap", "four"} {
		b.Run(table, func(b *testing.B) {
			q := "SELECT id, HIGHLIGHT() FROM " + table + " WHERE MATCH('w1 w2') LIMIT 20"
			MustQuery(b, conn, q)
			b.ResetTimer()
			for range b.N {
				if r := MustQuery(b, conn, q); len(r.Values) != 20 {
					b.Fatalf("%d rows", len(r.Values))
				}
			}
		})
	}
}
