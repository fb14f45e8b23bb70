package highlight

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/glint-search/glint/index/tokenize"
)

// The second stage: candidate passages. A window slides over a field's
// units; it grows word by word while it fits the limits (codepoints, and
// words: limit_words, or twice around plus the marked words it holds),
// then drops units from its head to let the next word in. Each time the
// window holds marked words it is weighed and offered as a passage,
// trimmed to `around` words on each side of its marked words. An offer
// that covers the same marked words as the last passage replaces it when
// it weighs more (or as much, better centred); past a threshold of
// passages only offers with new keywords or a weight among the best are
// kept.

// limits are the size limits one passage context works under.
type limits struct {
	chars, words, snippets int // 0: none
}

// passage is a candidate snippet of one field: units start..start+tokens-1.
type passage struct {
	field         int
	start, tokens int
	codes, words  int
	qwords        uint64 // keywords it shows
	qwordsWeight  int    // the weights of those keywords
	qwordCount    int    // marked words, twice
	uniqQwords    int
	maxLCS        int // the longest run of marked words in query order
	minGap        int // words between the marked words and the nearer edge
	startLimit    int // the first marked unit
	endLimit      int // the last marked unit
	aroundBefore  int // words before the first marked word
	aroundAfter   int // words after the last marked word

	// What may be trimmed from its edges to fit the limits: the units
	// before the first and after the last marked word (choose makes
	// their list when trimming needs them).
	codesBetween, wordsBetween int
	beforeN, afterN            int // units each side trimming may drop

	from, to int // its bytes in the shown text

	// rank and score are set when choose takes the passage: 1 for the one
	// taken first, and its weight then (the keywords shown before it no
	// longer count).
	rank, score int
}

// edgeUnit is a unit that trimming may drop.
type edgeUnit struct {
	cp, bytes int32
	word      bool
}

func (p *passage) weight() int { return p.qwordCount + p.qwordsWeight*p.maxLCS + p.minGap }

// context collects the passages of the fields that share one budget.
type context struct {
	passages   []passage
	qwords     uint64 // keywords of the passages so far
	topWeights []int  // weights of the passages, sorted now and then (and only the top kept)
	offered    int    // passages added (topWeights counts them before it is cut)

	// Storage for choose, kept from one call to the next: the passages
	// shown (what choose returns, valid until the context is used again),
	// the candidates' first weights, which candidates are taken.
	show     []passage
	original []int
	taken    []bool
}

// reset empties the context, keeping its storage.
func (c *context) reset() {
	c.passages, c.qwords, c.topWeights, c.offered = c.passages[:0], 0, c.topWeights[:0], 0
}

// extractor runs the sliding window over one field.
type extractor struct {
	f        *ufield
	fieldNum int
	lim      limits
	o        *Options
	weights  []int // per keyword
	ctx      *context

	slowWeigh bool // tests: weigh walks the marked words (what the counts must agree with)
	growing   bool // the window grows until it first reaches the limits
	changed   bool // the marked words of the window changed since it was weighed
	win       *window
	pass      passage
	cur       int // the number of the next unit
	thresh    int
	// cutAt is the weight at or under which the passage weighed last is
	// not kept: its marked words and the context are as when an offer of
	// it was cut (math.MinInt when that is not known).
	cutAt int

	// Of the window's passage: the ordinals of its first and last marked
	// words (weigh); where it starts (the ordinal of the word its first
	// unit is or comes before, the codepoints added before it) and its
	// bytes (trimAround).
	firstOrd, lastOrd int
	// keywordWeight's last answer.
	kwMask             uint64
	kwN, kwWeight      int
	kwKnown            bool
	startOrd, startAcc int
	from, to           int
}

