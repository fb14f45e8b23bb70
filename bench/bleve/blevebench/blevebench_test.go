package blevebench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// testDocs makes n documents of plain English-like text, deterministically.
func testDocs(n int) []corpus.Doc {
	words := strings.Fields("the jury said it did find that the city election was conducted fairly " +
		"and the mayor spoke of a merger proposed by the committee while voters waited outside")
	docs := make([]corpus.Doc, n)
	for i := range docs {
		var b strings.Builder
		for k := range 120 + i*7 {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(i*5+k*3+k/len(words))%len(words)])
			if k%15 == 14 {
				b.WriteByte('.')
			}
		}
		docs[i] = corpus.Doc{ID: uint64(i + 1), Title: fmt.Sprintf("document %d", i+1), Content: b.String()}
	}
	return docs
}

func testAnalyzerQuery(t *testing.T, text string) (*Query, *Snippeter) {
	t.Helper()
	m, err := NewMapping()
	require.NoError(t, err)
	a, err := Analyzer(m)
	require.NoError(t, err)
	q, err := Compile(text, a)
	require.NoError(t, err)
	s, err := NewSnippeter(a)
	require.NoError(t, err)
	return q, s
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name, text string
		words      []string
		phrases    [][]string
		wantErr    bool
	}{
		{name: "word", text: "Jury", words: []string{"jury"}},
		{name: "or3", text: "mayor|city|VOTERS", words: []string{"mayor", "city", "voters"}},
		{name: "phrase", text: `"the jury"`, phrases: [][]string{{"the", "jury"}}},
		{name: "one-word phrase is a word", text: `"jury"`, words: []string{"jury"}},
		{name: "bar inside quotes", text: `"a|b"|c`, words: []string{"c"}, phrases: [][]string{{"a", "b"}}},
		{name: "all words of an alternative", text: "city election|mayor", words: []string{"city", "election", "mayor"}},
		{name: "no words", text: `| "" ,`, wantErr: true},
	}
	m, err := NewMapping()
	require.NoError(t, err)
	a, err := Analyzer(m)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Compile(tt.text, a)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, q.Search)
			var words []string
			for w := range q.words {
				words = append(words, w)
			}
			assert.ElementsMatch(t, tt.words, words)
			assert.Equal(t, tt.phrases, q.phrases)
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		name, query, text, want string
	}{
		{"word", "jury", "The Jury said the jury was out.", "The <mark>Jury</mark> said the <mark>jury</mark> was out."},
		{"phrase only where adjacent", `"the jury"`, "the jury; jury the; the big jury", "<mark>the</mark> <mark>jury</mark>; jury the; the big jury"},
		{"nothing to mark gives the beginning", "absent", "Nothing here matches.", "Nothing here matches."},
		{"html is escaped", "cats", "<b>cats</b> & dogs", "&lt;b&gt;<mark>cats</mark>&lt;/b&gt; &amp; dogs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, s := testAnalyzerQuery(t, tt.query)
			assert.Equal(t, tt.want, s.Snippet(q, tt.text))
		})
	}
	t.Run("a long text is cut to one fragment", func(t *testing.T) {
		q, s := testAnalyzerQuery(t, "needle")
		text := strings.Repeat("hay ", 500) + "needle " + strings.Repeat("hay ", 500)
		got := s.Snippet(q, text)
		assert.Contains(t, got, "<mark>needle</mark>")
		assert.Less(t, len(got), 400)
		assert.True(t, strings.HasPrefix(got, "…") && strings.HasSuffix(got, "…"), got)
	})
}

