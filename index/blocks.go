package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
)

// Term blocks. Most terms of a segment occur in a document or two, and their
// posting lists are a few dozen bytes; a badger key for each would make an
// INSERT of 1,000 documents of prose write some 40,000 keys, and badger's
// writer (one goroutine for the whole database) spends most of its time per
// key, not per byte. So a segment keeps the terms of each field in term order
// in blocks of about blockTarget bytes, one key per block:
//
//	't' <tid:4> 'K' <seg:4> <field:1> <first term of the block> -> block
//
// A block holds, for each of its terms in ascending byte order,
//
//	uvarint(len(term)) term uvarint(tag) [posting list]
//
// where tag 0 says that the term's posting list is longer than inlineMax and
// has its own 'P' key, and tag n > 0 that the list follows, n-1 bytes. Every
// term of the field is in some block, so a term found in no block is in no
// document of the segment. The first terms of the blocks (a segment's block
// index, one per field) are kept in the segment meta and in memory, which
// names the one block that can hold a term.
const (
	blockTarget = 1000 // a block is flushed before it would grow past this (unless it holds one entry)
	inlineMax   = 256  // longer posting lists get their own key
)

// blockIndex is the first term of each block of one field of a segment, in
// ascending order.
type blockIndex struct {
	terms []byte   // the first terms, one after another
	ends  []uint32 // block i's first term ends at ends[i]
}

func (x *blockIndex) len() int { return len(x.ends) }

func (x *blockIndex) first(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = x.ends[i-1]
	}
	return x.terms[start:x.ends[i]]
}

func (x *blockIndex) add(term []byte) {
	x.terms = append(x.terms, term...)
	x.ends = append(x.ends, uint32(len(x.terms)))
}

// appendIndex appends the blocks of y, whose terms all follow those of x.
func (x *blockIndex) appendIndex(y *blockIndex) {
	base := uint32(len(x.terms))
	x.terms = append(x.terms, y.terms...)
	for _, e := range y.ends {
		x.ends = append(x.ends, base+e)
	}
}

// find returns the block that would hold term: the last one whose first term
// is not greater than term, or -1 when term comes before every block.
func (x *blockIndex) find(term []byte) int {
	return sort.Search(x.len(), func(i int) bool { return bytes.Compare(x.first(i), term) > 0 }) - 1
}

// encode appends uvarint(number of blocks), then each first term as
// uvarint(length) bytes.
func (x *blockIndex) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(x.len()))
	for i := range x.len() {
		t := x.first(i)
		dst = binary.AppendUvarint(dst, uint64(len(t)))
		dst = append(dst, t...)
	}
	return dst
}

// decodeBlockIndex reads what encode wrote from r; the first terms must
// ascend strictly.
func decodeBlockIndex(r *byteReader) (blockIndex, error) {
	var x blockIndex
	for range r.count(1) {
		l := r.count(1)
		if r.err != nil {
			break
		}
		t := r.b[:l]
		r.b = r.b[l:]
		if x.len() > 0 && bytes.Compare(x.first(x.len()-1), t) >= 0 {
			return x, fmt.Errorf("%w: block index out of order", errCorrupt)
		}
		x.add(t)
	}
	if r.err != nil {
		return x, fmt.Errorf("%w: block index", errCorrupt)
	}
	return x, nil
}

// blockWriter cuts the terms of one field, given in ascending order, into
// blocks and passes each finished block to put with its key.
type blockWriter struct {
	key   []byte // the key prefix: 't' <tid> 'K' <seg> <field>
	block []byte
	first []byte     // the first term of the block being filled
	index blockIndex // the blocks put so far
	mem   *arena     // copies of what is put (a WriteBatch keeps it until flushed)
	kbuf  []byte
	put   func(key, val []byte) error
}

