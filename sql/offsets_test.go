package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// TestHighlightOffsets: the snippets as data, in SQL, CALL SNIPPETS and a
// JSON search, point into the stored text in bytes and codepoints, HTML
// stripped or not.
func TestHighlightOffsets(t *testing.T) {
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	s := NewEngine(db).NewSession("root")
	exec := func(stmt string) string { return render(s.Exec(context.Background(), stmt)) }
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (title text, body text)"))
	require.Equal(t, "ok 0\n", exec("CREATE TABLE h (body text) html_strip='1'"))
	require.Equal(t, "ok 2\n", exec("INSERT INTO t (id, title, body) VALUES (1, 'Café cats', 'Un café: the black cat and the white dog'), (2, 'none', 'dogs only')"))
	require.Equal(t, "ok 1\n", exec("INSERT INTO h (id, body) VALUES (1, '<p>The   <i>big</i> cat &amp; the dog</p>')"))

	require.Equal(t, "highlight_offsets({}, 'title,body', 'café | cat | cats'):str\n"+
		`[{"field":"title","start":0,"end":10,"start_cp":0,"end_cp":9,"rank":0,"score":0,"considered":0,"keywords":["café","cats"],"marks":[{"start":0,"end":10,"start_cp":0,"end_cp":9,"keywords":["café","cats"]}]},`+
		`{"field":"body","start":0,"end":41,"start_cp":0,"end_cp":40,"rank":0,"score":0,"considered":0,"keywords":["café","cat"],"marks":[{"start":3,"end":8,"start_cp":3,"end_cp":7,"keywords":["café"]},{"start":20,"end":23,"start_cp":19,"end_cp":22,"keywords":["cat"]}]}]`+"\n",
		exec("SELECT HIGHLIGHT_OFFSETS({}, 'title,body', 'café | cat | cats') FROM t WHERE id = 1"))

	// Cut passages: ranks in the order the chooser took them, the score
	// that decided each.
	got := exec("SELECT HIGHLIGHT_OFFSETS({limit=20, around=1}, 'body', 'black cat | white dog') FROM t WHERE id = 1")
	var snips []SnippetData
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(got, "\n", 3)[1]), &snips), got)
	require.Len(t, snips, 2)
	require.Equal(t, []int{1, 2}, []int{min(snips[0].Rank, snips[1].Rank), max(snips[0].Rank, snips[1].Rank)})
	require.Positive(t, snips[0].Score)
	require.Positive(t, snips[0].Considered)

	// HTML stripped: the offsets are the stored text's, markup included.
	stored := "<p>The   <i>big</i> cat &amp; the dog</p>"
	got = exec("SELECT HIGHLIGHT_OFFSETS() FROM h WHERE MATCH('cat | dog')")
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(got, "\n", 3)[1]), &snips), got)
	require.Len(t, snips, 1)
	require.Len(t, snips[0].Marks, 2)
	require.Equal(t, "cat", stored[snips[0].Marks[0].Start:snips[0].Marks[0].End])
	require.Equal(t, "dog", stored[snips[0].Marks[1].Start:snips[0].Marks[1].End])

	// CALL SNIPPETS: a second column.
	require.Equal(t, "snippet:str | offsets:str\n"+
		`a <b>cat</b> | [{"start":0,"end":5,"start_cp":0,"end_cp":5,"rank":0,"score":0,"considered":0,"keywords":["cat"],"marks":[{"start":2,"end":5,"start_cp":2,"end_cp":5,"keywords":["cat"]}]}]`+"\n",
		exec("CALL SNIPPETS('a cat', 't', 'cat', 1 AS offsets)"))

	// JSON: beside the highlight.
	resp, err := s.Search(context.Background(), &SearchRequest{Table: "t", Limit: -1, Query: &TextCond{Query: "cat"},
		Highlight: &HighlightRequest{Options: []OptionValue{{Name: "offsets", Value: true}}}})
	require.NoError(t, err)
	require.Len(t, resp.Hits, 1)
	require.NotEmpty(t, resp.Hits[0].HighlightOffsets)

	require.Contains(t, exec("SELECT HIGHLIGHT({offsets=1}) FROM t WHERE MATCH('cat')"), "HIGHLIGHT_OFFSETS() takes HIGHLIGHT()'s arguments")
	require.Contains(t, exec("SELECT HIGHLIGHT_OFFSETS({}, 'body', 'cat', 4) FROM t WHERE MATCH('cat')"), "error Syntax: HIGHLIGHT_OFFSETS() takes at most 3 arguments")
}