func TestBuildIndexSearchesAndHighlights(t *testing.T) {
	docs := testDocs(50)
	idx, err := BuildIndex(context.Background(), t.TempDir()+"/index", docs)
	require.NoError(t, err)
	defer idx.Close()
	m, err := NewMapping()
	require.NoError(t, err)
	a, err := Analyzer(m)
	require.NoError(t, err)
	first := corpus.Words(docs[0].Content)
	phrase := fmt.Sprintf("%q", first[0]+" "+first[1])
	for _, text := range []string{"mayor", "merger|voters|jury", phrase} {
		q, err := Compile(text, a)
		require.NoError(t, err)
		hits := 0
		op := searchOp(idx, []*Query{q}, true)
		_, err = op(context.Background(), 0, 0)
		require.NoError(t, err, text)
		res, err := idx.Search(searchRequest(q, true))
		require.NoError(t, err)
		for _, h := range res.Hits {
			hits++
			require.NotEmpty(t, h.Fragments[ContentField], "%s: hit %s has no fragment", text, h.ID)
			assert.Contains(t, h.Fragments[ContentField][0], "<mark>", text)
		}
		assert.Equal(t, min(searchLimit, int(res.Total)), hits, text)
		assert.Positive(t, hits, text)
	}
}

// TestRunReports runs every workload briefly and checks that the reports are
// well-formed; it asserts nothing about timing.
func TestRunReports(t *testing.T) {
	docs := testDocs(50)
	ladder := corpus.MakeLadder(docs, []int{1 << 10, 4 << 10})
	var reports []*load.Report
	emit := func(r *load.Report) error { reports = append(reports, r); return nil }
	base := Config{Concurrency: []int{1, 2}, Duration: 200 * time.Millisecond, Warmup: 20 * time.Millisecond,
		SnippetDocs: 10, IndexDir: t.TempDir() + "/index"}

	cfg := base
	cfg.Corpus, cfg.Docs, cfg.Workloads = "test", docs, []string{load.Search, load.SearchHL, load.Snippets}
	require.NoError(t, Run(context.Background(), cfg, emit))
	cfg = base
	cfg.Corpus, cfg.Docs, cfg.Workloads, cfg.Concurrency, cfg.IndexDir = "ladder", ladder, []string{load.Ladder}, []int{1}, ""
	require.NoError(t, Run(context.Background(), cfg, emit))

	require.Len(t, reports, 3*2+len(ladder))
	for i, r := range reports {
		name := fmt.Sprintf("%d %s c=%d", i, r.Workload, r.Concurrency)
		assert.Equal(t, load.Bleve, r.Target, name)
		assert.Equal(t, load.UnitOf(r.Workload), r.Unit, name)
		assert.Positive(t, r.Ops, name)
		assert.Zero(t, r.Errors, name)
		assert.Empty(t, r.FirstError, name)
		assert.Positive(t, r.Throughput, name)
		assert.Positive(t, r.Seconds, name)
		assert.LessOrEqual(t, r.P50Ms, r.P99Ms, name)
		assert.Equal(t, 1, r.Run, name)
		switch r.Workload {
		case load.Snippets:
			assert.Equal(t, r.Ops*10, r.Docs, name)
			assert.Positive(t, r.MBPerSec, name)
		case load.Ladder:
			assert.Equal(t, "ladder", r.Corpus, name)
			assert.Equal(t, int64(len(ladder[i-6].Content)), r.FieldBytes, name)
			assert.Equal(t, r.Ops, r.Docs, name)
			assert.Equal(t, r.Ops*r.FieldBytes, r.Bytes, name)
		default:
			assert.Equal(t, "test", r.Corpus, name)
			assert.Zero(t, r.Docs, name)
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var back load.Report
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, r.Throughput, back.Throughput, name)
	}
	assert.Equal(t, []int{1, 2, 1, 2, 1, 2, 1, 1}, func() []int {
		var cs []int
		for _, r := range reports {
			cs = append(cs, r.Concurrency)
		}
		return cs
	}())
}

func TestRunRejects(t *testing.T) {
	assert.Error(t, Run(context.Background(), Config{}, nil), "no documents")
	assert.Error(t, Run(context.Background(), Config{Docs: testDocs(1), Workloads: []string{"json-search+highlight"}}, nil))
}
