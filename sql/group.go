package sql

import (
	"context"
	"math"
	"sort"
	"strconv"

	"github.com/glint-search/glint/index"
)

// Grouping, in the stages of a grouped SELECT:
//
//	scan      every match (after WHERE and MATCH) goes to the group of its key
//	          values, made on first sight; a multi attribute key puts the
//	          document in the group of each of its values
//	fold      the group counts it, feeds its aggregates (accumulators, one per
//	          aggregate call) and keeps it as the group's best document when
//	          it sorts before the one kept (relevance, then id)
//	HAVING    filters the groups
//	ORDER BY  sorts the groups (default: by their best documents, in the order
//	          a SELECT without ORDER BY has), LIMIT cuts them
//	select    each group row is its best document's columns with the group's
//	          aggregates; stored text and highlights are read for the page only
//
// Nothing of a document is kept but its reference, so a grouped search holds
// one entry per group, not per match; the common COUNT(*) per attribute value
// costs one map lookup per match.

// groupKeyExpr reads the group's value of GROUP BY key i: GROUPBY(), and a
// key column named in the select list, HAVING or ORDER BY.
type groupKeyExpr struct {
	i   int
	typ ColumnType
}

func (e groupKeyExpr) eval(r *row) (any, error) {
	if r.grp == nil || len(r.grp.key) <= e.i {
		return nil, nil
	}
	return r.grp.key[e.i], nil
}

// denseKeys bounds the integer keys whose groups a slice indexes (at most
// 512 KB of pointers).
const denseKeys = 1 << 16

// groupRow is what a group holds once its matches are folded in.
type groupRow struct {
	key   []any // the group's key values (a multi attribute's: the one value)
	count int64
	acc   []accumulator
	aggs  []any     // the accumulators' results, for aggRef
	best  candidate // best.keys: its WITHIN GROUP ORDER BY keys
	found bool      // best is a document (false only in the implicit group of no match)
}

// runGrouped runs a grouped SELECT: the scan folds matches into groups, and
// the groups are filtered, sorted and cut before the page is read.
func (s *Session) runGrouped(ctx context.Context, p *selectPlan) (*Result, int, error) {
	snap, err := s.snapshotOf(p)
	if err != nil {
		return nil, 0, err
	}
	c := s.groupCollector(p, snap)
	n, err := s.eachMatch(ctx, p, snap, c.add)
	if err != nil {
		return nil, 0, err
	}
	return c.finish(ctx, n)
}

