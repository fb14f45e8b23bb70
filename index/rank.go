package index

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Ranker computes WEIGHT(), an integer, from the positive keywords of the
// query (those not under NOT) and where they occur in a matching document.
// Per field f (with field weight w_f, 1 unless field_weights says otherwise):
//
//   - lcs_f: the longest run of query keywords that occur in the field
//     in query order and at the same relative positions as in the query
//     (1 for any match, the number of keywords for the exact phrase);
//   - hits_f: occurrences of query keywords in the field;
//   - matched_f: distinct query keywords in the field.
//
// bm25 is a statistical score from 0 to 999 over the whole document: 500 +
// 999 * Σ_k idf_k * tf_k / (tf_k + 1.2), where tf_k counts keyword
// k's occurrences in the fields its query allows, idf_k = ln((N-n_k+1)/n_k)
// / (2 * ln(N+1) * K) with N live documents, n_k those containing k and K
// distinct keywords (so frequent words weigh less than rare ones: a word in
// more than half the documents has a negative idf), clamped to 0..999. A
// keyword boost b (word^b) multiplies a positive idf_k by b and divides a
// negative one by b, so a boost always raises the weight. This is the simplified BM25 of the Sphinx family (no document
// length normalisation), so weights compare with the peers' weights.
type Ranker uint8

// The rankers of OPTION ranker.
const (
	// RankProximityBM25 (the default): Σ_f lcs_f*w_f*1000 + bm25. A document
	// with the query words together and in order outranks one where they
	// are scattered; bm25 orders documents of equal proximity.
	RankProximityBM25 Ranker = iota
	RankBM25                 // bm25 alone
	RankNone                 // 1 for every match (fastest)
	RankWordcount            // Σ_f hits_f*w_f
	RankProximity            // Σ_f lcs_f*w_f
	RankMatchAny             // Σ_f ((lcs_f-1)*K + matched_f)*w_f: more keywords first, then proximity
	RankFieldmask            // the bit mask of the fields with a match (bit f for the f-th full-text field)
	RankSPH04                // Σ_f (4*lcs_f + 2*[a keyword is the field's first word] + [the field is exactly the query])*w_f*1000 + bm25
)

var rankerNames = []string{"proximity_bm25", "bm25", "none", "wordcount", "proximity", "matchany", "fieldmask", "sph04"}

// RankerNames lists the names OPTION ranker accepts.
func RankerNames() []string { return slices.Clone(rankerNames) }

// ParseRanker returns the ranker of a name (case-insensitive).
func ParseRanker(name string) (Ranker, error) {
	i := slices.Index(rankerNames, strings.ToLower(name))
	if i < 0 {
		return 0, fmt.Errorf("unknown ranker '%s'", name)
	}
	return Ranker(i), nil
}

func (r Ranker) String() string { return rankerNames[r] }

const bm25K1 = 1.2

// rankHit is one occurrence of a positive keyword, for the rankers.
type rankHit struct {
	f    int
	pos  uint32
	qpos int
	kw   int // plan.keywords index
}

func hitLess(x, y rankHit) bool {
	if x.f != y.f {
		return x.f < y.f
	}
	if x.pos != y.pos {
		return x.pos < y.pos
	}
	return x.qpos < y.qpos
}

// prepareRanking computes what ranking needs once per search.
func (p *plan) prepareRanking(s *Snapshot) {
	terms := map[int]bool{}
	minQ, maxQ := math.MaxInt, 0
	for _, l := range p.keywords {
		if !l.neg {
			terms[l.lt] = true
			minQ, maxQ = min(minQ, l.kw.QPos), max(maxQ, l.kw.QPos)
		}
	}
	p.nwords = len(terms)
	defer func() { p.counts = p.countsOnly() && p.ranker != RankSPH04 }()
	p.span = max(1, maxQ-minQ+1)
	p.idf = make([]float64, len(p.leaves))
	p.boost = make([]float64, len(p.leaves))
	for _, l := range p.keywords {
		b := l.kw.Boost
		if b <= 0 {
			b = 1
		}
		p.boost[l.lt] = max(p.boost[l.lt], b)
	}
	for i, lt := range p.leaves {
		n, df := p.rankingCounts(s, lt)
		p.idf[i] = math.Log((n-df+1)/df) / (2 * math.Log(n+1) * float64(max(1, p.nwords)))
	}
}

