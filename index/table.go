package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/index/tokenize"
)

// Table is one table. Reads go through a Snapshot; writes through Write.
type Table struct {
	db     *DB
	schema *Schema
	layout *layout
	tok    *tokenize.Tokenizer
	snap   atomic.Pointer[Snapshot]
	parsed queryCache // MATCH() texts parsed with tok

	mergeMu     sync.Mutex  // held by a merge (merge.go)
	mergeQueued atomic.Bool // the table waits for merges or is being merged

	mu      sync.Mutex // held by Write; the fields below change under it (and db.wmu)
	tid     uint32
	nextSeg uint32
	nextID  uint64
	dropped bool
	frozen  error // set by Freeze: what Write returns
}

func newTable(db *DB, e catalogEntry) (*Table, error) {
	s := e.Schema
	tok, err := tokenizerFor(&s)
	if err != nil {
		return nil, err
	}
	t := &Table{db: db, schema: &s, layout: newLayout(&s), tok: tok, tid: e.ID, nextID: max(e.NextID, 1)}
	t.snap.Store(newSnapshot(t, nil))
	return t, nil
}

// reset empties the table under a new table id (TRUNCATE). Holds db.wmu.
func (t *Table) reset(tid uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tid = tid
	t.nextSeg = 0
	t.snap.Store(newSnapshot(t, nil))
}

// Schema returns the table's schema. The caller must not modify it.
func (t *Table) Schema() *Schema { return t.schema }

// Tokenizer returns the tokenizer of the table's settings: the one its text
// was indexed with, to parse queries and highlight with.
func (t *Table) Tokenizer() *tokenize.Tokenizer { return t.tok }

// Snapshot returns an immutable view of the table's current contents.
func (t *Table) Snapshot() *Snapshot { return t.snap.Load() }

// Write runs fn with exclusive write access to the table. Everything fn does
// through the Writer is committed atomically when fn returns nil (index, attributes
// and document store together), and nothing is when fn returns an error or ctx is
// cancelled. Readers see either all of it or none of it.
//
// In a replicated DB ctx is the context of a raft entry (DB.Apply), and
// the commit records its index; an error fn returns is the entry's
// deterministic outcome, an error of the commit a failure of this node.
func (t *Table) Write(ctx context.Context, fn func(w *Writer) error) error {
	db := t.db
	e, h, err := db.change(ctx, false)
	if err != nil {
		return err
	}
	defer h.release()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return fmt.Errorf("%w: %s", ErrNoSuchTable, t.schema.Name)
	}
	if t.frozen != nil {
		return t.frozen
	}
	if err := ctx.Err(); err != nil {
		return e.fail(err)
	}
	w := newWriter(t)
	err = fn(w)
	w.done = true
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return e.fail(err)
	}
	return e.fail(t.commit(ctx, w, e))
}

// Freeze refuses every write to the table from now on, Write returning
// err, once the write running now (if any) has committed: a copy of the
// table read after Freeze holds every write that was acknowledged, and
// nothing is written after it, until Thaw. Freeze of a frozen table
// changes the error.
func (t *Table) Freeze(err error) {
	if err == nil {
		err = fmt.Errorf("index: table %s is frozen", t.schema.Name)
	}
	t.mu.Lock()
	t.frozen = err
	t.mu.Unlock()
}

// Thaw lets writes to the table run again.
func (t *Table) Thaw() {
	t.mu.Lock()
	t.frozen = nil
	t.mu.Unlock()
}