func extract(f *ufield, fieldNum int, lim limits, o *Options, weights []int, ctx *context, win *window, mayskip bool) {
	e := &extractor{f: f, fieldNum: fieldNum, lim: lim, o: o, weights: weights,
		ctx: ctx, growing: true, changed: true, win: win, cutAt: math.MinInt, slowWeigh: !mayskip}
	e.win.reset()
	switch {
	case lim.snippets > 0:
		e.thresh = lim.snippets
	case lim.words > 0:
		e.thresh = lim.words / 2
	case lim.chars > 0:
		e.thresh = lim.chars / 4
	}
	e.thresh = 1 << bits.Len(uint(e.thresh))
	// Far from any marked word, a window that has stopped growing and
	// holds no marked word offers nothing: it only slides. It is skipped
	// to a few words before the next marked word and filled again there
	// (the window is then the same: the longest run of units that fits
	// the limits). Units between words that start a new window
	// (boundaries) forbid the shortcut.
	skip := mayskip && f.spzMode == "" && !o.UseBoundaries && !o.ForceAllWords
	next := 0 // the next entry of f.hitWords
	var c wordCursor
	at := 0
	zoneEnds := false // a zone ended with the last word
	plain := f.boundary == nil && len(f.blends) == 0
	f.prev = unit{start: -1, span: -1}
	for {
		if skip && !e.growing && e.win.qwords == 0 {
			for next < len(f.hitWords) && f.hitWords[next] < c.i {
				next++
			}
			lead := e.wordsLimit() + 2
			if next == len(f.hitWords) {
				break // no marked word is left: nothing more to offer
			}
			if j := f.hitWords[next] - lead; j > c.i+lead {
				e.cur += 2 * (j - c.i) // numbers need only keep their order
				c.jump(f, j)
				at = c.at
				e.win.reset()
				f.prev = unit{start: -1, span: -1}
				if plain && f.spzMode == "" {
					at = e.fill(&c, at, f.hitWords[next])
				}
			}
		}
		if plain && mayskip && !e.growing && f.spzMode == "" && !e.changed && e.win.qwords > 0 {
			at = e.slide(&c, at)
		}
		if !c.next(f, len(f.text)) {
			break
		}
		w := &f.w
		if plain && !zoneEnds && w.spzBefore == 0 && (!e.growing || e.fits(at, w)) {
			// The common case: the runs of the gap go straight into the
			// window (as onGap and onWord would take them).
			e.cur = e.win.addGap(f, at, int(w.start), e.cur)
			at = int(w.end)
			e.win.add(e.cur, w)
			e.cur++
			e.changed = e.changed || w.hit
			if !e.growing {
				e.shrinkHead()
				e.weighAndSubmit()
			}
			zoneEnds = w.zoneAfter
			continue
		}
		gap := f.gapBefore(at, w, kindGap)
		tag := -1 // (in stripped text, the tag that ends the unit in the gap)
		if len(gap) > 0 && (zoneEnds || w.spzBefore == spzNow) {
			tag = f.tagIn(at, int(w.start))
		}
		at = int(w.end)
		switch {
		case tag >= 0:
			// The runs before the tag end the unit, those after it start
			// the next.
			e.splitGap(gap, tag)
		case len(gap) > 0:
			// A zone that ended with the last word ends before the gap,
			// or after its first run when that is punctuation (the
			// closing tag comes after "." in "<p>... end.</p>").
			zoneLater := zoneEnds && !isSpace(f.text[gap[0].start])
			if zoneEnds && !zoneLater {
				e.unitEnds()
			}
			e.onGap(gap, b2i(w.spzBefore == spzSentence || zoneLater))
			if w.spzBefore == spzNow {
				e.unitEnds()
			}
		case w.spzBefore != 0 || zoneEnds:
			e.unitEnds() // no gap between the units (a zone's end tag shows nothing)
		}
		e.onWord(w)
		zoneEnds = w.zoneAfter
		f.prev = *w
	}
	if c.i >= len(f.words) || !skip || e.growing || e.win.qwords > 0 {
		// The units after the last word.
		if gap := f.gapTo(at, len(f.text), kindTail); len(gap) > 0 {
			zoneLater := zoneEnds && !isSpace(f.text[gap[0].start])
			tag := -1
			if zoneEnds {
				tag = f.tagIn(at, len(f.text))
			}
			switch {
			case tag >= 0:
				e.splitGap(gap, tag)
			case zoneEnds && !zoneLater:
				e.unitEnds()
				e.onGap(gap, 0)
			default:
				// A '!' or '?' after the last word ends its sentence
				// there too: the blanks after it are the next one's.
				ends := zoneLater || f.spzMode == "sentence" && len(gap) > 1 && endsSentence(f.text[gap[0].start:gap[0].end])
				e.onGap(gap, b2i(ends))
			}
			if !e.growing {
				e.shrinkHead()
				e.weighAndSubmit()
			}
		}
	}
	if e.growing {
		e.weighAndSubmit()
	}
}

