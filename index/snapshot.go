package index

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/docstore"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

// Snapshot is an immutable, consistent view of a table. Safe for concurrent use.
type Snapshot struct {
	t       *Table
	tid     uint32
	schema  *Schema
	layout  *layout
	segs    []*segment
	live    int   // live documents
	liveLen int64 // indexed words in live documents

	// idMap and overlay map the ids of the live documents of the segments
	// numbered in covered (when the maps were built or extended;
	// check deletions) to where they were: overlay those of the segments
	// added since idMap was built, and it wins. A ref is by segment number,
	// which a merge does not change for the segments it leaves (it does
	// their positions); pos gives their positions now, and a ref to a
	// segment merged away is not found there. The segments not covered
	// (outside, by position) are searched.
	idMap   map[uint64]idRef
	overlay map[uint64]idRef
	covered map[uint32]bool
	pos     map[uint32]uint32
	outside []int
}

// Schema is the table's schema.
func (s *Snapshot) Schema() *Schema { return s.schema }

// Tokenizer is the tokenizer of the table's settings, the one its text was
// indexed with: parse queries and highlight with it.
func (s *Snapshot) Tokenizer() *tokenize.Tokenizer { return s.t.tok }

// ParseQuery parses the text of MATCH() with the table's tokenizer. The
// tree may be shared with other callers (the table keeps recent ones): it
// must not be changed.
func (s *Snapshot) ParseQuery(text string) (query.Node, error) {
	if n, ok := s.t.parsed.get(text); ok {
		return n, nil
	}
	n, err := query.Parse(text, s.t.tok)
	if err == nil {
		s.t.parsed.put(text, n)
	}
	return n, err
}

// Count is the number of live documents.
func (s *Snapshot) Count() int { return s.live }

// Lookup finds a live document by id.
func (s *Snapshot) Lookup(id uint64) (DocRef, bool) {
	for i := len(s.outside) - 1; i >= 0; i-- {
		pos := s.outside[i]
		seg := s.segs[pos]
		if ord, ok := seg.find(id); ok && !seg.isDeleted(ord) {
			return DocRef{Seg: uint32(pos), Ord: ord}, true
		}
	}
	if ref, ok := s.mappedRef(s.overlay, id); ok {
		return ref, true
	}
	return s.mappedRef(s.idMap, id)
}

// mappedRef finds id in m, when it is there and still live.
func (s *Snapshot) mappedRef(m map[uint64]idRef, id uint64) (DocRef, bool) {
	r, ok := m[id]
	if !ok {
		return DocRef{}, false
	}
	pos, ok := s.pos[r.seg]
	if !ok || s.segs[pos].isDeleted(r.ord) {
		return DocRef{}, false
	}
	return DocRef{Seg: pos, Ord: r.ord}, true
}

// idRef is where an id map puts a document: its segment's number and its
// ordinal there.
type idRef struct{ seg, ord uint32 }

// ID returns the id of a document.
func (s *Snapshot) ID(ref DocRef) uint64 { return s.segs[ref.Seg].ids[ref.Ord] }

// Attr returns the value of a non-text column (by schema column index): an
// int64, float64, string or []int64 (which the caller must not modify). It
// returns nil for a text column.
func (s *Snapshot) Attr(ref DocRef, col int) Value {
	t := s.schema.Columns[col].Type
	if t == TypeText {
		return nil
	}
	return s.segs[ref.Seg].attrs[col].get(t, ref.Ord)
}

// dbErr turns badger's closed-database error into ErrClosed.
func dbErr(err error) error {
	if errors.Is(err, badger.ErrDBClosed) {
		return ErrClosed
	}
	return err
}

// Stored reads the stored text of the given text columns for a batch of
// documents in one pass: result[i][j] is column cols[j] of refs[i] ("" when the
// column is not stored).
func (s *Snapshot) Stored(ctx context.Context, refs []DocRef, cols []int) ([][]string, error) {
	return s.stored(ctx, refs, cols, false)
}

