package tokenize

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
)

// Layout is where the words and the structure of one text lie: one Word per
// word position and the boundaries (sentences, paragraphs, zones) between
// them. It is what a highlighter needs from the tokenizer to cut passages
// out of the text; the terms themselves are left out.
type Layout struct {
	Words  []Word  // sorted by Pos; one per position but for words that share one (stopword_step=0)
	Bounds []Bound // sorted by Pos
	// Blends are the blended tokens (blend_chars) as a whole, when the
	// layout was made by NextCandidate: each at the position of its first
	// part, with the widest range of its forms. Their parts are Words.
	// Encoded layouts do not keep them.
	Blends []Word
}

// Word is the byte range of the tokens at one word position (the widest,
// when several tokens share it: a blended token and its first part). Its
// numbers are 32 bits wide (a text is at most 2 GiB), which halves the
// memory a long field's words take.
type Word struct {
	Pos        int32
	Start, End int32
}

// BoundKind says what a Bound marks.
type BoundKind uint8

// Boundary kinds, from the reserved terms of index_sp and index_zones.
const (
	SentenceStart  BoundKind = iota + 1 // the word at Pos starts a sentence
	ParagraphStart                      // the word at Pos starts a paragraph
	ZoneOpen                            // zone Zone opens at the word at Pos
	ZoneClose                           // zone Zone closes after the word at Pos
)

// Bound is a boundary at a word position.
type Bound struct {
	Kind BoundKind
	Pos  int
	Zone string // ZoneOpen and ZoneClose: the zone's name
}

// Reset empties the layout, keeping its storage, sized for a text of n
// bytes.
func (l *Layout) Reset(n int) {
	// About one word per five bytes of prose (a word and the space after
	// it): sized so that the words of a field are not copied while they grow.
	// Rounded up to one of eight steps per power of two (at most an eighth
	// more), so that storage kept for reuse fits most texts of about the
	// same size.
	if want := n/5 + 8; cap(l.Words) < want {
		step := 1 << max(bits.Len(uint(want))-3, 0)
		l.Words = make([]Word, 0, (want+step-1)/step*step)
	}
	l.Words, l.Bounds, l.Blends = l.Words[:0], l.Bounds[:0], l.Blends[:0]
}

// AddBlend records a blended token (the whole of a blended word, or one of
// its blend_mode forms) at pos: the widest range at each position.
func (l *Layout) AddBlend(pos, start, end int) {
	if n := len(l.Blends); n > 0 && int(l.Blends[n-1].Pos) == pos {
		b := &l.Blends[n-1]
		b.Start, b.End = min(b.Start, int32(start)), max(b.End, int32(end))
		return
	}
	l.Blends = append(l.Blends, Word{Pos: int32(pos), Start: int32(start), End: int32(end)})
}

// Add records one token, as an Iter gives it: a word widens the Word at its
// position or starts the next one; a reserved term becomes a Bound (exact
// forms share their word's range and are skipped).
func (l *Layout) Add(pos, start, end int, term []byte) {
	if len(term) > 0 && term[0] <= zoneCloseMark && string(term) != StopwordTerm {
		var b Bound
		switch {
		case string(term) == SentenceTerm:
			b.Kind = SentenceStart
		case string(term) == ParagraphTerm:
			b.Kind = ParagraphStart
		case term[0] == zoneOpenMark:
			b.Kind, b.Zone = ZoneOpen, string(term[1:])
		case term[0] == zoneCloseMark:
			b.Kind, b.Zone = ZoneClose, string(term[1:])
		default:
			return
		}
		b.Pos = pos
		l.Bounds = append(l.Bounds, b)
		return
	}
	if n := len(l.Words); n > 0 && int(l.Words[n-1].Pos) == pos && int(l.Words[n-1].End) > start {
		// Forms of one word (its exact form, the words a wordform gives):
		// one Word, the widest.
		w := &l.Words[n-1]
		w.Start, w.End = min(w.Start, int32(start)), max(w.End, int32(end))
		return
	}
	// A new word, or another word at the same position (a stopword with
	// stopword_step=0 and the word after it).
	l.settleBlend(pos)
	l.Words = append(l.Words, Word{Pos: int32(pos), Start: int32(start), End: int32(end)})
}

