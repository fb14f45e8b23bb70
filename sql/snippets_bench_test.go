package sql

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index"
)

// BenchmarkCallSnippets highlights 10 Brown documents per statement (the
// race's snippets workload without the protocol); it needs the cached
// benchmark corpus (go run ./bench/cmd/corpus).
func BenchmarkCallSnippets(b *testing.B) {
	docs, err := benchcorpus.ReadFile(filepath.Join("..", "bench", "cache", "corpora", "brown.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	db, _ := index.Open(index.DefaultOptions("").WithInMemory(true))
	defer db.Close()
	s := NewEngine(db).NewSession("root")
	s.Exec(context.Background(), "CREATE TABLE t (title text, content text)")
	var lits []string
	for _, d := range docs[:10] {
		lits = append(lits, "'"+strings.ReplaceAll(strings.ReplaceAll(d.Content, `\`, `\\`), "'", "''")+"'")
	}
	stmt := fmt.Sprintf("CALL SNIPPETS((%s), 't', 'the | election')", strings.Join(lits, ","))
	for b.Loop() {
		if _, err := s.Exec(context.Background(), stmt); err != nil {
			b.Fatal(err)
		}
	}
}
