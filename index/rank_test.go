package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWeightWalk checks weight's walk of the keywords' hits against the
// plain way of ranking: merge every hit into one sorted list, then read
// each field's run. Random documents of a small vocabulary (so words
// repeat and neighbour each other) in two fields, random queries, every
// ranker.
func TestWeightWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("a b c d e f g h")
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	db := openMem(t)
	tb := newTableT(t, db, Schema{Name: "t", Columns: []Column{
		{Name: "title", Type: TypeText, Indexed: true}, {Name: "content", Type: TypeText, Indexed: true}}})
	var docs []Document
	for i := range 200 {
		docs = append(docs, Document{ID: uint64(i + 1), Values: []Value{text(1 + rng.IntN(4)), text(rng.IntN(40))}})
	}
	insert(t, tb, docs...)
	s := tb.Snapshot()
	word := func() string { return vocab[rng.IntN(len(vocab))] }
	shapes := []func() string{
		func() string { return word() + " " + word() },
		func() string { return word() + "|" + word() + "|" + word() },
		func() string { return `"` + word() + " " + word() + `" ` + word() },
		func() string { return word() + " " + word() + " " + word() + " " + word() },
		func() string { return "@title " + word() + " @content " + word() + "|" + word() },
		func() string { return word() + " -" + word() + " " + word() },
	}
	checked := 0
	for i := range 300 {
		text := shapes[i%len(shapes)]()
		q, err := s.ParseQuery(text)
		require.NoError(t, err)
		if q == nil {
			continue
		}
		for r := range Ranker(len(rankerNames)) {
			p, err := s.compile(q)
			require.NoError(t, err)
			p.weights = []int64{3, 1}
			p.ranker = r
			require.NoError(t, s.fetch(ctx, p))
			if p.root == nil {
				continue
			}
			p.prepareRanking(s)
			cands, _, _ := s.candidates(p)
			for _, c := range cands {
				it := c.cand.Iterator()
				for it.HasNext() {
					ord := it.Next()
					c.e.startDoc(ord)
					if !c.e.match(p.root) {
						continue
					}
					want := mergedWeight(c.e)
					require.Equal(t, want, c.e.weight(), fmt.Sprintf("query %q ranker %s doc %v", text, r, docs[s.segs[c.pos].ids[ord]-1].Values))
					checked++
				}
			}
		}
	}
	require.Greater(t, checked, 1000)
}

// mergedWeight is weight computed the plain way (see TestWeightWalk).
func mergedWeight(e *segEval) int64 {
	p := e.p
	if p.ranker == RankNone {
		return 1
	}
	if p.counts {
		return e.weightFromCounts()
	}
	type hit struct {
		f    int
		pos  uint32
		qpos int
		lt   int
	}
	var hits []hit
	tf := make([]int32, len(p.leaves))
	for _, l := range p.keywords {
		if l.neg {
			continue
		}
		sps := e.leafSpans(l)
		tf[l.lt] = max(tf[l.lt], int32(len(sps)))
		for _, s := range sps {
			hits = append(hits, hit{f: s.f, pos: s.a, qpos: l.kw.QPos, lt: l.lt})
		}
	}
	bm := p.bm25(tf)
	if p.ranker == RankBM25 {
		return bm
	}
	// A stable sort by (field, position, query position).
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0; j-- {
			a, b := hits[j-1], hits[j]
			if a.f < b.f || a.f == b.f && (a.pos < b.pos || a.pos == b.pos && a.qpos <= b.qpos) {
				break
			}
			hits[j-1], hits[j] = b, a
		}
	}
	var total int64
	for i := 0; i < len(hits); {
		f := hits[i].f
		j := i
		lcs, cur := 0, 0
		lastDelta := math.MinInt
		seen := map[int]bool{}
		for ; j < len(hits) && hits[j].f == f; j++ {
			h := hits[j]
			delta := int(h.pos) - h.qpos
			if delta == lastDelta && j > i && hits[j-1].pos != h.pos {
				cur++
			} else {
				cur = 1
			}
			lastDelta = delta
			lcs = max(lcs, cur)
			seen[h.lt] = true
		}
		lcs = min(lcs, p.nwords)
		w := p.weights[f]
		switch p.ranker {
		case RankProximityBM25:
			total += int64(lcs) * w * 1000
		case RankWordcount:
			total += int64(j-i) * w
		case RankProximity:
			total += int64(lcs) * w
		case RankMatchAny:
			total += (int64(lcs-1)*int64(p.nwords) + int64(len(seen))) * w
		case RankFieldmask:
			total |= 1 << f
		case RankSPH04:
			v := int64(4 * lcs)
			if hits[i].pos == 1 {
				v += 2
			}
			if lcs == p.nwords && int(e.fieldLen(f)) == p.span {
				v++
			}
			total += v * w * 1000
		}
		i = j
	}
	if p.ranker == RankProximityBM25 || p.ranker == RankSPH04 {
		total += bm
	}
	return total
}