// groupCollector folds the matches of a search over snap into the groups
// of p.
func (s *Session) groupCollector(p *selectPlan, snap *index.Snapshot) *collector {
	g := p.group
	groups := map[any]*groupRow{}
	// The groups of one integer key, the common case, without boxing: small
	// non-negative values index a slice, others a map.
	var dense []*groupRow
	ints := map[int64]*groupRow{}
	var order []*groupRow // in order of first sight, for a stable result
	var implicit *groupRow
	if len(g.keys) == 0 {
		implicit = s.newGroup(g, nil)
		order = append(order, implicit)
	}
	relevance := p.sc.match != nil
	keyVals := make([]any, len(g.keys))
	scratch := make([]any, len(g.within))
	var composite []byte
	// spell gives gr's string keys the spelling of its best document,
	// r: under a case-insensitive collation 'Drama' and 'drama' are one
	// group, which shows its best document's, as the rest of its row does
	// (and as a distributed table's coordinator picks it among shards).
	spell := func(gr *groupRow) {
		for i, k := range g.keys {
			if v, ok := keyVals[i].(string); ok && !k.multi {
				gr.key[i] = v
			}
		}
	}
	var foldMatch func(gr *groupRow, r *row) error
	fold := func(gr *groupRow, r *row) error {
		if !g.spellBest {
			return foldMatch(gr, r)
		}
		bestID, hadBest := gr.best.id, gr.found
		err := foldMatch(gr, r)
		if gr.found && (!hadBest || gr.best.id != bestID) {
			spell(gr)
		}
		return err
	}
	foldMatch = func(gr *groupRow, r *row) error {
		gr.count++
		for i, a := range g.aggs {
			if gr.acc[i] == nil {
				continue
			}
			v, err := a.arg.eval(r)
			if err != nil {
				return err
			}
			if err := gr.acc[i].add(v); err != nil {
				return Errorf(CodeWrongValue, "%s: %v", a.text, err)
			}
		}
		if g.needBest && len(g.within) > 0 {
			return within(g, gr, r, snap, scratch)
		}
		if g.needBest && (!gr.found || relevance && r.weight > gr.best.weight) {
			gr.best, gr.found = candidate{ref: r.ref, id: snap.ID(r.ref), weight: r.weight}, true
		} else if g.needBest && (!relevance || r.weight == gr.best.weight) {
			if id := snap.ID(r.ref); id < gr.best.id {
				gr.best = candidate{ref: r.ref, id: id, weight: r.weight}
			}
		}
		return nil
	}
	var place func(r *row, k int) error
	// place puts r in the group of keyVals, expanding multi attribute keys
	// (from key k on) into one group per value.
	place = func(r *row, k int) error {
		if n, ok := keyVals[0].(int64); ok && len(keyVals) == 1 {
			var gr *groupRow
			if n >= 0 && n < denseKeys {
				if int(n) >= len(dense) {
					dense = append(dense, make([]*groupRow, int(n)+1-len(dense))...)
				}
				gr = dense[n]
			} else {
				gr = ints[n]
			}
			if gr == nil {
				gr = s.newGroup(g, []any{n})
				if n >= 0 && n < denseKeys {
					dense[n] = gr
				} else {
					ints[n] = gr
				}
				order = append(order, gr)
			}
			return fold(gr, r)
		}
		for ; k < len(g.keys); k++ {
			if set, ok := keyVals[k].([]int64); ok {
				for _, v := range set {
					keyVals[k] = v
					if err := place(r, k+1); err != nil {
						return err
					}
				}
				keyVals[k] = set
				return nil
			}
		}
		var key any
		if len(keyVals) == 1 {
			key = collKey(g.coll, keyVals[0])
		} else {
			composite = appendKey(composite[:0], keyVals, g.coll)
			if gr, ok := groups[string(composite)]; ok {
				return fold(gr, r)
			}
			key = string(composite)
		}
		gr, ok := groups[key]
		if !ok {
			gr = s.newGroup(g, append([]any(nil), keyVals...))
			groups[key] = gr
			order = append(order, gr)
		}
		return fold(gr, r)
	}
	add := func(r *row) error {
		if implicit != nil {
			return fold(implicit, r)
		}
		for i, k := range g.keys {
			v, err := k.e.eval(r)
			if err != nil {
				return err
			}
			keyVals[i] = v
		}
		return place(r, 0)
	}
	return &collector{add: add, finish: func(ctx context.Context, _ int) (*Result, int, error) {
		return s.finishGroups(ctx, p, snap, order)
	}}
}

// finishGroups applies HAVING, ORDER BY and LIMIT to the groups, in order
// of first sight, and builds the page.
func (s *Session) finishGroups(ctx context.Context, p *selectPlan, snap *index.Snapshot, order []*groupRow) (*Result, int, error) {
	g := p.group
	relevance := p.sc.match != nil
	var err error
	r := &row{snap: snap}
	kept := make([]candidate, 0, len(order))
	for _, gr := range order {
		gr.aggs = make([]any, len(g.aggs))
		for i, a := range g.aggs {
			if a.star {
				gr.aggs[i] = gr.count
			} else {
				gr.aggs[i] = gr.acc[i].result()
			}
		}
		c := gr.best
		c.grp = gr
		r.ref, r.weight, r.grp = c.ref, c.weight, gr
		if !gr.found {
			r.snap = nil // the implicit group of no match: its columns are NULL
		}
		if g.having != nil {
			v, err := g.having.eval(r)
			if err != nil {
				return nil, 0, err
			}
			if !truthy(v) {
				continue
			}
		}
		if len(p.order) > 0 {
			c.keys = make([]any, len(p.order))
			for i, o := range p.order {
				if c.keys[i], err = o.e.eval(r); err != nil {
					return nil, 0, err
				}
			}
		}
		kept = append(kept, c)
	}
	total := len(kept)
	sort.SliceStable(kept, func(i, j int) bool { return groupLess(p.order, relevance, g.coll, kept[i], kept[j]) })
	kept = kept[min(p.offset, len(kept)):]
	kept = kept[:min(len(kept), p.count, max(0, p.maxMatches-p.offset))]
	res, err := s.page(ctx, p, snap, kept)
	return res, total, err
}

