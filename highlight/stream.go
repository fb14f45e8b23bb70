package highlight

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// The first stage: a field's shown text cut into units, the pieces every
// later stage counts in. A unit is a word, or one run of the characters
// between two words: the white space and the rest (punctuation, words too
// short to index) alternate as runs of their own, and a phrase-boundary
// character is a run by itself. Units lie end to end, so a run of units
// is a byte range of the text, and a snippet is such a run.

// unitKind tells a word from the runs between words.
type unitKind uint8

const (
	kindWord unitKind = iota // a word: counts toward limit_words and around
	kindGap                  // between two words (or before the first)
	kindTail                 // after the last word
)

// unit is one piece of the shown text.
type unit struct {
	start, end int32 // byte range in the shown text
	cp         int32 // its length in codepoints
	pos, last  int32 // the positions a word stands for (0 for the runs between words)
	kind       unitKind
	gapStart   bool  // the first run of its gap (gaps are handed over whole)
	boundary   bool  // a phrase-boundary character (use_boundaries)
	hit        bool  // a word at a marked position
	term       int16 // a marked word's keyword
	span       int32 // a marked word's span (numbered in text order), -1 otherwise
	// The unit boundaries of snippet_boundary around a word: spzBefore
	// a sentence (spzSentence) or a paragraph or zone (spzNow) starts
	// with it; zoneAfter a zone ends with it.
	spzBefore uint8
	zoneAfter bool
}

// Kinds of unit boundary before a word.
const (
	spzSentence = 1 // takes effect after the first run of the gap before the word (the end of the sentence)
	spzNow      = 2 // takes effect at the word
)

// word reports whether u counts as a word.
func (u *unit) word() bool { return u.kind == kindWord }

// mask is the keyword bit u contributes to a passage: set for a word
// inside a marked span.
func (u *unit) mask() uint64 {
	if u.hit && u.term >= 0 && u.term < 64 {
		return 1 << uint(u.term)
	}
	return 0
}

// field is one field ready for the later stages.
type ufield struct {
	name     string
	text     string // the shown text (stripped of markup when it is stripped)
	retain   bool
	units    []unit
	spans    int    // marked spans
	found    uint64 // keywords present in the field
	bounds   []tokenize.Bound
	boundary func(rune) bool
}

// isSpace is the white space that separates runs between words.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// newField cuts f into units and folds its marks into spans.
func newField(f *Field, o *Options) *ufield {
	p := &ufield{name: f.Name, text: f.Text, retain: o.HTMLStripMode == "retain", found: f.Found, bounds: f.Bounds}
	if o.UseBoundaries {
		p.boundary = f.Boundaries
	}
	words := f.Words
	marks := f.Marks
	if o.HTMLStripMode == "strip" || o.HTMLStripMode == "index" && f.HTML {
		p.text, words, marks = stripField(f)
	}
	// The marked positions, each with its keyword.
	type posTerm struct {
		pos  int32
		term int
	}
	hits := make([]posTerm, 0, len(marks))
	for _, m := range marks {
		hits = append(hits, posTerm{int32(m.Pos), m.Keyword})
		if m.Keyword >= 0 && m.Keyword < 64 {
			p.found |= 1 << uint(m.Keyword)
		}
	}
	slices.SortFunc(hits, func(a, b posTerm) int {
		if a.pos != b.pos {
			return int(a.pos - b.pos)
		}
		return a.term - b.term
	})
	hits = slices.CompactFunc(hits, func(a, b posTerm) bool { return a.pos == b.pos })
	p.units = make([]unit, 0, 2*len(words)+2)
	ascii := isASCII(p.text)
	cps := func(s string) int32 {
		if ascii {
			return int32(len(s))
		}
		return int32(utf8.RuneCountInString(s))
	}
	// Words become units; a word inside the previous one (the parts of
	// a blended word) widens the positions that unit stands for.
	at, hi := 0, 0
	for _, w := range words {
		s, e := int(w.Start), int(w.End)
		if e > len(p.text) || e <= s {
			continue
		}
		if s < at {
			if n := len(p.units); n > 0 && p.units[n-1].kind == kindWord {
				p.units[n-1].last = max(p.units[n-1].last, w.Pos)
			}
			continue
		}
		if s > at {
			p.addGap(at, s, kindGap, cps)
		}
		p.units = append(p.units, unit{start: int32(s), end: int32(e), cp: cps(p.text[s:e]), pos: w.Pos, last: w.Pos,
			kind: kindWord, term: -1, span: -1})
		at = e
	}
	p.markUnits(f.Bounds, o.SnippetBoundary)
	// A word is marked when a position it stands for is; marked words
	// at neighbouring positions fold into one span (in retain mode, not
	// across a tag: tags take positions there).
	prev := -1
	for i := range p.units {
		u := &p.units[i]
		if u.kind != kindWord {
			continue
		}
		for hi < len(hits) && hits[hi].pos < u.pos {
			hi++
		}
		if hi < len(hits) && hits[hi].pos <= u.last {
			u.hit, u.term = true, int16(hits[hi].term)
			if prev >= 0 && p.units[prev].hit && p.units[prev].last+1 == u.pos &&
				!(p.retain && strings.IndexByte(p.text[p.units[prev].end:u.start], '<') >= 0) {
				u.span = p.units[prev].span
			} else {
				u.span = int32(p.spans)
				p.spans++
			}
		}
		prev = i
	}
	if at < len(p.text) {
		p.addGap(at, len(p.text), kindTail, cps)
	}
	return p
}

