package highlight

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// The first stage: a field's shown text as a stream of units, the pieces
// every later stage counts in. A unit is a word, or one run of the
// characters between two words: white space and the rest (punctuation,
// words too short to index) alternate as runs of their own, and a
// phrase-boundary character is a run by itself. Units lie end to end, so a
// run of units is a byte range of the text, and a snippet is such a run.
// The stream is walked, never stored: a stage keeps only the units it
// looks at (a window), so a field of any size costs what its window costs.

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
	pos, last  int32 // the positions a word stands for (its own and those of the parts of a blended word)
	span       int32 // a marked word's span (numbered in text order), -1 otherwise
	term       int16 // a marked word's keyword
	kind       unitKind
	hit        bool // a word at a marked position
	boundary   bool // a phrase-boundary character (use_boundaries)
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

// posTerm is a marked position and its keyword.
type posTerm struct {
	pos  int32
	term int
}

// ufield is one field ready for the later stages.
type ufield struct {
	name     string
	text     string // the shown text (stripped of markup when it is stripped)
	retain   bool
	words    []tokenize.Word // onto text
	blends   []tokenize.Word // blended words as a whole, onto text (their parts are words)
	hits     []posTerm       // sorted by position, one per position
	hitWords []int           // the index in words of each marked word, in order
	marked   bool            // a word of the text is marked
	found    uint64          // keywords present in the field
	bounds   []tokenize.Bound
	spzMode  string   // the units passages keep within: snippet_boundary, or the query's (Request.Units)
	strip    stripHow // how the shown text was stripped of markup
	tagAt    []int32  // where the tags that end paragraphs and zones stood in the stripped text (with units)
	boundary func(rune) bool
	ascii    bool
	walkAll  bool   // tests: the beginning of the field is found by walking its units
	gap      []unit // scratch for walk
	w        unit   // the word walk hands out
	prev     unit   // the word before it
}

// isSpace is the white space that separates runs between words.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// newField prepares f in p: the shown text, its words on it, the marked
// positions. p's storage is kept for reuse; the rest of it is replaced.
func newField(p *ufield, f *Field, o *Options, queryUnits string) {
	*p = ufield{name: f.Name, text: f.Text, retain: o.HTMLStripMode == "retain", found: f.Found,
		bounds: f.Bounds, spzMode: strongerUnit(o.SnippetBoundary, queryUnits), words: f.Words, blends: f.Blends,
		hits: slices.Grow(p.hits[:0], len(f.Marks)), hitWords: p.hitWords[:0], gap: p.gap[:0], tagAt: p.tagAt[:0]}
	if o.UseBoundaries {
		p.boundary = f.Boundaries
	}
	// The marked positions: a mark's own, and those of the other words its
	// bytes hold (the parts of a blended word matched as a whole).
	for _, m := range f.Marks {
		p.hits = append(p.hits, posTerm{int32(m.Pos), m.Keyword})
		if m.Keyword >= 0 {
			p.found |= tokenize.KeywordBit(m.Keyword)
		}
		if len(f.Blends) == 0 || m.End <= m.Start {
			continue
		}
		i, _ := slices.BinarySearchFunc(f.Words, int32(m.Pos), func(w tokenize.Word, pos int32) int { return int(w.Pos - pos) })
		for ; i < len(f.Words) && int(f.Words[i].Start) < m.End; i++ {
			if w := f.Words[i]; int(w.Start) >= m.Start && int(w.End) <= m.End && int(w.Pos) != m.Pos {
				p.hits = append(p.hits, posTerm{w.Pos, m.Keyword})
			}
		}
	}
	switch {
	case o.HTMLStripMode == "strip" || o.HTMLStripMode == "index" && f.HTML:
		p.strip = stripHow{units: p.spzMode != "", keepEntities: o.HTMLStripMode == "strip"}
		p.text, p.words, p.blends, p.tagAt = stripField(f, p.strip, p.tagAt[:0])
	case p.retain && strings.IndexByte(f.Text, '<') >= 0:
		p.words, p.blends = retainedWords(f)
	}
	p.ascii = isASCII(p.text)
	byPos := func(a, b posTerm) int {
		if a.pos != b.pos {
			return int(a.pos - b.pos)
		}
		return a.term - b.term
	}
	if !slices.IsSortedFunc(p.hits, byPos) { // the matcher gives them in order
		slices.SortFunc(p.hits, byPos)
	}
	p.hits = slices.CompactFunc(p.hits, func(a, b posTerm) bool { return a.pos == b.pos })
	// The words at marked positions (both lists are in position order).
	i := 0
	for _, h := range p.hits {
		if i < len(p.words) && p.words[i].Pos < h.pos {
			// Positions most often count words one by one: the word
			// that far ahead is the first at the position, or else
			// ever longer steps
			if j := i + int(h.pos-p.words[i].Pos); j < len(p.words) && p.words[j].Pos == h.pos && p.words[j-1].Pos < h.pos {
				i = j
				goto found
			}
			// Ever longer steps (marked words lie near one another in
			// dense text, far apart in sparse text), then a search in the
			// last one.
			step := 1
			for i+step < len(p.words) && p.words[i+step].Pos < h.pos {
				i += step
				step *= 2
			}
			// words[i].Pos < h.pos <= words[end].Pos (or end is the end).
			end := min(i+step, len(p.words))
			for i+1 < end {
				if m := int(uint(i+end) >> 1); p.words[m].Pos < h.pos {
					i = m
				} else {
					end = m
				}
			}
			i = end
		}
	found:
		for ; i < len(p.words) && p.words[i].Pos == h.pos; i++ {
			p.marked = true
			p.hitWords = append(p.hitWords, i)
		}
	}
}