// fill takes the words before word to (the next marked word, a few words
// ahead after a skip) into the window at once, as the loop would take them
// one by one, in a plain field: the window holds no marked word and so
// offers nothing meanwhile, and dropping from its head once at the end
// what the limits do not hold leaves what dropping after each word does
// (each limit holds of a run of units if it holds of a longer one that
// ends where it ends). It stops before a word the loop must look at more
// closely, and returns where the gap before the next word starts.
func (e *extractor) fill(c *wordCursor, at, to int) int {
	f, w := e.f, e.win
	words, text := f.words, f.text
	u := unit{kind: kindWord, term: -1, span: -1}
	for ; c.i < to && c.i+1 < len(words); c.i++ {
		wd := &words[c.i]
		s, end := int(wd.Start), int(wd.End)
		if end <= s || s < at || end > len(text) || int(words[c.i+1].Start) < end {
			break
		}
		e.cur = w.addGap(f, at, s, e.cur)
		u.start, u.end, u.pos, u.last, u.cp = wd.Start, wd.End, wd.Pos, wd.Pos, f.cps(text[s:end])
		w.add(e.cur, &u)
		e.cur++
		at = end
		c.at, c.prevHit, c.prevLast, c.prevEnd = end, false, wd.Pos, end
	}
	e.shrinkHead()
	return at
}

