package tokenize

import (
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
)

// The general path of Iter: every setting. A lexer cuts the text into words
// (runs of word, blend and ignore characters; single ngram characters;
// exceptions) and notes what lies in the gap before each (phrase,
// sentence and paragraph boundaries, HTML marks); then each word goes
// through the pipeline fold, min_word_len, wordforms, stopwords, stemming,
// and its tokens wait in a queue that Next empties.

// fullIter is the state of an Iter on the general path.
type fullIter struct {
	r      *rules
	src    string      // the text tokenized: the input, or the stripped text with html_strip
	doc    strippedDoc // with html_strip
	nMarks int
	lx     lexState
	q      []qtok
	qi     int
	arena  []byte // the terms of q
	buf    []byte // the folded word
	buf2   []byte // a word looked ahead at (multi-word wordforms)
	parts  []span // parts of a blended word
	done   bool
	simple bool // r.simple: nextSimple
	exactQ bool // nextSimple: the exact form in buf2 comes next

	keepStops bool // Iter.KeepStopwords: stopwords give StopwordTerm

	lastPos     int // position of the last word, stopwords included
	lastTermPos int // position of the last word that gave a term
	lastEnd     int // End of the last word given out

	env *snowballstem.Env // scratch for stemming
}

// stopwordTerm is StopwordTerm as a token's term.
var stopwordTerm = []byte(StopwordTerm)

// lexState is what the lexer must remember between words; copying it is
// how the lexer looks ahead and backs up.
type lexState struct {
	i          int  // next byte of src
	mi         int  // next mark
	prevAbbrev bool // the last word looks like an abbreviation ("Mr", "A"): a '.' after it ends no sentence
}

type wordKind uint8

const (
	wPlain wordKind = iota // a run of word (and ignore) characters
	wBlend                 // a run with blend characters
	wNgram                 // one ngram character (with the combining marks after it)
	wExc                   // an exception
)

// word is one word found by the lexer, with the gap before it.
type word struct {
	kind       wordKind
	start, end int // in src, without ignore characters at the edges
	exc        int // the exception (wExc)
	phrase     bool
	sentence   bool // a sentence starts here (index_sp)
	para       bool // a paragraph starts here (index_sp)
	m0, m1, m2 int  // marks [m0,m1) lie before the word, [m1,m2) inside it
}

type span struct{ s, e int }

// qtok is a queued token; its term is arena[a:b].
type qtok struct {
	a, b       int
	pos        int
	start, end int // in src
	blended    bool
	anchor     anchor
}

// anchor says where the empty range of a reserved term lies.
type anchor uint8

const (
	anchorNone    anchor = iota // a word: start, end
	anchorBefore                // at the start of the word start, end
	anchorAfter                 // at the end of the last word given out
	anchorTextEnd               // at the end of the text
)

func (f *fullIter) reset(r *rules, text string) {
	f.r = r
	f.src, f.doc, f.nMarks = text, nil, 0
	if r.html != nil {
		f.doc = r.html.strip(text)
		f.src = f.doc.text()
		f.nMarks = f.doc.numMarks()
	}
	f.lx = lexState{}
	f.q, f.qi, f.arena = f.q[:0], 0, f.arena[:0]
	f.done = false
	f.simple, f.exactQ = r.simple, false
	f.lastPos, f.lastTermPos, f.lastEnd = 0, 0, 0
}

func (f *fullIter) next(it *Iter) bool {
	if f.simple {
		return f.nextSimple(it, nil, nil)
	}
	for f.qi >= len(f.q) {
		f.q, f.qi, f.arena = f.q[:0], 0, f.arena[:0]
		if !f.fill() {
			it.pos = f.lastTermPos
			return false
		}
	}
	t := &f.q[f.qi]
	f.qi++
	it.term = f.arena[t.a:t.b:t.b]
	it.pos = t.pos
	it.blended = t.blended
	start, end := t.start, t.end
	if f.doc != nil && t.anchor <= anchorBefore {
		start, end = f.doc.orig(start, end)
	}
	switch t.anchor {
	case anchorNone:
		if f.arena[t.a] > zoneCloseMark {
			f.lastTermPos = t.pos
		}
		f.lastEnd = end
	case anchorBefore:
		end = start
	case anchorAfter:
		start, end = f.lastEnd, f.lastEnd
	case anchorTextEnd:
		start, end = len(it.text), len(it.text)
	}
	it.start, it.end = start, end
	return true
}

