package tokenize

import "math/bits"

// Layout is where the words and the structure of one text lie: one Word per
// word position and the boundaries (sentences, paragraphs, zones) between
// them. It is what a highlighter needs from the tokenizer to cut passages
// out of the text; the terms themselves are left out.
type Layout struct {
	Words  []Word  // sorted by Pos, one per position
	Bounds []Bound // sorted by Pos
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
	l.Words, l.Bounds = l.Words[:0], l.Bounds[:0]
}

// Add records one token, as an Iter gives it: a word widens the Word at its
// position or starts the next one; a reserved term becomes a Bound (exact
// forms share their word's range and are skipped).
func (l *Layout) Add(pos, start, end int, term []byte) {
	if len(term) > 0 && term[0] <= zoneCloseMark {
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
	if n := len(l.Words); n > 0 && int(l.Words[n-1].Pos) == pos {
		w := &l.Words[n-1]
		w.Start, w.End = min(w.Start, int32(start)), max(w.End, int32(end))
		return
	}
	l.Words = append(l.Words, Word{Pos: int32(pos), Start: int32(start), End: int32(end)})
}
