package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/dgraph-io/badger/v4"
)

// Merging segments.
//
// Every statement that adds documents makes a segment, and a search reads
// every segment (a word's filter, block and posting list in each), so a table
// written in many statements searches slower than the same documents in one
// segment: Debian's descriptions in 67 segments of 1,000 find a rare word ten
// times slower and a frequent one 20% slower. The table's merges, run in the
// background (maintain.go), combine neighbouring segments of about the same
// size into one, the way a log-structured merge tree does:
//
//   - a segment's level is how many times its live documents divide by the
//     merge factor F (Options.MergeFactor, default 8): 1 to 7 live documents
//     are level 0, 8 to 63 level 1, 1,000 level 3;
//   - a run of F neighbouring segments of one level becomes one segment (of
//     the next level, less its deletions); at level 0 the whole run does, up
//     to F*F segments (a flood of single-row statements outruns merges of
//     F: each is a commit);
//   - a segment with more deleted documents than live ones is rewritten,
//     with the neighbours that follow it while the live documents stay at
//     its level (up to 256 segments), and one with none live is removed.
//
// So a table holds at most F-1 segments of each level after its merges (a
// few dozen for any size), and a document is rewritten once per level it
// climbs. A merged segment takes the place of its sources, so the order of
// the segments (and of the ids in them) stays as it was.
//
// A merge tokenizes nothing: it reads the sources' posting lists of each
// field in term order and writes merged lists (ordinals renumbered, deleted
// documents left out, positions copied as they are); the docstore records
// stay where they are, and the merged segment says where (records.go). It
// writes under a pending marker like a statement, then commits in one
// transaction that registers the merged segment and unregisters the
// sources, marking their keys (and the records of the documents left out)
// as garbage. What committed meanwhile (deletions and attribute updates of the
// sources' documents) is carried over at the commit, under the table's
// write lock. Snapshots taken before the commit still read the sources'
// keys, so those are deleted only when no snapshot holds a source any more
// (a cleanup attached to the sources' segmentKeys runs after the garbage
// collector finds them unreachable); if the server stops first, the next Open
// removes them (the retired marker stays until they are gone).

// DefaultMergeFactor is the merge factor when Options leaves it 0.
const DefaultMergeFactor = 8

// mergeLevel is the level of a segment with live documents.
func mergeLevel(live, factor int) int {
	l := 0
	for ; live >= factor; live /= factor {
		l++
	}
	return l
}

// maxDeletedRun is the most segments one rewrite of a mostly deleted
// segment takes with it.
const maxDeletedRun = 256

// pickMerge returns the positions [lo, hi) of the segments to merge next,
// or lo == hi when none need it.
func pickMerge(segs []*segment, factor int) (lo, hi int) {
	if factor < 2 {
		return 0, 0 // merges are off
	}
	for i, s := range segs {
		if 2*s.live() < s.n() {
			// The neighbours that follow go with it while the live
			// documents keep the level of its own: a churn of REPLACEs
			// empties a segment a statement (between the segments of
			// the statements' new documents), more than a commit each
			// could keep up with.
			level, live, j := mergeLevel(s.live(), factor), s.live(), i+1
			for ; j < len(segs) && j-i < maxDeletedRun; j++ {
				if mergeLevel(live+segs[j].live(), factor) > level {
					break
				}
				live += segs[j].live()
			}
			return i, j
		}
	}
	for i := 0; i < len(segs); {
		l := mergeLevel(segs[i].live(), factor)
		j := i + 1
		for j < len(segs) && mergeLevel(segs[j].live(), factor) == l {
			j++
		}
		if j-i >= factor {
			if l == 0 {
				// Segments of a few documents, one per single-row
				// statement, come faster than merges of F: a longer run
				// of them goes at once (up to F*F, still small).
				return i, min(j, i+factor*factor)
			}
			return i, i + factor
		}
		i = j
	}
	return 0, 0
}

// segmentKeys names the keys of one segment. It is shared by every version
// of the segment (a deletion or an update copies the segment, not this), so
// it is unreachable once no snapshot holds any version: a merge that retires
// the segment attaches the removal of its keys to it.
type segmentKeys struct {
	t   *Table
	tid uint32
	seg uint32
}