// nextSimple is next for simple rules (see rules.simple): every word takes
// one position and gives at most two tokens, its term and its exact form,
// so no queue is needed. With l, it is NextCandidate's: every token goes
// into l, and only a token whose term flt may pass is returned.
func (f *fullIter) nextSimple(it *Iter, l *Layout, flt *Filter) bool {
	if f.exactQ {
		f.exactQ = false
		it.term = f.buf2
		if l == nil || f.candidate(it, l, flt) {
			return true
		}
	}
	r := f.r
	tab := r.tab
	src := f.src
	i := f.lx.i
	// A word needs no term when NextCandidate's filter turns away any
	// stem it may have, and it gives no other token (stopword, exact
	// form): then it is not stemmed.
	stemSkip := l != nil && len(r.stem) > 0 && r.headKept && !flt.all
	blockSkip := stemSkip && r.stop == nil && !r.exact
	for {
		// A word wholly inside a block of ASCII text is found by the block
		// scan of the default rules, which words of these rules are the
		// same as there (rules.asciiBlocks); the others, byte by byte.
		var s, e int
		inBlock := false
		if r.asciiBlocks {
			if blockSkip {
				i = f.skipBlockWords(it, l, flt, i)
			}
			s, e, inBlock = it.blockWord(i)
			i = s
		}
		if inBlock {
			i = e
			f.lastPos++
			if r.minLen > 1 && e-s < r.minLen {
				continue
			}
			if blockSkip && !flt.maybeStem(src[s]|0x20, e-s) {
				// (Folded, a word byte with bit 5 set is itself.)
				f.lastTermPos = f.lastPos
				l.Add(f.lastPos, s, e, nil)
				continue
			}
			f.buf = appendFoldedASCII(f.buf[:0], src, s, e)
		} else {
			for i < len(src) {
				c := src[i]
				if c < utf8.RuneSelf {
					if cl := tab.ascii[c].cls(); cl == cWord || cl == cIgnore {
						break
					}
					i++
					continue
				}
				rr, size := utf8.DecodeRuneInString(src[i:])
				if rr != utf8.RuneError || size > 1 {
					if cl, _ := tab.lookup(rr); cl == cWord || cl == cIgnore {
						break
					}
				}
				i += size
			}
			if i >= len(src) {
				f.lx.i = i
				it.pos = f.lastTermPos
				return false
			}
			f.buf = f.buf[:0]
			var end, nWord int
			end, s, e, nWord, _, _ = f.scanRun(i, &f.buf)
			i = end
			if nWord == 0 {
				continue
			}
			f.lastPos++
		}
		term := cutTerm(f.buf)
		if r.minLen > 1 && (len(term) < r.minLen || utf8.RuneCount(term) < r.minLen) {
			continue
		}
		if r.stop != nil {
			if _, ok := r.stop[string(term)]; ok {
				pos := f.lastPos
				f.lastPos -= 1 - r.stopPos // the next word takes this position too
				if !f.keepStops {
					continue
				}
				it.pos, it.start, it.end = pos, s, e
				it.term = stopwordTerm
				if l == nil || f.candidate(it, l, flt) {
					f.lx.i = i
					return true
				}
				continue
			}
		}
		it.pos, it.start, it.end = f.lastPos, s, e
		f.lastTermPos = f.lastPos
		switch {
		case stemSkip && !flt.MaybeStem(term):
			it.term = nil // (see stemSkip)
		case len(r.stem) > 0:
			f.arena = append(f.arena[:0], f.stemmed(term)...)
			it.term = cutTerm(f.arena)
		default:
			it.term = term
		}
		if r.exact {
			f.buf2 = append(append(f.buf2[:0], exactMark), term...)
			f.exactQ = true
		}
		if l == nil || f.candidate(it, l, flt) {
			f.lx.i = i
			return true
		}
		if f.exactQ {
			f.exactQ = false
			it.term = f.buf2
			if f.candidate(it, l, flt) {
				f.lx.i = i
				return true
			}
		}
	}
}