// slide takes the words after the cursor into the window, as the loop
// below would, when the field is plain (no blended words, boundary
// characters or snippet_boundary) and the window has stopped growing and
// holds marked words: the words straight from the layout, and what each
// changes done where it is simple (a word that is not marked comes in,
// one that is not marked goes). The window is weighed only when its marked
// words change or its offer would not be cut as the last one was: else
// only the offer's distance to the edges changes. It stops before a word
// it cannot take as simply (or once the window holds no marked word), for
// the loop to take, and returns where the gap before that word starts.
func (e *extractor) slide(c *wordCursor, at int) int {
	f, w := e.f, e.win
	words, text, hits := f.words, f.text, f.hits
	around2 := -1
	if e.lim.words == 0 {
		around2 = 2 * e.o.Around
	}
	cp := e.cpLimit()
	// What the offer of the window weighs but for its distance to the
	// edges, and the most of that at which it is cut.
	var limit, first, base, cut int
	weighed := func() {
		limit, first = e.wordsLimit(), w.marks.first()
		base = e.pass.qwordCount + e.pass.qwordsWeight*e.pass.maxLCS
		cut = math.MinInt
		if e.cutAt != math.MinInt {
			cut = e.cutAt - base
		}
	}
	weighed()
	nextHit := int32(math.MaxInt32) // the position of hits[c.hi]
	if c.hi < len(hits) {
		nextHit = hits[c.hi].pos
	}
	// (The last word is the loop's: the units after it follow.)
	for c.i+1 < len(words) {
		if f.ascii && limit >= 1 && words[c.i].Pos < nextHit { // (glide stops before a marked word)
			at = e.glide(c, at, limit, first, cut, cp, nextHit)
			if c.i+1 >= len(words) {
				break
			}
		}
		wd := &words[c.i]
		s, end := int(wd.Start), int(wd.End)
		if end <= s || s < at || end > len(text) || int(words[c.i+1].Start) < end {
			break
		}
		hit := false
		if wd.Pos >= nextHit {
			for c.hi < len(hits) && hits[c.hi].pos < wd.Pos {
				c.hi++
			}
			hit = c.hi < len(hits) && hits[c.hi].pos == wd.Pos
			nextHit = math.MaxInt32
			if c.hi < len(hits) {
				nextHit = hits[c.hi].pos
			}
		}
		gapCP, wordCP := s-at, end-s
		if !f.ascii {
			gapCP, wordCP = int(f.cps(text[at:s])), int(f.cps(text[s:end]))
		}
		num := e.cur
		switch {
		case s == at+1:
			w.total += gapCP
			w.endByte = s
			num++
		case s > at:
			num = w.addGap(f, at, s, num)
		}
		r := w.word(w.nword)
		r.num, r.start, r.end, r.acc, r.term = int32(num-w.base), wd.Start, wd.End, int32(w.total), -1
		if hit {
			r.term = max(int16(hits[c.hi].term), 0)
			w.addMark(r)
			// (The cursor's span, as next counts it.)
			if !(c.prevHit && wd.Pos <= c.prevLast+1 && !(f.retain && strings.IndexByte(text[c.prevEnd:s], '<') >= 0)) {
				c.span++
			}
		}
		w.total += wordCP
		w.nword++
		w.end, w.endByte = num+1, end
		if w.nword-w.hword+1 > len(w.ring) {
			w.grow()
		}
		w.openGap(num+1, end)
		e.cur, at = num+1, end
		c.i++
		c.at, c.prevHit, c.prevLast, c.prevEnd = end, hit, wd.Pos, end
		// The window's first word goes when the window is over the word
		// limit now.
		if hit {
			e.changed = true
			limit++ // (one more marked word)
			if around2 < 0 {
				limit = e.lim.words
			}
		}
		if h := w.word(w.hword); w.nword-w.hword == limit+1 && h.term < 0 &&
			w.total-int(w.word(w.hword+1).gacc) <= cp {
			next := w.word(w.hword + 1)
			w.hword++
			w.start, w.headAcc, w.headStart = w.base+int(next.gnum), int(next.gacc), int(next.gstart)
		} else if w.nword-w.hword > limit || w.total-w.headAcc > cp {
			e.shrinkHead()
			if w.qwords == 0 {
				break // (for the loop to skip ahead)
			}
			limit, first = e.wordsLimit(), w.marks.first() // (marked words may have gone)
		}
		if e.changed || min(limit-1, first-w.hword, w.nword-1-w.last) > cut {
			e.weighAndSubmit()
			weighed()
		}
	}
	return at
}

