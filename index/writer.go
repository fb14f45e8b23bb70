package index

import (
	"fmt"
	"math"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"
)

// Writer stages the changes of one statement. It is valid only inside Write.
type Writer struct {
	t    *Table
	snap *Snapshot
	done bool

	pend    []pendingDoc   // documents of the new segment, in insertion order
	pendIdx map[uint64]int // id -> index in pend, live ones only
	dels    map[int]*roaring.Bitmap
	upds    map[int]*segUpdate
	nextID  uint64
}

// pendingDoc is a staged new document; vals are normalized.
type pendingDoc struct {
	id   uint64
	vals []Value
	dead bool // deleted or replaced within the same statement
}

// segUpdate is the copy-on-write attribute columns of an existing segment.
type segUpdate struct {
	attrs  []attrColumn
	cloned []bool
}

func newWriter(t *Table) *Writer {
	return &Writer{t: t, snap: t.snap.Load(), nextID: t.nextID}
}

func (w *Writer) check() {
	if w.done {
		panic("index: Writer used outside its Write")
	}
}

// Snapshot is the table as it was when the write began, without staged changes.
func (w *Writer) Snapshot() *Snapshot { return w.snap }

// liveRef finds a live document of the snapshot that this write has not deleted.
func (w *Writer) liveRef(id uint64) (DocRef, bool) {
	ref, ok := w.snap.Lookup(id)
	if !ok {
		return ref, false
	}
	if d := w.dels[int(ref.Seg)]; d != nil && d.Contains(ref.Ord) {
		return ref, false
	}
	return ref, true
}

// Exists reports whether a document of id is in the table as this write
// sees it: in its snapshot and not deleted, or staged by it.
func (w *Writer) Exists(id uint64) bool {
	if _, ok := w.pendIdx[id]; ok {
		return true
	}
	_, ok := w.liveRef(id)
	return ok
}

func (w *Writer) stageDelete(ref DocRef) {
	if w.dels == nil {
		w.dels = map[int]*roaring.Bitmap{}
	}
	d := w.dels[int(ref.Seg)]
	if d == nil {
		d = roaring.New()
		w.dels[int(ref.Seg)] = d
	}
	d.Add(ref.Ord)
}

// prepare validates docs and returns their normalized values and final ids.
func (w *Writer) prepare(docs []Document) ([][]Value, []uint64, error) {
	cols := w.t.schema.Columns
	vals := make([][]Value, len(docs))
	ids := make([]uint64, len(docs))
	var maxID uint64
	for i, d := range docs {
		if len(d.Values) > len(cols) {
			return nil, nil, &ValueError{Column: "id " + strconv.FormatUint(d.ID, 10),
				Msg: fmt.Sprintf("%d values for %d columns", len(d.Values), len(cols))}
		}
		row := make([]Value, len(cols))
		for c := range cols {
			var v Value
			if c < len(d.Values) {
				v = d.Values[c]
			}
			nv, err := normalize(&cols[c], v)
			if err != nil {
				return nil, nil, err
			}
			row[c] = nv
		}
		vals[i] = row
		ids[i] = d.ID
		maxID = max(maxID, d.ID)
	}
	next := w.nextID
	if maxID >= next {
		if maxID == math.MaxUint64 {
			next = maxID // no auto id can follow; see below
		} else {
			next = maxID + 1
		}
	}
	for i := range ids {
		if ids[i] == 0 {
			if next == math.MaxUint64 {
				return nil, nil, &ValueError{Column: "id", Msg: "no more automatic ids: an automatic id follows the largest id the table has held, 18446744073709551614 or more; give the id"}
			}
			ids[i] = next
			next++
		}
	}
	return vals, ids, nil
}

func (w *Writer) add(id uint64, vals []Value) {
	if w.pendIdx == nil {
		w.pendIdx = map[uint64]int{}
	}
	w.pendIdx[id] = len(w.pend)
	w.pend = append(w.pend, pendingDoc{id: id, vals: vals})
	if id >= w.nextID && id < math.MaxUint64 {
		w.nextID = id + 1
	}
}

// Insert stages new documents and returns their ids (new ones for ID 0).
// A *DuplicateIDError if an id exists already or repeats; a *ValueError for a
// value of the wrong type. On error nothing of this call is staged.
func (w *Writer) Insert(docs []Document) ([]uint64, error) {
	w.check()
	vals, ids, err := w.prepare(docs)
	if err != nil {
		return nil, err
	}
	seen := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			return nil, &DuplicateIDError{ID: id}
		}
		seen[id] = struct{}{}
		if _, ok := w.pendIdx[id]; ok {
			return nil, &DuplicateIDError{ID: id}
		}
		if _, ok := w.liveRef(id); ok {
			return nil, &DuplicateIDError{ID: id}
		}
	}
	for i, id := range ids {
		w.add(id, vals[i])
	}
	return ids, nil
}

// Replace is Insert that first deletes any existing document with the same id.
// When an id repeats within docs, the last one wins.
func (w *Writer) Replace(docs []Document) ([]uint64, error) {
	w.check()
	vals, ids, err := w.prepare(docs)
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		w.remove(id)
		w.add(id, vals[i])
	}
	return ids, nil
}

// remove deletes the live document id (staged or in the snapshot).
func (w *Writer) remove(id uint64) bool {
	if i, ok := w.pendIdx[id]; ok {
		w.pend[i].dead = true
		delete(w.pendIdx, id)
		return true
	}
	if ref, ok := w.liveRef(id); ok {
		w.stageDelete(ref)
		return true
	}
	return false
}

// Delete stages the deletion of documents by id and returns how many existed.
func (w *Writer) Delete(ids []uint64) (int, error) {
	w.check()
	n := 0
	for _, id := range ids {
		if w.remove(id) {
			n++
		}
	}
	return n, nil
}

// Update stages new attribute values (column index -> value) for one document.
// Text columns cannot be updated (*ValueError). Returns false if id is absent.
func (w *Writer) Update(id uint64, values map[int]Value) (bool, error) {
	w.check()
	cols := w.t.schema.Columns
	norm := make(map[int]Value, len(values))
	for c, v := range values {
		if c < 0 || c >= len(cols) {
			return false, &ValueError{Column: "#" + strconv.Itoa(c), Msg: "no such column"}
		}
		if cols[c].Type == TypeText {
			return false, &ValueError{Column: cols[c].Name, Msg: "text columns cannot be updated"}
		}
		nv, err := normalize(&cols[c], v)
		if err != nil {
			return false, err
		}
		norm[c] = nv
	}
	if i, ok := w.pendIdx[id]; ok {
		for c, v := range norm {
			w.pend[i].vals[c] = v
		}
		return true, nil
	}
	ref, ok := w.liveRef(id)
	if !ok {
		return false, nil
	}
	pos := int(ref.Seg)
	u := w.upds[pos]
	if u == nil {
		if w.upds == nil {
			w.upds = map[int]*segUpdate{}
		}
		seg := w.snap.segs[pos]
		u = &segUpdate{attrs: append([]attrColumn(nil), seg.attrs...), cloned: make([]bool, len(cols))}
		w.upds[pos] = u
	}
	for c, v := range norm {
		if !u.cloned[c] {
			u.attrs[c] = u.attrs[c].clone()
			u.cloned[c] = true
		}
		u.attrs[c].set(int(ref.Ord), v)
	}
	return true, nil
}

// liveDocs returns the staged new documents that are still live.
func (w *Writer) liveDocs() []pendingDoc {
	docs := w.pend[:0:0]
	for _, d := range w.pend {
		if !d.dead {
			docs = append(docs, d)
		}
	}
	return docs
}
