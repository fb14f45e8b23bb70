package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// benchSession returns a session over a new database on disk that holds the
// table create makes.
func benchSession(b *testing.B, create string) *Session {
	b.Helper()
	db, err := index.Open(index.DefaultOptions(b.TempDir()))
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	s := NewEngine(db).NewSession("root")
	_, err = s.Exec(context.Background(), create)
	require.NoError(b, err)
	return s
}

// insertStatement builds one INSERT of n documents of about 12 KB of English-like text.
func insertStatement(n, firstID int) string {
	words := strings.Fields("the of and to a in that is was he for it with as his on be at by had not are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three")
	var b strings.Builder
	b.WriteString("INSERT INTO t (id, title, content) VALUES ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, 'Document %d', '", firstID+i, i)
		for j := 0; j < 2000; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(i*7+j*13+j*j)%len(words)])
		}
		b.WriteString("')")
	}
	return b.String()
}

// BenchmarkInsertStatement measures a 1,000-document INSERT through the whole
// SQL path (split, bridge, TiDB parser, values, storage) on disk.
func BenchmarkInsertStatement(b *testing.B) {
	s := benchSession(b, "CREATE TABLE t (title text, content text)")
	ctx := context.Background()
	stmts := make([]string, b.N)
	for i := range stmts {
		stmts[i] = insertStatement(1000, 1+i*1000)
	}
	b.SetBytes(int64(len(stmts[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := s.Exec(ctx, stmts[i])
		require.NoError(b, err)
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "docs/s")
}

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
	s := benchSession(b, "CREATE TABLE t (title text, year int)")
	ctx := context.Background()
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
		_, err := s.Exec(ctx, ins.String())
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