// glide takes the simplest steps of slide, as slide would, with the
// window's state in local variables: in ASCII text, a word that is not
// marked comes in after a gap of at most one character, the window's
// first word, not marked, goes, and the offer would be cut. It stops
// before any other step (for slide to take) and returns where the gap
// before the next word starts.
func (e *extractor) glide(c *wordCursor, at, limit, first, cut, cp int, nextHit int32) int {
	f, w := e.f, e.win
	hword, nword := w.hword, w.nword
	if nword-hword != limit || limit+2 > len(w.ring) {
		return at
	}
	// How many steps it may take is known before the first: the window's
	// first word is not marked for first-hword steps, and the offer after
	// step d (d = 0, 1, ...) is at min(limit-1, a-d, b+d) from the edges,
	// cut while that is at most cut.
	steps := first - hword
	if a, b := first-hword-1, nword-w.last; limit-1 > cut {
		if cut < -(1 << 31) {
			return at // (every offer is kept)
		}
		if lo := max(0, cut-b+1); lo < a-cut {
			steps = min(steps, lo)
		}
	}
	words, ring := f.words, w.ring
	m := uint(len(ring) - 1)
	_ = ring[m] // (so that no index below is checked: each is at most m)
	// The window keeps limit words: the step's new word is hword+limit.
	i, num, total := c.i, e.cur-w.base, w.total
	// (The last word is the loop's; words[i+1] is the word after word i.)
	ws := words[:min(i+steps, len(words)-1)+1]
	n := len(f.text)
	head, tail := uint(hword), uint(hword+limit)
	for ; i+1 < len(ws); i++ {
		wd, next := &ws[i], &ws[i+1]
		s, end := int(wd.Start), int(wd.End)
		if wd.Pos >= nextHit || uint(s-at) > 1 || end <= s || end > n || int(next.Start) < end {
			break
		}
		t := total + s - at // (the gap is one character or none)
		// The window after the step, without its first word, fits the
		// codepoints.
		if t+end-s-int(ring[(head+1)&m].gacc) > cp {
			break
		}
		num += s - at
		r := &ring[tail&m]
		r.num, r.start, r.end, r.acc, r.term = int32(num), wd.Start, wd.End, int32(t), -1
		total = t + end - s
		num++
		tail++
		g := &ring[tail&m]
		g.gnum, g.gstart, g.gacc, g.runs = int32(num), wd.End, int32(total), -1
		at = end
		head++ // (the first word goes)
	}
	hword = int(head)
	if hword == w.hword {
		return at
	}
	h := &ring[head&m]
	cur := w.base + num
	w.start, w.headAcc, w.headStart = w.base+int(h.gnum), int(h.gacc), int(h.gstart)
	w.total, w.nword, w.hword, w.end, w.endByte = total, hword+limit, hword, cur, at
	e.cur = cur
	c.i, c.at, c.prevHit, c.prevLast, c.prevEnd = i, at, false, words[i-1].Pos, at
	return at
}

// fits reports whether the runs of text[at:u.start] and word u fit in the
// window: a growing window then takes them as they are.
func (e *extractor) fits(at int, u *unit) bool {
	gapCP := int(u.start) - at
	if !e.f.ascii {
		gapCP = int(e.f.cps(e.f.text[at:u.start]))
	}
	return e.win.codes()+gapCP+int(u.cp) <= e.cpLimit() && e.win.words() <= e.wordsLimit()
}

func (e *extractor) cpLimit() int {
	if e.lim.chars > 0 {
		return e.lim.chars
	}
	return math.MaxInt
}

func (e *extractor) wordsLimit() int {
	if e.lim.words > 0 {
		return e.lim.words
	}
	return 2*e.o.Around + e.win.qwords
}

func (e *extractor) allTerms() uint64 {
	if len(e.weights) >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(len(e.weights)) - 1
}

func (e *extractor) onWord(u *unit) {
	if e.growing {
		fits := e.win.codes()+int(u.cp) <= e.cpLimit() && e.win.words() <= e.wordsLimit()
		if !fits && (!e.o.ForceAllWords || e.pass.qwords == e.allTerms()) {
			e.changed = true
			e.weighAndSubmit()
			e.growing = false
		}
		e.win.add(e.cur, u)
		e.changed = e.changed || u.hit
		if !e.growing {
			e.shrinkHead()
			e.weighAndSubmit()
		}
	} else {
		e.win.add(e.cur, u)
		e.changed = e.changed || u.hit
		e.shrinkHead()
		e.weighAndSubmit()
	}
	e.cur++
}

