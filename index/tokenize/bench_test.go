package tokenize

import (
	"path/filepath"
	"testing"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
)

// BenchmarkSettings measures the general path (the default path is
// BenchmarkTokenize).
func BenchmarkSettings(b *testing.B) {
	text := englishText(12 << 10)
	cases := []struct {
		name     string
		settings []string
	}{
		{"charset_table", []string{"charset_table=0..9, A..Z->a..z, _, a..z, U+410..U+42F->U+430..U+44F, U+430..U+44F"}},
		{"stopwords", []string{"stopwords=the of and"}},
		{"stem_en", []string{"morphology=stem_en"}},
		{"stem_en_exact", []string{"morphology=stem_en", "index_exact_words=1"}},
		{"blend_sp_forms", []string{"blend_chars=-", "index_sp=1", "wordforms=/forms.txt", "exceptions=/exc.txt", "phrase_boundary=.", "phrase_boundary_step=10"}},
	}
	for _, c := range cases {
		tok := newTok(b, c.settings...)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var it Iter
			for b.Loop() {
				it.Reset(tok, text)
				for it.Next() {
				}
			}
		})
	}
}

// BenchmarkNew measures what a table costs at server start.
func BenchmarkNew(b *testing.B) {
	c, err := ParseSettings(settings("charset_table=non_cjk, U+5F", "blend_chars=-", "morphology=stem_en", "stopwords=/stop.txt", "ngram_len=1", "ngram_chars=cjk"), readTestFile)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(c); err != nil {
			b.Fatal(err)
		}
	}
}

// brownDocs are the first Brown documents of the cached benchmark corpus
// (go run ./bench/cmd/corpus), and their size: real prose, whose word
// lengths a branch predictor cannot learn the way it learns a repeated
// text.
func brownDocs(b *testing.B) ([]string, int) {
	docs, err := benchcorpus.ReadFile(filepath.Join("..", "..", "bench", "cache", "corpora", "brown.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	var texts []string
	size := 0
	for _, d := range docs[:min(20, len(docs))] {
		texts = append(texts, d.Content)
		size += len(d.Content)
	}
	return texts, size
}

// BenchmarkTokenizeBrown tokenizes Brown prose.
func BenchmarkTokenizeBrown(b *testing.B) {
	texts, size := brownDocs(b)
	tok := Default()
	b.SetBytes(int64(size))
	var it Iter
	for b.Loop() {
		for _, text := range texts {
			it.Reset(tok, text)
			for it.Next() {
			}
		}
	}
}

// BenchmarkLayoutBrown lays out Brown prose and looks at the terms a query
// of a few words may want, as the highlighter's text matching does.
func BenchmarkLayoutBrown(b *testing.B) {
	texts, size := brownDocs(b)
	tok := Default()
	var f Filter
	for _, term := range []string{"jury", "election", "the", "city"} {
		f.Add(term)
	}
	b.SetBytes(int64(size))
	var it Iter
	var l Layout
	for b.Loop() {
		for _, text := range texts {
			l.Reset(len(text))
			it.Reset(tok, text)
			for it.NextCandidate(&l, &f) {
			}
		}
	}
}

// BenchmarkLayoutDecode reads back the stored layouts of Brown prose, as
// the highlighter does for every stored field it highlights.
func BenchmarkLayoutDecode(b *testing.B) {
	texts, size := brownDocs(b)
	tok := Default()
	var encoded [][]byte
	for _, text := range texts {
		var it Iter
		var l Layout
		l.Reset(len(text))
		it.Reset(tok, text)
		for it.NextCandidate(&l, &Filter{all: true}) {
		}
		encoded = append(encoded, l.AppendEncoded(nil))
	}
	b.SetBytes(int64(size))
	var l Layout
	for b.Loop() {
		for i, enc := range encoded {
			if err := l.Decode(enc, len(texts[i])); err != nil {
				b.Fatal(err)
			}
		}
	}
}
