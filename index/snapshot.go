package index

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
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

	// idMap maps the ids of the live documents of segs[:mapped] (when the map
	// was built; check deletions) to their refs. Newer segments are searched.
	idMap  map[uint64]DocRef
	mapped int
}

// Schema is the table's schema.
func (s *Snapshot) Schema() *Schema { return s.schema }

// Tokenizer is the tokenizer of the table's settings, the one its text was
// indexed with: parse queries and highlight with it.
func (s *Snapshot) Tokenizer() *tokenize.Tokenizer { return s.t.tok }

// ParseQuery parses the text of MATCH() with the table's tokenizer.
func (s *Snapshot) ParseQuery(text string) (query.Node, error) {
	return query.Parse(text, s.t.tok)
}

// Count is the number of live documents.
func (s *Snapshot) Count() int { return s.live }

// Lookup finds a live document by id.
func (s *Snapshot) Lookup(id uint64) (DocRef, bool) {
	for pos := len(s.segs) - 1; pos >= s.mapped; pos-- {
		seg := s.segs[pos]
		if ord, ok := seg.find(id); ok && !seg.isDeleted(ord) {
			return DocRef{Seg: uint32(pos), Ord: ord}, true
		}
	}
	if ref, ok := s.idMap[id]; ok && !s.segs[ref.Seg].isDeleted(ref.Ord) {
		return ref, true
	}
	return DocRef{}, false
}

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
	out := make([][]string, len(refs))
	want := make([]int, len(cols))
	anyStored := false
	for j, c := range cols {
		want[j] = -1
		if c >= 0 && c < len(s.layout.storedPos) {
			want[j] = s.layout.storedPos[c]
		}
		anyStored = anyStored || want[j] >= 0
	}
	if !anyStored || len(refs) == 0 {
		for i := range out {
			out[i] = make([]string, len(cols))
		}
		return out, nil
	}
	keys := make([][]byte, len(refs))
	buf := make([]byte, 0, 13*len(refs))
	for i, r := range refs {
		at := len(buf)
		buf = appendDocKey(buf, s.tid, s.segs[r.Seg].seg, r.Ord)
		keys[i] = buf[at:len(buf):len(buf)]
	}
	err := s.t.db.bdb.View(func(txn *badger.Txn) error {
		return docstore.Read(txn, keys, want, func(i int, fields []string) error {
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

// TermStat is what the index knows of one query word, for SHOW META.
type TermStat struct {
	Term string
	Docs int64 // live documents that contain it (in any field)
	Hits int64 // occurrences in all documents (deleted ones included)
}

// BM25 parameters of the default weight.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// termPostings are the posting lists of one term in one segment, one per
// indexed field (nil where the field does not have the term), and their union.
type termPostings struct {
	fields []*posting
	any    *roaring.Bitmap // nil when no field has the term
}

// searchData is what one search reads: the postings of every query term in
// every segment.
type searchData struct {
	words []string         // distinct query words
	segs  [][]termPostings // [segment position][word]
	docs  []int64          // live documents per word
	hits  []int64          // occurrences per word
}

// fetch reads the posting lists of words in every segment (copying the values,
// which therefore outlive txn).
func (s *Snapshot) fetch(ctx context.Context, txn *badger.Txn, words []string) (*searchData, error) {
	d := &searchData{words: words, segs: make([][]termPostings, len(s.segs)),
		docs: make([]int64, len(words)), hits: make([]int64, len(words))}
	nf := len(s.layout.indexed)
	var key []byte
	for pos, seg := range s.segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tps := make([]termPostings, len(words))
		for w, word := range words {
			tp := &tps[w]
			for f := 0; f < nf; f++ {
				key = appendPostingKey(key[:0], s.tid, seg.seg, byte(f), []byte(word))
				item, err := txn.Get(key)
				if errors.Is(err, badger.ErrKeyNotFound) {
					continue
				}
				if err != nil {
					return nil, err
				}
				val, err := item.ValueCopy(nil)
				if err != nil {
					return nil, err
				}
				p, err := decodePosting(val)
				if err != nil {
					return nil, fmt.Errorf("segment %d term %q: %w", seg.seg, word, err)
				}
				if tp.fields == nil {
					tp.fields = make([]*posting, nf)
				}
				tp.fields[f] = &p
				d.hits[w] += int64(p.hits)
				if tp.any == nil {
					tp.any = p.bm
				} else {
					tp.any = roaring.Or(tp.any, p.bm)
				}
			}
			if tp.any != nil {
				n := int64(tp.any.GetCardinality())
				if seg.deleted != nil {
					n -= int64(tp.any.AndCardinality(seg.deleted))
				}
				d.docs[w] += n
			}
		}
		d.segs[pos] = tps
	}
	return d, nil
}

// distinctWords returns the distinct words of the terms of q in query order.
func distinctWords(q query.Node) []string {
	var words []string
	for _, t := range query.Keywords(nil, q) {
		if !slices.Contains(words, t.Term) {
			words = append(words, t.Term)
		}
	}
	return words
}

// fetchWords reads the postings of words in one read transaction.
func (s *Snapshot) fetchWords(ctx context.Context, words []string) (*searchData, error) {
	var d *searchData
	err := s.t.db.bdb.View(func(txn *badger.Txn) error {
		var err error
		d, err = s.fetch(ctx, txn, words)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("index: search %s: %w", s.schema.Name, dbErr(err))
	}
	return d, nil
}

// TermStats returns the document and hit counts of the words of q.
func (s *Snapshot) TermStats(ctx context.Context, q query.Node) ([]TermStat, error) {
	words := distinctWords(q)
	d, err := s.fetchWords(ctx, words)
	if err != nil {
		return nil, err
	}
	stats := make([]TermStat, len(words))
	for i, w := range words {
		stats[i] = TermStat{Term: w, Docs: d.docs[i], Hits: d.hits[i]}
	}
	return stats, nil
}

// Search returns the live documents that match q, in ascending id order, each
// with its weight.
//
// The weight is 1 + round(1000 * BM25), where BM25 (k1=1.2, b=0.75) sums over
// the distinct query words; a word's term frequency counts it in all indexed
// fields, the document length is its word count over all indexed fields, and
// document frequencies and the average length are taken over the whole table.
func (s *Snapshot) Search(ctx context.Context, q query.Node) ([]Match, error) {
	if err := validate(q); err != nil {
		return nil, err
	}
	words := distinctWords(q)
	if s.live == 0 || len(s.layout.indexed) == 0 || len(words) == 0 {
		return nil, nil
	}
	d, err := s.fetchWords(ctx, words)
	if err != nil {
		return nil, err
	}
	idf := make([]float64, len(words))
	for w := range words {
		n, df := float64(s.live), float64(d.docs[w])
		idf[w] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	avgLen := 1.0
	if s.live > 0 && s.liveLen > 0 {
		avgLen = float64(s.liveLen) / float64(s.live)
	}

	var matches []Match
	var ids []uint64
	for pos, seg := range s.segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := evaluator{words: words, tps: d.segs[pos]}
		bm, err := e.eval(q)
		if err != nil {
			return nil, err
		}
		if bm == nil || bm.IsEmpty() {
			continue
		}
		if seg.deleted != nil {
			bm = roaring.AndNot(bm, seg.deleted)
		}
		ords := bm.ToArray()
		if len(ords) == 0 {
			continue
		}
		scores := make([]float64, len(ords))
		tf := make([]float64, len(ords))
		for w := range words {
			tp := d.segs[pos][w]
			if tp.any == nil {
				continue
			}
			clear(tf)
			for _, p := range tp.fields {
				if p != nil {
					addCounts(p, ords, tf)
				}
			}
			for i, f := range tf {
				if f == 0 {
					continue
				}
				dl := float64(seg.docLen(ords[i]))
				scores[i] += idf[w] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*dl/avgLen))
			}
		}
		for i, ord := range ords {
			matches = append(matches, Match{Ref: DocRef{Seg: uint32(pos), Ord: ord}, Weight: 1 + int64(math.Round(1000*scores[i]))})
			ids = append(ids, seg.ids[ord])
		}
	}
	if !slices.IsSorted(ids) {
		perm := make([]int, len(ids))
		for i := range perm {
			perm[i] = i
		}
		slices.SortFunc(perm, func(a, b int) int {
			switch {
			case ids[a] < ids[b]:
				return -1
			case ids[a] > ids[b]:
				return 1
			}
			return 0
		})
		sorted := make([]Match, len(matches))
		for i, p := range perm {
			sorted[i] = matches[p]
		}
		matches = sorted
	}
	return matches, nil
}

// addCounts adds the occurrence counts of p for the ordinals ords (ascending)
// to tf.
func addCounts(p *posting, ords []uint32, tf []float64) {
	c := p.cursor()
	i := 0
	for i < len(ords) && c.next() {
		for i < len(ords) && ords[i] < c.ord {
			i++
		}
		if i < len(ords) && ords[i] == c.ord {
			tf[i] += float64(c.count)
			i++
		}
	}
}

// evaluator computes the ordinals of one segment that match a query.
type evaluator struct {
	words []string
	tps   []termPostings
}

// eval returns the matching ordinals; the result may be shared with the
// postings (callers must not modify it). nil means none. n has passed validate.
func (e *evaluator) eval(n query.Node) (*roaring.Bitmap, error) {
	switch n := n.(type) {
	case query.Keyword:
		return e.tps[slices.Index(e.words, n.Term)].any, nil
	case query.And:
		if len(n.Children) == 0 {
			return nil, nil
		}
		var acc *roaring.Bitmap
		for i, c := range n.Children {
			bm, err := e.eval(c)
			if err != nil || bm == nil {
				return nil, err
			}
			if i == 0 {
				acc = bm
			} else {
				acc = roaring.And(acc, bm)
			}
			if acc.IsEmpty() {
				return nil, nil
			}
		}
		return acc, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("index: query node %T is not supported", n)
}

// validate reports query nodes the index cannot evaluate.
func validate(n query.Node) error {
	switch n := n.(type) {
	case query.Keyword, nil:
		return nil
	case query.And:
		for _, c := range n.Children {
			if err := validate(c); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("index: query node %T is not supported", n)
}