// add appends a term with its inline posting list, or with none (own) when
// the list has its own key.
func (w *blockWriter) add(term, posting []byte, own bool) error {
	size := uvarintLen(uint64(len(term))) + len(term) + uvarintLen(uint64(len(posting)+1)) + len(posting)
	if len(w.block) > 0 && len(w.block)+size > blockTarget {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if len(w.block) == 0 {
		w.first = append(w.first[:0], term...)
	}
	w.block = binary.AppendUvarint(w.block, uint64(len(term)))
	w.block = append(w.block, term...)
	if own {
		w.block = append(w.block, 0)
		return nil
	}
	w.block = binary.AppendUvarint(w.block, uint64(len(posting)+1))
	w.block = append(w.block, posting...)
	return nil
}

// flush puts the block being filled, if any.
func (w *blockWriter) flush() error {
	if len(w.block) == 0 {
		return nil
	}
	w.kbuf = append(append(w.kbuf[:0], w.key...), w.first...)
	if err := w.put(w.mem.copy(w.kbuf), w.mem.copy(w.block)); err != nil {
		return err
	}
	w.index.add(w.first)
	w.block = w.block[:0]
	return nil
}

// blockEntry is one decoded entry of a block.
type blockEntry struct {
	term    []byte
	posting []byte // the inline posting list; nil when own
	own     bool   // the list has its own 'P' key
}

// nextEntry decodes the entry at the start of b and returns the rest.
func nextEntry(b []byte) (blockEntry, []byte, error) {
	var e blockEntry
	l, k := binary.Uvarint(b)
	if k <= 0 || l == 0 || l > uint64(len(b)-k) {
		return e, nil, fmt.Errorf("%w: block term", errCorrupt)
	}
	e.term, b = b[k:k+int(l)], b[k+int(l):]
	tag, k := binary.Uvarint(b)
	if k <= 0 || tag > uint64(len(b)-k)+1 {
		return e, nil, fmt.Errorf("%w: block entry of %q", errCorrupt, e.term)
	}
	b = b[k:]
	if tag == 0 {
		e.own = true
		return e, b, nil
	}
	e.posting, b = b[:tag-1], b[tag-1:]
	return e, b, nil
}

// lookupBlock finds term in a block.
func lookupBlock(block, term []byte) (blockEntry, bool, error) {
	for len(block) > 0 {
		e, rest, err := nextEntry(block)
		if err != nil {
			return e, false, err
		}
		switch c := bytes.Compare(e.term, term); {
		case c == 0:
			return e, true, nil
		case c > 0:
			return blockEntry{}, false, nil
		}
		block = rest
	}
	return blockEntry{}, false, nil
}

// termFilter is a Bloom filter of the terms of one field of a segment. A
// word of a query is absent from most segments, and a term the filter does
// not hold is in no document of the segment: no block is read to learn it
// (badger answers a key it does not have from its own filters, without
// reading a table block; a term inside a block has no such shortcut).
type termFilter struct {
	bits []uint64
}

// About 10 bits and 6 probes per term: under 1% of absent terms pass.
const (
	filterBitsPerTerm = 10
	filterProbes      = 6
)

func newTermFilter(terms int) termFilter {
	return termFilter{bits: make([]uint64, max(1, (terms*filterBitsPerTerm+63)/64))}
}

// termHash is FNV-1a with a final mix: stable across processes, since
// filters are stored.
func termHash(term []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range term {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// probes calls fn with the bit of each probe of the term of hash h.
func (f termFilter) probes(h uint64, fn func(bit uint64) bool) bool {
	h1, h2 := h&0xffffffff, h>>32|1
	m := uint64(len(f.bits)) * 64
	for i := range uint64(filterProbes) {
		if !fn((h1 + i*h2) % m) {
			return false
		}
	}
	return true
}

func (f termFilter) add(term []byte) { f.addHash(termHash(term)) }

// addHash adds the term whose termHash is h.
func (f termFilter) addHash(h uint64) {
	f.probes(h, func(bit uint64) bool {
		f.bits[bit/64] |= 1 << (bit % 64)
		return true
	})
}

// mayContain reports whether term may have been added (false: it was not).
func (f termFilter) mayContain(term []byte) bool {
	return f.probes(termHash(term), func(bit uint64) bool { return f.bits[bit/64]&(1<<(bit%64)) != 0 })
}

// or adds the terms of g, a filter of the same size.
func (f termFilter) or(g termFilter) {
	for i, w := range g.bits {
		f.bits[i] |= w
	}
}

// encode appends uvarint(number of words), then each word, 8 bytes
// little-endian.
func (f termFilter) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(f.bits)))
	for _, w := range f.bits {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

func decodeTermFilter(r *byteReader) (termFilter, error) {
	n := r.count(8)
	if r.err != nil || n == 0 {
		return termFilter{}, fmt.Errorf("%w: term filter", errCorrupt)
	}
	f := termFilter{bits: make([]uint64, n)}
	for i := range f.bits {
		f.bits[i] = binary.LittleEndian.Uint64(r.b[8*i:])
	}
	r.b = r.b[8*n:]
	return f, nil
}
