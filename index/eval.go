package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// Evaluation of a plan in one segment, in two steps: candidates computes a
// bitmap of the ordinals that may match (exactly the matches when the plan
// is exact), from posting bitmaps alone; match then checks one candidate
// against every positional rule, reading word positions through cursors
// that only move forward (candidates come in ascending ordinal order).

// span is an occurrence of a query part in one field: positions a..b
// (a == b for one word).
type span struct {
	f    int
	a, b uint32
}

func spanLess(x, y span) int {
	switch {
	case x.f != y.f:
		return x.f - y.f
	case x.a != y.a:
		return int(x.a) - int(y.a)
	}
	return int(x.b) - int(y.b)
}

// termCursor walks one posting list of a leafTerm.
type termCursor struct {
	field   int
	c       postingCursor
	started bool
	done    bool
}

// seek moves to ord (or past it) and reports whether the posting has it.
func (t *termCursor) seek(ord uint32) bool {
	if t.done {
		return false
	}
	for !t.started || t.c.ord < ord {
		t.started = true
		if !t.c.next() {
			t.done = true
			return false
		}
	}
	return t.c.ord == ord
}

// segEval evaluates a plan in one segment.
type segEval struct {
	s   *Snapshot
	seg *segment // nil for a document given as text (mem)
	p   *plan
	pos int
	mem *memDoc
	// direct: the positions of the one document evaluated are read from the
	// postings by ordinal (positionsOf) instead of by walking cursors.
	direct bool

	ord  uint32
	curs [][]termCursor // per leafTerm
	raw  [][]span       // per leafTerm: its positions in the current document
	gen  []uint32       // per leafTerm: the document raw holds (doc+1)
	doc  uint32         // 1 + number of documents started

	leafOcc [][]span // per keyword (plan.keywords index): filtered positions
	leafGen []uint32

	zones      []zoneCache
	restrict   *span     // inside ZONESPAN: the one zone span leaves must lie in
	lists      []hitList // weight's
	phraseAt   []int     // phrase's cursors
	phraseRest [][]span  // phrase's lists
	tf         []int32   // per leafTerm, for weight
	seen       []bool    // per leafTerm, for weight

	fieldHits    []int64 // per field, for weightFromCounts
	fieldMatched []int64

	posBuf []uint32 // rawPositions' scratch, kept for its capacity
}

type zoneCache struct {
	z   *zoneFilter
	gen uint32
	ivs []span
}

func newSegEval(s *Snapshot, p *plan, pos int) *segEval {
	// The per-leaf and per-keyword lists share backing arrays by type (a
	// search of few terms made ten small allocations per segment).
	nl, nk, nf := len(p.leaves), len(p.keywords), s.segs[pos].nf
	spans := make([][]span, nl+nk)
	u32 := make([]uint32, nl+nk)
	ints := make([]int64, 2*nf)
	e := &segEval{s: s, seg: s.segs[pos], p: p, pos: pos,
		curs: make([][]termCursor, nl), raw: spans[:nl:nl], gen: u32[:nl:nl],
		leafOcc: spans[nl:], leafGen: u32[nl:],
		tf: make([]int32, nl), seen: make([]bool, nl),
		fieldHits: ints[:nf:nf], fieldMatched: ints[nf:]}
	n := 0
	for _, lt := range p.leaves {
		n += len(lt.segs[pos].postings)
	}
	its := make([]roaring.IntIterator, n) // one allocation for every cursor's iterator
	for i, lt := range p.leaves {
		for _, fp := range lt.segs[pos].postings {
			e.curs[i] = append(e.curs[i], termCursor{field: fp.field, c: fp.p.cursor(&its[len(its)-n])})
			n--
		}
	}
	return e
}

func (e *segEval) startDoc(ord uint32) {
	e.ord = ord
	e.doc++
}