// StoredWithLayouts reads like Stored and, after the texts of each
// document, the encoded word layouts kept with them for MatchStored:
// result[i][len(cols)+j] is the layout of column cols[j] ("" when the
// column is not both indexed and stored, or for a record written before
// layouts were kept).
func (s *Snapshot) StoredWithLayouts(ctx context.Context, refs []DocRef, cols []int) ([][]string, error) {
	return s.stored(ctx, refs, cols, true)
}

func (s *Snapshot) stored(ctx context.Context, refs []DocRef, cols []int, layouts bool) ([][]string, error) {
	out := make([][]string, len(refs))
	want := make([]int, len(cols), 2*len(cols))
	anyStored := false
	for j, c := range cols {
		want[j] = -1
		if c >= 0 && c < len(s.layout.storedPos) {
			want[j] = s.layout.storedPos[c]
		}
		anyStored = anyStored || want[j] >= 0
	}
	if layouts {
		for _, c := range cols {
			at := -1
			if c >= 0 && c < len(s.layout.layoutPos) {
				at = s.layout.layoutPos[c]
			}
			want = append(want, at)
		}
	}
	if !anyStored || len(refs) == 0 {
		for i := range out {
			out[i] = make([]string, len(want))
		}
		return out, nil
	}
	keys := make([][]byte, len(refs))
	buf := make([]byte, 0, 13*len(refs))
	for i, r := range refs {
		at := len(buf)
		seg, ord := s.segs[r.Seg].record(r.Ord)
		buf = appendDocKey(buf, s.tid, seg, ord)
		keys[i] = buf[at:len(buf):len(buf)]
	}
	err := s.t.db.bdb.View(func(txn *badger.Txn) error {
		return docstore.Read(txn, keys, want, runtime.GOMAXPROCS(0), func(i int, fields []string) error {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			out[i] = slices.Clone(fields)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("index: reading stored text of %s: %w", s.schema.Name, dbErr(err))
	}
	return out, nil
}

// Scan calls fn for every live document, in ascending id order, until fn
// returns false or ctx is done (then it returns ctx.Err()).
func (s *Snapshot) Scan(ctx context.Context, fn func(ref DocRef) bool) error {
	n := 0
	visit := func(pos int, ord uint32) bool {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return false
		}
		if s.segs[pos].isDeleted(ord) {
			return true
		}
		return fn(DocRef{Seg: uint32(pos), Ord: ord})
	}
	if s.disjoint() {
		for pos, seg := range s.segs {
			for i := range seg.ids {
				if !visit(pos, seg.ordAt(i)) {
					return ctx.Err()
				}
			}
		}
		return ctx.Err()
	}
	h := make(scanHeap, 0, len(s.segs))
	for pos, seg := range s.segs {
		if seg.n() > 0 {
			h = append(h, scanCursor{seg: seg, pos: pos})
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := &h[0]
		if !visit(c.pos, c.seg.ordAt(c.i)) {
			return ctx.Err()
		}
		if c.i++; c.i == c.seg.n() {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return ctx.Err()
}

// disjoint reports whether the segments hold ascending, non-overlapping id
// ranges (the common case of automatic or increasing ids).
func (s *Snapshot) disjoint() bool {
	for i := 1; i < len(s.segs); i++ {
		if s.segs[i].minID <= s.segs[i-1].maxID {
			return false
		}
	}
	return true
}

type scanCursor struct {
	seg *segment
	pos int
	i   int // index into the segment's id order
}

func (c *scanCursor) id() uint64 { return c.seg.ids[c.seg.ordAt(c.i)] }

type scanHeap []scanCursor

func (h scanHeap) Len() int           { return len(h) }
func (h scanHeap) Less(i, j int) bool { return h[i].id() < h[j].id() }
func (h scanHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scanHeap) Push(x any)        { *h = append(*h, x.(scanCursor)) }
func (h *scanHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