// commit makes the staged changes of w durable and visible: first the postings
// and stored text of a new segment (invisible, under a pending marker), then one
// small transaction that registers the segment and the other changes.
// With a raft entry e, that transaction also records its index.
func (t *Table) commit(ctx context.Context, w *Writer, e *entry) error {
	if need := w.pendingBytes(); need > 0 || len(w.dels) > 0 || len(w.upds) > 0 {
		if err := t.db.checkSpace(need, "this statement"); err != nil {
			return err
		}
	}
	base := w.snap
	segs := append([]*segment(nil), base.segs...)
	changed := map[int]bool{}
	for pos, del := range w.dels {
		s := *segs[pos]
		if s.deleted != nil {
			del.Or(s.deleted)
		}
		del.RunOptimize()
		s.deleted = del
		segs[pos] = &s
		changed[pos] = true
	}
	for pos, u := range w.upds {
		s := *segs[pos]
		s.attrs = u.attrs
		segs[pos] = &s
		changed[pos] = true
	}

	var newSeg *segment
	var staged *stagedSegment
	if docs := w.liveDocs(); len(docs) > 0 {
		seg := t.nextSeg
		t.nextSeg++
		var err error
		staged, err = t.stage(ctx, seg, func(put func(k, v []byte) error) (*segment, error) {
			return buildSegment(ctx, t, seg, docs, w.nextID, put)
		})
		if err != nil {
			return err
		}
		newSeg = staged.seg
		if hook := t.db.knobs.afterStage; hook != nil {
			hook()
		}
	}

	err := t.db.update(func(txn *badger.Txn) error {
		if err := e.record(txn); err != nil {
			return err
		}
		if newSeg != nil {
			if err := t.register(txn, newSeg); err != nil {
				return err
			}
		}
		for pos := range changed {
			s := segs[pos]
			if _, ok := w.dels[pos]; ok {
				v, err := s.deleted.ToBytes()
				if err != nil {
					return err
				}
				if err := txn.Set(segKey(t.tid, kindDeleted, s.seg), v); err != nil {
					return err
				}
			}
			if _, ok := w.upds[pos]; ok {
				if err := txn.Set(segKey(t.tid, kindAttr, s.seg), encodeAttrs(t.layout, s)); err != nil {
					return err
				}
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
		return fmt.Errorf("index: commit to %s: %w", t.schema.Name, err)
	}
	e.done()
	if newSeg != nil {
		segs = append(segs, newSeg)
		t.nextID = max(t.nextID, newSeg.nextID)
	}
	if len(changed) == 0 && newSeg == nil {
		return nil
	}
	t.snap.Store(base.next(segs, changed, newSeg != nil))
	t.db.maint.enqueue(t)
	return nil
}

// register makes a staged segment visible in txn: its meta, attributes and
// deletions, and the pending marker gone.
func (t *Table) register(txn *badger.Txn, s *segment) error {
	if err := txn.Set(segKey(t.tid, kindSeg, s.seg), encodeSegMeta(s)); err != nil {
		return err
	}
	if err := txn.Set(segKey(t.tid, kindAttr, s.seg), encodeAttrs(t.layout, s)); err != nil {
		return err
	}
	if s.deleted != nil {
		v, err := s.deleted.ToBytes()
		if err != nil {
			return err
		}
		if err := txn.Set(segKey(t.tid, kindDeleted, s.seg), v); err != nil {
			return err
		}
	}
	return txn.Delete(segKey(t.tid, kindPending, s.seg))
}

// stagedSegment is a segment whose keys are written but not yet registered.
type stagedSegment struct {
	num  uint32
	seg  *segment // nil until built
	keys [][]byte
}

// unstage removes the keys of a segment that will not be registered. On
// failure the pending marker stays, and the next Open removes them.
func (t *Table) unstage(s *stagedSegment) {
	if t.db.refused() != nil {
		return
	}
	wb := t.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range s.keys {
		if wb.Delete(k) != nil {
			return
		}
	}
	if wb.Delete(segKey(t.tid, kindPending, s.num)) != nil {
		return
	}
	_ = t.db.writeFailed(wb.Flush())
}

// stage writes the postings and stored text of a new segment, which build
// makes and passes to put, under a pending marker, and returns the segment
// (not yet visible).
func (t *Table) stage(ctx context.Context, seg uint32, build func(put func(k, v []byte) error) (*segment, error)) (*stagedSegment, error) {
	if err := t.db.refused(); err != nil {
		return nil, fmt.Errorf("index: write to %s: %w", t.schema.Name, err)
	}
	db := t.db.bdb
	marker := segKey(t.tid, kindPending, seg)
	if err := t.db.writeFailed(db.Update(func(txn *badger.Txn) error { return txn.Set(marker, nil) })); err != nil {
		return nil, fmt.Errorf("index: write to %s: %w", t.schema.Name, err)
	}
	s := &stagedSegment{num: seg}
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	var mu sync.Mutex
	put := func(k, v []byte) error { // called from several goroutines
		mu.Lock()
		s.keys = append(s.keys, k)
		mu.Unlock()
		return wb.Set(k, v)
	}
	var err error
	s.seg, err = build(put)
	if err == nil {
		err = t.db.writeFailed(wb.Flush())
	} else if werr := wb.Error(); werr != nil {
		err = t.db.writeFailed(werr) // one of the batch's commits failed
	}
	if err != nil {
		t.unstage(s)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("index: write to %s: %w", t.schema.Name, err)
	}
	return s, nil
}

// newSnapshot makes the snapshot of a table with the given segments.
func newSnapshot(t *Table, segs []*segment) *Snapshot {
	s := &Snapshot{t: t, tid: t.tid, schema: t.schema, layout: t.layout, segs: segs}
	for _, seg := range segs {
		s.live += seg.live()
		s.liveLen += seg.totalLen - deletedLen(seg)
	}
	s.rebuildIDMap()
	return s
}

// merged derives the snapshot with segs from s, whose segments a merge
// replaced: segs holds s's segments but a run of them, in whose place
// there is the merged one or nothing. The id maps carry over (their refs
// are by segment number); the merged segment is outside them.
func (s *Snapshot) merged(segs []*segment) *Snapshot {
	n := &Snapshot{t: s.t, tid: s.tid, schema: s.schema, layout: s.layout, segs: segs,
		idMap: s.idMap, overlay: s.overlay, covered: s.covered}
	for _, seg := range segs {
		n.live += seg.live()
		n.liveLen += seg.totalLen - deletedLen(seg)
	}
	n.placeSegs()
	n.keepIDMap()
	return n
}

func deletedLen(s *segment) int64 {
	if s.deleted == nil || s.nf == 0 {
		return 0
	}
	var n int64
	it := s.deleted.Iterator()
	for it.HasNext() {
		n += int64(s.docLen(it.Next()))
	}
	return n
}

// next derives the snapshot with segs from s: segs holds s's segments (those
// at the positions in changed replaced) and maybe one new one at the end.
func (s *Snapshot) next(segs []*segment, changed map[int]bool, added bool) *Snapshot {
	n := &Snapshot{t: s.t, tid: s.tid, schema: s.schema, layout: s.layout, segs: segs,
		live: s.live, liveLen: s.liveLen, idMap: s.idMap, overlay: s.overlay, covered: s.covered}
	for pos := range changed {
		old, cur := s.segs[pos], segs[pos]
		if old.deleted == cur.deleted {
			continue
		}
		n.live += cur.live() - old.live()
		var gone *roaring.Bitmap
		if old.deleted == nil {
			gone = cur.deleted
		} else {
			gone = roaring.AndNot(cur.deleted, old.deleted)
		}
		if cur.nf > 0 {
			it := gone.Iterator()
			for it.HasNext() {
				n.liveLen -= int64(cur.docLen(it.Next()))
			}
		}
	}
	if added {
		seg := segs[len(segs)-1]
		n.live += seg.live()
		n.liveLen += seg.totalLen
	}
	// The segments keep their positions; a new one is outside the maps.
	n.pos, n.outside = s.pos, slices.Clip(s.outside)
	if added {
		n.outside = append(n.outside, len(segs)-1)
	}
	n.keepIDMap()
	return n
}

// placeSegs finds, for the id maps, the positions of the segments they
// cover and those of the segments they do not.
func (s *Snapshot) placeSegs() {
	s.pos = make(map[uint32]uint32, len(s.segs))
	s.outside = nil
	for p, seg := range s.segs {
		if s.covered[seg.seg] {
			s.pos[seg.seg] = uint32(p)
		} else {
			s.outside = append(s.outside, p)
		}
	}
}

// keepIDMap keeps the id maps covering most documents: it extends them
// when the segments outside hold many documents or are many.
func (s *Snapshot) keepIDMap() {
	docs := 0
	for _, p := range s.outside {
		docs += s.segs[p].n()
	}
	if len(s.outside) > maxUnmappedSegments || docs > max((len(s.idMap)+len(s.overlay))/2, minUnmappedDocs) {
		s.extendIDMap(docs)
	}
}

// extendIDMap maps the docs documents of the segments outside the id maps
// too. The newer segments go into a small overlay, copied and added to,
// and the overlay into the base map once it holds a quarter as many ids:
// a rebuild of the whole map at every merge of a few single-row segments
// (or every few dozen such writes) costs a table of a few hundred thousand
// documents tens of milliseconds each time, which the leader's writes
// paid while a member joined, and the joiner catching up. Refs to
// documents deleted or merged away since stay until the maps hold as many
// of them as live ones; then they are rebuilt.
func (s *Snapshot) extendIDMap(docs int) {
	if len(s.idMap)+len(s.overlay) > 2*s.live+minUnmappedDocs {
		s.rebuildIDMap()
		return
	}
	var m map[uint64]idRef
	if len(s.overlay)+docs > max(len(s.idMap)/4, minUnmappedDocs) {
		m = maps.Clone(s.idMap)
		if m == nil {
			m = make(map[uint64]idRef, len(s.overlay)+docs)
		}
		maps.Copy(m, s.overlay)
		s.idMap, s.overlay = m, nil
	} else {
		m = make(map[uint64]idRef, len(s.overlay)+docs)
		maps.Copy(m, s.overlay)
		s.overlay = m
	}
	for _, p := range s.outside {
		mapSegment(m, s.segs[p])
	}
	s.coverAll()
}

const (
	maxUnmappedSegments = 32
	minUnmappedDocs     = 4096
)

// rebuildIDMap maps the id of every live document to its ref.
func (s *Snapshot) rebuildIDMap() {
	m := make(map[uint64]idRef, s.live)
	for _, seg := range s.segs {
		mapSegment(m, seg)
	}
	s.idMap, s.overlay = m, nil
	s.coverAll()
}

// mapSegment puts the live documents of seg in m.
func mapSegment(m map[uint64]idRef, seg *segment) {
	for ord, id := range seg.ids {
		if !seg.isDeleted(uint32(ord)) {
			m[id] = idRef{seg: seg.seg, ord: uint32(ord)}
		}
	}
}

// coverAll notes that the id maps cover every segment of the snapshot.
// (Not by a bound on segment numbers: a merge's segment, numbered when it
// began, may come after segments numbered later.)
func (s *Snapshot) coverAll() {
	s.covered = make(map[uint32]bool, len(s.segs))
	for _, seg := range s.segs {
		s.covered[seg.seg] = true
	}
	s.placeSegs()
}