// settleBlend gives the last blended token a Word of its own, its whole
// range, when none of its parts took its position (each was shorter than
// min_word_len, say) and the next word, at pos, comes after it: a match
// of the blended term then has a word to mark. pos is math.MaxInt32 at
// the end of the text.
func (l *Layout) settleBlend(pos int) {
	n := len(l.Blends)
	if n == 0 {
		return
	}
	b := l.Blends[n-1]
	if int(b.Pos) >= pos {
		return
	}
	if m := len(l.Words); m > 0 && l.Words[m-1].Pos >= b.Pos {
		return
	}
	l.Words = append(l.Words, b)
}

// layoutVersion is the first byte of an encoded layout.
const layoutVersion = 1

// Word encoding (AppendEncoded): a word whose position follows the previous
// word's, whose start lies 0..6 bytes after the previous word's end and
// whose length is 1..31 bytes (most words of prose) is one byte,
// gap<<5 | length; any other word is the byte wordEscape followed by
// uvarint(position gap), varint(start - previous end), uvarint(length).
const (
	wordEscape  = 7 << 5
	maxShortGap = 6
	maxShortLen = 31
)

// AppendEncoded appends the compact encoding of l to dst, about one byte per
// word of prose: what an index keeps beside a stored text so that it need
// not tokenize the text again to highlight it.
//
//	version:1  uvarint len(Words)  words...  uvarint len(Bounds)  bounds...
//
// A bound is its kind byte, uvarint(position - previous bound's position)
// and, for a zone, uvarint(len(name)) and the name.
func (l *Layout) AppendEncoded(dst []byte) []byte {
	dst = append(dst, layoutVersion)
	dst = binary.AppendUvarint(dst, uint64(len(l.Words)))
	var pos, end int32
	for _, w := range l.Words {
		gap, sep, n := w.Pos-pos, w.Start-end, w.End-w.Start
		if gap == 1 && sep >= 0 && sep <= maxShortGap && n >= 1 && n <= maxShortLen {
			dst = append(dst, byte(sep)<<5|byte(n))
		} else {
			dst = append(dst, wordEscape)
			dst = binary.AppendUvarint(dst, uint64(uint32(gap)))
			dst = binary.AppendVarint(dst, int64(sep))
			dst = binary.AppendUvarint(dst, uint64(uint32(n)))
		}
		pos, end = w.Pos, w.End
	}
	dst = binary.AppendUvarint(dst, uint64(len(l.Bounds)))
	last := 0
	for _, b := range l.Bounds {
		dst = append(dst, byte(b.Kind))
		dst = binary.AppendUvarint(dst, uint64(b.Pos-last))
		if b.Kind == ZoneOpen || b.Kind == ZoneClose {
			dst = binary.AppendUvarint(dst, uint64(len(b.Zone)))
			dst = append(dst, b.Zone...)
		}
		last = b.Pos
	}
	return dst
}

// ErrBadLayout is returned by Decode for an encoding it cannot read, or one
// that does not fit the text it is said to describe.
var ErrBadLayout = errors.New("tokenize: corrupt layout")

