package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index"
)

// BenchmarkCallSnippets is the race's snippets workload without the
// protocol: CALL SNIPPETS over the next 10 Brown documents with the next
// query of the set, limit 256 and 0. It needs the cached benchmark corpus
// (go run ./bench/cmd/corpus).
func BenchmarkCallSnippets(b *testing.B) {
	dir := filepath.Join("..", "bench", "cache", "corpora")
	docs, err := benchcorpus.ReadFile(filepath.Join(dir, "brown.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "brown.queries.json"))
	if err != nil {
		b.Skip(err)
	}
	var queries []benchcorpus.Query
	if err := json.Unmarshal(raw, &queries); err != nil {
		b.Fatal(err)
	}
	db, _ := index.Open(index.DefaultOptions("").WithInMemory(true))
	defer db.Close()
	s := NewEngine(db).NewSession("root")
	s.Exec(context.Background(), "CREATE TABLE t (title text, content text)")
	quote := func(s string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	for _, limit := range []int{256, 0} {
		var stmts []string
		var sizes []int
		for i := range 200 {
			var lits []string
			size := 0
			for _, d := range docs[(i*10)%len(docs):][:10] {
				lits = append(lits, quote(d.Content))
				size += len(d.Content)
			}
			stmts = append(stmts, fmt.Sprintf("CALL SNIPPETS((%s), 't', %s, %d AS limit, 1 AS query_mode)",
				strings.Join(lits, ","), quote(queries[i%len(queries)].Text), limit))
			sizes = append(sizes, size)
		}
		b.Run(fmt.Sprintf("limit%d", limit), func(b *testing.B) {
			total := 0
			for _, n := range sizes {
				total += n
			}
			b.SetBytes(int64(total / len(sizes)))
			i := 0
			for b.Loop() {
				if _, err := s.Exec(context.Background(), stmts[i%len(stmts)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
