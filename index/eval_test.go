package index

import (
	"testing"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

// Trees built by hand, so that the evaluator is tested apart from the parser.
// kw numbers query positions in the order of the calls within one case.
type treeBuilder struct{ qpos int }

func (b *treeBuilder) kw(term string) query.Keyword {
	b.qpos++
	return query.Keyword{Text: term, Term: term, QPos: b.qpos}
}

func and(n ...query.Node) query.Node { return query.And{Children: n} }
func or(n ...query.Node) query.Node  { return query.Or{Children: n} }
func not(n query.Node) query.Node    { return query.Not{Child: n} }
func field(n query.Node, names ...string) query.Node {
	return query.Field{Fields: names, Child: n}
}

func searchTree(t *testing.T, s *Snapshot, q query.Node, opts SearchOptions) ([]uint64, []int64) {
	t.Helper()
	r, err := s.SearchWith(ctx, q, opts)
	require.NoError(t, err)
	ids, ws := []uint64{}, []int64{}
	for _, m := range r.Matches {
		ids = append(ids, s.ID(m.Ref))
		ws = append(ws, m.Weight)
	}
	return ids, ws
}

func TestEvalOperators(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb,
		doc(1, "hello world", "the quick brown fox jumps", 1),
		doc(2, "world hello", "quick fox", 1),
		doc(3, "hello there world", "brown dog and a quick red fox", 1),
		doc(4, "goodbye", "hello world again and again", 1),
	)
	// A second segment.
	insert(t, tb, doc(5, "hello", "world", 1), doc(6, "nothing here", "at all", 1))
	s := tb.Snapshot()
	cases := []struct {
		name string
		tree func(b *treeBuilder) query.Node
		want []uint64
	}{
		{"keyword", func(b *treeBuilder) query.Node { return b.kw("hello") }, []uint64{1, 2, 3, 4, 5}},
		{"and across fields", func(b *treeBuilder) query.Node { return and(b.kw("hello"), b.kw("fox")) }, []uint64{1, 2, 3}},
		{"or", func(b *treeBuilder) query.Node { return or(b.kw("goodbye"), b.kw("dog")) }, []uint64{3, 4}},
		{"not", func(b *treeBuilder) query.Node { return and(b.kw("hello"), not(b.kw("fox"))) }, []uint64{4, 5}},
		{"not or", func(b *treeBuilder) query.Node {
			return and(b.kw("world"), not(or(b.kw("dog"), b.kw("again"))))
		}, []uint64{1, 2, 5}},
		{"phrase", func(b *treeBuilder) query.Node {
			return query.Phrase{Words: []query.Keyword{b.kw("hello"), b.kw("world")}}
		}, []uint64{1, 4}},
		{"phrase does not cross fields", func(b *treeBuilder) query.Node {
			return query.Phrase{Words: []query.Keyword{b.kw("hello"), b.kw("world")}}
		}, []uint64{1, 4}},
		{"phrase with a gap (stopword)", func(b *treeBuilder) query.Node {
			w1 := b.kw("brown")
			b.qpos++
			return query.Phrase{Words: []query.Keyword{w1, b.kw("jumps")}}
		}, []uint64{1}},
		{"phrase with a gap matches", func(b *treeBuilder) query.Node {
			w1 := b.kw("quick")
			b.qpos++
			return query.Phrase{Words: []query.Keyword{w1, b.kw("fox")}}
		}, []uint64{1, 3}},
		{"proximity 0 is a window of the word count", func(b *treeBuilder) query.Node {
			return query.Proximity{Words: []query.Keyword{b.kw("world"), b.kw("hello")}, Distance: 1}
		}, []uint64{1, 2, 4}},
		{"proximity wider", func(b *treeBuilder) query.Node {
			return query.Proximity{Words: []query.Keyword{b.kw("world"), b.kw("hello")}, Distance: 2}
		}, []uint64{1, 2, 3, 4}},
		{"quorum", func(b *treeBuilder) query.Node {
			return query.Quorum{Words: []query.Keyword{b.kw("dog"), b.kw("red"), b.kw("jumps"), b.kw("fox")}, Count: 2}
		}, []uint64{1, 3}},
		{"quorum fraction", func(b *treeBuilder) query.Node {
			return query.Quorum{Words: []query.Keyword{b.kw("dog"), b.kw("red"), b.kw("jumps"), b.kw("fox")}, Fraction: 0.75}
		}, []uint64{3}},
		{"near", func(b *treeBuilder) query.Node {
			return query.Near{Left: b.kw("brown"), Right: b.kw("fox"), Distance: 2}
		}, []uint64{1}},
		{"near wider", func(b *treeBuilder) query.Node {
			return query.Near{Left: b.kw("fox"), Right: b.kw("brown"), Distance: 6}
		}, []uint64{1, 3}},
		{"notnear", func(b *treeBuilder) query.Node {
			return query.NotNear{Left: b.kw("fox"), Right: b.kw("brown"), Distance: 2}
		}, []uint64{2, 3}},
		{"before", func(b *treeBuilder) query.Node {
			return query.Before{Children: []query.Node{b.kw("hello"), b.kw("world")}}
		}, []uint64{1, 3, 4}},
		{"before stays in one field", func(b *treeBuilder) query.Node {
			return query.Before{Children: []query.Node{b.kw("world"), b.kw("fox")}}
		}, []uint64{}},
		{"maybe", func(b *treeBuilder) query.Node {
			return query.Maybe{Left: b.kw("fox"), Right: b.kw("dog")}
		}, []uint64{1, 2, 3}},
		{"field", func(b *treeBuilder) query.Node { return field(b.kw("world"), "body") }, []uint64{4, 5}},
		{"negated field", func(b *treeBuilder) query.Node {
			return query.Field{Fields: []string{"title"}, Negate: true, Child: b.kw("world")}
		}, []uint64{4, 5}},
		{"all fields", func(b *treeBuilder) query.Node { return query.Field{Child: b.kw("world")} }, []uint64{1, 2, 3, 4, 5}},
		{"field position", func(b *treeBuilder) query.Node {
			return query.Field{Fields: []string{"title"}, MaxPos: 1, Child: b.kw("hello")}
		}, []uint64{1, 3, 5}},
		{"field start", func(b *treeBuilder) query.Node {
			k := b.kw("world")
			k.FieldStart = true
			return k
		}, []uint64{2, 5}},
		{"field end", func(b *treeBuilder) query.Node {
			k := b.kw("world")
			k.FieldEnd = true
			return k
		}, []uint64{1, 3, 5}},
		{"field limits per group", func(b *treeBuilder) query.Node {
			return and(field(b.kw("hello"), "title"), field(b.kw("world"), "body"))
		}, []uint64{5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := searchTree(t, s, c.tree(&treeBuilder{}), SearchOptions{})
			require.Equal(t, c.want, got)
		})
	}

	t.Run("unknown field", func(t *testing.T) {
		_, err := s.SearchWith(ctx, field(query.Keyword{Term: "x", Pos: 3}, "nope"), SearchOptions{})
		var qe *QueryError
		require.ErrorAs(t, err, &qe)
		require.Equal(t, "unknown field 'nope' in field limit: the full-text fields of Docs are title, body (at offset 0)", err.Error())
	})
	t.Run("only negative", func(t *testing.T) {
		_, err := s.SearchWith(ctx, and(not(query.Keyword{Term: "x"})), SearchOptions{})
		require.ErrorContains(t, err, "only negative")
	})
	t.Run("sentence needs index_sp", func(t *testing.T) {
		_, err := s.SearchWith(ctx, query.Sentence{Children: []query.Node{query.Keyword{Term: "a"}, query.Keyword{Term: "b"}}}, SearchOptions{})
		require.ErrorContains(t, err, "SENTENCE needs index_sp=1")
	})
}