// skipBlockWords is nextSimple's loop for the words, from byte i on, that
// lie wholly in blocks of ASCII text and need no term (blockSkip): each
// takes its position and goes into l (as Layout.Add would put it: a word
// of a new position), eight to a dozen of them for each block read; a word
// that runs past the end of a block starts the next one. It stops before
// the first word that is not such, or not in a block, and returns where.
func (f *fullIter) skipBlockWords(it *Iter, l *Layout, flt *Filter, i int) int {
	text, minLen := f.src, f.r.minLen
	for {
		if i >= it.blockEnd && (i < it.noBlock || i+72 > len(text) || !it.block(i)) {
			return i
		}
		base := it.blockEnd - 64
		bm := it.words
		starts := (bm &^ (bm << 1)) >> uint(i-base) << uint(i-base)
		for starts != 0 {
			b := uint(bits.TrailingZeros64(starts))
			starts &= starts - 1
			n := int(bits.TrailingZeros64(^(bm >> b))) // the word's bytes in the block
			start := base + int(b)
			if int(b)+n == 64 {
				// The word may go on past the block: the next block
				// starts with it (as blockWord does), unless it fills
				// this one.
				if b == 0 {
					return start
				}
				it.blockEnd = start
				break
			}
			if minLen > 1 && n < minLen || flt.maybeStem(text[start]|0x20, n) {
				return start
			}
			f.lastPos++
			f.lastTermPos = f.lastPos
			l.Words = append(l.Words, Word{Pos: int32(f.lastPos), Start: int32(start), End: int32(start + n)})
		}
		i = it.blockEnd
	}
}

// candidate adds the current token to l and reports whether flt may pass
// its term.
func (f *fullIter) candidate(it *Iter, l *Layout, flt *Filter) bool {
	l.Add(it.pos, it.start, it.end, it.term)
	return flt.Maybe(it.term)
}

// fill queues the tokens of the next word and of the gap before it. It
// returns false at the end of the text when nothing was queued.
func (f *fullIter) fill() bool {
	if f.done {
		return false
	}
	var w word
	if !f.lex(&w, &f.buf) {
		f.done = true
		f.closeZones(&w, w.m0, w.m2)
		f.openZones(&w, w.m0, w.m2, f.lastPos+1, anchorTextEnd)
		return len(f.q) > 0
	}
	pos := f.lastPos + 1
	if w.phrase && f.lastPos > 0 {
		pos += f.r.step
	}
	marks := w.m0 < w.m2
	if marks {
		f.closeZones(&w, w.m0, w.m1)
	}
	if f.lastPos > 0 && (w.para || w.sentence) {
		if w.para {
			f.pushMark(ParagraphTerm, "", pos, anchorBefore, &w)
		}
		if w.sentence {
			f.pushMark(SentenceTerm, "", pos, anchorBefore, &w)
		}
	}
	if marks {
		f.openZones(&w, w.m0, w.m2, pos, anchorBefore)
	}
	q0 := len(f.q)
	n := f.word(&w, pos)
	if w.kind == wBlend {
		sortByPos(f.q[q0:])
	}
	f.lastPos = pos + n - 1
	if marks {
		f.closeZones(&w, w.m1, w.m2)
	}
	return true
}

// closeZones queues the ZoneCloseTerms of marks [from,to), at the position
// of the last word.
func (f *fullIter) closeZones(w *word, from, to int) {
	for k := from; k < to; k++ {
		if _, kind, name := f.doc.mark(k); kind == markZoneClose {
			f.pushMark(string(zoneCloseMark), name, f.lastPos, anchorAfter, w)
		}
	}
}

// openZones queues the ZoneOpenTerms of marks [from,to) at pos.
func (f *fullIter) openZones(w *word, from, to, pos int, at anchor) {
	for k := from; k < to; k++ {
		if _, kind, name := f.doc.mark(k); kind == markZoneOpen {
			f.pushMark(string(zoneOpenMark), name, pos, at, w)
		}
	}
}