// cps counts the codepoints of s, a piece of the shown text.
func (p *ufield) cps(s string) int32 {
	if p.ascii {
		return int32(len(s))
	}
	return int32(utf8.RuneCountInString(s))
}

// walk hands fn the units of the field in order: for each word, the runs
// of the gap before it (possibly none) and the word; last, the runs after
// the last word with w nil. The slice and the word are valid during the
// call only. fn returns false to stop.
func (p *ufield) walk(fn func(gap []unit, w *unit) bool) {
	var c wordCursor
	at := 0
	p.prev = unit{span: -1, start: -1}
	for c.next(p, len(p.text)) {
		if !fn(p.gapBefore(at, &p.w, kindGap), &p.w) {
			return
		}
		at = int(p.w.end)
		p.prev = p.w
	}
	fn(p.gapTo(at, len(p.text), kindTail), nil)
}

// gapBefore gives the units between at and word w: the rest of a blended
// word the last word was a part of, the runs, the start of a blended word
// w is the first part of. The rest and the start are pieces that are not
// words but stand at their part's position: a span that holds the part
// holds them too ("<b>+ben.</b>").
func (p *ufield) gapBefore(at int, w *unit, kind unitKind) []unit {
	if len(p.blends) == 0 {
		return p.gapRuns(at, int(w.start), kind)
	}
	p.gap = p.gap[:0]
	at = p.trail(at, int(w.start))
	lead := int(w.start)
	if b := p.blendAt(int(w.start)); b >= 0 && int(p.blends[b].Start) >= at && int(p.blends[b].Start) < lead {
		lead = int(p.blends[b].Start)
	}
	p.appendRuns(at, lead, kind)
	if lead < int(w.start) {
		p.gap = append(p.gap, unit{start: int32(lead), end: w.start, cp: p.cps(p.text[lead:w.start]), kind: kind,
			pos: w.pos, last: w.pos, term: -1, span: w.span})
	}
	return p.gap
}

// gapTo gives the units from at to to, after the last word.
func (p *ufield) gapTo(at, to int, kind unitKind) []unit {
	if len(p.blends) == 0 {
		return p.gapRuns(at, to, kind)
	}
	p.gap = p.gap[:0]
	at = p.trail(at, to)
	p.appendRuns(at, to, kind)
	return p.gap
}

// trail appends the rest of the blended word p.prev is the last part of,
// when it ends between at and to; it returns where the gap goes on.
func (p *ufield) trail(at, to int) int {
	if p.prev.start < 0 {
		return at
	}
	if b := p.blendAt(int(p.prev.start)); b >= 0 {
		if end := int(p.blends[b].End); end > at && end <= to {
			p.gap = append(p.gap, unit{start: int32(at), end: int32(end), cp: p.cps(p.text[at:end]), kind: kindGap,
				pos: p.prev.last, last: p.prev.last, term: -1, span: p.prev.span})
			return end
		}
	}
	return at
}

