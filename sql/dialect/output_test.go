package dialect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApplyEdits(t *testing.T) {
	src := "SELECT {a=1} FROM t"
	out, err := applyEdits(src, 0, len(src), []edit{
		{start: 11, end: 12, text: ")"},
		{start: 7, end: 8, text: "f("},
		{start: 7, end: 7, text: "g("}, // an insertion goes before a replacement at the same offset
	})
	require.NoError(t, err)
	require.Equal(t, "SELECT g(f(a=1) FROM t", out.text)

	tests := []struct {
		name     string
		off      int
		want     int
		wantText string
	}{
		{"copied before the edits", 3, 3, "ECT {a=1} FROM t"},
		{"inserted text", 8, 7, "{a=1} FROM t"},
		{"replacement text", 10, 7, "{a=1} FROM t"},
		{"copied between edits", 11, 8, "a=1} FROM t"},
		{"copied after the edits", 17, 14, "ROM t"},
		{"end of the output", len(out.text), len(src), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := out.origin(tc.off)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantText, src[got:])
		})
	}
}

func TestApplyEditsOverlap(t *testing.T) {
	_, err := applyEdits("abcdef", 0, 6, []edit{{start: 1, end: 4, text: "x"}, {start: 2, end: 3, text: "y"}})
	require.ErrorContains(t, err, "overlaps")
	_, err = applyEdits("abcdef", 0, 3, []edit{{start: 2, end: 5, text: "x"}})
	require.ErrorContains(t, err, "overlaps")
}

// TestMergeEdits checks that mergeEdits orders two runs as a stable sort
// of them would, ties and insertions included, and leaves an unordered
// first run as it is.
func TestMergeEdits(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	run := func(n int, tag string) []edit {
		var es []edit
		for i := range n {
			start := rnd.IntN(6)
			es = append(es, edit{start: start, end: start + rnd.IntN(2), text: fmt.Sprint(tag, i)})
		}
		slices.SortStableFunc(es, editOrder)
		return es
	}
	for range 2000 {
		a, b := run(rnd.IntN(6), "a"), run(rnd.IntN(12), "b")
		got := append(slices.Clone(a), b...)
		want := slices.Clone(got)
		slices.SortStableFunc(want, editOrder)
		mergeEdits(got, len(a))
		require.Equal(t, want, got, "%v + %v", a, b)
	}
	unordered := []edit{{start: 5, end: 6, text: "x"}, {start: 1, end: 2, text: "y"}, {start: 0, end: 1, text: "z"}}
	got := slices.Clone(unordered)
	mergeEdits(got, 2)
	require.Equal(t, unordered, got)
}
