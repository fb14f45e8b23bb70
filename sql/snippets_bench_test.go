package sql

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index"
)

// BenchmarkCallSnippets is the race's snippets workload without the
// protocol: CALL SNIPPETS over the next 10 Brown documents with the next
// query of the set, limit 256 and 0. It needs the cached benchmark corpus
// (go run ./bench/cmd/corpus).
func BenchmarkCallSnippets(b *testing.B) { benchCallSnippets(b, "brown", "") }

// BenchmarkCallSnippetsStemmed is BenchmarkCallSnippets on a table that
// stems English words (morphology='stem_en'): every word of the texts is
// stemmed to be matched, which the unstemmed workload does not pay.
func BenchmarkCallSnippetsStemmed(b *testing.B) {
	benchCallSnippets(b, "brown", "morphology='stem_en'")
}

// BenchmarkCallSnippetsDebian is the snippets workload on Debian's package
// descriptions (short texts, most of which the query does not match),
// plain and stemmed.
func BenchmarkCallSnippetsDebian(b *testing.B) {
	for _, tc := range []struct{ name, settings string }{{"plain", ""}, {"stem_en", "morphology='stem_en'"}} {
		b.Run(tc.name, func(b *testing.B) { benchCallSnippets(b, "debian", tc.settings) })
	}
}

// cachedCorpus reads a corpus of the benchmark's cache and its queries
// (go run ./bench/cmd/corpus), or skips the benchmark without them.
func cachedCorpus(b *testing.B, name string) ([]benchcorpus.Doc, []benchcorpus.Query) {
	docs, queries, err := benchcorpus.ReadCached(filepath.Join("..", "bench", "cache"), benchcorpus.Name(name))
	if errors.Is(err, fs.ErrNotExist) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return docs, queries
}

// benchCallSnippets runs the snippets workload on a corpus of the cache,
// with a table of the given settings.
func benchCallSnippets(b *testing.B, corpus, settings string) {
	docs, queries := cachedCorpus(b, corpus)
	db, _ := index.Open(index.DefaultOptions("").WithInMemory(true))
	defer db.Close()
	s := NewEngine(db).NewSession("root")
	if _, err := s.Exec(context.Background(), "CREATE TABLE t (title text, content text) "+settings); err != nil {
		b.Fatal(err)
	}
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

// BenchmarkHighlightText highlights one text of 1 KB to 1 MB (Brown prose)
// the way CALL SNIPPETS and HIGHLIGHT() do, from the text to the snippet:
// tokenizing, matching and choosing, default options.
func BenchmarkHighlightText(b *testing.B) {
	docs, err := benchcorpus.ReadFile(filepath.Join("..", "bench", "cache", "corpora", "brown.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	var all strings.Builder
	for _, d := range docs {
		if all.Len() > 1<<20 {
			break
		}
		all.WriteString(d.Content + "\n")
	}
	db, _ := index.Open(index.DefaultOptions("").WithInMemory(true))
	defer db.Close()
	s := NewEngine(db).NewSession("root")
	s.Exec(context.Background(), "CREATE TABLE t (content text)")
	tb, _ := db.Table("t")
	snap := tb.Snapshot()
	q, err := snap.ParseQuery("jury | election | \"the city\"")
	if err != nil {
		b.Fatal(err)
	}
	matcher, err := snap.TextMatcher(q, true)
	if err != nil {
		b.Fatal(err)
	}
	table := tableForHighlight(snap.Schema().Tokenization).withTokenizer(snap.Tokenizer())
	opts := highlight.DefaultOptions()
	weights := matcher.KeywordWeights()
	for _, size := range []int{1 << 10, 10 << 10, 100 << 10, 1 << 20} {
		text := all.String()[:size]
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				m, err := matcher.Match(nil, []string{text})
				if err != nil {
					b.Fatal(err)
				}
				f := table.field("", text, m.Fields[0], false)
				highlight.Highlight(&highlight.Request{Fields: []highlight.Field{f}, Weights: weights, Options: &opts}).Join()
				m.Release()
			}
		})
	}
}

// BenchmarkCallSnippetsLadder is the race's ladder step of 1 KB without the
// protocol: CALL SNIPPETS of the ladder's smallest document with the next
// query of the ladder's set, limit 256, on a plain table and on one that
// stems English words. It needs the cached benchmark corpus (go run
// ./bench/cmd/corpus).
func BenchmarkCallSnippetsLadder(b *testing.B) {
	docs, queries := cachedCorpus(b, "ladder")
	quote := func(s string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	text := docs[0].Content
	for _, d := range docs {
		if len(d.Content) < len(text) {
			text = d.Content
		}
	}
	var stmts []string
	for _, q := range queries {
		stmts = append(stmts, fmt.Sprintf("CALL SNIPPETS((%s), 't', %s, 256 AS limit, 1 AS query_mode)", quote(text), quote(q.Text)))
	}
	for _, tc := range []struct{ name, settings string }{{"plain", ""}, {"stem_en", "morphology='stem_en'"}} {
		b.Run(tc.name, func(b *testing.B) {
			db, _ := index.Open(index.DefaultOptions("").WithInMemory(true))
			defer db.Close()
			s := NewEngine(db).NewSession("root")
			if _, err := s.Exec(context.Background(), "CREATE TABLE t (title text, content text) "+tc.settings); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
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
