package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index"
)

// benchCorpus loads a cached benchmark corpus (go run ./bench/cmd/corpus)
// into table t of an in-memory engine, or skips. The table has the given
// morphology ("" for none).
func benchCorpus(b *testing.B, name, morphology string) (*Session, []benchcorpus.Query) {
	docs, queries := cachedCorpus(b, name)
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s := NewEngine(db).NewSession("root")
	ctx := context.Background()
	ddl := "CREATE TABLE t (title text, content text, gid int)"
	if morphology != "" {
		ddl += " morphology='" + morphology + "'"
	}
	if _, err := s.Exec(ctx, ddl); err != nil {
		b.Fatal(err)
	}
	tb, _ := db.Table("t")
	for lo := 0; lo < len(docs); lo += 1000 {
		err := tb.Write(ctx, func(w *index.Writer) error {
			var batch []index.Document
			for _, d := range docs[lo:min(lo+1000, len(docs))] {
				batch = append(batch, index.Document{ID: uint64(d.ID), Values: []index.Value{d.Title, d.Content, int64(d.ID % 10)}})
			}
			_, err := w.Insert(batch)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for db.MergesPending() > 0 { // search the table as its merges leave it
		time.Sleep(time.Millisecond)
	}
	return s, queries
}

// BenchmarkSearchSQL runs the race's search statements over the cached
// benchmark corpora, without the protocol: the search alone, with
// HIGHLIGHT(), the same through a search request (POST /search's plan,
// without HTTP), the groupby and facet workloads' statements (gid is
// id % 10, as the race loads it), and the search on a table with
// morphology='stem_en'.
func BenchmarkSearchSQL(b *testing.B) {
	for _, name := range []string{"brown", "debian"} {
		for _, kind := range []string{"search", "highlight", "request-highlight", "groupby", "facet", "search-stem_en"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				morphology := ""
				if kind == "search-stem_en" {
					morphology = "stem_en"
				}
				s, queries := benchCorpus(b, name, morphology)
				ctx := context.Background()
				i := 0
				for b.Loop() {
					q := queries[i%len(queries)].Text
					i++
					var err error
					switch kind {
					case "request-highlight":
						_, err = s.Search(ctx, &SearchRequest{Table: "t", Limit: 20, Query: &TextCond{Query: q},
							Source: SourceFilter{None: true}, Highlight: &HighlightRequest{}})
					case "groupby":
						_, err = s.Exec(ctx, fmt.Sprintf("SELECT gid, COUNT(*) FROM t WHERE MATCH('%s') GROUP BY gid ORDER BY COUNT(*) DESC LIMIT 20", strings.ReplaceAll(q, "'", "\\'")))
					case "facet":
						_, err = s.Exec(ctx, fmt.Sprintf("SELECT id FROM t WHERE MATCH('%s') LIMIT 20 FACET gid FACET gid ORDER BY FACET() ASC LIMIT 5", strings.ReplaceAll(q, "'", "\\'")))
					case "highlight":
						_, err = s.Exec(ctx, fmt.Sprintf("SELECT id, HIGHLIGHT() FROM t WHERE MATCH('%s') LIMIT 20", strings.ReplaceAll(q, "'", "\\'")))
					default:
						_, err = s.Exec(ctx, fmt.Sprintf("SELECT id FROM t WHERE MATCH('%s') LIMIT 20", strings.ReplaceAll(q, "'", "\\'")))
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
