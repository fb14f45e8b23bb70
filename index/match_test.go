package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/docstore"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

// marked renders the marks of one text as [word] for a compact comparison.
func marked(text string, ms []tokenize.Mark) string {
	var b strings.Builder
	at := 0
	for _, m := range ms {
		b.WriteString(text[at:m.Start] + "[" + text[m.Start:m.End] + "]")
		at = m.End
	}
	return b.String() + text[at:]
}

func TestTextMatcher(t *testing.T) {
	cfg, err := tokenize.ParseSettings([]tokenize.Setting{
		{Name: "morphology", Value: "stem_en"}, {Name: "min_infix_len", Value: "3"},
	}, nil)
	require.NoError(t, err)
	sch := simple()
	sch.Tokenization = cfg
	tb := newTableT(t, openMem(t), sch)
	title, body := 0, 1
	cases := []struct {
		query       string
		title, body string
		matched     bool
		want        []string // marked title, marked body
	}{
		{"running", "Runners run", "he ran and is running", true, []string{"Runners [run]", "he ran and is [running]"}},
		{`"quick fox"`, "a quick brown fox", "the quick fox and a fox", true, []string{"a quick brown fox", "the [quick] [fox] and a fox"}},
		{"fox -dog", "fox", "dog", false, []string{"fox", "dog"}}, // no match, no marks
		{"fox -cat", "fox", "dog", true, []string{"[fox]", "dog"}},
		{"@body fox", "fox", "a fox", true, []string{"fox", "a [fox]"}},
		// A text's words match a wildcard as written too (running is
		// indexed as "run"); the index, which expands wildcards over its
		// terms, does not see them.
		{"*ing", "sing a song", "running", true, []string{"[sing] a song", "[running]"}},
		{`"run of the mill"`, "run of the mill", "run mill", true, []string{"[run] [of] [the] [mill]", "run mill"}},
		{"fox NEAR/1 dog", "fox and the dog", "dog fox", true, []string{"fox and the dog", "[dog] [fox]"}},
		{"fox NOTNEAR/1 dog", "fox and the dog", "dog fox", true, []string{"[fox] and the dog", "dog fox"}},
		{"fox MAYBE dog", "fox", "dog", true, []string{"[fox]", "[dog]"}},
		{"cat | dog", "Cat", "hot dog", true, []string{"[Cat]", "hot [dog]"}},
	}
	// Each case's text is also a document of the table (id = case + 1):
	// matched from the index (postings and stored layouts), it gives the
	// same result as its text.
	var docs []Document
	for i, c := range cases {
		docs = append(docs, doc(uint64(i+1), c.title, c.body, 0))
	}
	insert(t, tb, docs...)
	s := tb.Snapshot()
	for i, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			q, err := s.ParseQuery(c.query)
			require.NoError(t, err)
			m, err := s.TextMatcher(q, false)
			require.NoError(t, err)
			r, err := m.Match([]int{title, body}, []string{c.title, c.body})
			require.NoError(t, err)
			require.Equal(t, c.matched, r.Matched)
			require.Equal(t, c.want, []string{marked(c.title, r.Fields[0].Marks), marked(c.body, r.Fields[1].Marks)})

			ref, ok := s.Lookup(uint64(i + 1))
			require.True(t, ok)
			stored, err := s.StoredWithLayouts(ctx, []DocRef{ref}, []int{title, body})
			require.NoError(t, err)
			require.Equal(t, []string{c.title, c.body}, stored[0][:2])
			fromIndex, ok := m.matchIndexed(ref, []int{0, 1}, stored[0][:2], stored[0][2:])
			require.True(t, ok, "the index answers")
			require.Equal(t, r.Matched, fromIndex.Matched)
			for f := range r.Fields {
				require.Equal(t, r.Fields[f].Layout, fromIndex.Fields[f].Layout)
				if c.query != "*ing" {
					require.Equal(t, r.Fields[f].Marks, fromIndex.Fields[f].Marks)
				}
			}
		})
	}

	t.Run("stopwords", func(t *testing.T) {
		// A table with stopwords is matched from its text: the layouts
		// give the stopwords as words, which stored layouts do not keep.
		cfg, err := tokenize.ParseSettings([]tokenize.Setting{{Name: "stopwords", Value: "the of"}}, nil)
		require.NoError(t, err)
		sch := simple()
		sch.Tokenization = cfg
		tb := newTableT(t, openMem(t), sch)
		insert(t, tb, doc(1, "run of the mill", "", 0))
		s := tb.Snapshot()
		q, err := s.ParseQuery(`"run of the mill"`)
		require.NoError(t, err)
		m, err := s.TextMatcher(q, false)
		require.NoError(t, err)
		r, err := m.Match([]int{title}, []string{"run of the mill"})
		require.NoError(t, err)
		require.Equal(t, "[run] of the [mill]", marked("run of the mill", r.Fields[0].Marks))
		require.Equal(t, []int32{1, 2, 3, 4}, []int32{r.Fields[0].Words[0].Pos, r.Fields[0].Words[1].Pos, r.Fields[0].Words[2].Pos, r.Fields[0].Words[3].Pos})
		ref, ok := s.Lookup(1)
		require.True(t, ok)
		stored, err := s.StoredWithLayouts(ctx, []DocRef{ref}, []int{title, body})
		require.NoError(t, err)
		_, ok = m.matchIndexed(ref, []int{0, 1}, stored[0][:2], stored[0][2:])
		require.False(t, ok, "a table with stopwords is matched from its text")
	})

	t.Run("groups", func(t *testing.T) {
		q, _ := s.ParseQuery(`"quick fox" dog`)
		m, err := s.TextMatcher(q, false)
		require.NoError(t, err)
		require.Equal(t, 3, m.Keywords())
		r, err := m.Match([]int{body}, []string{"quick fox, dog"})
		require.NoError(t, err)
		ms := r.Fields[0].Marks
		require.Len(t, ms, 3)
		require.Equal(t, []int{0, 1, 2}, []int{ms[0].Keyword, ms[1].Keyword, ms[2].Keyword})
	})

	t.Run("any field ignores field limits", func(t *testing.T) {
		q, _ := s.ParseQuery("@title fox")
		m, err := s.TextMatcher(q, true)
		require.NoError(t, err)
		r, err := m.Match(nil, []string{"a fox", "no"})
		require.NoError(t, err)
		require.True(t, r.Matched)
		require.Equal(t, "a [fox]", marked("a fox", r.Fields[0].Marks))
		require.Empty(t, r.Fields[1].Marks)
	})

	t.Run("not an indexed field", func(t *testing.T) {
		m, err := s.TextMatcher(query.Keyword{Term: "x", QPos: 1}, false)
		require.NoError(t, err)
		_, err = m.Match([]int{2}, []string{"x"})
		require.Error(t, err)
	})

	t.Run("many marks in a big text", func(t *testing.T) {
		q, _ := s.ParseQuery(`fox "quick dog"`)
		m, err := s.TextMatcher(q, false)
		require.NoError(t, err)
		text := strings.Repeat("the quick dog and a fox. ", 40000)
		r, err := m.Match([]int{body}, []string{text})
		require.NoError(t, err)
		require.True(t, r.Matched)
		require.Len(t, r.Fields[0].Marks, 120000)
	})
}

