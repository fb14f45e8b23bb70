package query

import (
	"strings"
	"testing"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

func TestPartsNumberAcross(t *testing.T) {
	ps := NewParts(tokenize.Default())
	a, err := ps.Parse("hello world")
	require.NoError(t, err)
	b, err := ps.Parse(`"big cat"`)
	require.NoError(t, err)
	require.Equal(t, "AND(hello@1, world@2)", String(a))
	require.Equal(t, `PHRASE(big@4 cat@5)`, String(b))
}

func TestPartsErrorsAndLimits(t *testing.T) {
	ps := NewParts(tokenize.Default())
	n, err := ps.Parse("   ")
	require.NoError(t, err)
	require.Nil(t, n)
	_, err = ps.Parse("a (b")
	require.EqualError(t, err, "syntax error at offset 2: unbalanced '(': no closing ')'")

	// The keyword limit counts every part.
	ps = NewParts(tokenize.Default())
	half := strings.Repeat("w ", MaxKeywords/2+1)
	_, err = ps.Parse(half)
	require.NoError(t, err)
	_, err = ps.Parse(half)
	require.ErrorContains(t, err, "keywords")
}