// onGap takes the runs units[from:to] of one gap. A boundary character
// ends the window (use_boundaries), in it if it fits the limits (else the
// passage would be over them, and dropped). As in the reference, the state at the
// start of the gap decides how all its runs are taken: a boundary met
// after the window stopped growing inside the gap is passed over, and is
// not counted.
// With endsAfter n > 0 (a sentence, or a zone, ends in the gap), the window
// closes after the gap's first n runs.
func (e *extractor) onGap(gap []unit, endsAfter int) {
	if !e.growing {
		for i := range gap {
			u := &gap[i]
			if !u.boundary || e.runFits(u) {
				e.win.add(e.cur, u)
			}
			e.cur++
			if i+1 == endsAfter {
				e.unitEnds()
			}
			if u.boundary {
				e.weighAndSubmit()
				e.win.reset()
				e.growing = true
			}
		}
		return
	}
	for i := range gap {
		u := &gap[i]
		fits := e.runFits(u)
		if (u.boundary || !fits) && e.growing {
			if u.boundary {
				if fits {
					e.win.add(e.cur, u)
				}
				e.cur++
				e.weighAndSubmit()
				e.win.reset()
			} else {
				e.weighAndSubmit()
				e.growing = false
			}
		}
		if !u.boundary {
			e.win.add(e.cur, u)
			e.cur++
		}
		if i+1 == endsAfter {
			e.unitEnds()
		}
	}
}

// splitGap takes a gap in which the tag at offset tag ends a unit: the
// runs before the tag close the unit before it, the rest open the next.
func (e *extractor) splitGap(gap []unit, tag int) {
	n := 0
	for n < len(gap) && int(gap[n].start) < tag {
		n++
	}
	if n > 0 && int(gap[n-1].end) > tag {
		// A run that the tag cuts ("." and "(" of "end.</p><p>(next"):
		// two runs, one each side.
		a, b := gap[n-1], gap[n-1]
		a.end, b.start = int32(tag), int32(tag)
		a.cp, b.cp = e.f.cps(e.f.text[a.start:a.end]), e.f.cps(e.f.text[b.start:b.end])
		gap = slices.Insert(gap, n, b)
		gap[n-1] = a
	}
	if n == 0 {
		e.unitEnds()
	}
	e.onGap(gap, n) // (which ends the unit after the n-th run)
}

// runFits reports whether the window has room for the run u.
func (e *extractor) runFits(u *unit) bool {
	if e.o.ForceAllWords && e.pass.qwords != e.allTerms() {
		return true
	}
	return e.win.codes()+int(u.cp) <= e.cpLimit() && e.win.words() <= e.wordsLimit()
}

// unitEnds closes the window at the end of a unit of snippet_boundary (a
// sentence, paragraph or zone): a passage never crosses it.
func (e *extractor) unitEnds() {
	if !e.growing {
		e.changed = true
	}
	e.weighAndSubmit()
	e.growing = true
	e.changed = true
	e.win.reset()
}

// shrinkHead drops units from the head of the window until it fits the
// limits (it keeps the last unit).
func (e *extractor) shrinkHead() {
	around2 := -1
	if e.lim.words == 0 { // as many words as the marked ones and `around` each side
		around2 = 2 * e.o.Around
	}
	if e.win.shrink(e.cpLimit(), e.lim.words, around2) {
		e.changed = true
	}
}

func (e *extractor) weighAndSubmit() {
	if e.win.qwords == 0 {
		return
	}
	if e.changed {
		e.weigh(e.wordsLimit())
		e.changed = false
		e.cutAt = math.MinInt
	} else {
		e.updateGaps(e.wordsLimit())
		if e.pass.weight() <= e.cutAt {
			return // only its distance to the edges changed: cut again
		}
	}
	if e.pass.qwords != 0 {
		e.flush()
	}
}

// updateGaps recomputes what depends on where the marked words lie.
func (e *extractor) updateGaps(maxWords int) {
	p := &e.pass
	p.aroundBefore, p.aroundAfter = e.win.markSpread()
	p.minGap = min(maxWords-1, p.aroundBefore, p.aroundAfter)
}