// mergeSource is one segment of a merge and where its documents go.
type mergeSource struct {
	seg  *segment
	base uint32   // merged ordinal of ordinal 0 when to is nil
	to   []uint32 // merged ordinal of each ordinal (noOrd: deleted); nil when none is deleted
	// dropped are the docstore records of the documents the merge leaves
	// out (records.go): they go with the source.
	dropped []docRun
}

const noOrd = ^uint32(0)

func (m *mergeSource) ord(ord uint32) uint32 {
	if m.to == nil {
		return m.base + ord
	}
	return m.to[ord]
}

// planMerge numbers the live documents of segs in order and returns how
// many there are; with records (the table stores text), it also lists the
// records of the deleted ones.
func planMerge(segs []*segment, records bool) ([]mergeSource, int) {
	ms := make([]mergeSource, len(segs))
	n := 0
	for i, s := range segs {
		ms[i] = mergeSource{seg: s, base: uint32(n)}
		if s.deleted == nil || s.deleted.IsEmpty() {
			n += s.n()
			continue
		}
		ms[i].to = make([]uint32, s.n())
		c := recordCursor{s: s}
		for ord := range ms[i].to {
			if s.deleted.Contains(uint32(ord)) {
				ms[i].to[ord] = noOrd
				if records {
					seg, at := c.record(uint32(ord))
					ms[i].dropped = appendRecord(ms[i].dropped, seg, at)
				}
			} else {
				ms[i].to[ord] = uint32(n)
				n++
			}
		}
	}
	return ms, n
}

// Optimize merges every segment of the table into one, leaving out the
// deleted documents, and returns when it is committed (OPTIMIZE TABLE).
func (t *Table) Optimize(ctx context.Context) error {
	return t.mergeWith(ctx, false, func(segs []*segment) (int, int) {
		if len(segs) == 1 && segs[0].live() == segs[0].n() {
			return 0, 0
		}
		return 0, len(segs)
	})
}

// mergeNext makes the next merge that pickMerge names; false when there is none.
func (t *Table) mergeNext(ctx context.Context) (bool, error) {
	merged := false
	err := t.mergeWith(ctx, true, func(segs []*segment) (int, int) {
		lo, hi := pickMerge(segs, t.db.mergeFactor)
		merged = lo < hi
		return lo, hi
	})
	return merged, err
}

// mergeWith merges the segments [lo, hi) that pick chooses among the
// current ones (none when lo == hi). A background merge gives way to DROP
// and TRUNCATE (maintenance.interrupt); OPTIMIZE TABLE does not.
func (t *Table) mergeWith(ctx context.Context, background bool, pick func([]*segment) (lo, hi int)) error {
	db := t.db
	db.wmu.RLock() // no DROP or TRUNCATE meanwhile
	defer db.wmu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	if background && db.maint.ddl.Load() > 0 {
		return errInterrupted
	}
	if t.dropped {
		return fmt.Errorf("%w: %s", ErrNoSuchTable, t.schema.Name)
	}
	t.mergeMu.Lock() // one merge of the table at a time
	defer t.mergeMu.Unlock()
	segs := t.Snapshot().segs
	lo, hi := pick(segs)
	if lo == hi {
		return nil
	}
	// A merge writes its segment before it frees those it replaces: it
	// waits for twice the reserve (the next write asks again).
	if err := db.checkSpace(db.reserve, "a merge"); err != nil {
		return err
	}
	ms, n := planMerge(segs[lo:hi], len(t.layout.stored) > 0)
	var staged *stagedSegment
	if n > 0 {
		t.mu.Lock()
		num := t.nextSeg
		t.nextSeg++
		t.mu.Unlock()
		if hook := db.knobs.beforeMergeStage; hook != nil {
			hook(ctx)
		}
		var err error
		staged, err = t.stage(ctx, num, func(put func(k, v []byte) error) (*segment, error) {
			return buildMerged(ctx, t, num, ms, n, put)
		})
		if err != nil {
			return err
		}
	}
	return t.commitMerge(ms, staged)
}