func TestRankers(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb,
		doc(1, "hello world", "filler", 1),
		doc(2, "world hello", "filler", 1),
		doc(3, "hello big wide world", "hello", 1),
		doc(4, "other", "hello world", 1),
		doc(5, "nothing", "else", 1), doc(6, "more", "filler", 1),
	)
	s := tb.Snapshot()
	q := func() query.Node { b := &treeBuilder{}; return and(b.kw("hello"), b.kw("world")) }

	_, ws := searchTree(t, s, q(), SearchOptions{})
	require.Greater(t, ws[0], ws[1], "the phrase in order outranks the words reversed")
	require.Greater(t, ws[0], ws[2], "and the words apart")
	require.Equal(t, ws[0], ws[3], "the same match in another field weighs the same")

	_, ws = searchTree(t, s, q(), SearchOptions{FieldWeights: map[string]int{"title": 10}})
	require.Greater(t, ws[0], ws[3], "field weights")

	for _, c := range []struct {
		ranker Ranker
		want   []int64
	}{
		{RankNone, []int64{1, 1, 1, 1}},
		{RankWordcount, []int64{2, 2, 3, 2}},
		{RankProximity, []int64{2, 1, 2, 2}}, // doc 3: 1 in title + 1 in body
		{RankFieldmask, []int64{1, 1, 3, 2}},
		{RankMatchAny, []int64{4, 2, 3, 4}},
	} {
		t.Run(c.ranker.String(), func(t *testing.T) {
			_, ws := searchTree(t, s, q(), SearchOptions{Ranker: c.ranker})
			require.Equal(t, c.want, ws)
		})
	}
	_, bm := searchTree(t, s, q(), SearchOptions{Ranker: RankBM25})
	_, pb := searchTree(t, s, q(), SearchOptions{})
	for i := range bm {
		require.True(t, bm[i] >= 0 && bm[i] < 1000)
		require.Equal(t, pb[i]%1000, bm[i], "proximity_bm25 adds bm25 to the proximity thousands")
	}
	_, sph := searchTree(t, s, q(), SearchOptions{Ranker: RankSPH04})
	require.Greater(t, sph[0], sph[3]-1, "sph04: exact field match and field start")
	require.Equal(t, int64((4*2+2+1)*1000)+bm[0], sph[0])
}