// markUnits records on the words where the units of snippet_boundary
// begin and end: sentences, paragraphs and zones for "sentence",
// paragraphs and zones for "paragraph", zones for "zone".
func (p *ufield) markUnits(bounds []tokenize.Bound, mode string) {
	if mode == "" || len(bounds) == 0 {
		return
	}
	// The word units, in position order: the one standing for pos is the
	// first whose last position is at or after it.
	var words []int
	for i := range p.units {
		if p.units[i].kind == kindWord {
			words = append(words, i)
		}
	}
	if len(words) == 0 {
		return
	}
	first := words[0]
	byPos := func(pos int) int {
		k := sort.Search(len(words), func(k int) bool { return int(p.units[words[k]].last) >= pos })
		if k == len(words) {
			return len(p.units)
		}
		return words[k]
	}
	for _, b := range bounds {
		i := byPos(b.Pos)
		if i >= len(p.units) {
			continue
		}
		u := &p.units[i]
		switch {
		case b.Kind == tokenize.SentenceStart && mode == "sentence":
			if i != first && u.spzBefore == 0 {
				u.spzBefore = spzSentence
			}
		case b.Kind == tokenize.ParagraphStart && mode != "zone", b.Kind == tokenize.ZoneOpen:
			if i != first {
				u.spzBefore = spzNow
			}
		case b.Kind == tokenize.ZoneClose:
			if int(u.pos) <= b.Pos {
				u.zoneAfter = true
			}
		}
	}
}

// zoneAt is the innermost zone open at word position pos (emit_zones).
func zoneAt(bounds []tokenize.Bound, pos int) string {
	var open []string
	for _, b := range bounds {
		if b.Pos > pos || b.Pos == pos && b.Kind == tokenize.ZoneClose {
			break
		}
		switch b.Kind {
		case tokenize.ZoneOpen:
			open = append(open, b.Zone)
		case tokenize.ZoneClose:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return ""
	}
	return open[len(open)-1]
}

// addGap appends the runs of text[from:to], the characters between two
// words: white space and the rest alternate, and a boundary character
// stands alone.
func (p *ufield) addGap(from, to int, kind unitKind, cps func(string) int32) {
	bound := -1
	if p.boundary != nil {
		// The last boundary character of the gap is the one that counts.
		for i, r := range p.text[from:to] {
			if p.boundary(r) {
				bound = from + i
			}
		}
	}
	boundEnd := -1
	if bound >= 0 {
		_, n := utf8.DecodeRuneInString(p.text[bound:to])
		boundEnd = bound + n
	}
	first := true
	runStart := from
	for i := from + 1; i <= to; i++ {
		if i < to {
			switch {
			case i == bound || i == boundEnd:
			case bound < i && i < boundEnd:
				continue
			case isSpace(p.text[i]) == isSpace(p.text[runStart]):
				continue
			}
		}
		p.units = append(p.units, unit{start: int32(runStart), end: int32(i), cp: cps(p.text[runStart:i]),
			kind: kind, gapStart: first, boundary: runStart == bound, term: -1, span: -1})
		first = false
		runStart = i
	}
}

// stripField strips the markup of f's text for showing and moves its
// words onto the stripped text. As the reference shows stripped text, a
// zone tag that is inline leaves no space (zones matter to the index, not
// to what is shown), runs of white space and control characters are one
// space, and entities are decoded.
func stripField(f *Field) (string, []tokenize.Word, []Mark) {
	var opts htmlstrip.Options
	if f.StripOptions != nil {
		opts = *f.StripOptions
		opts.Zones = nil
	}
	r := htmlstrip.Strip(f.Text, &opts)
	// origEnd(x) is where the original of text[:x] ends: non-decreasing.
	origEnd := func(x int) int { _, e := r.Orig(x, x); return e }
	n := len(r.Text)
	mapOff := func(o int) int { return sort.Search(n, func(x int) bool { return origEnd(x+1) > o }) }
	mapEnd := func(o int) int { return sort.Search(n+1, func(x int) bool { return origEnd(x) >= o }) }
	// Collapse white space: at[i] is where byte i of the stripped text
	// lands in the shown text.
	var b strings.Builder
	b.Grow(n)
	at := make([]int32, n+1)
	space := false
	for i := 0; i < n; i++ {
		at[i] = int32(b.Len())
		c := r.Text[i]
		if c < 0x20 || c == ' ' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(c)
	}
	at[n] = int32(b.Len())
	words := make([]tokenize.Word, 0, len(f.Words))
	for _, w := range f.Words {
		s, e := mapOff(int(w.Start)), mapEnd(int(w.End))
		if e <= s || e > n {
			continue // inside removed markup
		}
		words = append(words, tokenize.Word{Pos: w.Pos, Start: at[s], End: at[e]})
	}
	return b.String(), words, f.Marks
}

// isASCII reports whether s has only ASCII bytes, 8 at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