// candidates returns a superset of the ordinals that match n (nil: none).
// The result may be shared with the postings: callers must not modify it.
func (e *segEval) candidates(n node) *roaring.Bitmap {
	switch n := n.(type) {
	case *leaf:
		ls := &e.p.leaves[n.lt].segs[e.pos]
		if ls.any == nil {
			return nil
		}
		if n.fields == allFields(len(e.s.layout.indexed)) {
			return ls.any
		}
		var acc *roaring.Bitmap
		for f, bm := range ls.byField {
			if bm != nil && n.fields.has(f) {
				if acc == nil {
					acc = bm
				} else {
					acc = roaring.Or(acc, bm)
				}
			}
		}
		return acc
	case *andNode:
		acc := e.intersect(n.pos)
		for _, c := range n.neg {
			if acc == nil || acc.IsEmpty() {
				return nil
			}
			if !c.exactBitmap() {
				continue
			}
			if bm := e.candidates(c); bm != nil {
				acc = roaring.AndNot(acc, bm)
			}
		}
		return acc
	case *orNode:
		return e.union(n.children)
	case *phraseNode:
		return e.intersect(leafNodes(n.words))
	case *proximityNode:
		return e.intersect(leafNodes(n.words))
	case *quorumNode:
		if n.need >= len(n.words) {
			return e.intersect(leafNodes(n.words))
		}
		return e.union(leafNodes(n.words))
	case *nearNode:
		if n.not {
			return e.candidates(n.left)
		}
		return e.intersect([]node{n.left, n.right})
	case *beforeNode:
		return e.intersect(n.children)
	case *maybeNode:
		return e.candidates(n.left)
	case *unitNode:
		return e.intersect(n.children)
	case *zoneSpanNode:
		return e.candidates(n.child)
	}
	return nil
}

