package index

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// termDict numbers the distinct terms of a segment being built: an open
// addressing hash table over one byte slice of term text, which costs far
// less per lookup than a map[string] and allocates nothing per term. A slot
// holds the first 8 bytes of its term, so most words (8 bytes or shorter) are
// found without touching the term text.
type termDict struct {
	seed  maphash.Seed
	slots []dictSlot
	mask  uint64
	data  []byte   // the terms, one after another
	offs  []uint32 // term i is data[offs[i]:offs[i+1]]
}

type dictSlot struct {
	head uint64 // the first 8 bytes of the term, zero padded
	meta uint64 // len<<32 | (id+1); 0 is an empty slot
}

// newTermDict makes a dictionary for about words words of text: its table
// starts at a power of two near that (at most 1<<14 slots; it grows as
// needed), so that the dictionary of a small document, a segment made by an
// INSERT of one row, costs a few kilobytes.
func newTermDict(words int) *termDict {
	n := 256
	for n < words && n < 1<<14 {
		n *= 2
	}
	d := &termDict{seed: maphash.MakeSeed(), slots: make([]dictSlot, n), offs: []uint32{0}}
	d.mask = uint64(len(d.slots) - 1)
	return d
}

func (d *termDict) len() int { return len(d.offs) - 1 }

func (d *termDict) term(id uint32) []byte { return d.data[d.offs[id]:d.offs[id+1]] }

// head returns the first 8 bytes of term as a number, zero padded. Shorter
// terms are read with two overlapping loads (no copy to a buffer, whose
// store and reload would stall).
func head(term []byte) uint64 {
	n := len(term)
	switch {
	case n >= 8:
		return binary.LittleEndian.Uint64(term)
	case n >= 4:
		lo := uint64(binary.LittleEndian.Uint32(term))
		hi := uint64(binary.LittleEndian.Uint32(term[n-4:]))
		return lo | hi<<(8*(n-4))
	case n > 0:
		return uint64(term[0]) | uint64(term[n/2])<<(8*(n/2)) | uint64(term[n-1])<<(8*(n-1))
	}
	return 0
}

func (d *termDict) hash(h uint64, term []byte) uint64 {
	if len(term) <= 8 {
		hi, lo := bits.Mul64(h^uint64(len(term)), 0x9E3779B97F4A7C15)
		return hi ^ lo
	}
	return maphash.Bytes(d.seed, term)
}

// id returns the number of term, adding it if new.
func (d *termDict) id(term []byte) uint32 {
	h := head(term)
	meta := uint64(len(term)) << 32
	for i := d.hash(h, term) & d.mask; ; i = (i + 1) & d.mask {
		s := &d.slots[i]
		if s.meta == 0 {
			id := uint32(d.len())
			d.data = append(d.data, term...)
			d.offs = append(d.offs, uint32(len(d.data)))
			s.head, s.meta = h, meta|uint64(id+1)
			if 2*d.len() > len(d.slots) {
				d.grow()
			}
			return id
		}
		if s.head == h && s.meta&^0xffffffff == meta {
			id := uint32(s.meta) - 1
			if len(term) <= 8 || bytes.Equal(d.term(id)[8:], term[8:]) {
				return id
			}
		}
	}
}

func (d *termDict) grow() {
	d.slots = make([]dictSlot, 2*len(d.slots))
	d.mask = uint64(len(d.slots) - 1)
	for id := uint32(0); int(id) < d.len(); id++ {
		term := d.term(id)
		h := head(term)
		i := d.hash(h, term) & d.mask
		for d.slots[i].meta != 0 {
			i = (i + 1) & d.mask
		}
		d.slots[i] = dictSlot{head: h, meta: uint64(len(term))<<32 | uint64(id+1)}
	}
}
