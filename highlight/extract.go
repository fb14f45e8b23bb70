package highlight

import (
	"math"
	"math/bits"
	"slices"
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
	// before the first and after the last marked word, nearest first.
	codesBetween, wordsBetween int
	before, after              []edgeUnit
}

// edgeUnit is a unit that trimming may drop.
type edgeUnit struct {
	cp   int
	word bool
}

func (p *passage) weight() int { return p.qwordCount + p.qwordsWeight*p.maxLCS + p.minGap }

// context collects the passages of the fields that share one budget.
type context struct {
	passages     []passage
	qwords       uint64  // keywords of the passages so far
	qwordWeights [64]int // per keyword: the best weight of a passage of it alone
	topWeights   []int   // weights of the passages, sorted now and then
}

// window is the run of units the extractor looks at: unit numbers
// start..start+len(units)-1 (numbered as the extractor counts them).
type window struct {
	start        int    // -1: empty
	units        []unit // buf[head:]
	buf          []unit
	head         int
	words, codes int
	qwords       int // marked words
}

func (w *window) reset() {
	w.start, w.words, w.codes, w.qwords = -1, 0, 0, 0
	w.buf, w.head = w.buf[:0], 0
	w.units = w.buf
}

// drop removes the first n units.
func (w *window) drop(n int) {
	w.head += n
	w.units = w.buf[w.head:]
}

func (w *window) add(num int, u *unit) {
	if len(w.buf) == cap(w.buf) && w.head > 0 {
		// Move the units down rather than grow: the window stays small.
		k := copy(w.buf, w.buf[w.head:])
		w.buf, w.head = w.buf[:k], 0
	}
	w.buf = append(w.buf, *u)
	w.units = w.buf[w.head:]
	w.codes += int(u.cp)
	if u.word() {
		w.words++
		if u.hit {
			w.qwords++
		}
	}
	if w.start < 0 {
		w.start = num
	}
}

// extractor runs the sliding window over one field.
type extractor struct {
	f        *ufield
	fieldNum int
	lim      limits
	o        *Options
	weights  []int // per keyword
	numTerms int
	ctx      *context
	docLen   int

	growing bool // the window grows until it first reaches the limits
	changed bool // the marked words of the window changed since it was weighed
	win     window
	pass    passage
	cur     int // the number of the next unit
	thresh  int
}

func extract(f *ufield, fieldNum int, lim limits, o *Options, weights []int, ctx *context) {
	e := &extractor{f: f, fieldNum: fieldNum, lim: lim, o: o, weights: weights,
		numTerms: len(weights), ctx: ctx, docLen: len(f.text), growing: true, changed: true}
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
	zoneEnds := false // a zone ended with the last word
	f.walk(func(gap []unit, w *unit) bool {
		switch {
		case len(gap) > 0:
			if zoneEnds {
				e.unitEnds()
			}
			e.onGap(gap, w != nil && w.spzBefore == spzSentence)
			if w != nil && w.spzBefore == spzNow {
				e.unitEnds()
			}
			if w == nil {
				e.shrinkHead()
				e.weighAndSubmit()
			}
		case w != nil && w.spzBefore != 0:
			e.unitEnds() // no gap between the units
		}
		if w != nil {
			e.onWord(w)
			zoneEnds = w.zoneAfter
		}
		return true
	})
	if e.growing {
		e.weighAndSubmit()
	}
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
	if e.numTerms >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(e.numTerms) - 1
}

