package query

import (
	"testing"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tok := tokenize.Default()
	cases := []struct {
		name string
		text string
		want Node
	}{
		{"empty", "", And{}},
		{"only separators", " ,.- ", And{}},
		{"one word", "Hello", Term{Word: "hello", Pos: 0}},
		{"one word with spaces", "  hello ", Term{Word: "hello", Pos: 2}},
		{"two words", "Hello, World", And{Children: []Node{Term{"hello", 0}, Term{"world", 7}}}},
		{"operators separate", "a|b", And{Children: []Node{Term{"a", 0}, Term{"b", 2}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(c.text, tok)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestTerms(t *testing.T) {
	n := And{Children: []Node{Term{"a", 0}, And{Children: []Node{Term{"b", 2}}}}}
	require.Equal(t, []Term{{"a", 0}, {"b", 2}}, Terms(nil, n))
}
