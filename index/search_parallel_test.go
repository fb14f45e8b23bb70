package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"
)

func TestSplitCandidates(t *testing.T) {
	// Each segment's candidates are the ordinals 0, 2, 4, ... (n of them).
	cases := []struct {
		name string
		segs []int
		w    int
		want string // per group: pieces as pos:[from,to)
	}{
		{"one group", []int{5, 3}, 1, "[0:[0,end) 1:[0,end)]"},
		{"one segment in two", []int{10}, 2, "[0:[0,10)] [0:[10,end)]"},
		{"uneven", []int{7}, 2, "[0:[0,8)] [0:[8,end)]"},
		{"across segments", []int{3, 6, 3}, 3, "[0:[0,end) 1:[0,2)] [1:[2,10)] [1:[10,end) 2:[0,end)]"},
		{"more workers than candidates", []int{2}, 4, "[0:[0,2)] [0:[2,end)]"},
		{"a segment per group", []int{4, 4}, 2, "[0:[0,end)] [1:[0,end)]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cands []segCandidates
			total := 0
			for pos, n := range c.segs {
				bm := roaring.New()
				for i := range n {
					bm.Add(uint32(2 * i))
				}
				cands = append(cands, segCandidates{pos: pos, cand: bm, n: n})
				total += n
			}
			got := ""
			count := 0
			for i, g := range splitCandidates(cands, total, c.w) {
				if i > 0 {
					got += " "
				}
				got += "["
				for j, pc := range g {
					if j > 0 {
						got += " "
					}
					to := fmt.Sprint(pc.to)
					if pc.to == 1<<32 {
						to = "end"
					}
					got += fmt.Sprintf("%d:[%d,%s)", pc.c.pos, pc.from, to)
					for it := pc.c.cand.Iterator(); it.HasNext(); {
						if x := uint64(it.Next()); x >= pc.from && x < pc.to {
							count++
						}
					}
				}
				got += "]"
			}
			require.Equal(t, c.want, got)
			require.Equal(t, total, count, "every candidate in one piece")
		})
	}
}

// TestParallelSearch: a search split among goroutines finds the same
// matches, in the same order, with the same weights, as one goroutine.
func TestParallelSearch(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	r := rand.New(rand.NewPCG(7, 8))
	id := uint64(1)
	for range 4 { // several segments
		var docs []Document
		for range 150 {
			docs = append(docs, mergeDoc(r, id))
			id++
		}
		insert(t, tb, docs...)
	}
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		_, err := w.Delete([]uint64{3, 151, 152, 400})
		return err
	}))
	s := tb.Snapshot()
	queries := append([]string{`"common alpha common"`, "common -alpha", `"alpha beta"~5`, "alpha NEAR/3 beta",
		"alpha | beta | gamma", "@title alpha"}, mergeQueries...)
	for _, text := range queries {
		q, err := s.ParseQuery(text)
		require.NoError(t, err)
		tb.db.knobs.searchWorkers = 1
		want, err := s.SearchWith(ctx, q, SearchOptions{})
		require.NoError(t, err)
		for _, w := range []int{2, 3, 7} {
			tb.db.knobs.searchWorkers = w
			got, err := s.SearchWith(ctx, q, SearchOptions{})
			require.NoError(t, err)
			require.Equal(t, want, got, "%s with %d goroutines", text, w)
		}
	}
}