// runEnd is the last position of the run of marked positions that holds
// pos: a mark closes at the first gap after a word at that position (so a
// later word that shares it is marked anew).
func (p *ufield) runEnd(pos int32) int32 {
	k := sort.Search(len(p.hits), func(k int) bool { return p.hits[k].pos >= pos })
	if k == len(p.hits) {
		return pos
	}
	for k+1 < len(p.hits) && p.hits[k+1].pos == p.hits[k].pos+1 {
		k++
	}
	return p.hits[k].pos
}

// blendAt is the blended word whose bytes hold byte x, or -1.
func (p *ufield) blendAt(x int) int {
	i := sort.Search(len(p.blends), func(i int) bool { return int(p.blends[i].End) > x })
	if i < len(p.blends) && int(p.blends[i].Start) <= x {
		return i
	}
	return -1
}

// walkRange hands fn the units of the field that lie in text[from:to]
// (from and to are where units start and end), as walk would; spans are
// numbered from 0, and one the range starts inside goes on.
func (p *ufield) walkRange(from, to int, fn func(u *unit)) {
	i := sort.Search(len(p.words), func(i int) bool { return int(p.words[i].Start) >= from })
	c := wordCursor{i: i, at: from, started: true, prevLast: -1, span: -1}
	p.prev = unit{start: -1, span: -1}
	if i > 0 {
		w := p.words[i-1]
		k := sort.Search(len(p.hits), func(k int) bool { return p.hits[k].pos >= w.Pos })
		hit := k < len(p.hits) && p.hits[k].pos == w.Pos
		c.prevHit, c.prevLast, c.prevEnd = hit, w.Pos, int(w.End)
		p.prev = unit{start: w.Start, end: w.End, pos: w.Pos, last: w.Pos, span: -1}
		if hit {
			c.span, p.prev.span = 0, 0
		}
	}
	c.hi = sort.Search(len(p.hits), func(k int) bool { return p.hits[k].pos >= c.posAt(p) })
	at := from
	for c.next(p, to) {
		for k := range p.gapBefore(at, &p.w, kindGap) {
			fn(&p.gap[k])
		}
		fn(&p.w)
		at = int(p.w.end)
		p.prev = p.w
	}
	for k := range p.gapTo(at, to, kindGap) {
		fn(&p.gap[k])
	}
}

// wordCursor steps through the words of a field, building their units.
type wordCursor struct {
	i, at, hi, bi int
	prevHit       bool
	prevLast      int32
	prevEnd       int
	span          int32
	started       bool
}

// jump moves the cursor to word i (or the first after it that is not
// inside the word before), as if the words before had been stepped over.
func (c *wordCursor) jump(p *ufield, i int) {
	for i > 0 && i < len(p.words) && p.words[i].Start < p.words[i-1].End {
		i++
	}
	c.i = min(i, len(p.words))
	c.at = 0
	// The word before, or the word that holds it (a blended word and
	// its parts), ends where the gap before word i starts.
	for k := c.i - 1; k >= 0; k-- {
		c.at = max(c.at, int(p.words[k].End))
		if k == 0 || p.words[k].Start >= p.words[k-1].End {
			break
		}
	}
	pos := c.posAt(p)
	c.hi = sort.Search(len(p.hits), func(k int) bool { return p.hits[k].pos >= pos })
	c.bi = sort.Search(len(p.bounds), func(k int) bool { return int32(p.bounds[k].Pos) >= pos })
	c.started, c.prevHit, c.prevLast, c.span = true, false, -1, -1
}

// posAt is the position of the word the cursor stands at.
func (c *wordCursor) posAt(p *ufield) int32 {
	if c.i < len(p.words) {
		return p.words[c.i].Pos
	}
	return 0
}

