package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/glint-search/glint/docstore"
	"github.com/glint-search/glint/index/tokenize"
)

// arena hands out long-lived copies of keys and values for a badger
// WriteBatch, which keeps the slices it is given until it is flushed. Its
// chunks start small and double up to arenaMaxChunk, so that a segment of one
// document (an INSERT of one row makes one, per field and worker) costs a few
// kilobytes, not a megabyte each: allocating megabytes per small write was
// most of the garbage the collector had to chase under a steady write load.
type arena struct{ chunk []byte }

const (
	arenaMinChunk = 4 << 10
	arenaMaxChunk = 1 << 20
)

func (a *arena) copy(b []byte) []byte {
	if len(b) > arenaMaxChunk/4 {
		return append([]byte(nil), b...)
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		size := min(max(2*cap(a.chunk), arenaMinChunk), arenaMaxChunk)
		for size < len(b) {
			size *= 2
		}
		a.chunk = make([]byte, 0, size)
	}
	at := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return a.chunk[at:len(a.chunk):len(a.chunk)]
}

// buildSegment makes segment seg of docs: it passes every posting list and
// docstore record to put, and returns the segment's in-memory form.
func buildSegment(ctx context.Context, t *Table, seg uint32, docs []pendingDoc, nextID uint64,
	put func(key, val []byte) error) (*segment, error) {
	termBlocks := !t.db.knobs.noTermBlocks
	l := t.layout
	n := len(docs)
	s := newSegment(t, seg, n)
	s.nextID = nextID
	for _, col := range l.attrs {
		c := newAttrColumn(l.schema.Columns[col].Type, n)
		for ord, d := range docs {
			c.set(ord, d.vals[col])
		}
		s.attrs[col] = c
	}
	for ord, d := range docs {
		s.ids[ord] = d.id
	}
	s.index()

	workers := min(runtime.GOMAXPROCS(0), maxBuildWorkers, max(1, n/minDocsPerWorker))
	var g errGroup

	// Postings, one field at a time. The workers tokenize a share of the
	// documents each into their own term dictionary and a flat slice of
	// occurrences in (ord, pos) order; the dictionaries are merged, the
	// occurrences grouped by term with a counting sort (which keeps that order
	// within a term), and the workers encode a share of the terms each.
	parts := make([]tokenized, workers)
	nrec := l.record
	records := make([]string, n*nrec) // per document: its docstore fields
	for ord, d := range docs {
		for k, col := range l.stored {
			records[ord*nrec+k] = d.vals[col].(string)
		}
	}
	var grouped []ordPos
	var starts []uint32
	for f, col := range l.indexed {
		var tg errGroup
		for p := range parts {
			lo, hi := p*n/workers, (p+1)*n/workers
			tg.Go(func() error {
				var layouts []string // this field's layouts, when it is stored
				if at := l.layoutPos[col]; at >= 0 {
					layouts = records[at:]
				}
				return parts[p].tokenize(ctx, t.tok, s, f, col, docs, lo, hi, layouts, nrec)
			})
		}
		if err := tg.Wait(); err != nil {
			g.Wait()
			return nil, err
		}
		dict := parts[0].dict
		total := len(parts[0].occs)
		for p := 1; p < workers; p++ {
			part := &parts[p]
			part.remap = part.remap[:0]
			for id := range part.dict.len() {
				part.remap = append(part.remap, dict.id(part.dict.term(uint32(id))))
			}
			total += len(part.occs)
		}
		nterms := dict.len()
		starts = append(starts[:0], make([]uint32, nterms+1)...)
		for p := range parts {
			for _, o := range parts[p].occs {
				starts[parts[p].global(o.term)+1]++
			}
		}
		for i := 1; i < len(starts); i++ {
			starts[i] += starts[i-1]
		}
		if cap(grouped) < total {
			grouped = make([]ordPos, total)
		}
		grouped = grouped[:total]
		next := append([]uint32(nil), starts[:nterms]...)
		for p := range parts {
			for _, o := range parts[p].occs {
				id := parts[p].global(o.term)
				grouped[next[id]] = ordPos{ord: o.ord, pos: o.pos}
				next[id]++
			}
		}
		// The workers encode a contiguous run of the terms in term order
		// each, cut into blocks (blocks.go): the blocks of worker w all come
		// before those of worker w+1.
		order, cuts := termOrder(dict, starts, workers)
		indexes := make([]blockIndex, workers)
		filters := make([]termFilter, workers)
		var eg errGroup
		for w := range workers {
			eg.Go(func() error {
				var mem arena
				var val, key []byte
				var ords []uint32
				bm := roaring.New()
				bw := blockWriter{key: appendBlockPrefix(nil, t.tid, seg, byte(f)), mem: &mem, put: put}
				ids := order[cuts[w]:cuts[w+1]]
				sortTerms(dict, ids)
				filters[w] = newTermFilter(nterms)
				for _, id := range ids {
					val, ords = encodeOccurrences(val[:0], bm, ords, grouped[starts[id]:starts[id+1]])
					term := dict.term(id)
					own := !termBlocks || len(val) > inlineMax
					if own {
						key = appendPostingKey(key[:0], t.tid, seg, byte(f), term)
						if err := put(mem.copy(key), mem.copy(val)); err != nil {
							return err
						}
					}
					if !termBlocks {
						continue
					}
					filters[w].add(term)
					if err := bw.add(term, val, own); err != nil {
						return err
					}
				}
				if err := bw.flush(); err != nil {
					return err
				}
				indexes[w] = bw.index
				return nil
			})
		}
		if err := eg.Wait(); err != nil {
			g.Wait()
			return nil, err
		}
		s.filters[f] = filters[0]
		for w := range indexes {
			s.blocks[f].appendIndex(&indexes[w])
			if w > 0 {
				s.filters[f].or(filters[w])
			}
		}
	}
	// Stored text and layouts, a share of the documents per worker.
	if len(l.stored) > 0 {
		for w := range workers {
			lo, hi := w*n/workers, (w+1)*n/workers
			g.Go(func() error {
				var mem arena
				var enc docstore.Encoder
				var rec, key []byte
				for ord := lo; ord < hi; ord++ {
					rec = enc.Append(rec[:0], records[ord*nrec:(ord+1)*nrec])
					key = appendDocKey(key[:0], t.tid, seg, uint32(ord))
					if err := put(mem.copy(key), mem.copy(rec)); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if !termBlocks {
		s.blocks, s.filters = nil, nil
	}
	s.index()
	return s, nil
}

// newSegment makes the in-memory form of segment seg of table t for n
// documents, its columns allocated, to be filled.
func newSegment(t *Table, seg uint32, n int) *segment {
	nf := len(t.layout.indexed)
	return &segment{
		seg:     seg,
		ids:     make([]uint64, n),
		nf:      nf,
		lens:    make([]uint32, n*nf),
		attrs:   make([]attrColumn, len(t.layout.schema.Columns)),
		blocks:  make([]blockIndex, nf),
		filters: make([]termFilter, nf),
		keys:    &segmentKeys{t: t, tid: t.tid, seg: seg},
	}
}

const (
	maxBuildWorkers  = 4
	minDocsPerWorker = 32
)

// tokenized is one worker's share of one field of a segment being built.
type tokenized struct {
	it     tokenize.Iter
	layout tokenize.Layout
	enc    []byte
	dict   *termDict
	occs   []occurrence
	remap  []uint32 // local term id -> id in the merged dictionary (all but the first worker)
}

func (p *tokenized) global(id uint32) uint32 {
	if p.remap == nil {
		return id
	}
	return p.remap[id]
}

// everyTerm is the filter that passes every term to the indexing loop.
var everyTerm = func() (f tokenize.Filter) {
	f.All()
	return f
}()

// tokenize collects the occurrences of field f (column col) of docs[lo:hi] and
// records the field lengths in s.lens. With layouts, it also encodes the
// word layout of each document's field into layouts[ord*stride].
func (p *tokenized) tokenize(ctx context.Context, tok *tokenize.Tokenizer, s *segment, f, col int,
	docs []pendingDoc, lo, hi int, layouts []string, stride int) error {
	size := 0
	for _, d := range docs[lo:hi] {
		size += len(d.vals[col].(string))
	}
	p.dict = newTermDict(size / 5)
	p.remap = nil
	if est := size/5 + 16; cap(p.occs) < est { // about one word per 5-6 bytes
		p.occs = make([]occurrence, 0, est)
	}
	p.occs = p.occs[:0]
	for ord := lo; ord < hi; ord++ {
		if ord%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		text := docs[ord].vals[col].(string)
		p.it.Reset(tok, text)
		if layouts == nil {
			for p.it.Next() {
				id := p.dict.id(p.it.Term())
				p.occs = append(p.occs, occurrence{term: id, ord: uint32(ord), pos: uint32(p.it.Pos())})
			}
		} else {
			p.layout.Reset(len(text))
			for p.it.NextCandidate(&p.layout, &everyTerm) {
				id := p.dict.id(p.it.Term())
				p.occs = append(p.occs, occurrence{term: id, ord: uint32(ord), pos: uint32(p.it.Pos())})
			}
			p.enc = p.layout.AppendEncoded(p.enc[:0])
			layouts[ord*stride] = string(p.enc)
		}
		s.lens[ord*s.nf+f] = uint32(p.it.Pos())
	}
	return nil
}

// errGroup runs functions in goroutines and keeps the first error.
type errGroup struct {
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

func (g *errGroup) Go(fn func() error) {
	g.wg.Go(func() {
		if err := fn(); err != nil {
			g.once.Do(func() { g.err = err })
		}
	})
}

func (g *errGroup) Wait() error {
	g.wg.Wait()
	return g.err
}

// occurrence is one word of a field: term id, document ordinal, position.
type occurrence struct{ term, ord, pos uint32 }

type ordPos struct{ ord, pos uint32 }

// encodeOccurrences appends the posting list of the occurrences of one term
// (in (ord, pos) order) to dst; bm and ords are scratch space.
func encodeOccurrences(dst []byte, bm *roaring.Bitmap, ords []uint32, occs []ordPos) ([]byte, []uint32) {
	ords = ords[:0]
	for i, o := range occs {
		if i == 0 || o.ord != occs[i-1].ord {
			ords = append(ords, o.ord)
		}
	}
	dst = append(dst, postingVersion)
	dst = binary.AppendUvarint(dst, uint64(len(occs)))
	dst = appendBitmap(dst, bm, ords)
	// Counts: one uvarint per ordinal; reserve the length's room (at most 5 bytes) later.
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0)
	countsAt := len(dst)
	n := uint64(0)
	for i, o := range occs {
		n++
		if i+1 == len(occs) || occs[i+1].ord != o.ord {
			dst = binary.AppendUvarint(dst, n)
			n = 0
		}
	}
	countsLen := len(dst) - countsAt
	// Move the counts right after their length.
	var lenBuf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(lenBuf[:], uint64(countsLen))
	copy(dst[at:], lenBuf[:k])
	copy(dst[at+k:], dst[countsAt:])
	dst = dst[:at+k+countsLen]
	var last uint32
	for i, o := range occs {
		if i == 0 || o.ord != occs[i-1].ord {
			last = 0
		}
		dst = binary.AppendUvarint(dst, uint64(o.pos-last))
		last = o.pos
	}
	return dst, ords
}

// The portable roaring format of a bitmap whose values are all below 65,536
// and at most 4,096 (one array container): what roaring's WriteTo writes for
// it, written without building the bitmap (most lists of a segment are a few
// ordinals). The format is roaring's published one; TestArrayBitmap checks it
// against the library.
const (
	arrayMax     = 4096
	arrayHeader  = 16    // cookie, container count, key and cardinality, offset
	cookieNoRuns = 12346 // roaring's SERIAL_COOKIE_NO_RUNCONTAINER
)

// appendArrayBitmap appends the bitmap of ords (ascending, distinct, 1 to
// arrayMax of them, all below 65,536).
func appendArrayBitmap(dst []byte, ords []uint32) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, cookieNoRuns)
	dst = binary.LittleEndian.AppendUint32(dst, 1) // containers
	dst = binary.LittleEndian.AppendUint16(dst, 0) // the container's key: the high 16 bits
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(ords)-1))
	dst = binary.LittleEndian.AppendUint32(dst, arrayHeader) // where its values begin
	for _, o := range ords {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(o))
	}
	return dst
}