func sortByPos(q []qtok) {
	for i := 1; i < len(q); i++ {
		for j := i; j > 0 && q[j].pos < q[j-1].pos; j-- {
			q[j], q[j-1] = q[j-1], q[j]
		}
	}
}

// push queues a token whose term is a copy of term.
func push[T string | []byte](f *fullIter, term T, pos, start, end int, blended bool) {
	a := len(f.arena)
	f.arena = append(f.arena, term...)
	f.q = append(f.q, qtok{a: a, b: len(f.arena), pos: pos, start: start, end: end, blended: blended})
}

// pushTerm queues a word's term, cut to MaxTermLen.
func (f *fullIter) pushTerm(term []byte, pos, start, end int, blended bool) {
	push(f, cutTerm(term), pos, start, end, blended)
}

func (f *fullIter) pushExact(folded []byte, pos, start, end int, blended bool) {
	a := len(f.arena)
	f.arena = append(f.arena, exactMark)
	f.arena = append(f.arena, folded...)
	f.q = append(f.q, qtok{a: a, b: len(f.arena), pos: pos, start: start, end: end, blended: blended})
}

// pushMark queues a reserved term, prefix+name, with an empty range that
// anchor places (w is the word it is before).
func (f *fullIter) pushMark(prefix, name string, pos int, at anchor, w *word) {
	a := len(f.arena)
	f.arena = append(f.arena, prefix...)
	f.arena = append(f.arena, name...)
	f.q = append(f.q, qtok{a: a, b: len(f.arena), pos: pos, start: w.start, end: w.end, anchor: at})
}

// gapState is what the lexer has seen since the last word.
type gapState struct {
	phrase bool // a phrase_boundary character
	strong bool // '?' or '!' (or the like)
	dot    bool // '.'
	dotWS  bool // white space after a '.'
	nl     int  // line breaks since the last character that is not white space
	blank  bool // a blank line
}

// EndsSentence reports whether r ends a sentence whatever follows it
// (index_sp): '?', '!' and the like (a '.' ends one only before an
// upper-case word).
func EndsSentence(r rune) bool {
	switch r {
	case '?', '!', 0x203C, 0x2047, 0x2048, 0x2049, 0x3002, 0xFF01, 0xFF1F, 0xFF61:
		return true
	}
	return false
}

// add notes a separator r (index_sp).
func (g *gapState) add(r rune) {
	switch r {
	case '\n', 0x2028:
		g.nl++
		if g.nl >= 2 {
			g.blank = true
		}
		g.dotWS = g.dotWS || g.dot
	case 0x2029: // paragraph separator
		g.blank = true
		g.dotWS = g.dotWS || g.dot
	case '.', 0x2026: // full stop, ellipsis
		g.dot = true
		g.nl = 0
	default:
		if EndsSentence(r) {
			g.strong = true
			g.nl = 0
			return
		}
		if r < utf8.RuneSelf && isSpaceByte(byte(r)) || r >= utf8.RuneSelf && unicode.IsSpace(r) {
			g.dotWS = g.dotWS || g.dot
		} else {
			g.nl = 0
		}
	}
}