// groupLess is the order of group rows: by the ORDER BY keys; without ORDER
// BY, by their best documents as a SELECT without ORDER BY sorts documents
// (relevance with a full-text query, then id). Ties go by the group keys.
func groupLess(order []orderKey, relevance bool, coll collation, a, b candidate) bool {
	if len(order) > 0 {
		for i, o := range order {
			c, ok := compare(o.coll, a.keys[i], b.keys[i])
			if !ok || c == 0 {
				continue
			}
			return o.desc == (c > 0)
		}
	} else if a.grp.found && b.grp.found {
		if relevance && a.weight != b.weight {
			return a.weight > b.weight
		}
		if a.id != b.id {
			return a.id < b.id
		}
	}
	for i := range a.grp.key {
		if c, ok := compare(coll, a.grp.key[i], b.grp.key[i]); ok && c != 0 {
			return c < 0
		}
	}
	return false
}

// within makes the document at r the best of gr if it sorts before it by
// WITHIN GROUP ORDER BY, then by id; scratch holds its keys.
func within(g *groupPlan, gr *groupRow, r *row, snap *index.Snapshot, scratch []any) error {
	for i, o := range g.within {
		v, err := o.e.eval(r)
		if err != nil {
			return err
		}
		scratch[i] = v
	}
	if gr.found && !withinBefore(g.within, scratch, gr.best.keys, func() bool { return snap.ID(r.ref) < gr.best.id }) {
		return nil
	}
	gr.best = candidate{ref: r.ref, id: snap.ID(r.ref), weight: r.weight, keys: append(gr.best.keys[:0], scratch...)}
	gr.found = true
	return nil
}

// withinBefore reports whether keys a sort before keys b; tie decides
// when they are equal.
func withinBefore(order []orderKey, a, b []any, tie func() bool) bool {
	for i, o := range order {
		c, ok := compare(o.coll, a[i], b[i])
		if ok && c != 0 {
			return o.desc == (c > 0)
		}
	}
	return tie()
}

// newGroup makes an empty group with the given key values.
func (s *Session) newGroup(g *groupPlan, key []any) *groupRow {
	gr := &groupRow{key: key, acc: make([]accumulator, len(g.aggs))}
	for i, a := range g.aggs {
		gr.acc[i] = a.newAccumulator()
	}
	return gr
}

// appendKey encodes several key values into one map key: each value is a
// type byte and its bytes, strings (as coll keys them) with their length
// first.
func appendKey(b []byte, vals []any, coll collation) []byte {
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			b = append(b, 0)
		case int64:
			b = append(b, 1)
			b = strconv.AppendInt(b, x, 10)
			b = append(b, 0)
		case uint64:
			b = append(b, 2)
			b = strconv.AppendUint(b, x, 10)
			b = append(b, 0)
		case float64:
			b = append(b, 3)
			b = strconv.AppendUint(b, math.Float64bits(x), 16)
			b = append(b, 0)
		case string:
			s := coll.key(x)
			b = append(b, 5)
			b = strconv.AppendInt(b, int64(len(s)), 10)
			b = append(b, ':')
			b = append(b, s...)
		default:
			s := displayString(x)
			b = append(b, 4)
			b = strconv.AppendInt(b, int64(len(s)), 10)
			b = append(b, ':')
			b = append(b, s...)
		}
	}
	return b
}
