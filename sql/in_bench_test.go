package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// inListStatement is SELECT ... WHERE id IN of n ids, every other id from 1
// (so half of them are in a table of ids 1..n).
func inListStatement(n int) string {
	var b strings.Builder
	b.WriteString("SELECT id FROM t WHERE id IN (")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, 1+2*i)
	}
	b.WriteString(")")
	return b.String()
}

// BenchmarkIDIn100k runs SELECT id FROM t WHERE id IN (<100,000 ids>) on a
// table of 100,000 short documents: parsing the list, compiling it and
// evaluating it on every document.
func BenchmarkIDIn100k(b *testing.B) {
	db, err := index.Open(index.DefaultOptions(b.TempDir()))
	require.NoError(b, err)
	defer db.Close()
	s := NewEngine(db).NewSession("root")
	ctx := context.Background()
	_, err = s.Exec(ctx, "CREATE TABLE t (title text, year int)")
	require.NoError(b, err)
	const docs = 100_000
	for first := 1; first <= docs; first += 10_000 {
		var ins strings.Builder
		ins.WriteString("INSERT INTO t (id, title, year) VALUES ")
		for id := first; id < first+10_000; id++ {
			if id > first {
				ins.WriteByte(',')
			}
			fmt.Fprintf(&ins, "(%d, 'word%d common', %d)", id, id%100, id%50)
		}
		_, err = s.Exec(ctx, ins.String())
		require.NoError(b, err)
	}
	stmt := inListStatement(100_000)
	b.SetBytes(int64(len(stmt)))
	b.ResetTimer()
	for b.Loop() {
		res, err := s.Exec(ctx, stmt)
		require.NoError(b, err)
		require.Len(b, res[0].Rows, 20)
	}
}