func leafNodes(ls []*leaf) []node {
	out := make([]node, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

func (e *segEval) intersect(ns []node) *roaring.Bitmap {
	var acc *roaring.Bitmap
	for i, c := range ns {
		bm := e.candidates(c)
		if bm == nil {
			return nil
		}
		if i == 0 {
			acc = bm
		} else {
			acc = roaring.And(acc, bm)
		}
		if acc.IsEmpty() {
			return nil
		}
	}
	return acc
}

func (e *segEval) union(ns []node) *roaring.Bitmap {
	var acc *roaring.Bitmap
	for _, c := range ns {
		bm := e.candidates(c)
		if bm == nil {
			continue
		}
		if acc == nil {
			acc = bm
		} else {
			acc = roaring.Or(acc, bm)
		}
	}
	return acc
}

// fieldLen is the number of positions of field f in the current document.
func (e *segEval) fieldLen(f int) uint32 {
	if e.mem != nil {
		return e.mem.lens[f]
	}
	return e.seg.lens[int(e.ord)*e.seg.nf+f]
}

// rawPositions returns every position of leafTerm lt in the current
// document, in (field, position) order.
func (e *segEval) rawPositions(lt int) []span {
	if e.mem != nil {
		return e.mem.positions(e.p, lt)
	}
	if e.gen[lt] == e.doc {
		return e.raw[lt]
	}
	e.gen[lt] = e.doc
	out := e.raw[lt][:0]
	curs := e.curs[lt]
	var postings []fieldPosting
	n := len(curs)
	if e.direct {
		postings = e.p.leaves[lt].segs[e.pos].postings
		n = len(postings)
	}
	for i := range n {
		var field int
		from := len(out)
		if e.direct {
			ps := postings[i].p.positionsOf(e.ord, e.posBuf[:0])
			e.posBuf = ps
			field = postings[i].field
			for _, p := range ps {
				out = append(out, span{f: field, a: p, b: p})
			}
		} else {
			c := &curs[i]
			if !c.seek(e.ord) {
				continue
			}
			field = c.field
			out = c.c.appendSpans(out, field)
		}
		if from > 0 && len(out) > from && out[from-1].f == field {
			// Another term of the same wildcard in the same field: merge.
			lo := from - 1
			for lo > 0 && out[lo-1].f == field {
				lo--
			}
			part := out[lo:]
			slices.SortFunc(part, spanLess)
			out = out[:lo+len(slices.Compact(part))]
		}
	}
	e.raw[lt] = out
	return out
}

// leafSpans returns the positions of a keyword in the current document that
// its scope allows (fields, field position limit, field start or end,
// zones, and the zone span of an enclosing ZONESPAN).
func (e *segEval) leafSpans(l *leaf) []span {
	k := l.idx
	cacheable := e.restrict == nil
	if cacheable && e.leafGen[k] == e.doc {
		return e.leafOcc[k]
	}
	raw := e.rawPositions(l.lt)
	if e.restrict == nil && l.unrestricted {
		return raw
	}
	var out []span
	if cacheable {
		out = e.leafOcc[k][:0]
	}
	var zones []span
	if l.zone != nil {
		zones = e.zoneSpans(l.zone)
	}
	for _, sp := range raw {
		if !l.fields.has(sp.f) || l.maxPos > 0 && sp.a > l.maxPos {
			continue
		}
		if l.kw.FieldStart && sp.a != 1 {
			continue
		}
		if l.kw.FieldEnd && sp.a != e.fieldLen(sp.f) {
			continue
		}
		if l.zone != nil && !inSpans(zones, sp) {
			continue
		}
		if r := e.restrict; r != nil && (sp.f != r.f || sp.a < r.a || sp.b > r.b) {
			continue
		}
		out = append(out, sp)
	}
	if cacheable {
		e.leafOcc[k], e.leafGen[k] = out, e.doc
	}
	return out
}

// inSpans reports whether sp lies inside one of ivs (sorted by field and start).
func inSpans(ivs []span, sp span) bool {
	for _, iv := range ivs {
		if iv.f == sp.f && iv.a <= sp.a && sp.b <= iv.b {
			return true
		}
	}
	return false
}

// zoneSpans returns the spans of the zones of z in the current document:
// each open mark paired with the close mark that ends it.
func (e *segEval) zoneSpans(z *zoneFilter) []span {
	var zc *zoneCache
	for i := range e.zones {
		if e.zones[i].z == z {
			zc = &e.zones[i]
		}
	}
	if zc == nil {
		e.zones = append(e.zones, zoneCache{z: z})
		zc = &e.zones[len(e.zones)-1]
	}
	if zc.gen == e.doc {
		return zc.ivs
	}
	zc.gen = e.doc
	ivs := zc.ivs[:0]
	type mark struct {
		f     int
		pos   uint32
		close bool
	}
	var marks []mark
	var stack []mark
	for i := range z.open {
		marks = marks[:0]
		for _, sp := range e.rawPositions(z.open[i]) {
			marks = append(marks, mark{f: sp.f, pos: sp.a})
		}
		for _, sp := range e.rawPositions(z.close[i]) {
			marks = append(marks, mark{f: sp.f, pos: sp.a, close: true})
		}
		slices.SortStableFunc(marks, func(x, y mark) int {
			switch {
			case x.f != y.f:
				return x.f - y.f
			case x.pos != y.pos:
				return int(x.pos) - int(y.pos)
			case x.close == y.close:
				return 0
			case y.close:
				return -1
			}
			return 1
		})
		stack = stack[:0]
		for _, m := range marks {
			if !m.close {
				stack = append(stack, m)
				continue
			}
			if len(stack) == 0 || stack[len(stack)-1].f != m.f {
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.pos <= m.pos {
				ivs = append(ivs, span{f: m.f, a: o.pos, b: m.pos})
			}
		}
	}
	slices.SortFunc(ivs, spanLess)
	zc.ivs = ivs
	return ivs
}

// match reports whether the current document matches n.
func (e *segEval) match(n node) bool {
	_, ok := e.eval(n, false)
	return ok
}

// eval reports whether the current document matches n and, when want is
// set, returns the spans of the occurrences that make it match, sorted.
func (e *segEval) eval(n node, want bool) ([]span, bool) {
	switch n := n.(type) {
	case *leaf:
		sp := e.leafSpans(n)
		return sp, len(sp) > 0
	case *andNode:
		var out []span
		for _, c := range n.pos {
			sp, ok := e.eval(c, want)
			if !ok {
				return nil, false
			}
			out = append(out, sp...)
		}
		for _, c := range n.neg {
			if _, ok := e.eval(c, false); ok {
				return nil, false
			}
		}
		if want {
			slices.SortFunc(out, spanLess)
		}
		return out, true
	case *orNode:
		var out []span
		any := false
		for _, c := range n.children {
			sp, ok := e.eval(c, want)
			if ok {
				any = true
				if !want {
					return nil, true
				}
				out = append(out, sp...)
			}
		}
		if want {
			slices.SortFunc(out, spanLess)
		}
		return out, any
	case *phraseNode:
		return e.phrase(n, want)
	case *proximityNode:
		return e.proximity(n)
	case *quorumNode:
		var out []span
		have := 0
		for _, w := range n.words {
			if sp := e.leafSpans(w); len(sp) > 0 {
				have++
				out = append(out, sp...)
			}
		}
		if have < n.need {
			return nil, false
		}
		slices.SortFunc(out, spanLess)
		return out, true
	case *nearNode:
		return e.near(n)
	case *beforeNode:
		return e.before(n)
	case *maybeNode:
		sp, ok := e.eval(n.left, want)
		if !ok {
			return nil, false
		}
		if want {
			if r, ok := e.eval(n.right, true); ok {
				sp = append(slices.Clip(sp), r...)
				slices.SortFunc(sp, spanLess)
			}
		}
		return sp, true
	case *unitNode:
		return e.unit(n)
	case *zoneSpanNode:
		ivs := slices.Clone(e.zoneSpans(n.zone))
		saved := e.restrict
		defer func() { e.restrict = saved }()
		var out []span
		any := false
		for i := range ivs {
			if saved != nil && (ivs[i].f != saved.f || ivs[i].b < saved.a || ivs[i].a > saved.b) {
				continue
			}
			iv := ivs[i]
			if saved != nil {
				iv.a, iv.b = max(iv.a, saved.a), min(iv.b, saved.b)
			}
			e.restrict = &iv
			sp, ok := e.eval(n.child, want)
			if ok {
				any = true
				if !want {
					return nil, true
				}
				out = append(out, slices.Clone(sp)...)
			}
		}
		return out, any
	}
	return nil, false
}

// phrase finds the occurrences of a phrase; without want, it stops at the
// first one.
func (e *segEval) phrase(n *phraseNode, want bool) ([]span, bool) {
	first := e.leafSpans(n.words[0])
	if len(first) == 0 {
		return nil, false
	}
	rest := append(e.phraseRest[:0], first) // rest[i]: the spans of word i
	for _, w := range n.words[1:] {
		sp := e.leafSpans(w)
		if len(sp) == 0 {
			return nil, false
		}
		rest = append(rest, sp)
	}
	e.phraseRest = rest
	// Every list is sorted and the wanted positions grow with s: one
	// forward cursor per word.
	var out []span
	found := false
	last := n.offs[len(n.offs)-1]
	at := e.phraseAt[:0]
	for range n.words {
		at = append(at, 0)
	}
	e.phraseAt = at
	for _, s := range first {
		ok := true
		for i := 1; i < len(n.words) && ok; i++ {
			next := span{f: s.f, a: s.a + n.offs[i]}
			r := rest[i]
			j := at[i]
			for j < len(r) && (r[j].f < next.f || r[j].f == next.f && r[j].a < next.a) {
				j++
			}
			at[i] = j
			ok = j < len(r) && r[j].f == next.f && r[j].a == next.a
		}
		if ok {
			if !want {
				return nil, true
			}
			found = true
			out = append(out, span{f: s.f, a: s.a, b: s.a + last})
		}
	}
	return out, found
}

// proximity: within one field, some window of at most dist+len(words)-1
// positions holds every word.
func (e *segEval) proximity(n *proximityNode) ([]span, bool) {
	type ev struct {
		f    int
		pos  uint32
		word int
	}
	var evs []ev
	for w, l := range n.words {
		sp := e.leafSpans(l)
		if len(sp) == 0 {
			return nil, false
		}
		for _, s := range sp {
			evs = append(evs, ev{f: s.f, pos: s.a, word: w})
		}
	}
	slices.SortFunc(evs, func(x, y ev) int {
		if x.f != y.f {
			return x.f - y.f
		}
		return int(x.pos) - int(y.pos)
	})
	k := len(n.words)
	window := uint32(n.dist + k - 1)
	counts := make([]int, k)
	var out []span
	have, lo := 0, 0
	for hi := range evs {
		if hi > 0 && evs[hi].f != evs[hi-1].f {
			clear(counts)
			have, lo = 0, hi
		}
		if counts[evs[hi].word]++; counts[evs[hi].word] == 1 {
			have++
		}
		for have == k {
			if evs[hi].pos-evs[lo].pos+1 <= window {
				out = append(out, span{f: evs[hi].f, a: evs[lo].pos, b: evs[hi].pos})
			}
			if counts[evs[lo].word]--; counts[evs[lo].word] == 0 {
				have--
			}
			lo++
		}
	}
	return out, len(out) > 0
}

// gap is the number of positions between two spans of one field (0 when
// they touch or overlap).
func gap(x, y span) uint32 {
	switch {
	case y.a > x.b:
		return y.a - x.b
	case x.a > y.b:
		return x.a - y.b
	}
	return 0
}

func (e *segEval) near(n *nearNode) ([]span, bool) {
	ls, ok := e.eval(n.left, true)
	if !ok {
		return nil, false
	}
	rs, rok := e.eval(n.right, true)
	var out []span
	for _, l := range ls {
		close := false
		for _, r := range rs {
			if r.f == l.f && gap(l, r) <= uint32(n.dist) && (l.a != r.a || l.b != r.b) {
				close = true
				if !n.not {
					out = append(out, span{f: l.f, a: min(l.a, r.a), b: max(l.b, r.b)})
				}
			}
		}
		if n.not && (!rok || !close) {
			out = append(out, l)
		}
	}
	if !n.not {
		slices.SortFunc(out, spanLess)
		out = slices.Compact(out)
	}
	return out, len(out) > 0
}

// before: in one field, an occurrence of every child, each starting after
// the previous one ends (as Sphinx: the order does not run across fields).
// Per field, the earliest-ending choice at each step finds a chain whenever
// there is one.
func (e *segEval) before(n *beforeNode) ([]span, bool) {
	all := make([][]span, len(n.children))
	for i, c := range n.children {
		sps, ok := e.eval(c, true)
		if !ok {
			return nil, false
		}
		all[i] = sps
	}
	var out []span
	for _, first := range all[0] {
		if len(out) > 0 && out[0].f == first.f {
			continue // this field was tried from its earliest-ending start
		}
		chain := []span{first}
		prev := first
		for i := 1; i < len(all); i++ {
			best := -1
			for j, s := range all[i] {
				if s.f != prev.f || s.a <= prev.b {
					continue
				}
				if best < 0 || s.b < all[i][best].b {
					best = j
				}
			}
			if best < 0 {
				chain = nil
				break
			}
			prev = all[i][best]
			chain = append(chain, prev)
		}
		if chain != nil {
			return chain, true
		}
		out = append(out[:0], first)
	}
	return nil, false
}

// unit: an occurrence of every child inside one sentence (or paragraph) of
// one field; a unit starts at each boundary mark.
func (e *segEval) unit(n *unitNode) ([]span, bool) {
	bounds := e.rawPositions(n.boundary)
	unitOf := func(f int, pos uint32) int {
		u := 0
		for _, b := range bounds {
			if b.f == f && b.a <= pos {
				u++
			}
		}
		return u
	}
	type key struct{ f, u int }
	var common map[key]bool
	all := make([][]span, len(n.children))
	for i, c := range n.children {
		sps, ok := e.eval(c, true)
		if !ok {
			return nil, false
		}
		all[i] = sps
		here := map[key]bool{}
		for _, s := range sps {
			if u := unitOf(s.f, s.a); u == unitOf(s.f, s.b) && (common == nil || common[key{s.f, u}]) {
				here[key{s.f, u}] = true
			}
		}
		if len(here) == 0 {
			return nil, false
		}
		common = here
	}
	var out []span
	for _, sps := range all {
		for _, s := range sps {
			if common[key{s.f, unitOf(s.f, s.a)}] {
				out = append(out, s)
			}
		}
	}
	slices.SortFunc(out, spanLess)
	return out, true
}