// TestMatchStoredWithoutLayouts: a record written before layouts were kept
// (text fields only) is matched by tokenizing its text, with the same
// result.
func TestMatchStoredWithoutLayouts(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(1, "a quick fox", "the fox and the dog", 0))
	s := tb.Snapshot()
	ref, ok := s.Lookup(1)
	require.True(t, ok)
	var enc docstore.Encoder
	require.NoError(t, db.bdb.Update(func(txn *badger.Txn) error {
		return txn.Set(appendDocKey(nil, s.tid, s.segs[ref.Seg].seg, ref.Ord), enc.Append(nil, []string{"a quick fox", "the fox and the dog"}))
	}))
	q, err := s.ParseQuery(`"quick fox" | dog`)
	require.NoError(t, err)
	m, err := s.TextMatcher(q, false)
	require.NoError(t, err)
	stored, err := s.StoredWithLayouts(ctx, []DocRef{ref}, []int{0, 1})
	require.NoError(t, err)
	require.Equal(t, []string{"a quick fox", "the fox and the dog", "", ""}, stored[0])
	r, err := m.MatchStored(ref, []int{0, 1}, stored[0][:2], stored[0][2:])
	require.NoError(t, err)
	require.False(t, r.Indexed)
	require.True(t, r.Matched)
	require.Equal(t, []string{"a [quick] [fox]", "the fox and the [dog]"},
		[]string{marked("a quick fox", r.Fields[0].Marks), marked("the fox and the dog", r.Fields[1].Marks)})
}

// TestSpanHolder checks spanHolder against heldBy on random spans and
// occurrences: spans of a few fields, some longer than maxSpanLookback,
// some sharing a start; occurrences in order, and a few out of order.
func TestSpanHolder(t *testing.T) {
	seed := uint64(11)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for round := range 500 {
		spread := []int{10, 1000, 3 * maxSpanLookback}[round%3]
		var spans []span
		for range rnd(40) {
			a := uint32(1 + rnd(spread))
			b := a + uint32(rnd(4))
			if rnd(8) == 0 {
				b = a + uint32(rnd(2*maxSpanLookback))
			}
			spans = append(spans, span{f: rnd(3), a: a, b: b})
		}
		slices.SortFunc(spans, spanLess)
		var occs []span
		for range rnd(60) {
			a := uint32(1 + rnd(spread+10))
			occs = append(occs, span{f: rnd(3), a: a, b: a + uint32(rnd(3))})
		}
		slices.SortFunc(occs, spanLess)
		if round%10 == 0 && len(occs) > 2 {
			occs[1], occs[len(occs)-1] = occs[len(occs)-1], occs[1]
		}
		var h spanHolder
		h.reset(spans)
		for _, sp := range occs {
			require.Equal(t, heldBy(spans, sp), h.holds(sp), "round %d: %v in %v", round, sp, spans)
		}
	}
}
