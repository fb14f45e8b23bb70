package index

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

// corpus generates English-like text: words of a fixed vocabulary drawn with a
// Zipf distribution, capitalized after a full stop, with some punctuation.
type corpus struct {
	vocab []string
	zipf  *rand.Zipf
	rnd   *rand.Rand
}

func newCorpus(seed uint64) *corpus {
	rnd := rand.New(rand.NewPCG(seed, 1))
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	vocab := make([]string, 30000)
	for i := range vocab {
		n := 2 + rnd.IntN(4) + rnd.IntN(5)
		var b strings.Builder
		for j := 0; j < n; j++ {
			// Frequent letters more often, like English.
			b.WriteByte(letters[min(rnd.IntN(26), rnd.IntN(26))])
		}
		vocab[i] = b.String()
	}
	return &corpus{vocab: vocab, zipf: rand.NewZipf(rnd, 1.1, 2, uint64(len(vocab)-1)), rnd: rnd}
}

// text returns about n bytes of text.
func (c *corpus) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	capital := true
	for b.Len() < n {
		w := c.vocab[c.zipf.Uint64()]
		if capital {
			b.WriteString(strings.ToUpper(w[:1]))
			b.WriteString(w[1:])
			capital = false
		} else {
			b.WriteString(w)
		}
		switch r := c.rnd.IntN(20); {
		case r == 0:
			b.WriteString(". ")
			capital = true
		case r == 1:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func benchSchema() Schema {
	return Schema{Name: "bench", Columns: []Column{
		{Name: "title", Type: TypeText, Indexed: true, Stored: true},
		{Name: "content", Type: TypeText, Indexed: true, Stored: true},
		{Name: "price", Type: TypeFloat},
		{Name: "year", Type: TypeUint},
	}}
}

func benchDocs(c *corpus, n, size int) ([]Document, int64) {
	docs := make([]Document, n)
	var bytes int64
	for i := range docs {
		title, content := c.text(40), c.text(size)
		bytes += int64(len(title) + len(content))
		docs[i] = Document{Values: []Value{title, content, float64(i) / 10, int64(2000 + i%25)}}
	}
	return docs, bytes
}

// BenchmarkInsert1000Docs inserts statements of 1,000 ~12 KB documents into
// an on-disk table.
func BenchmarkInsert1000Docs(b *testing.B) {
	b.Run("12KB", func(b *testing.B) { benchInsert(b, 12<<10) })
	b.Run("450B", func(b *testing.B) { benchInsert(b, 450) })
}

func benchInsert(b *testing.B, docSize int) {
	db, err := Open(DefaultOptions(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tb := newTableT(b, db, benchSchema())
	c := newCorpus(1)
	batches := make([][]Document, 4)
	var size int64
	for i := range batches {
		batches[i], size = benchDocs(c, 1000, docSize)
	}
	b.SetBytes(size)
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		docs := batches[i%len(batches)]
		if err := tb.Write(ctx, func(w *Writer) error { _, err := w.Insert(docs); return err }); err != nil {
			b.Fatal(err)
		}
		n += len(docs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkSearch(b *testing.B) {
	db := openMem(b)
	tb := newTableT(b, db, benchSchema())
	c := newCorpus(2)
	for i := 0; i < 10; i++ {
		docs, _ := benchDocs(c, 1000, 2<<10)
		insert(b, tb, docs...)
	}
	s := tb.Snapshot()
	tok := tokenize.Default()
	for _, text := range []string{c.vocab[2], c.vocab[2] + " " + c.vocab[10], c.vocab[300] + " " + c.vocab[5000]} {
		q, _ := query.Parse(text, tok)
		b.Run(strings.ReplaceAll(text, " ", "_"), func(b *testing.B) {
			var found int
			for b.Loop() {
				ms, err := s.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				found = len(ms)
			}
			b.ReportMetric(float64(found), "matches")
		})
	}
}