func TestEvalSettings(t *testing.T) {
	newTable := func(t *testing.T, settings ...tokenize.Setting) *Table {
		cfg, err := tokenize.ParseSettings(settings, nil)
		require.NoError(t, err)
		s := simple()
		s.Tokenization = cfg
		return newTableT(t, openMem(t), s)
	}
	t.Run("sentence and paragraph", func(t *testing.T) {
		tb := newTable(t, tokenize.Setting{Name: "index_sp", Value: "1"}, tokenize.Setting{Name: "html_strip", Value: "1"})
		insert(t, tb,
			doc(1, "x", "The cat sat. The dog ran.", 1),
			doc(2, "x", "The cat and the dog sat.", 1),
			doc(3, "x", "<p>The cat sat</p><p>The dog ran. And a cat.</p>", 1),
		)
		s := tb.Snapshot()
		b := &treeBuilder{}
		got, _ := searchTree(t, s, query.Sentence{Children: []query.Node{b.kw("cat"), b.kw("dog")}}, SearchOptions{})
		require.Equal(t, []uint64{2}, got)
		got, _ = searchTree(t, s, query.Paragraph{Children: []query.Node{b.kw("cat"), b.kw("dog")}}, SearchOptions{})
		require.Equal(t, []uint64{1, 2, 3}, got)
		got, _ = searchTree(t, s, query.Paragraph{Children: []query.Node{b.kw("sat"), b.kw("dog")}}, SearchOptions{})
		require.Equal(t, []uint64{1, 2}, got)
	})
	t.Run("zones", func(t *testing.T) {
		tb := newTable(t, tokenize.Setting{Name: "html_strip", Value: "1"}, tokenize.Setting{Name: "index_zones", Value: "h*, b"})
		insert(t, tb,
			doc(1, "x", "<h1>alpha beta</h1> gamma", 1),
			doc(2, "x", "alpha <b>beta</b> <h2>gamma alpha</h2>", 1),
			doc(3, "x", "<b>alpha</b> <b>beta</b>", 1),
		)
		s := tb.Snapshot()
		b := &treeBuilder{}
		got, _ := searchTree(t, s, query.Zone{Names: []string{"h1"}, Child: b.kw("alpha")}, SearchOptions{})
		require.Equal(t, []uint64{1}, got)
		got, _ = searchTree(t, s, query.Zone{Names: []string{"h*"}, Child: b.kw("alpha")}, SearchOptions{})
		require.Equal(t, []uint64{1, 2}, got)
		got, _ = searchTree(t, s, query.Zone{Names: []string{"b"}, Child: and(b.kw("alpha"), b.kw("beta"))}, SearchOptions{})
		require.Equal(t, []uint64{3}, got)
		got, _ = searchTree(t, s, query.Zone{Names: []string{"b"}, Span: true, Child: and(b.kw("alpha"), b.kw("beta"))}, SearchOptions{})
		require.Equal(t, []uint64{}, got, "ZONESPAN: both in one span")
		got, _ = searchTree(t, s, query.Zone{Names: []string{"h1"}, Span: true, Child: and(b.kw("alpha"), b.kw("beta"))}, SearchOptions{})
		require.Equal(t, []uint64{1}, got)
		_, err := s.SearchWith(ctx, query.Zone{Names: []string{"p"}, Child: b.kw("alpha")}, SearchOptions{})
		require.ErrorContains(t, err, "zone 'p' is not in index_zones")
	})
	t.Run("wildcards", func(t *testing.T) {
		docs := []Document{doc(1, "x", "running runner", 1), doc(2, "x", "run", 1), doc(3, "x", "rerun", 1), doc(4, "x", "ran", 1)}
		wild := func(p string) query.Node { return query.Keyword{Text: p, Term: p, Wildcard: true, QPos: 1} }
		tb := newTable(t, tokenize.Setting{Name: "min_prefix_len", Value: "2"})
		insert(t, tb, docs...)
		s := tb.Snapshot()
		got, _ := searchTree(t, s, wild("run*"), SearchOptions{})
		require.Equal(t, []uint64{1, 2}, got)
		got, _ = searchTree(t, s, wild("ru?"), SearchOptions{})
		require.Equal(t, []uint64{2}, got)
		got, _ = searchTree(t, s, wild("run%"), SearchOptions{})
		require.Equal(t, []uint64{2}, got)
		r, err := s.SearchWith(ctx, wild("*run"), SearchOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"wildcard '*run' searched as the word 'run': table Docs has min_prefix_len but not min_infix_len, so a wildcard can only end a word"}, r.Warnings)
		require.Equal(t, []TermStat{{Keyword: "*run", Term: "run", Docs: 1, Hits: 1}}, r.Terms)
		r, err = s.SearchWith(ctx, wild("r*"), SearchOptions{})
		require.NoError(t, err)
		require.Len(t, r.Warnings, 1)
		require.Equal(t, []TermStat{{Keyword: "r*", Term: "r", Docs: 0, Hits: 0}}, r.Terms)

		tb = newTable(t, tokenize.Setting{Name: "min_infix_len", Value: "3"})
		insert(t, tb, docs...)
		s = tb.Snapshot()
		got, _ = searchTree(t, s, wild("*run*"), SearchOptions{})
		require.Equal(t, []uint64{1, 2, 3}, got)
		got, _ = searchTree(t, s, wild("run?er"), SearchOptions{})
		require.Equal(t, []uint64{1}, got)
		r, err = s.SearchWith(ctx, wild("*run*"), SearchOptions{})
		require.NoError(t, err)
		require.Equal(t, []TermStat{{Keyword: "*run*", Term: "*run*", Docs: 3, Hits: 4}}, r.Terms)

		tb = newTable(t)
		insert(t, tb, docs...)
		r, err = tb.Snapshot().SearchWith(ctx, wild("run*"), SearchOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"wildcard 'run*' searched as the word 'run': table Docs has neither min_prefix_len nor min_infix_len"}, r.Warnings)
	})
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"run*", "running", true}, {"run*", "run", true}, {"run*", "ru", false},
		{"*un*", "run", true}, {"r?n", "ran", true}, {"r?n", "rn", false},
		{"ru%", "ru", true}, {"ru%", "run", true}, {"ru%", "runs", false},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"п?ивет", "привет", true},
	} {
		require.Equal(t, c.want, glob([]rune(c.pattern)).match(c.s), "%s ~ %s", c.pattern, c.s)
	}
}