// weigh computes the weight of the window's passage: its keywords, their
// weights, how many marked words, the longest run of marked words in
// query order (consecutive words, each the keyword after the last), how
// close the marked words come to the edges.
func (e *extractor) weigh(maxWords int) {
	p := &e.pass
	w := e.win
	if w.qcount == w.qwords && w.pairs <= 1 && !e.slowWeigh {
		// Every marked word shows a keyword under 64, and no run in
		// query order is longer than two: the window's counts tell it all.
		p.qwords, p.qwordCount, p.maxLCS = w.qmask, 2*w.qcount, 1+w.pairs
		e.firstOrd, e.lastOrd = w.marks.first(), w.last
		p.startLimit, p.endLimit = w.base+int(w.word(e.firstOrd).num), w.base+int(w.word(e.lastOrd).num)
		p.aroundBefore, p.aroundAfter = w.markSpread()
		p.minGap = min(maxWords-1, p.aroundBefore, p.aroundAfter)
		p.uniqQwords, p.qwordsWeight = e.keywordWeight(p.qwords)
		return
	}
	p.maxLCS, p.qwords = 1, 0
	p.qwordCount, p.uniqQwords, p.qwordsWeight = 0, 0, 0
	p.startLimit, p.endLimit = math.MaxInt, math.MinInt
	lcs, prevOrd := 1, -2
	var prevMask uint64
	for i := 0; i < w.marks.len(); i++ {
		ord := w.marks.at(i)
		r := w.word(ord)
		m := r.mask()
		if m == 0 {
			prevMask = 0
			continue
		}
		if p.qwords == 0 {
			p.startLimit, e.firstOrd = w.base+int(r.num), ord
		}
		p.endLimit, e.lastOrd = w.base+int(r.num), ord
		p.qwords |= m
		p.qwordCount++
		if ord == prevOrd+1 && prevMask != 0 && m == prevMask<<1 {
			lcs++
			p.maxLCS = max(p.maxLCS, lcs)
		} else {
			lcs = 1
		}
		prevOrd, prevMask = ord, m
	}
	p.aroundBefore, p.aroundAfter = w.markSpread()
	p.minGap = min(maxWords-1, p.aroundBefore, p.aroundAfter)
	p.uniqQwords, p.qwordsWeight = e.keywordWeight(p.qwords)
	p.qwordCount *= 2
}

// keywordWeight is the number of keywords in q and their weights, the
// last answer kept: a window's keywords change less often than its words.
func (e *extractor) keywordWeight(q uint64) (n, weight int) {
	if q == e.kwMask && e.kwKnown {
		return e.kwN, e.kwWeight
	}
	n = bits.OnesCount64(q)
	for r := q; r != 0; r &= r - 1 {
		if t := bits.TrailingZeros64(r); t < len(e.weights) {
			weight += e.weights[t]
		}
	}
	e.kwMask, e.kwN, e.kwWeight, e.kwKnown = q, n, weight, true
	return n, weight
}

// flush offers the window's passage to the context, trimmed to `around`
// words on each side of its marked words. A passage with the same marked
// words as the last one offered replaces it only if it is heavier or
// better centred; one that cannot make the top is not kept.
func (e *extractor) flush() {
	p := &e.pass
	ctx := e.ctx
	e.cutAt = math.MinInt
	if n := len(ctx.passages); n > 0 {
		last := &ctx.passages[n-1]
		if p.startLimit <= last.startLimit && last.endLimit <= p.endLimit || last.startLimit <= p.startLimit && p.endLimit <= last.endLimit {
			// The same marked words: keep the heavier, or the better centred.
			lw, pw := last.weight(), p.weight()
			if last.uniqQwords > p.uniqQwords {
				e.cutAt = math.MaxInt
				return
			}
			if lw > pw {
				e.cutAt = lw - 1
				return
			}
			e.trimAround()
			if lw < pw || centring(p) < centring(last) {
				*last = e.pass
				e.finish(last)
			}
			// The next offer with these marked words replaces it only
			// if it weighs as much or more.
			e.cutAt = last.weight() - 1
			return
		}
		if wt := p.weight(); n > e.thresh && p.qwords&^ctx.qwords == 0 && wt <= ctx.topWeights[e.thresh] {
			e.cutAt = ctx.topWeights[e.thresh]
			return
		}
	}
	e.trimAround()
	ctx.passages = append(ctx.passages, e.pass)
	e.finish(&ctx.passages[len(ctx.passages)-1])
	e.updateTop(p.weight())
	e.cutAt = p.weight() - 1 // (as above: it is the last passage now)
}

