package index

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
)

// BenchmarkSearchCorpus searches the benchmark corpora (prepared by
// `go run ./bench/cmd/corpus`; skipped when they are not cached) with their
// query sets, one sub-benchmark per query shape: the in-process part of the
// race's search workload, without the protocol.
func BenchmarkSearchCorpus(b *testing.B) {
	for _, name := range []benchcorpus.Name{benchcorpus.Brown, benchcorpus.Debian} {
		b.Run(string(name), func(b *testing.B) {
			docs, queries, err := benchcorpus.ReadCached(filepath.Join("..", "bench", "cache"), name)
			if errors.Is(err, fs.ErrNotExist) {
				b.Skipf("corpus %s not prepared: %v", name, err)
			}
			if err != nil {
				b.Fatal(err)
			}
			db := openMem(b)
			tb := newTableT(b, db, Schema{Name: "t", Columns: []Column{
				{Name: "title", Type: TypeText, Indexed: true}, {Name: "content", Type: TypeText, Indexed: true}}})
			for lo := 0; lo < len(docs); lo += 1000 {
				var batch []Document
				for _, d := range docs[lo:min(lo+1000, len(docs))] {
					batch = append(batch, Document{ID: uint64(d.ID), Values: []Value{d.Title, d.Content}})
				}
				insert(b, tb, batch...)
			}
			for db.MergesPending() > 0 { // search the table as its merges leave it
				time.Sleep(time.Millisecond)
			}
			s := tb.Snapshot()
			b.Logf("%d segments", len(s.segs))
			shapes := map[string][]string{}
			var order []string
			for _, q := range queries {
				if _, ok := shapes[q.Shape]; !ok {
					order = append(order, q.Shape)
				}
				shapes[q.Shape] = append(shapes[q.Shape], q.Text)
			}
			for _, shape := range order {
				b.Run(shape, func(b *testing.B) {
					i := 0
					for b.Loop() {
						text := shapes[shape][i%len(shapes[shape])]
						i++
						q, err := s.ParseQuery(text)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := s.SearchWith(ctx, q, SearchOptions{}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