// lex finds the next word; a run of word characters is folded into *dst
// (which it resets). At the end of the text it returns false, and w holds
// the marks of the last gap in [m0,m2).
func (f *fullIter) lex(w *word, dst *[]byte) bool {
	r := f.r
	tab := r.tab
	src := f.src
	i := f.lx.i
	var g gapState
	*w = word{}
	for i < len(src) {
		c := src[i]
		rr, size := rune(c), 1
		var cl cls
		if c < utf8.RuneSelf {
			cl = tab.ascii[c].cls()
		} else if rr, size = utf8.DecodeRuneInString(src[i:]); rr == utf8.RuneError && size == 1 {
			cl = cSep
		} else {
			cl, _ = tab.lookup(rr)
		}
		if r.exc != nil && (c < utf8.RuneSelf && r.exc.first[c] || c >= utf8.RuneSelf && r.exc.byFirst[rr] != nil) {
			if k, end := r.exc.match(tab, src, i, rr); k >= 0 {
				w.kind, w.exc, w.start, w.end = wExc, k, i, end
				f.lx.i = end
				f.gapDone(w, &g, isUpper(rr), false)
				return true
			}
		}
		switch cl {
		case cWord, cBlend, cIgnore:
			*dst = (*dst)[:0]
			end, s, e, nWord, nBlend, upper := f.scanRun(i, dst)
			if nWord > 0 || nBlend > 0 && r.blend&blendTrimNone != 0 && r.blend&blendSkipPure == 0 {
				w.kind = wPlain
				if nBlend > 0 {
					w.kind = wBlend
				}
				w.start, w.end = s, e
				f.lx.i = end
				f.gapDone(w, &g, upper, upper && nWord <= 2)
				return true
			}
			g.nl = 0 // a run that is no word separates like punctuation
			i = end
			continue
		case cNgram:
			end := i + size
			for end < len(src) {
				m, msize := utf8.DecodeRuneInString(src[end:])
				if mc, _ := tab.class(m); mc != cMark || m == utf8.RuneError {
					break
				}
				end += msize
			}
			w.kind, w.start, w.end = wNgram, i, end
			f.lx.i = end
			f.gapDone(w, &g, false, false)
			return true
		case cBound:
			g.phrase = true
		}
		if r.sp {
			g.add(rr)
		}
		i += size
	}
	f.lx.i = len(src)
	w.m0, w.m1, w.m2 = f.lx.mi, f.nMarks, f.nMarks
	f.lx.mi = f.nMarks
	return false
}