// Decode replaces l's contents (keeping its storage) with the layout
// encoded in b by AppendEncoded, checking that every word lies inside a
// text of textLen bytes, in order and without overlaps (a layout whose
// words overlap is reported as corrupt: the caller tokenizes the text
// instead).
func (l *Layout) Decode(b []byte, textLen int) error {
	l.Words, l.Bounds = l.Words[:0], l.Bounds[:0]
	if len(b) == 0 || b[0] != layoutVersion {
		return ErrBadLayout
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return ErrBadLayout
	}
	b = b[k:]
	words := slices.Grow(l.Words, int(n))[:n]
	b, ok := decodeWords(words, b, textLen)
	if !ok {
		return ErrBadLayout
	}
	l.Words = words
	n, k = binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return ErrBadLayout
	}
	b = b[k:]
	last := uint64(0)
	for range n {
		if len(b) == 0 {
			return ErrBadLayout
		}
		bd := Bound{Kind: BoundKind(b[0])}
		d, k := binary.Uvarint(b[1:])
		if k <= 0 || d > math.MaxInt32 || last+d > math.MaxInt32 {
			return ErrBadLayout
		}
		b = b[1+k:]
		last += d
		bd.Pos = int(last)
		switch bd.Kind {
		case SentenceStart, ParagraphStart:
		case ZoneOpen, ZoneClose:
			z, k := binary.Uvarint(b)
			if k <= 0 || z > uint64(len(b)-k) {
				return ErrBadLayout
			}
			bd.Zone = string(b[k : k+int(z)])
			b = b[k+int(z):]
		default:
			return ErrBadLayout
		}
		l.Bounds = append(l.Bounds, bd)
	}
	if len(b) != 0 {
		return ErrBadLayout
	}
	return nil
}

// decodeWords fills words from their encoding at the start of b (see
// AppendEncoded) and returns what follows it in b; false when the encoding
// is corrupt or a word ends past textLen. Positions and ends never go down
// (a position gap is at least 1, a word starts at or after the previous
// end): the last word's are the largest, checked once at the end for the
// one-byte words. (A function of its own, so that the loop of one-byte
// words keeps its values in registers.)
func decodeWords(words []Word, b []byte, textLen int) ([]byte, bool) {
	var pos, end int64
	i := 0
	for w := 0; w < len(words); w++ {
		// A run of one-byte words (c&wordEscape != wordEscape).
		for ; w < len(words) && i < len(b) && b[i] < wordEscape; w, i = w+1, i+1 {
			c := b[i]
			pos++
			start := end + int64(c>>5)
			end = start + int64(c&maxShortLen)
			words[w] = Word{Pos: int32(pos), Start: int32(start), End: int32(end)}
		}
		if w == len(words) {
			break
		}
		if i >= len(b) {
			return nil, false
		}
		i++ // (wordEscape)
		g, k1 := binary.Uvarint(b[i:])
		if k1 <= 0 {
			return nil, false
		}
		i += k1
		sep, k2 := binary.Varint(b[i:])
		if k2 <= 0 {
			return nil, false
		}
		i += k2
		size, k3 := binary.Uvarint(b[i:])
		if k3 <= 0 || g == 0 || g > math.MaxInt32 || size > math.MaxInt32 || sep < 0 || sep > int64(textLen) {
			return nil, false
		}
		i += k3
		pos += int64(g)
		start := end + sep
		end = start + int64(size)
		if end > int64(textLen) || pos > math.MaxInt32 {
			return nil, false
		}
		words[w] = Word{Pos: int32(pos), Start: int32(start), End: int32(end)}
	}
	if end > int64(textLen) || pos > math.MaxInt32 {
		return nil, false
	}
	return b[i:], true
}

// Mark is one occurrence of a query keyword in a text: the word position
// that proves the match, the bytes of the token that matched there and
// which of the query's distinct keywords it matched (from 0). The index's
// text matcher finds marks and the highlighter wraps them, so the type
// lives here, below both.
type Mark struct {
	Pos        int // word position in the text
	Start, End int // byte range of the matched token
	Keyword    int // which distinct keyword
}

// KeywordBit is keyword k's bit in a mask of keywords (Mark.Keyword),
// KeywordSlot the bit's number: keywords past the 64th share the bits of
// the first ones (the reference's masks wrap alike, at 32), so a word of
// the 65th is a marked word all the same. The matcher and the highlighter
// both count keywords so.
func KeywordBit(k int) uint64 { return 1 << uint(KeywordSlot(k)) }

// KeywordSlot: see KeywordBit.
func KeywordSlot(k int) int { return k & 63 }
