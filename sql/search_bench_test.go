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

// BenchmarkSearchSQL runs the race's search statement over the cached
// benchmark corpora (go run ./bench/cmd/corpus), without the protocol.
func BenchmarkSearchSQL(b *testing.B) {
	for _, name := range []string{"brown", "debian"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join("..", "bench", "cache", "corpora")
			docs, err := benchcorpus.ReadFile(filepath.Join(dir, name+".jsonl"))
			if err != nil {
				b.Skip(err)
			}
			raw, err := os.ReadFile(filepath.Join(dir, name+".queries.json"))
			if err != nil {
				b.Skip(err)
			}
			var queries []benchcorpus.Query
			if err := json.Unmarshal(raw, &queries); err != nil {
				b.Fatal(err)
			}
			db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := NewEngine(db).NewSession("root")
			ctx := context.Background()
			if _, err := s.Exec(ctx, "CREATE TABLE t (title text, content text)"); err != nil {
				b.Fatal(err)
			}
			tb, _ := db.Table("t")
			for lo := 0; lo < len(docs); lo += 1000 {
				err := tb.Write(ctx, func(w *index.Writer) error {
					var batch []index.Document
					for _, d := range docs[lo:min(lo+1000, len(docs))] {
						batch = append(batch, index.Document{ID: uint64(d.ID), Values: []index.Value{d.Title, d.Content}})
					}
					_, err := w.Insert(batch)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)].Text
				i++
				stmt := fmt.Sprintf("SELECT id FROM t WHERE MATCH('%s') LIMIT 20", strings.ReplaceAll(q, "'", "\\'"))
				if _, err := s.Exec(ctx, stmt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
