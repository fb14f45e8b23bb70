package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql"
)

// BenchmarkHTTPSearch posts the race's json-search+highlight requests to the
// real HTTP handler over loopback, on the cached Debian corpus (go run
// ./bench/cmd/corpus), to weigh the HTTP and JSON cost against
// sql.BenchmarkSearchSQL's request-highlight.
func BenchmarkHTTPSearch(b *testing.B) {
	docs, queries, err := benchcorpus.ReadCached(filepath.Join("..", "bench", "cache"), benchcorpus.Debian)
	if errors.Is(err, fs.ErrNotExist) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	eng := sql.NewEngine(db)
	ctx := context.Background()
	if _, err := eng.NewSession("root").Exec(ctx, "CREATE TABLE t (title text, content text)"); err != nil {
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
	srv := New(SessionFunc(func(user string) Session { return eng.NewSession(user) }),
		Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	bodies := make([][]byte, len(queries))
	for i, q := range queries {
		bodies[i], _ = json.Marshal(map[string]any{"table": "t", "query": map[string]any{"query_string": q.Text},
			"highlight": map[string]any{}, "limit": 20, "_source": false})
	}
	client := hs.Client()
	i := 0
	for b.Loop() {
		resp, err := client.Post(hs.URL+"/search", "application/json", bytes.NewReader(bodies[i%len(bodies)]))
		i++
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