// next builds the next word that ends by limit into p.w; false when there
// is none.
func (c *wordCursor) next(p *ufield, limit int) bool {
	if !c.started {
		c.started, c.prevLast, c.span = true, -1, -1
	}
	for c.i < len(p.words) {
		w := p.words[c.i]
		s, e := int(w.Start), int(w.End)
		if e <= len(p.text) && e > limit {
			return false
		}
		c.i++
		if e > len(p.text) || e <= s || s < c.at {
			continue
		}
		// A word inside this one (the parts of a blended word) widens
		// the positions it stands for.
		last := w.Pos
		for c.i < len(p.words) && int(p.words[c.i].Start) < e {
			last = max(last, p.words[c.i].Pos)
			c.i++
		}
		u := &p.w
		u.start, u.end, u.pos, u.last = int32(s), int32(e), w.Pos, last
		if p.ascii {
			u.cp = int32(e - s)
		} else {
			u.cp = int32(utf8.RuneCountInString(p.text[s:e]))
		}
		u.span, u.term, u.kind, u.hit, u.boundary, u.spzBefore, u.zoneAfter = -1, -1, kindWord, false, false, 0, false
		// Marked when a position it stands for is; neighbouring marked
		// words fold into one span (in retain mode, not across a tag:
		// tags take positions there).
		for c.hi < len(p.hits) && p.hits[c.hi].pos < u.pos {
			c.hi++
		}
		if c.hi < len(p.hits) && p.hits[c.hi].pos <= u.last {
			u.hit, u.term = true, int16(p.hits[c.hi].term)
			if !(c.prevHit && u.pos <= c.prevLast+1 && !(p.retain && strings.IndexByte(p.text[c.prevEnd:s], '<') >= 0)) {
				c.span++
			}
			u.span = c.span
		}
		if p.spzMode != "" {
			for ; c.bi < len(p.bounds) && int32(p.bounds[c.bi].Pos) <= u.last; c.bi++ {
				b := p.bounds[c.bi]
				opens := b.Kind == tokenize.ParagraphStart && p.spzMode != "zone" || b.Kind == tokenize.ZoneOpen
				switch {
				case c.prevLast < 0 && !(opens && s > 0):
					// The first word starts the first unit, unless a
					// paragraph or zone opens after some text of its
					// own (blanks), which is then a unit before it.
				case b.Kind == tokenize.SentenceStart && p.spzMode == "sentence":
					if u.spzBefore == 0 {
						u.spzBefore = spzSentence
					}
				case opens:
					u.spzBefore = spzNow
				}
				if b.Kind == tokenize.ZoneClose {
					u.zoneAfter = true
				}
			}
		}
		c.prevHit, c.prevLast, c.prevEnd = u.hit, u.last, e
		c.at = e
		return true
	}
	return false
}

// gapRuns cuts text[from:to], the characters between two words, into runs:
// white space and the rest alternate, and a boundary character stands
// alone.
func (p *ufield) gapRuns(from, to int, kind unitKind) []unit {
	p.gap = p.gap[:0]
	p.appendRuns(from, to, kind)
	return p.gap
}

// appendRuns appends the runs of text[from:to] to p.gap.
func (p *ufield) appendRuns(from, to int, kind unitKind) {
	if from >= to {
		return
	}
	if p.boundary == nil {
		// White space and the rest alternate.
		text := p.text
		runStart := from
		sp := isSpace(text[from])
		for i := from + 1; i < to; i++ {
			if s := isSpace(text[i]); s != sp {
				p.gap = append(p.gap, unit{start: int32(runStart), end: int32(i), cp: p.cps(text[runStart:i]), kind: kind, term: -1, span: -1})
				runStart, sp = i, s
			}
		}
		p.gap = append(p.gap, unit{start: int32(runStart), end: int32(to), cp: p.cps(text[runStart:to]), kind: kind, term: -1, span: -1})
		return
	}
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
		p.gap = append(p.gap, unit{start: int32(runStart), end: int32(i), cp: p.cps(p.text[runStart:i]),
			kind: kind, boundary: runStart == bound, term: -1, span: -1})
		runStart = i
	}
}

