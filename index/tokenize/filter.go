package tokenize

import (
	"math"
	"math/bits"
	"slices"
)

// Filter is a quick, inexact test of terms against a set of terms: it turns
// away most terms that are not in the set by their length and first byte,
// and never one that is. The zero Filter turns away every term.
type Filter struct {
	all   bool
	lens  uint64    // bit n: a term of n bytes (terms of 63 bytes or more share bit 63)
	first [4]uint64 // bit b: a term starting with byte b
}

// Add puts term in the set. The empty term is never in a set.
func (f *Filter) Add(term string) {
	if term != "" {
		f.lens |= 1 << min(len(term), 63)
		f.first[term[0]>>6] |= 1 << (term[0] & 63)
	}
}

// All makes f pass every term, the empty one too.
func (f *Filter) All() {
	f.all, f.lens, f.first = true, ^uint64(0), [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
}

// Maybe reports whether term may be in the set.
func (f *Filter) Maybe(term []byte) bool {
	if f.all {
		return true
	}
	return len(term) > 0 && f.lens&(1<<min(len(term), 63)) != 0 && f.first[term[0]>>6]&(1<<(term[0]&63)) != 0
}

// MaybeStem reports whether the stem of word may pass f, for stemmers
// that keep a word's first byte when it is a lower-case ASCII letter or
// digit, and never make it longer (stemmer.keepsHead): a term of the set
// must then start with that byte and be no longer than word. Any other
// word may.
func (f *Filter) MaybeStem(word []byte) bool {
	if len(word) == 0 {
		return true
	}
	return f.maybeStem(word[0], len(word))
}

// maybeStem is MaybeStem of a word of n bytes that starts with c.
func (f *Filter) maybeStem(c byte, n int) bool {
	if f.all || !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
		return true
	}
	// (2<<63 is 0 in 64 bits: then every length bit is kept.)
	return f.first[c>>6]&(1<<(c&63)) != 0 && f.lens&(2<<min(n, 63)-1) != 0
}

// NextCandidate advances to the next token whose term f may pass, adding
// every token on the way, that one too, to l as Layout.Add does (a
// blended token as Layout.AddBlend does). It returns
// false at the end of the text. It is Next for a caller that lays out every
// token but looks at the terms of a few: on the default rules' block path,
// a word f turns away is neither folded nor returned; with morphology, a
// word whose stem f must turn away is not stemmed (and its token, added to
// l, has no term).
func (it *Iter) NextCandidate(l *Layout, f *Filter) bool {
	if it.full && it.x.simple {
		return it.x.nextSimple(it, l, f)
	}
	text := it.text
blocks:
	for {
		i := it.i
		if i >= it.blockEnd && (i < it.noBlock || i+72 > len(text) || !it.block(i)) {
			if !it.scan() {
				l.settleBlend(math.MaxInt32)
				return false
			}
			if it.blended {
				l.AddBlend(it.pos, it.start, it.end)
			} else {
				l.Add(it.pos, it.start, it.end, it.term)
			}
			if f.Maybe(it.term) {
				return true
			}
			continue
		}
		// The words of the block, from i on: a word of the default rules
		// has a position of its own and is never a reserved term, so
		// Layout.Add would append it. Positions follow the words' count.
		base := it.blockEnd - 64
		bm := it.words
		starts := (bm &^ (bm << 1)) >> uint(i-base) << uint(i-base)
		lens, first := f.lens, &f.first
		// Room for every word of the block (one in two bytes at most), so
		// that no call to grow the slice sits in the loop.
		words := slices.Grow(l.Words, 32)
		delta := it.pos - len(words)
		for starts != 0 {
			s := uint(bits.TrailingZeros64(starts))
			starts &= starts - 1
			n := uint(bits.TrailingZeros64(^(bm >> s))) // the word's bytes in the block
			start := base + int(s)
			if s+n == 64 {
				// The word may go on past the block: the next block starts
				// with it, unless it fills this one (then no block is tried
				// before its second byte, and the byte scan takes it).
				it.pos, l.Words = len(words)+delta, words
				it.i, it.blockEnd = start, start
				if s == 0 {
					it.noBlock = start + 1
				}
				continue blocks
			}
			end := start + int(n)
			k := len(words)
			words = words[:k+1]
			words[k] = Word{Pos: int32(k + 1 + delta), Start: int32(start), End: int32(end)}
			// A word byte with bit 5 set is itself folded: a lower-case
			// letter or a digit. One branch on both tests: which words
			// pass is hard to predict.
			if c := text[start] | 0x20; lens>>n&(first[c>>6]>>(c&63))&1 != 0 {
				it.pos, l.Words = len(words)+delta, words
				it.i = end
				it.foldWord(s, start, end)
				return true
			}
		}
		it.pos, l.Words = len(words)+delta, words
		it.i = it.blockEnd
	}
}