// trimAround sets the current passage to the window less the words more
// than `around` before the first marked word and after the last. (Its
// weight, taken before, does not change.)
func (e *extractor) trimAround() {
	p := &e.pass
	p.field = e.fieldNum
	w := e.win
	p.start, p.tokens = w.start, w.n()
	p.codes, p.words = w.codes(), w.words()
	e.startOrd, e.startAcc, e.from, e.to = w.hword, w.headAcc, w.headStart, w.endByte
	if d := p.aroundBefore - e.o.Around; d > 0 {
		// Drop up to and with the d-th word: the passage starts with the
		// gap before the next.
		k := w.hword + d
		r := w.word(k)
		from := w.base + int(r.gnum)
		p.codes -= int(r.gacc) - w.headAcc
		p.tokens -= from - p.start
		p.start = from
		p.words -= d
		p.aroundBefore -= d
		e.startOrd, e.startAcc, e.from = k, int(r.gacc), int(r.gstart)
	}
	if d := p.aroundAfter - e.o.Around; d > 0 {
		// Drop the last d words and what follows them.
		r := w.word(w.nword - d)
		p.codes -= w.total - int(r.acc)
		p.tokens -= w.end - (w.base + int(r.num))
		p.words -= d
		p.aroundAfter -= d
		e.to = int(r.start)
	}
}

// centring is how unevenly a passage's edges lie around its marked words.
func centring(p *passage) float32 {
	pre := p.startLimit - p.start + 1
	post := p.start + p.tokens - p.endLimit + 1
	return float32(max(pre, post)) / float32(min(pre, post))
}

func (e *extractor) updateTop(weight int) {
	ctx := e.ctx
	ctx.qwords |= e.pass.qwords
	ctx.topWeights = append(ctx.topWeights, weight)
	ctx.offered++
	if ctx.offered&(e.thresh-1) == 0 {
		// Only the first thresh+1 are ever looked at: those below need
		// not be sorted again.
		slices.SortFunc(ctx.topWeights, func(a, b int) int { return b - a })
		ctx.topWeights = ctx.topWeights[:min(len(ctx.topWeights), e.thresh+1)]
	}
}

// finish sets what p, a copy of the current passage, needs besides its
// weight: its bytes and what trimming needs of its edges: how many units
// before its first marked word and after its last it may give up, and
// their codepoints and words. The units themselves are looked at only if
// trimming comes to them (choose).
func (e *extractor) finish(p *passage) {
	w := e.win
	p.from, p.to = e.from, e.to
	p.beforeN, p.afterN = 0, 0
	if (e.lim.chars == 0 || e.lim.chars >= len(e.f.text)) && e.lim.words == 0 && e.f.spzMode == "" || e.o.UseBoundaries {
		return
	}
	// Every unit between the passage's start and its first marked word
	// is an edge (the passage holds just around words there). After the
	// last marked word, as the reference counts them, the units up to the
	// passage's length from the window's start.
	p.beforeN = p.startLimit - p.start
	afterFrom, afterTo := p.endLimit+1, w.start+min(p.tokens, w.n())
	p.afterN = max(0, afterTo-afterFrom)
	p.codesBetween = p.codes - (int(w.word(e.firstOrd).acc) - e.startAcc)
	p.wordsBetween = p.words - (e.firstOrd - e.startOrd)
	if p.afterN > 0 {
		// The unit after the last marked word is the first of the gap
		// before the next word (or that word).
		p.codesBetween -= w.accAt(afterTo) - int(w.word(e.lastOrd+1).gacc)
		p.wordsBetween -= w.wordsBefore(afterTo) - (e.lastOrd + 1)
	}
}

// endsSentence reports whether the run s holds a character that ends a
// sentence whatever follows it.
func endsSentence(s string) bool {
	for _, r := range s {
		if tokenize.EndsSentence(r) {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