// termOrder returns the ids of the terms of dict grouped by their first byte,
// the groups in byte order (the terms within a group in no order), and where
// each worker's run of them begins and ends: worker w gets
// order[cuts[w]:cuts[w+1]], whole groups with about a 1/workers share of
// the work (occurrences, from starts, plus a constant per term).
func termOrder(dict *termDict, starts []uint32, workers int) (order []uint32, cuts []int) {
	const termCost = 8 // a term's own work (block entry, key), in occurrences
	n := dict.len()
	firstByte := func(id int) int {
		if t := dict.term(uint32(id)); len(t) > 0 {
			return int(t[0])
		}
		return 0
	}
	var at [257]int // group b is order[at[b]:at[b+1]]
	var weight [256]int
	for id := range n {
		b := firstByte(id)
		at[b+1]++
		weight[b] += int(starts[id+1]-starts[id]) + termCost
	}
	total := 0
	for b := range 256 {
		at[b+1] += at[b]
		total += weight[b]
	}
	order = make([]uint32, n)
	next := at
	for id := range n {
		b := firstByte(id)
		order[next[b]] = uint32(id)
		next[b]++
	}
	cuts = make([]int, workers+1)
	w, done := 1, 0
	for b := 0; b < 256 && w < workers; b++ {
		done += weight[b]
		for w < workers && done*workers >= total*w {
			cuts[w] = at[b+1]
			w++
		}
	}
	for ; w <= workers; w++ {
		cuts[w] = n
	}
	return order, cuts
}

// sortTerms sorts term ids by their terms. It sorts by the terms' first 8
// bytes as one number (most terms differ there), comparing the rest only
// for ties.
func sortTerms(dict *termDict, ids []uint32) {
	keys := make([]termKey, 0, len(ids))
	for _, id := range ids {
		t := dict.term(id)
		var b [8]byte
		copy(b[:], t)
		keys = append(keys, termKey{prefix: binary.BigEndian.Uint64(b[:]), id: id})
	}
	slices.SortFunc(keys, func(x, y termKey) int {
		if x.prefix != y.prefix {
			return cmp.Compare(x.prefix, y.prefix)
		}
		return bytes.Compare(dict.term(x.id), dict.term(y.id))
	})
	for i, k := range keys {
		ids[i] = k.id
	}
}

// termKey is a term id with the first 8 bytes of its term (zero padded),
// big-endian: numbers in the order of the bytes.
type termKey struct {
	prefix uint64
	id     uint32
}