// buildMerged makes segment num of the n live documents of ms, passing its
// keys to put.
func buildMerged(ctx context.Context, t *Table, num uint32, ms []mergeSource, n int,
	put func(key, val []byte) error) (*segment, error) {
	l := t.layout
	nf := len(l.indexed)
	s := newSegment(t, num, n)
	vers := make([]*segment, len(ms))
	for i, m := range ms {
		vers[i] = m.seg
		s.nextID = max(s.nextID, m.seg.nextID)
		for ord, id := range m.seg.ids {
			to := m.ord(uint32(ord))
			if to == noOrd {
				continue
			}
			s.ids[to] = id
			copy(s.lens[int(to)*nf:], m.seg.lens[ord*nf:(ord+1)*nf])
		}
	}
	copyAttrs(l, s, ms, vers)
	s.index()
	if len(l.stored) > 0 {
		s.origin = mergeOrigin(ms)
	}
	var g errGroup
	for f := range nf {
		g.Go(func() error { return mergeField(ctx, t, s, f, ms, put) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return s, nil
}

// copyAttrs sets the attribute columns of the merged segment out from
// vers, the versions of the sources of ms to read them from.
func copyAttrs(l *layout, out *segment, ms []mergeSource, vers []*segment) {
	for _, col := range l.attrs {
		typ := l.schema.Columns[col].Type
		c := newAttrColumn(typ, out.n())
		for i, m := range ms {
			for ord := range m.seg.ids {
				if to := m.ord(uint32(ord)); to != noOrd {
					c.set(int(to), vers[i].attrs[col].get(typ, uint32(ord)))
				}
			}
		}
		out.attrs[col] = c
	}
}

// mergeField writes the term blocks, posting lists and term filter of field
// f of the merged segment out.
func mergeField(ctx context.Context, t *Table, out *segment, f int, ms []mergeSource,
	put func(key, val []byte) error) error {
	return t.db.bdb.View(func(txn *badger.Txn) error {
		cur := make([]*fieldTerms, len(ms))
		for i, m := range ms {
			cur[i] = newFieldTerms(txn, t.tid, m.seg, f)
			defer cur[i].close()
			if !cur[i].next() && cur[i].err != nil {
				return cur[i].err
			}
		}
		var mem arena
		bw := blockWriter{key: appendBlockPrefix(nil, t.tid, out.seg, byte(f)), mem: &mem, put: put}
		bm := roaring.New()
		var pm postingMerge
		var hashes []uint64
		var term, val, key []byte
		for n := 0; ; n++ {
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var least []byte
			for _, c := range cur {
				if c.ok && (least == nil || bytes.Compare(c.term, least) < 0) {
					least = c.term
				}
			}
			if least == nil {
				break
			}
			term = append(term[:0], least...)
			pm.reset()
			for i, c := range cur {
				if !c.ok || !bytes.Equal(c.term, term) {
					continue
				}
				if err := pm.add(c.posting, &ms[i]); err != nil {
					return fmt.Errorf("segment %d, term %q: %w", ms[i].seg.seg, term, err)
				}
				if !c.next() && c.err != nil {
					return c.err
				}
			}
			if len(pm.ords) == 0 {
				continue // only in deleted documents
			}
			val = encodePosting(val[:0], bm, pm.ords, pm.counts, pm.pos)
			own := len(val) > inlineMax
			if own {
				key = appendPostingKey(key[:0], t.tid, out.seg, byte(f), term)
				if err := put(mem.copy(key), mem.copy(val)); err != nil {
					return err
				}
			}
			hashes = append(hashes, termHash(term))
			if err := bw.add(term, val, own); err != nil {
				return err
			}
		}
		if err := bw.flush(); err != nil {
			return err
		}
		out.blocks[f] = bw.index
		out.filters[f] = newTermFilter(len(hashes))
		for _, h := range hashes {
			out.filters[f].addHash(h)
		}
		return nil
	})
}

// postingMerge gathers one term's posting lists of the sources of a merge.
type postingMerge struct {
	ords   []uint32
	counts []uint32
	pos    []byte
	p      posting             // the list being added, its bitmap reused
	it     roaring.IntIterator // over p.bm
}

func (m *postingMerge) reset() {
	m.ords, m.counts, m.pos = m.ords[:0], m.counts[:0], m.pos[:0]
}

// add appends the encoded posting list val of source src, whose documents
// come after those added so far.
func (m *postingMerge) add(val []byte, src *mergeSource) error {
	if m.p.bm == nil {
		m.p.bm = roaring.New()
	}
	if err := m.p.decode(val); err != nil {
		return err
	}
	p := &m.p
	n := src.seg.n()
	counts, pos := p.counts, p.pos
	it := &m.it
	it.Initialize(p.bm)
	for it.HasNext() {
		ord := it.Next()
		c, k := binary.Uvarint(counts)
		if k <= 0 || int(ord) >= n {
			return fmt.Errorf("%w: posting list of ordinal %d", errCorrupt, ord)
		}
		counts = counts[k:]
		if src.to == nil { // every document stays: the positions are copied at once
			m.ords = append(m.ords, src.base+ord)
			m.counts = append(m.counts, uint32(c))
			continue
		}
		end := skipUvarints(pos, 0, int(c))
		if to := src.to[ord]; to != noOrd {
			m.ords = append(m.ords, to)
			m.counts = append(m.counts, uint32(c))
			m.pos = append(m.pos, pos[:end]...)
		}
		pos = pos[end:]
	}
	if src.to == nil {
		m.pos = append(m.pos, pos...)
	}
	return nil
}

// fieldTerms walks the terms of one field of a segment in term order, with
// their posting lists.
type fieldTerms struct {
	txn    *badger.Txn
	it     *badger.Iterator // over the field's 'K' keys, or its 'P' keys without term blocks
	blocks bool
	prefix int    // length of the keys before the term
	pkey   []byte // 'P' key of the current term (own posting lists)
	block  []byte // the rest of the current block
	buf    []byte // the current block, or the current 'P' key
	own    []byte // the current term's own posting list (with blocks)

	ok      bool // term and posting are valid
	term    []byte
	posting []byte
	err     error
}

func newFieldTerms(txn *badger.Txn, tid uint32, seg *segment, f int) *fieldTerms {
	c := &fieldTerms{txn: txn, blocks: seg.blocks != nil}
	c.pkey = appendPostingKey(nil, tid, seg.seg, byte(f), nil)
	prefix := c.pkey
	if c.blocks {
		prefix = appendBlockPrefix(nil, tid, seg.seg, byte(f))
	}
	c.prefix = len(prefix)
	c.it = txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 16})
	c.it.Rewind()
	return c
}

func (c *fieldTerms) close() { c.it.Close() }

// next moves to the next term. It returns false at the end, and on an error (c.err).
func (c *fieldTerms) next() bool {
	c.ok = c.advance()
	return c.ok
}

func (c *fieldTerms) advance() bool {
	if !c.blocks {
		if !c.it.Valid() {
			return false
		}
		item := c.it.Item()
		c.buf = item.KeyCopy(c.buf[:0])
		c.term = c.buf[c.prefix:]
		c.posting, c.err = item.ValueCopy(c.posting[:0])
		c.it.Next()
		return c.err == nil
	}
	for len(c.block) == 0 {
		if !c.it.Valid() {
			return false
		}
		c.buf, c.err = c.it.Item().ValueCopy(c.buf[:0])
		if c.err != nil {
			return false
		}
		c.block = c.buf
		c.it.Next()
	}
	e, rest, err := nextEntry(c.block)
	if err != nil {
		c.err = err
		return false
	}
	c.block, c.term = rest, e.term
	if !e.own {
		c.posting = e.posting
		return true
	}
	c.pkey = append(c.pkey[:c.prefix], e.term...)
	item, err := c.txn.Get(c.pkey)
	if err != nil {
		c.err = fmt.Errorf("posting list of %q: %w", e.term, blockErr(err))
		return false
	}
	c.own, c.err = item.ValueCopy(c.own[:0]) // consumed before the next advance
	c.posting = c.own
	return c.err == nil
}

// mergeOrigin returns where the docstore records of the merged segment's
// ordinals are: where those of its sources' live documents were.
func mergeOrigin(ms []mergeSource) []docRun {
	var runs []docRun
	for _, m := range ms {
		c := recordCursor{s: m.seg}
		for ord := range uint32(m.seg.n()) {
			if m.ord(ord) != noOrd {
				seg, at := c.record(ord)
				runs = appendRecord(runs, seg, at)
			}
		}
	}
	return runs
}

// commitMerge registers the merged segment of staged (none when the sources
// had no live documents) in place of the sources of ms.
func (t *Table) commitMerge(ms []mergeSource, staged *stagedSegment) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := t.snap.Load()
	lo := 0
	for lo < len(cur.segs) && cur.segs[lo].seg != ms[0].seg.seg {
		lo++
	}
	hi := lo + len(ms)
	// Only merges remove segments, one merge of a table at a time, and new
	// segments come last: the sources are still there, side by side.
	ok := hi <= len(cur.segs)
	for i := lo; ok && i < hi; i++ {
		ok = cur.segs[i].seg == ms[i-lo].seg.seg
	}
	if !ok {
		if staged != nil {
			t.unstage(staged)
		}
		return fmt.Errorf("index: merge in %s: its segments changed", t.schema.Name)
	}
	vers := cur.segs[lo:hi] // the sources as they are now
	var out *segment
	if staged != nil {
		out = staged.seg
		attrsChanged := false
		for i, v := range vers {
			if len(v.attrs) > 0 && &v.attrs[0] != &ms[i].seg.attrs[0] {
				attrsChanged = true
			}
			if v.deleted == nil || v.deleted == ms[i].seg.deleted {
				continue
			}
			gone := v.deleted
			if ms[i].seg.deleted != nil {
				gone = roaring.AndNot(v.deleted, ms[i].seg.deleted)
			}
			if out.deleted == nil {
				out.deleted = roaring.New()
			}
			for it := gone.Iterator(); it.HasNext(); {
				out.deleted.Add(ms[i].ord(it.Next()))
			}
		}
		if attrsChanged {
			copyAttrs(t.layout, out, ms, vers)
		}
	}
	retired := make([]retiredSegment, len(ms))
	for i, m := range ms {
		retired[i] = retiredSegment{segmentKeys: *m.seg.keys, records: m.dropped}
	}
	err := t.db.update(func(txn *badger.Txn) error {
		if out != nil {
			if err := t.register(txn, out); err != nil {
				return err
			}
		} else {
			// The sources go with nothing in their place: the floor of the
			// next auto id they kept goes to the catalog, so that a
			// restart does not hand out their ids again.
			if err := putCatalogEntry(txn, catalogEntry{ID: t.tid, NextID: t.nextID, Schema: *t.schema}); err != nil {
				return err
			}
		}
		for i, v := range vers {
			for _, kind := range []byte{kindSeg, kindAttr, kindDeleted} {
				if err := txn.Delete(segKey(t.tid, kind, v.seg)); err != nil {
					return err
				}
			}
			if err := txn.Set(segKey(t.tid, kindRetired, v.seg), appendRuns(nil, retired[i].records)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// After a failed sync the transaction is committed and may be on
		// disk: its staged keys stay (removing them could leave a
		// registered segment without its postings).
		var synced *SyncError
		if staged != nil && !errors.As(err, &synced) {
			t.unstage(staged)
		}
		return fmt.Errorf("index: merge in %s: %w", t.schema.Name, err)
	}
	segs := append([]*segment(nil), cur.segs[:lo]...)
	if out != nil {
		segs = append(segs, out)
	}
	segs = append(segs, cur.segs[hi:]...)
	t.snap.Store(cur.merged(segs))
	t.db.maint.merges.Add(1)
	for i, v := range vers {
		runtime.AddCleanup(v.keys, func(r retiredSegment) { r.t.db.maint.retire(r) }, retired[i])
	}
	return nil
}
