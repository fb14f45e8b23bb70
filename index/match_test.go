package index

import (
	"strings"
	"testing"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

// marked renders the marks of one text as [word] for a compact comparison.
func marked(text string, ms []TextMark) string {
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
		{Name: "morphology", Value: "stem_en"}, {Name: "stopwords", Value: "the of"}, {Name: "min_infix_len", Value: "3"},
	}, nil)
	require.NoError(t, err)
	sch := simple()
	sch.Tokenization = cfg
	tb := newTableT(t, openMem(t), sch)
	s := tb.Snapshot()
	title, body := 0, 1
	cases := []struct {
		query       string
		title, body string
		matched     bool
		want        []string // marked title, marked body
	}{
		{"running", "Runners run", "he ran and is running", true, []string{"Runners [run]", "he ran and is [running]"}},
		{`"quick fox"`, "a quick brown fox", "the quick fox and a fox", true, []string{"a quick brown fox", "the [quick] [fox] and a fox"}},
		{"fox -dog", "fox", "dog", false, []string{"[fox]", "dog"}},
		{"fox -cat", "fox", "dog", true, []string{"[fox]", "dog"}},
		{"@body fox", "fox", "a fox", true, []string{"fox", "a [fox]"}},
		{"*ing", "sing a song", "running", true, []string{"[sing] a song", "running"}}, // wildcards expand over indexed terms: running is "run"
		{`"run of the mill"`, "run of the mill", "run mill", true, []string{"[run] of the [mill]", "run mill"}},
		{"fox NEAR/1 dog", "fox and the dog", "dog fox", true, []string{"fox and the dog", "[dog] [fox]"}},
		{"fox NOTNEAR/1 dog", "fox and the dog", "dog fox", true, []string{"[fox] and the dog", "dog fox"}},
		{"fox MAYBE dog", "fox", "dog", true, []string{"[fox]", "[dog]"}},
		{"cat | dog", "Cat", "hot dog", true, []string{"[Cat]", "hot [dog]"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			q, err := s.ParseQuery(c.query)
			require.NoError(t, err)
			m, err := s.TextMatcher(q, false)
			require.NoError(t, err)
			r, err := m.Match([]int{title, body}, []string{c.title, c.body})
			require.NoError(t, err)
			require.Equal(t, c.matched, r.Matched)
			require.Equal(t, c.want, []string{marked(c.title, r.Fields[0].Marks), marked(c.body, r.Fields[1].Marks)})
		})
	}

	t.Run("groups", func(t *testing.T) {
		q, _ := s.ParseQuery(`"quick fox" dog`)
		m, err := s.TextMatcher(q, false)
		require.NoError(t, err)
		require.Equal(t, 3, m.Keywords())
		r, err := m.Match([]int{body}, []string{"quick fox, dog"})
		require.NoError(t, err)
		ms := r.Fields[0].Marks
		require.Len(t, ms, 3)
		require.Equal(t, ms[0].Group, ms[1].Group)
		require.NotZero(t, ms[0].Group)
		require.Zero(t, ms[2].Group)
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
