package corpus

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStripTags(t *testing.T) {
	tests := []struct{ name, tagged, want string }{
		{"words and period", "\tThe/at jury/nn said/vbd ./.\n", "The jury said."},
		{"quotes and commas", "``/`` no/at evidence/nn ''/'' ,/, he/pps said/vbd ./.", `"no evidence", he said.`},
		{"slash inside a word", "and/or/cc 1/2/cd", "and/or 1/2"},
		{"paragraphs", "A/at b/nn ./.\n\n\n\tC/at d/nn ./.\nE/np ./.\n", "A b.\n\nC d.\nE."},
		{"possessive and parens", "(/( Atlanta/np 's/$ )/)", "(Atlanta's)"},
		{"empty", "\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, StripTags(tt.tagged))
		})
	}
}

func TestMakeLadder(t *testing.T) {
	docs := []Doc{{Content: strings.Repeat("lorem ipsum dolor ", 100)}, {Content: strings.Repeat("sit amet ", 100)}}
	sizes := []int{100, 1000, 5000}
	ladder := MakeLadder(docs, sizes)
	require.Len(t, ladder, len(sizes))
	for i, d := range ladder {
		assert.EqualValues(t, i+1, d.ID)
		assert.LessOrEqual(t, len(d.Content), sizes[i])
		assert.Greater(t, len(d.Content), sizes[i]-20, "cut at the last word boundary")
		assert.False(t, strings.HasSuffix(d.Content, " "))
	}
}

func TestLadderRung(t *testing.T) {
	for n, want := range map[int64]int64{1: 1024, 1020: 1024, 1024: 1024, 1025: 10240, 1048570: 1 << 20, 2 << 20: 2 << 20} {
		assert.Equal(t, want, LadderRung(n), n)
	}
}

func TestLadderQueriesOccurInEveryRung(t *testing.T) {
	brown := []Doc{{Content: "The jury said it did find that the city's election was conducted."},
		{Content: "Merger proposed by the committee; the vote was close, and the mayor spoke."}}
	ladder := MakeLadder(brown, []int{60, 300, 900})
	qs := LadderQueries(ladder, DefaultSeed)
	require.Len(t, qs, 4*QueriesPerShape)
	smallest := strings.Join(Words(ladder[0].Content), " ")
	for _, q := range qs {
		for _, w := range Words(q.Text) {
			assert.Contains(t, " "+smallest+" ", " "+w+" ", "%s: %q is not in the smallest rung", q.Shape, w)
		}
	}
	for _, d := range ladder[1:] {
		assert.True(t, strings.HasPrefix(d.Content, ladder[0].Content), "rungs are prefixes of one text")
	}
	assert.Nil(t, LadderQueries(nil, DefaultSeed))
}

func TestQueriesAreDeterministic(t *testing.T) {
	docs := []Doc{
		{ID: 1, Title: "one", Content: "the quick brown fox jumps over the lazy dog"},
		{ID: 2, Title: "two", Content: "the dog sleeps and the fox runs away quickly"},
		{ID: 3, Title: "three", Content: "a rare aardvark and the brown bread"},
	}
	a, b := Queries(docs, DefaultSeed), Queries(docs, DefaultSeed)
	require.Equal(t, a, b)
	require.Len(t, a, 4*QueriesPerShape)
	count := map[string]int{}
	for i, q := range a {
		assert.Equal(t, Shapes[i%len(Shapes)], q.Shape)
		count[q.Shape]++
		switch q.Shape {
		case ShapeOr3:
			assert.Len(t, strings.Split(q.Text, "|"), 3, q.Text)
		case ShapePhrase2:
			assert.Regexp(t, `^"\pL+ \pL+"$`, q.Text)
		default:
			assert.Regexp(t, `^\pL+$`, q.Text)
		}
	}
	for _, s := range Shapes {
		assert.Equal(t, QueriesPerShape, count[s], s)
	}
	assert.NotEqual(t, a, Queries(docs, DefaultSeed+1))
}

func TestJSONLRoundTrip(t *testing.T) {
	docs := []Doc{{ID: 1, Title: `a "quoted" <title>`, Content: "line one\nline two é"}, {ID: 2}}
	var buf bytes.Buffer
	require.NoError(t, WriteJSONL(&buf, docs))
	assert.Contains(t, buf.String(), `<title>`, "HTML is not escaped")
	got, err := ReadJSONL(&buf)
	require.NoError(t, err)
	assert.Equal(t, docs, got)
}

func TestDebianStanzas(t *testing.T) {
	text := "Package: foo\nVersion: 1\nDescription: short one\nDescription-md5: abc\n\n" +
		"Package: bar\nDescription-en: bar tool\n first line\n .\n second  line\n"
	st := stanzas([]byte(text))
	require.Len(t, st, 2)
	assert.Equal(t, "foo", st[0]["Package"])
	assert.Equal(t, "abc", st[0]["Description-md5"])
	assert.Equal(t, "bar tool\nfirst line\n\nsecond  line", plainDescription(st[1]["Description-en"]))
}
