package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPoolQuery is one phase-one call of a distributed search to an
// in-process agent: a search of 20 rows with SHOW WARNINGS and SHOW META,
// in one text, over a kept connection, with a deadline of its own.
func BenchmarkPoolQuery(b *testing.B) {
	ln, _ := startAgent(b, "")
	addr := ln.Addr().String()
	p := New(Options{})
	defer p.Close()
	ctx := context.Background()
	var vals []string
	for id := 1; id <= 200; id++ {
		vals = append(vals, fmt.Sprintf("(%d, 'red fox %d')", id, id%7))
	}
	for _, st := range []string{"CREATE TABLE t (title text)", "INSERT INTO t (id, title) VALUES " + strings.Join(vals, ",")} {
		if _, err := p.Query(ctx, addr, time.Second, st); err != nil {
			b.Fatal(err)
		}
	}
	stmts := []string{"SELECT id, WEIGHT() FROM t WHERE MATCH('red') ORDER BY WEIGHT() DESC LIMIT 0, 20 OPTION max_matches=20", "SHOW WARNINGS", "SHOW META"}
	b.ReportAllocs()
	for b.Loop() {
		// Each call has its own deadline, as the SQL layer's calls do.
		callCtx, cancel := context.WithTimeout(ctx, time.Second)
		res, err := p.Query(callCtx, addr, time.Second, stmts...)
		cancel()
		if err != nil || len(res[0].Rows) != 20 {
			b.Fatal(err, res)
		}
	}
}
