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

// hitList is the occurrences of one positive keyword in the document
// ranked, sorted by field and position, as weight walks them.
type hitList struct {
	sps  []span
	qpos int // the keyword's query position
	lt   int // its leafTerm
}

// before reports whether the next occurrence of x comes before that of y
// (by field, position, then query position); both lists are non-empty.
func (x *hitList) before(y *hitList) bool {
	a, b := x.sps[0], y.sps[0]
	if a.f != b.f {
		return a.f < b.f
	}
	if a.a != b.a {
		return a.a < b.a
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
	defer func() {
		p.counts = p.countsOnly() && p.ranker != RankSPH04
		p.sparse = !p.counts && p.sparseCounts()
	}()
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

// sparseCounts reports whether weight may rank a document from occurrence
// counts when each field holds at most one of the query's positive
// keywords (weightSparse): the keywords are single terms (a wildcard's
// expansions may share positions) that need no positional check, and the
// ranker does not look at where the first hit lies (sph04).
func (p *plan) sparseCounts() bool {
	if p.ranker == RankSPH04 {
		return false
	}
	for _, l := range p.keywords {
		if !l.neg && (!l.exactBitmap() || p.leaves[l.lt].wildcard) {
			return false
		}
	}
	return true
}

// weightSparse is weight for a document in which no field holds two
// distinct positive keywords (ok is false otherwise): each field's run of
// keywords is then 1 long, and the counts of the posting lists give the
// rest without reading a position. When sparseCounts holds, most
// documents of a query of one frequent and a few rare words are of this
// kind.
func (e *segEval) weightSparse() (w int64, ok bool) {
	p := e.p
	tf := e.tf
	clear(tf)
	fh := e.fieldHits
	clear(fh)
	owner := e.fieldMatched // per field: 1 + the leafTerm found there, 0 for none
	clear(owner)
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
			if o := owner[c.field]; o != 0 && o != int64(l.lt+1) {
				return 0, false
			}
			owner[c.field] = int64(l.lt + 1)
			n += int32(c.c.count)
			fh[c.field] += int64(c.c.count)
		}
		tf[l.lt] = max(tf[l.lt], n)
	}
	var total int64
	for f, hits := range fh {
		if hits > 0 {
			total = e.addField(total, &fieldRun{f: f, hits: int(hits), lcs: 1, matched: 1})
		}
	}
	if p.ranker == RankProximityBM25 {
		total += p.bm25(tf)
	}
	return total, true
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
			total += min(fm[f], int64(p.nwords)) * w
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
	if p.sparse {
		if w, ok := e.weightSparse(); ok {
			return w
		}
	}
	// Each keyword's spans are sorted by (field, position): walk them as
	// one hit stream in that order (ties by query position; hits equal in
	// all three weigh the same in any order).
	lists := e.lists[:0]
	tf := e.tf
	clear(tf)
	for _, l := range p.keywords {
		if l.neg {
			continue
		}
		sps := e.leafSpans(l)
		tf[l.lt] = max(tf[l.lt], int32(len(sps)))
		if p.ranker != RankBM25 && len(sps) > 0 {
			lists = append(lists, hitList{sps: sps, qpos: l.kw.QPos, lt: l.lt})
		}
	}
	e.lists = lists
	bm := p.bm25(tf)
	if p.ranker == RankBM25 {
		return bm
	}

	var total int64
	var r fieldRun
	seen := e.seen
	// Past a field's first hits, most rankers need only its lcs, which
	// is at most nwords (addField).
	allHits := p.ranker == RankWordcount || p.ranker == RankMatchAny
	for {
		next := -1
		for i := range lists {
			if len(lists[i].sps) > 0 && (next < 0 || lists[i].before(&lists[next])) {
				next = i
			}
		}
		if next < 0 {
			break
		}
		l := &lists[next]
		h := l.sps[0]
		l.sps = l.sps[1:]
		if r.hits == 0 || h.f != r.f {
			if r.hits > 0 {
				total = e.addField(total, &r)
			}
			r = fieldRun{f: h.f, first: h.a, lastDelta: math.MinInt}
			clear(seen)
		}
		delta := int(h.a) - l.qpos
		if delta == r.lastDelta && r.hits > 0 && r.lastPos != h.a {
			r.cur++
		} else {
			r.cur = 1
		}
		r.lastDelta, r.lastPos = delta, h.a
		r.lcs = max(r.lcs, r.cur)
		if !seen[l.lt] {
			seen[l.lt] = true
			r.matched++
		}
		r.hits++
		if r.lcs >= p.nwords && !allHits {
			// The field's weight cannot grow: skip its other hits.
			for i := range lists {
				lists[i].sps = skipField(lists[i].sps, r.f)
			}
		}
	}
	if r.hits > 0 {
		total = e.addField(total, &r)
	}
	if p.ranker == RankProximityBM25 || p.ranker == RankSPH04 {
		total += bm
	}
	return total
}

// skipField returns sps past its spans in field f (sps is sorted by
// field, and holds no span of a field before f).
func skipField(sps []span, f int) []span {
	lo, hi := 0, len(sps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sps[m].f <= f {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return sps[lo:]
}

// fieldRun is what weight gathers of the hits in one field.
type fieldRun struct {
	f         int
	hits      int    // hits so far
	first     uint32 // position of the first hit
	lcs, cur  int    // longest run of keywords in query order, and the current one
	lastDelta int    // position - query position of the last hit
	lastPos   uint32
	matched   int // distinct keywords
}

// addField adds the weight of the field of r to total.
func (e *segEval) addField(total int64, r *fieldRun) int64 {
	p := e.p
	lcs := min(r.lcs, p.nwords)
	w := p.weights[r.f]
	switch p.ranker {
	case RankProximityBM25:
		total += int64(lcs) * w * 1000
	case RankWordcount:
		total += int64(r.hits) * w
	case RankProximity:
		total += int64(lcs) * w
	case RankMatchAny:
		total += (int64(lcs-1)*int64(p.nwords) + int64(r.matched)) * w
	case RankFieldmask:
		if r.f < 63 {
			total |= 1 << r.f
		}
	case RankSPH04:
		v := int64(4 * lcs)
		if r.first == 1 {
			v += 2
		}
		if lcs == p.nwords && int(e.fieldLen(r.f)) == p.span {
			v++
		}
		total += v * w * 1000
	}
	return total
}