// unitBetween reports whether a unit the field keeps to (spzMode) ends
// between the words at positions prev and pos: the reference gives such a
// boundary a position of its own, so the words on either side of it are
// not neighbours, and their marks are two spans. (Only a text shown whole
// has such words in one snippet: passages keep within units.)
func (p *ufield) unitBetween(prev, pos int32) bool {
	if p.spzMode == "" || pos <= prev {
		return false
	}
	i, _ := slices.BinarySearchFunc(p.bounds, prev, func(b tokenize.Bound, x int32) int { return int(int32(b.Pos) - x) })
	for ; i < len(p.bounds) && int32(p.bounds[i].Pos) <= pos; i++ {
		b := p.bounds[i]
		switch b.Kind {
		case tokenize.ZoneClose:
			if int32(b.Pos) < pos {
				return true // (it closes after the word at its position)
			}
		case tokenize.ZoneOpen:
			if int32(b.Pos) > prev {
				return true
			}
		case tokenize.ParagraphStart:
			if int32(b.Pos) > prev && p.spzMode != "zone" {
				return true
			}
		case tokenize.SentenceStart:
			if int32(b.Pos) > prev && p.spzMode == "sentence" {
				return true
			}
		}
	}
	return false
}

// zoneBefore is the zone emit_zones shows before a snippet whose first
// word is at position pos, as the reference picks it: from the last zone
// tag before that word (one that opens at or before it, or closes before
// it). A tag that opens a zone names it; one that closes a zone names the
// zone around it when it was two or more levels deep, and otherwise the
// first zone of the text (the reference's stack of open zones is read
// there at its bottom, whatever encloses the tag; kept as it answers).
// No tag before the word: no zone.
func zoneBefore(bounds []tokenize.Bound, pos int) string {
	var open []string
	first, name := "", ""
	for _, b := range bounds {
		if b.Pos > pos || b.Pos == pos && b.Kind == tokenize.ZoneClose {
			break
		}
		switch b.Kind {
		case tokenize.ZoneOpen:
			if first == "" {
				first = b.Zone
			}
			open = append(open, b.Zone)
			name = b.Zone
		case tokenize.ZoneClose:
			name = first
			if len(open) > 2 {
				name = open[len(open)-2]
			}
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	return name
}

// stripField strips the markup of f's text for showing and moves its
// words onto the stripped text. As the reference shows stripped text, a
// zone tag that is inline leaves no space (zones matter to the index, not
// to what is shown), runs of white space and control characters are one
// space, and entities are decoded but with html_strip_mode=strip.
func stripField(f *Field, how stripHow, tags []int32) (string, []tokenize.Word, []tokenize.Word, []int32) {
	r, shown, at := stripShown(f, how)
	move := func(w tokenize.Word, s, e int) tokenize.Word {
		return tokenize.Word{Pos: w.Pos, Start: at[s], End: at[e]}
	}
	var blends []tokenize.Word
	if len(f.Blends) > 0 {
		blends = textWords(r, f.Blends, move)
	}
	for _, t := range r.UnitTags {
		tags = append(tags, at[t])
	}
	return shown, textWords(r, f.Words, move), blends, tags
}

// tagIn is the offset of the first tag of tagAt in text[from:to], or -1.
func (p *ufield) tagIn(from, to int) int {
	i, _ := slices.BinarySearch(p.tagAt, int32(from))
	if i < len(p.tagAt) && int(p.tagAt[i]) <= to {
		return int(p.tagAt[i])
	}
	return -1
}

// retainedWords are the words of f's text outside its markup, where they
// are: retain mode reads the text's tags as markup whatever the table's
// html_strip, so that a tag's name or an attribute's value ("<a
// href=fox.html>") is never marked. A field whose layout was made without
// stripping (f.HTML false) holds the markup's words too, and one made
// with html_index_attrs the indexed attributes' words; they are left out
// here, and the text is shown as it is.
func retainedWords(f *Field) (words, blends []tokenize.Word) {
	r := htmlstrip.Strip(f.Text, &htmlstrip.Options{})
	keep := func(w tokenize.Word, _, _ int) tokenize.Word { return w }
	if len(f.Blends) > 0 {
		blends = textWords(r, f.Blends, keep)
	}
	return textWords(r, f.Words, keep), blends
}

// textWords are the words of ws (on the original of r) that are text of
// r, not its markup, each as place makes it from the word and its bytes
// s:e in r.Text.
func textWords(r *htmlstrip.Result, ws []tokenize.Word, place func(w tokenize.Word, s, e int) tokenize.Word) []tokenize.Word {
	n := len(r.Text)
	// origEnd(x) is where the original of text[:x] ends: non-decreasing.
	origEnd := func(x int) int { _, e := r.Orig(x, x); return e }
	mapOff := func(o int) int { return sort.Search(n, func(x int) bool { return origEnd(x+1) > o }) }
	// A word ends after the last byte whose original ends in it: every
	// byte of an entity it ends with (é of "caf&eacute;" is two bytes,
	// both standing for the whole entity).
	mapEnd := func(o int) int { return sort.Search(n+1, func(x int) bool { return origEnd(x) > o }) - 1 }
	out := make([]tokenize.Word, 0, len(ws))
	for _, w := range ws {
		s, e := mapOff(int(w.Start)), mapEnd(int(w.End))
		if e <= s || e > n {
			continue // inside removed markup
		}
		if os, oe := r.Orig(s, e); os < int(w.Start) || oe > int(w.End) {
			continue // a word of the markup (a tag's name on a table that does not strip, part of an entity)
		}
		out = append(out, place(w, s, e))
	}
	return out
}

// stripHow is how a field's markup is stripped for showing: with units
// (a snippet_boundary, or the query's unit operators), the tags that end
// paragraphs and zones show nothing;
// with keepEntities (html_strip_mode=strip), character references show as
// they are written, as the reference shows them there ("&lt;" stays
// "&lt;"; html_strip_mode=index decodes them, as the index does).
type stripHow struct{ units, keepEntities bool }

// strongerUnit is the stronger of two units ("sentence", "paragraph",
// "zone" or ""): a sentence ends at a paragraph's or a zone's end too,
// and a paragraph at a zone's.
func strongerUnit(a, b string) string {
	rank := func(u string) int { return max(0, slices.Index([]string{"zone", "paragraph", "sentence"}, u)+1) }
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// stripShown strips the markup of f's text and collapses its white space:
// the stripped text r, the shown text, and where each byte of r.Text (and
// its end) lands in the shown text (non-decreasing).
//
// With units (snippet_boundary), the tags that end paragraphs and zones
// stand for no character, as the reference strips them for passages cut at
// boundaries: the white space after such a tag is not shown (before it, one
// blank is). So "<p>The" shows "The", and a passage of its first sentence
// starts the field. Without units, zone tags are not looked at and a tag
// that ends a paragraph is a blank, as any tag between words is.
func stripShown(f *Field, how stripHow) (r *htmlstrip.Result, shown string, at []int32) {
	var opts htmlstrip.Options
	if f.StripOptions != nil {
		opts = *f.StripOptions
		if !how.units {
			opts.Zones = nil
		}
	}
	opts.UnitTags, opts.KeepEntities = how.units, how.keepEntities
	r = htmlstrip.Strip(f.Text, &opts)
	n := len(r.Text)
	var b strings.Builder
	b.Grow(n)
	at = make([]int32, n+1)
	space := false
	tags := r.UnitTags // (units) the blanks that stand for such tags, in order
	for i := 0; i < n; i++ {
		at[i] = int32(b.Len())
		if len(tags) > 0 && tags[0] == i {
			for len(tags) > 0 && tags[0] == i {
				tags = tags[1:]
			}
			space = true // (it, and the blanks that follow, are not shown)
			continue
		}
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
	return r, b.String(), at
}

// isASCII reports whether s has only ASCII bytes, 32 at a time. (The
// loop takes s apart from its front so that the compiler sees every load
// in bounds: it checks none.)
func isASCII(s string) bool {
	for len(s) >= 32 {
		if (load8(s, 0)|load8(s, 8)|load8(s, 16)|load8(s, 24))&0x8080808080808080 != 0 {
			return false
		}
		s = s[32:]
	}
	for ; len(s) >= 8; s = s[8:] {
		if load8(s, 0)&0x8080808080808080 != 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// load8 reads s[i:i+8] as a little-endian number (the compiler makes it
// one load).
func load8(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