func (e *extractor) onWord(u *unit) {
	if e.growing {
		fits := e.win.codes+int(u.cp) <= e.cpLimit() && e.win.words <= e.wordsLimit()
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
// ends the window (use_boundaries). As in the reference, the state at the
// start of the gap decides how all its runs are taken: a boundary met
// after the window stopped growing inside the gap is passed over, and is
// not counted.
func (e *extractor) onGap(gap []unit, sentenceEnds bool) {
	if !e.growing {
		for i := range gap {
			u := &gap[i]
			e.win.add(e.cur, u)
			e.cur++
			if i == 0 && sentenceEnds {
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
		fits := e.win.codes+int(u.cp) <= e.cpLimit() && e.win.words <= e.wordsLimit()
		if e.o.ForceAllWords && e.pass.qwords != e.allTerms() {
			fits = true
		}
		if (u.boundary || !fits) && e.growing {
			if u.boundary {
				e.win.add(e.cur, u)
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
		if i == 0 && sentenceEnds {
			e.unitEnds()
		}
	}
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
	drop := 0
	for drop < len(e.win.units)-1 && (e.win.codes > e.cpLimit() || e.win.words > e.wordsLimit()) {
		u := &e.win.units[drop]
		if u.mask() != 0 {
			e.win.qwords--
			e.changed = true
		}
		if u.word() {
			e.win.words--
		}
		e.win.codes -= int(u.cp)
		drop++
	}
	e.win.start += drop
	if drop >= len(e.win.units) {
		e.win.reset()
	} else if drop > 0 {
		e.win.drop(drop)
	}
}

func (e *extractor) weighAndSubmit() {
	if e.win.qwords == 0 {
		return
	}
	if e.changed {
		e.weigh(e.wordsLimit())
		e.changed = false
	} else {
		e.updateGaps(e.wordsLimit())
	}
	if e.pass.qwords != 0 {
		e.flush()
	}
}

// updateGaps recomputes what depends on where the marked words lie.
func (e *extractor) updateGaps(maxWords int) {
	p := &e.pass
	p.minGap = maxWords - 1
	p.aroundBefore, p.aroundAfter = 0, 0
	var seen uint64
	w := -1
	for i := range e.win.units {
		u := &e.win.units[i]
		if !u.word() {
			continue
		}
		w++
		m := u.mask()
		if m != 0 {
			p.minGap = min(p.minGap, w, e.win.words-1-w)
		}
		seen |= m
		if seen == 0 {
			p.aroundBefore++
		}
		if m != 0 {
			p.aroundAfter = 0
		} else {
			p.aroundAfter++
		}
	}
}

// weigh computes the weight of the window's passage.
func (e *extractor) weigh(maxWords int) {
	p := &e.pass
	p.maxLCS, p.qwords, p.minGap = 1, 0, maxWords-1
	p.startLimit, p.endLimit = math.MaxInt, math.MinInt
	p.aroundBefore, p.aroundAfter = 0, 0
	p.qwordCount, p.uniqQwords, p.qwordsWeight = 0, 0, 0
	var last uint64
	lcs := 1
	w := -1
	for k := range e.win.units {
		u := &e.win.units[k]
		if !u.word() {
			continue
		}
		w++
		m := u.mask()
		p.qwords |= m
		if m != 0 {
			at := e.win.start + k
			p.startLimit = min(p.startLimit, at)
			p.endLimit = max(p.endLimit, at)
			p.qwordCount++
		}
		last = m & (last << 1)
		if last != 0 {
			lcs++
			p.maxLCS = max(p.maxLCS, lcs)
		} else {
			lcs = 1
			last = m
		}
		if m != 0 {
			p.minGap = min(p.minGap, w, e.win.words-1-w)
		}
		if p.qwords == 0 {
			p.aroundBefore++
		}
		if m != 0 {
			p.aroundAfter = 0
		} else {
			p.aroundAfter++
		}
	}
	for q := p.qwords; q != 0; q &= q - 1 {
		t := bits.TrailingZeros64(q)
		if t < len(e.weights) {
			p.qwordsWeight += e.weights[t]
		}
		p.uniqQwords++
	}
	p.qwordCount *= 2
}

// flush trims the window's passage to `around` words on each side of its
// marked words and offers it to the context.
func (e *extractor) flush() {
	p := &e.pass
	p.field = e.fieldNum
	p.start, p.tokens = e.win.start, len(e.win.units)
	p.codes, p.words = e.win.codes, e.win.words
	for k := 0; p.aroundBefore > e.o.Around; k++ {
		u := &e.win.units[k]
		p.codes -= int(u.cp)
		if u.word() {
			p.aroundBefore--
			p.words--
		}
		p.start++
		p.tokens--
	}
	for k := len(e.win.units) - 1; p.aroundAfter > e.o.Around; k-- {
		u := &e.win.units[k]
		p.codes -= int(u.cp)
		if u.word() {
			p.aroundAfter--
			p.words--
		}
		p.tokens--
	}
	ctx := e.ctx
	if len(ctx.passages) == 0 {
		ctx.passages = append(ctx.passages, e.copyPass())
		e.updateTop(p.weight())
		return
	}
	last := &ctx.passages[len(ctx.passages)-1]
	if p.startLimit <= last.startLimit && last.endLimit <= p.endLimit || last.startLimit <= p.startLimit && p.endLimit <= last.endLimit {
		// The same marked words: keep the heavier, or the better centred.
		if last.uniqQwords <= p.uniqQwords && (last.weight() < p.weight() || last.weight() == p.weight() && centring(p) < centring(last)) {
			*last = e.copyPass()
		}
		return
	}
	wt := p.weight()
	if len(ctx.passages) > e.thresh && p.qwords&^ctx.qwords == 0 && wt <= ctx.topWeights[e.thresh] {
		return
	}
	ctx.passages = append(ctx.passages, e.copyPass())
	e.updateTop(wt)
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
	if len(ctx.topWeights)&(e.thresh-1) == 0 {
		slices.SortFunc(ctx.topWeights, func(a, b int) int { return b - a })
	}
}

// copyPass is the current passage with its trimmable edges.
func (e *extractor) copyPass() passage {
	p := e.pass
	p.before, p.after = nil, nil
	if (e.lim.chars == 0 || e.lim.chars >= e.docLen) && e.lim.words == 0 && e.o.SnippetBoundary == "" || e.o.UseBoundaries {
		return p
	}
	p.codesBetween, p.wordsBetween = p.codes, p.words
	ws := e.win.start
	taken := 0
	for k := p.startLimit - ws - 1; k >= p.start-ws; k-- {
		u := &e.win.units[k]
		w := b2i(u.word())
		p.codesBetween -= int(u.cp)
		p.wordsBetween -= w
		if taken+w > p.aroundBefore {
			break
		}
		p.before = append(p.before, edgeUnit{int(u.cp), u.word()})
		taken += w
	}
	taken = 0
	// As the reference does, the units after the marked words are counted
	// from the window's start up to the passage's length.
	for k := p.endLimit - ws + 1; k < p.tokens && k < len(e.win.units); k++ {
		u := &e.win.units[k]
		w := b2i(u.word())
		p.codesBetween -= int(u.cp)
		p.wordsBetween -= w
		if taken+w > p.aroundAfter {
			break
		}
		p.after = append(p.after, edgeUnit{int(u.cp), u.word()})
		taken += w
	}
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