// countsOnly reports whether the ranker can work from occurrence counts
// alone, without reading word positions: when the query has at most one
// positive keyword (lcs is then 1 wherever it occurs) or the ranker ignores
// proximity, and no keyword needs a positional check of its own.
func (p *plan) countsOnly() bool {
	for _, l := range p.keywords {
		if !l.neg && !l.exactBitmap() {
			return false
		}
	}
	switch p.ranker {
	case RankBM25, RankWordcount, RankFieldmask, RankNone:
		return true
	}
	return p.nwords <= 1
}

// weightFromCounts is weight when countsOnly holds.
func (e *segEval) weightFromCounts() int64 {
	p := e.p
	tf := e.tf
	clear(tf)
	fh := e.fieldHits
	clear(fh)
	fm := e.fieldMatched
	clear(fm)
	for _, l := range p.keywords {
		if l.neg {
			continue
		}
		n := int32(0)
		for i := range e.curs[l.lt] {
			c := &e.curs[l.lt][i]
			if !l.fields.has(c.field) || !c.seek(e.ord) {
				continue
			}
			n += int32(c.c.count)
			fh[c.field] += int64(c.c.count)
			fm[c.field]++
		}
		tf[l.lt] = max(tf[l.lt], n)
	}
	bm := p.bm25(tf)
	var total int64
	for f, hits := range fh {
		if hits == 0 {
			continue
		}
		w := p.weights[f]
		switch p.ranker {
		case RankProximityBM25:
			total += w * 1000
		case RankWordcount:
			total += hits * w
		case RankProximity:
			total += w
		case RankMatchAny:
			total += int64(min(fm[f], p.nwords)) * w
		case RankFieldmask:
			if f < 63 {
				total |= 1 << f
			}
		case RankSPH04:
			// Without positions the first-word and exact-field bonuses are
			// unknown; countsOnly excludes sph04 for more than one keyword,
			// and for one keyword they need the position: see weight.
		}
	}
	switch p.ranker {
	case RankBM25:
		return bm
	case RankProximityBM25:
		total += bm
	}
	return total
}

// bm25 is the statistical part of the weight, from per-leafTerm counts.
func (p *plan) bm25(tf []int32) int64 {
	bm25 := 0.5
	for lt, n := range tf {
		if n > 0 {
			f := float64(n)
			idf := p.idf[lt]
			if b := p.boost[lt]; idf >= 0 {
				idf *= b
			} else {
				idf /= b // a boost raises the weight even of a word too common to add to it
			}
			bm25 += idf * f / (f + bm25K1)
		}
	}
	return max(0, min(999, int64(math.Round(999*bm25))))
}

// weight ranks the current document (which matched).
func (e *segEval) weight() int64 {
	p := e.p
	if p.ranker == RankNone {
		return 1
	}
	if p.counts {
		return e.weightFromCounts()
	}
	// Each keyword's spans are sorted by (field, position): merge them
	// into one hit stream in that order (ties by query position).
	hits, spare := e.hits[:0], e.spare[:0]
	tf := e.tf
	clear(tf)
	for k, l := range p.keywords {
		if l.neg {
			continue
		}
		sps := e.leafSpans(l)
		tf[l.lt] = max(tf[l.lt], int32(len(sps)))
		if p.ranker == RankBM25 || len(sps) == 0 {
			continue
		}
		spare = spare[:0]
		i := 0
		for _, s := range sps {
			h := rankHit{f: s.f, pos: s.a, qpos: l.kw.QPos, kw: k}
			for i < len(hits) && hitLess(hits[i], h) {
				spare = append(spare, hits[i])
				i++
			}
			spare = append(spare, h)
		}
		spare = append(spare, hits[i:]...)
		hits, spare = spare, hits
	}
	e.hits, e.spare = hits, spare
	bm := p.bm25(tf)
	if p.ranker == RankBM25 {
		return bm
	}

	var total int64
	seen := e.seen
	for i := 0; i < len(hits); {
		f := hits[i].f
		j := i
		lcs, cur := 0, 0
		lastDelta := math.MinInt
		clear(seen)
		matched := 0
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
			if lt := p.keywords[h.kw].lt; !seen[lt] {
				seen[lt] = true
				matched++
			}
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
			total += (int64(lcs-1)*int64(p.nwords) + int64(matched)) * w
		case RankFieldmask:
			if f < 63 {
				total |= 1 << f
			}
		case RankSPH04:
			r := int64(4 * lcs)
			if hits[i].pos == 1 {
				r += 2
			}
			if lcs == p.nwords && int(e.fieldLen(f)) == p.span {
				r++
			}
			total += r * w * 1000
		}
		i = j
	}
	if p.ranker == RankProximityBM25 || p.ranker == RankSPH04 {
		total += bm
	}
	return total
}