// TestOffsetsProperty: over a corpus and random queries, every marked span
// of HIGHLIGHT_OFFSETS() cut out of the stored text is a word the query
// matches (the span, as a document, matches each keyword the span names),
// and its codepoint offsets count the codepoints before it. The corpus is
// the race's Brown and Debian where they are cached (go run
// ./bench/cmd/corpus), else texts made here.
func TestOffsetsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var docs []benchcorpus.Doc
	for _, name := range []string{"brown", "debian"} {
		if c, err := benchcorpus.ReadFile(filepath.Join("..", "bench", "cache", "corpora", name+".jsonl")); err == nil {
			docs = append(docs, c[:min(len(c), 200)]...)
		}
	}
	if len(docs) == 0 {
		docs = madeCorpus(rng, 300)
	}
	spans := 0
	for _, morph := range []string{"", " morphology='stem_en'"} {
		db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
		require.NoError(t, err)
		s := NewEngine(db).NewSession("root")
		_, err = s.Exec(context.Background(), "CREATE TABLE t (title text, content text)"+morph)
		require.NoError(t, err)
		tab, err := db.Table("t")
		require.NoError(t, err)
		vocab := map[string]bool{}
		require.NoError(t, tab.Write(context.Background(), func(w *index.Writer) error {
			var batch []index.Document
			for i, d := range docs {
				batch = append(batch, index.Document{ID: uint64(i + 1), Values: []index.Value{d.Title, d.Content}})
				for _, word := range strings.Fields(d.Content) {
					if len(vocab) < 5000 && isPlainWord(word) {
						vocab[strings.ToLower(word)] = true
					}
				}
			}
			_, err := w.Insert(batch)
			return err
		}))
		words := make([]string, 0, len(vocab))
		for w := range vocab {
			words = append(words, w)
		}
		slices.Sort(words)
		for range 150 {
			q := randomQuery(rng, words)
			res, err := s.Exec(context.Background(), fmt.Sprintf("SELECT id, HIGHLIGHT_OFFSETS({limit=%d}) FROM t WHERE MATCH('%s') LIMIT 5", []int{0, 80, 256}[rng.IntN(3)], q))
			require.NoError(t, err, q)
			for _, row := range res[0].Rows {
				var snips []SnippetData
				require.NoError(t, json.Unmarshal([]byte(row[1].(string)), &snips))
				d := docs[row[0].(uint64)-1]
				for _, sn := range snips {
					text := d.Content
					if sn.Field == "title" {
						text = d.Title
					}
					require.Equal(t, utf8.RuneCountInString(text[:sn.Start]), sn.StartCP)
					for _, m := range sn.Marks {
						span := text[m.Start:m.End]
						require.Equal(t, utf8.RuneCountInString(text[:m.Start]), m.StartCP)
						require.Equal(t, utf8.RuneCountInString(text[:m.End]), m.EndCP)
						require.NotEmpty(t, m.Keywords, "query %q span %q", q, span)
						spans++
						for _, kw := range m.Keywords {
							got, err := s.Exec(context.Background(), "CALL SNIPPETS('"+strings.ReplaceAll(span, "'", "''")+"', 't', '"+kw+"')")
							require.NoError(t, err)
							require.Contains(t, got[0].Rows[0][0], "<b>", "query %q: span %q does not match its keyword %q", q, span, kw)
						}
					}
				}
			}
		}
		require.NoError(t, db.Close())
	}
	require.Greater(t, spans, 500, "the queries mark too little to test")
}

// madeCorpus is a corpus of random texts when the race's is not cached:
// words of several scripts and lengths, with punctuation between.
func madeCorpus(rng *rand.Rand, n int) []benchcorpus.Doc {
	vocab := []string{"cat", "cats", "running", "runs", "ran", "dog", "dogs", "café", "naïve", "über",
		"straße", "hello", "world", "night", "nights", "quickly", "quick", "brown", "fox", "jumps", "lazy",
		"Ünïcode", "résumé", "data", "base", "search", "searching", "light", "lights", "the", "and", "of"}
	seps := []string{" ", " ", " ", ", ", ". ", "; ", " - ", "\n"}
	docs := make([]benchcorpus.Doc, n)
	for i := range docs {
		var b strings.Builder
		for range 20 + rng.IntN(200) {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		docs[i] = benchcorpus.Doc{ID: uint64(i + 1), Title: vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))], Content: b.String()}
	}
	return docs
}

// isPlainWord reports whether w is letters only (a query keyword needs no
// quoting then).
func isPlainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, r := range w {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0xC0 && r < 0x250) {
			return false
		}
	}
	return true
}

// randomQuery is one to three words of words, as alternatives, a phrase,
// a prefix or all of them.
func randomQuery(rng *rand.Rand, words []string) string {
	pick := func() string { return words[rng.IntN(len(words))] }
	switch rng.IntN(5) {
	case 0:
		return pick()
	case 1:
		return pick() + " | " + pick() + " | " + pick()
	case 2:
		return "\"" + pick() + " " + pick() + "\""
	case 3:
		w := []rune(pick())
		return string(w[:max(3, len(w)-2)]) + "*"
	}
	return pick() + " " + pick()
}