// gapDone records in w what the gap before it holds. upper: the word starts
// with an upper-case letter; abbrev: it looks like an abbreviation.
func (f *fullIter) gapDone(w *word, g *gapState, upper, abbrev bool) {
	w.phrase = g.phrase
	if f.r.sp {
		w.para = g.blank && f.doc == nil
		w.sentence = w.para || g.strong || g.dotWS && upper && !f.lx.prevAbbrev
	}
	f.lx.prevAbbrev = abbrev
	k := f.lx.mi
	if k == f.nMarks {
		w.m0, w.m1, w.m2 = k, k, k
		return
	}
	w.m0 = k
	for k < f.nMarks {
		if at, _, _ := f.doc.mark(k); at > w.start {
			break
		}
		k++
	}
	w.m1 = k
	for k < f.nMarks {
		if at, _, _ := f.doc.mark(k); at >= w.end {
			break
		}
		k++
	}
	w.m2 = k
	f.lx.mi = k
	if f.r.sp {
		for k := w.m0; k < w.m2; k++ {
			if _, kind, _ := f.doc.mark(k); kind == markParagraph {
				w.para, w.sentence = true, true
			}
		}
	}
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

// scanRun scans the run of word, blend and ignore characters (and marks)
// that starts at i, and appends its folded form to dst. It returns the
// run's end, its span without ignore characters at the edges, the number of
// word and blend characters, and whether the first word character is
// upper-case.
func (f *fullIter) scanRun(i int, dst *[]byte) (end, s, e, nWord, nBlend int, upper bool) {
	tab := f.r.tab
	src := f.src
	b := *dst
	s, e = -1, -1
	for i < len(src) {
		c := src[i]
		if fc := tab.fast[c]; fc != 0 { // a run of plain ASCII word characters
			if s < 0 {
				s = i
			}
			if nWord == 0 {
				upper = 'A' <= c && c <= 'Z'
			}
			j := i
			for {
				b = append(b, fc)
				if j++; j == len(src) {
					break
				}
				if fc = tab.fast[src[j]]; fc == 0 {
					break
				}
			}
			nWord += j - i
			i, e = j, j
			continue
		}
		if c < utf8.RuneSelf {
			en := tab.ascii[c]
			switch en.cls() {
			case cWord:
				if nWord == 0 {
					upper = 'A' <= c && c <= 'Z'
				}
				nWord++
			case cBlend:
				nBlend++
			case cIgnore:
				i++
				continue
			default:
				*dst = b
				return i, s, e, nWord, nBlend, upper
			}
			if r := en.fold(rune(c)); r < utf8.RuneSelf {
				b = append(b, byte(r))
			} else {
				b = utf8.AppendRune(b, r)
			}
			if s < 0 {
				s = i
			}
			i++
			e = i
			continue
		}
		rr, size := utf8.DecodeRuneInString(src[i:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		cl, to := tab.lookup(rr)
		switch cl {
		case cWord:
			if nWord == 0 {
				upper = isUpper(rr)
			}
			nWord++
		case cBlend:
			nBlend++
		case cMark:
		case cIgnore:
			i += size
			continue
		default:
			*dst = b
			return i, s, e, nWord, nBlend, upper
		}
		b = utf8.AppendRune(b, to)
		if s < 0 {
			s = i
		}
		i += size
		e = i
	}
	*dst = b
	return i, s, e, nWord, nBlend, upper
}

// foldSpan appends the folded form of src[s:e] (inside one word) to dst.
func (f *fullIter) foldSpan(dst []byte, s, e int) []byte {
	tab := f.r.tab
	src := f.src
	for i := s; i < e; {
		c := src[i]
		if c < utf8.RuneSelf {
			if en := tab.ascii[c]; en.cls() != cIgnore {
				if r := en.fold(rune(c)); r < utf8.RuneSelf {
					dst = append(dst, byte(r))
				} else {
					dst = utf8.AppendRune(dst, r)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if cl, to := tab.lookup(r); cl != cIgnore {
			dst = utf8.AppendRune(dst, to)
		}
		i += size
	}
	return dst
}

// Flags of process.
const (
	exempt  = 1 << iota // min_word_len does not apply
	blended             // the token is a blended token
)

// word queues the tokens of w, the first at pos, and returns the number of
// positions it takes. A plain word is already folded in f.buf.
func (f *fullIter) word(w *word, pos int) int {
	switch w.kind {
	case wExc:
		f.buf = append(f.buf[:0], f.r.exc.list[w.exc].To...)
		return f.process(f.buf, pos, w.start, w.end, exempt)
	case wNgram:
		f.buf = f.foldSpan(f.buf[:0], w.start, w.end)
		return f.process(f.buf, pos, w.start, w.end, exempt)
	case wBlend:
		return f.blend(w, pos)
	}
	if f.r.forms != nil && w.m1 == w.m2 {
		if n, ok := f.multiForm(w, pos); ok {
			return n
		}
	}
	return f.process(f.buf, pos, w.start, w.end, 0)
}

// process queues the tokens of one folded word at pos (min_word_len,
// wordforms, stopwords, stemming, exact form) and returns the number of
// positions it takes.
func (f *fullIter) process(term []byte, pos, start, end int, flags int) int {
	r := f.r
	term = cutTerm(term)
	bl := flags&blended != 0
	if flags&exempt == 0 && r.minLen > 1 && (len(term) < r.minLen || utf8.RuneCount(term) < r.minLen) {
		return 1
	}
	if r.forms != nil {
		if n := r.forms.next[string(term)]; n != nil && n.to != nil {
			for k, d := range n.to {
				push(f, d, pos+k, start, end, bl)
				if k == 0 && r.exact {
					f.pushExact(term, pos, start, end, bl)
				}
			}
			return len(n.to)
		}
	}
	if r.stop != nil {
		if _, ok := r.stop[string(term)]; ok {
			if f.keepStops {
				push(f, StopwordTerm, pos, start, end, bl)
			}
			return r.stopPos
		}
	}
	if len(r.stem) > 0 {
		stem := f.stemmed(term)
		if to, ok := r.morphForms[stem]; ok {
			for k, d := range to {
				push(f, d, pos+k, start, end, bl)
				if k == 0 && r.exact {
					f.pushExact(term, pos, start, end, bl)
				}
			}
			return len(to)
		}
		push(f, cutTerm([]byte(stem)), pos, start, end, bl)
	} else {
		f.pushTerm(term, pos, start, end, bl)
	}
	if r.exact {
		f.pushExact(term, pos, start, end, bl)
	}
	return 1
}

// stemmed returns the stem of term.
func (f *fullIter) stemmed(term []byte) string {
	if f.env == nil {
		f.env = snowballstem.NewEnv("")
	}
	return f.r.stems.stem(f.r.stem, f.env, term)
}

// multiForm looks for a multi-word wordform that starts with the word in
// f.buf. The words must follow each other with nothing but separators
// between them: no boundary, no mark. On a match, the source words take one
// position and the destination words one each.
func (f *fullIter) multiForm(w *word, pos int) (int, bool) {
	node := f.r.forms.next[string(cutTerm(f.buf))]
	if node == nil || node.next == nil {
		return 0, false
	}
	save := f.lx
	var best *formNode
	var bestLx lexState
	bestEnd := 0
	for cur := node; cur.next != nil; {
		var nw word
		if !f.lex(&nw, &f.buf2) || nw.kind != wPlain || nw.phrase || nw.sentence || nw.para || nw.m0 != nw.m2 {
			break
		}
		if cur = cur.next[string(cutTerm(f.buf2))]; cur == nil {
			break
		}
		if cur.to != nil {
			best, bestLx, bestEnd = cur, f.lx, nw.end
		}
	}
	if best == nil {
		f.lx = save
		return 0, false
	}
	f.lx = bestLx
	for k, d := range best.to {
		push(f, d, pos+k, w.start, bestEnd, false)
	}
	return len(best.to), true
}

// blend queues a blended word: its variants (blend_mode) at pos, then its
// parts at pos, pos+1, ...
func (f *fullIter) blend(w *word, pos int) int {
	tab := f.r.tab
	src := f.src
	parts := f.parts[:0]
	ps, pe, head, tail := -1, -1, -1, -1
	for i := w.start; i < w.end; {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch cl, _ := tab.class(r); cl {
		case cBlend:
			if ps >= 0 {
				parts = append(parts, span{ps, pe})
				ps = -1
			}
		case cIgnore:
		default:
			if ps < 0 {
				ps = i
			}
			pe = i + size
			if head < 0 {
				head = i
			}
			tail = i + size
		}
		i += size
	}
	if ps >= 0 {
		parts = append(parts, span{ps, pe})
	}
	f.parts = parts
	var vars [4]span
	nv := 0
	add := func(s, e int) {
		if s >= e || len(parts) == 1 && parts[0] == (span{s, e}) {
			return
		}
		for _, v := range vars[:nv] {
			if v == (span{s, e}) {
				return
			}
		}
		vars[nv] = span{s, e}
		nv++
	}
	mode := f.r.blend
	if mode&blendTrimNone != 0 {
		add(w.start, w.end)
	}
	if head >= 0 {
		if mode&blendTrimHead != 0 {
			add(head, w.end)
		}
		if mode&blendTrimTail != 0 {
			add(w.start, tail)
		}
		if mode&blendTrimBoth != 0 {
			add(head, tail)
		}
	}
	for _, v := range vars[:nv] {
		f.buf = f.foldSpan(f.buf[:0], v.s, v.e)
		f.process(f.buf, pos, v.s, v.e, blended)
	}
	// trim_all joins the parts; with one part that is the part itself. Its
	// range is the whole token, which is what a match on it proves.
	if mode&blendTrimAll != 0 && len(parts) > 1 {
		f.buf = f.buf[:0]
		for _, p := range parts {
			f.buf = f.foldSpan(f.buf, p.s, p.e)
		}
		f.process(f.buf, pos, w.start, w.end, blended)
	}
	n := 0
	for _, p := range f.parts {
		f.buf = f.foldSpan(f.buf[:0], p.s, p.e)
		if term := cutTerm(f.buf); f.r.minLen > 1 && (len(term) < f.r.minLen || utf8.RuneCount(term) < f.r.minLen) {
			continue // a part shorter than min_word_len takes no position (as in the reference)
		}
		n += f.process(f.buf, pos+n, p.s, p.e, 0)
	}
	return max(n, 1)
}
