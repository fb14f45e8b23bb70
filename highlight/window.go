package highlight

import "github.com/glint-search/glint/index/tokenize"

// window is the run of units the extractor looks at: unit numbers
// start..end-1, as the extractor counts them. It keeps one entry per word,
// which also tells the units of the gap before the word: a gap of one run
// is known from where it starts and where the word starts, and only the
// runs of a longer gap are kept, aside. Sliding over a word thus costs one
// entry, and what weighing a passage asks (the window's codepoints and
// words, where its marked words lie) comes from running totals and word
// ordinals, with no walk over the window. A unit itself (its bytes, the
// codepoints before it) is looked up only when a passage is kept.
type window struct {
	start, end int // unit numbers: the head and one past the last unit (start -1: empty)
	base       int // the unit numbers kept in the entries are counted from base
	qwords     int // marked words

	total   int // codepoints of every unit added since the reset
	nword   int // words added since the reset
	hword   int // the ordinal of the word the head unit is, or is in the gap before
	headAcc int // codepoints added before the head unit
	// The bytes of the window: where its head unit starts, where its last
	// unit ends.
	headStart, endByte int

	// ring[k&(len-1)] is word k (counted since the reset) for the
	// window's words, and after them the gap being added (whose word is
	// still to come): a ring, grown to hold them all.
	ring []wword
	// runs holds the runs of the gaps of more than one run (and of the
	// gaps added unit by unit): runs[i-runBase] is run i.
	runs    []gapRun
	runBase int
	marks   deque // ordinals of the marked words, in order
	last    int   // the ordinal of the last marked word

	// What weighing asks of the marked words, kept as they come and go:
	// the keywords (under 64) they show, how many of them show one, how
	// many show each, and how many are followed by the next word marked
	// with the next keyword of the query (a run in query order).
	qmask  uint64
	qcount int
	kw     [64]int32
	pairs  int
}

// wword is a word of the window and the gap before it.
type wword struct {
	num, gnum  int32 // its unit number and that of the gap's first unit (num: no gap), from window.base
	gstart     int32 // the byte the gap starts at
	start, end int32 // its bytes
	gacc, acc  int32 // codepoints added before the gap and before the word
	runs       int32 // the number of the gap's first run in window.runs; -1: the gap is one run, not kept
	term       int16 // a marked word's keyword; -1 otherwise
}

// gapRun is one run of a gap whose runs are kept.
type gapRun struct {
	start, end int32
	acc        int32 // codepoints added before it
}

// wunit is one unit of the window, as a passage needs it.
type wunit struct {
	start, end int32
	acc        int32 // codepoints added before it (since the reset)
	ord        int32 // its word's ordinal (a gap's: the word after it)
}

// mask is the keyword bit of a marked word (tokenize.KeywordBit: a word
// of the 65th keyword is marked all the same), 0 for any other.
func (r *wword) mask() uint64 {
	if r.term >= 0 {
		return tokenize.KeywordBit(int(r.term))
	}
	return 0
}

// deque is a queue of ints that reuses its storage.
type deque struct {
	buf  []int
	head int
}

func (d *deque) push(x int) {
	if len(d.buf) == cap(d.buf) && 2*d.head >= len(d.buf) {
		k := copy(d.buf, d.buf[d.head:])
		d.buf, d.head = d.buf[:k], 0
	}
	d.buf = append(d.buf, x)
}
func (d *deque) pop()         { d.head++ }
func (d *deque) len() int     { return len(d.buf) - d.head }
func (d *deque) at(i int) int { return d.buf[d.head+i] }
func (d *deque) first() int   { return d.buf[d.head] }
func (d *deque) clear()       { d.buf, d.head = d.buf[:0], 0 }

func (w *window) reset() {
	w.start, w.end, w.qwords = -1, -1, 0
	w.total, w.nword, w.hword, w.headAcc = 0, 0, 0, 0
	w.runs, w.runBase = w.runs[:0], 0
	w.marks.clear()
	if w.qmask != 0 || w.qcount != 0 {
		w.kw = [64]int32{}
	}
	w.qmask, w.qcount, w.pairs = 0, 0, 0
	if len(w.ring) == 0 {
		w.ring = make([]wword, 16)
	}
}

// word is the entry of word k, one of the window's (or the gap being
// added, k = nword).
func (w *window) word(k int) *wword { return &w.ring[k&(len(w.ring)-1)] }

// codes is the codepoints of the window's units.
func (w *window) codes() int {
	if w.start < 0 {
		return 0
	}
	return w.total - w.headAcc
}

// words is the number of words in the window.
func (w *window) words() int {
	if w.start < 0 {
		return 0
	}
	return w.nword - w.hword
}

// n is the number of units in the window.
func (w *window) n() int {
	if w.start < 0 {
		return 0
	}
	return w.end - w.start
}

// open starts the window at unit num, whose bytes start at byte at.
func (w *window) open(num, at int) {
	w.start, w.end, w.base, w.headAcc, w.headStart = num, num, num, w.total, at
	w.openGap(num, at)
}

// openGap starts the entry of the next word with its gap: its first unit
// is numbered num and starts at byte at.
func (w *window) openGap(num, at int) {
	r := w.word(w.nword)
	r.gnum, r.gstart, r.gacc, r.runs = int32(num-w.base), int32(at), int32(w.total), -1
}

func (w *window) add(num int, u *unit) {
	if w.start < 0 {
		w.open(num, int(u.start))
	}
	if u.kind != kindWord {
		r := w.word(w.nword)
		if r.runs < 0 {
			r.runs = int32(w.runBase + len(w.runs))
		}
		w.addRun(u.start, u.end)
		w.total += int(u.cp)
		w.end, w.endByte = num+1, int(u.end)
		return
	}
	r := w.word(w.nword)
	r.num, r.start, r.end, r.acc, r.term = int32(num-w.base), u.start, u.end, int32(w.total), -1
	if u.hit {
		r.term = max(u.term, 0)
		w.addMark(r)
	}
	w.total += int(u.cp)
	w.nword++
	w.end, w.endByte = num+1, int(u.end)
	if w.nword-w.hword+1 > len(w.ring) {
		w.grow()
	}
	w.openGap(num+1, int(u.end))
}

// grow doubles the ring of words, the window's entries kept.
func (w *window) grow() {
	ring := make([]wword, 2*len(w.ring))
	for k := w.hword; k <= w.nword; k++ {
		ring[k&(len(ring)-1)] = *w.word(k)
	}
	w.ring = ring
}

// addGap adds the runs of text[from:to], the characters between two
// words (white space and the rest apart; no boundary characters), numbered
// from num; it returns the number after the last.
func (w *window) addGap(p *ufield, from, to, num int) int {
	if from >= to {
		return num
	}
	if w.start < 0 {
		w.open(num, from)
	}
	text := p.text
	w.endByte = to
	if to == from+1 {
		// One character (most often a blank): one run.
		w.total++
		w.end = num + 1
		return num + 1
	}
	sp := isSpace(text[from])
	i := from + 1
	for i < to && isSpace(text[i]) == sp {
		i++
	}
	if i == to {
		// One run: its entry tells it.
		w.total += int(p.cps(text[from:to]))
		w.end = num + 1
		return num + 1
	}
	r := w.word(w.nword)
	r.runs = int32(w.runBase + len(w.runs))
	runStart := from
	for ; i <= to; i++ {
		if i < to {
			if s := isSpace(text[i]); s == sp {
				continue
			} else {
				sp = s
			}
		}
		w.addRun(int32(runStart), int32(i))
		w.total += int(p.cps(text[runStart:i]))
		num++
		runStart = i
	}
	w.end = num
	return num
}

// addRun keeps a run of a gap. Once the storage is full, the runs of the
// gaps before the window's first word go, when they are half of it.
func (w *window) addRun(start, end int32) {
	if len(w.runs) == cap(w.runs) && len(w.runs) > 0 {
		live := w.runBase + len(w.runs)
		for k := w.hword; k <= w.nword; k++ {
			if r := w.word(k); r.runs >= 0 {
				live = min(live, int(r.runs))
				break
			}
		}
		if d := live - w.runBase; 2*d >= len(w.runs) {
			w.runs = w.runs[:copy(w.runs, w.runs[d:])]
			w.runBase = live
		}
	}
	w.runs = append(w.runs, gapRun{start, end, int32(w.total)})
}

// unitAt is unit num, one of the window's.
func (w *window) unitAt(num int) wunit {
	rel := int32(num - w.base)
	// The first word at or after it.
	lo, hi := w.hword, w.nword
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if w.word(m).num < rel {
			lo = m + 1
		} else {
			hi = m
		}
	}
	r := w.word(lo)
	if lo < w.nword && r.num == rel {
		return wunit{r.start, r.end, r.acc, int32(lo)}
	}
	if r.runs < 0 {
		return wunit{r.gstart, r.start, r.gacc, int32(lo)}
	}
	g := w.runs[int(r.runs)-w.runBase+int(rel-r.gnum)]
	return wunit{g.start, g.end, g.acc, int32(lo)}
}

// accAt is the codepoints added before unit num (num may be one past the
// last unit).
func (w *window) accAt(num int) int {
	if num >= w.end {
		return w.total
	}
	return int(w.unitAt(num).acc)
}

// wordsBefore is the number of words added before unit num (num may be
// one past the last unit).
func (w *window) wordsBefore(num int) int {
	if num >= w.end {
		return w.nword
	}
	return int(w.unitAt(num).ord)
}

// shrink drops units from the head of the window until it holds at most
// cp codepoints and limit words (with around2 >= 0, limit is around2 plus
// the marked words it holds); it keeps the last unit. It reports whether
// a marked word of a keyword under 64 was dropped.
func (w *window) shrink(cp, limit, around2 int) (dropped bool) {
	for w.end-w.start > 1 {
		if around2 >= 0 {
			limit = around2 + w.qwords
		}
		if w.nword-w.hword > limit {
			// The head's word and its gap all count it: they all go.
			r := w.word(w.hword)
			to := min(w.base+int(r.num)+1, w.end-1)
			if to <= w.base+int(r.num) {
				w.setHead(to)
				return dropped
			}
			dropped = w.dropWord(r) || dropped
			// The head is the first unit of the next word's gap (or the word).
			next := w.word(w.hword)
			w.start, w.headAcc, w.headStart = to, int(next.gacc), int(next.gstart)
			continue
		}
		if w.total-w.headAcc <= cp {
			return dropped
		}
		if r := w.word(w.hword); w.hword < w.nword && w.base+int(r.num) == w.start {
			dropped = w.dropWord(r) || dropped
		}
		w.setHead(w.start + 1)
	}
	return dropped
}

// setHead makes unit num, one of the window's, its head.
func (w *window) setHead(num int) {
	u := w.unitAt(num)
	w.start, w.headAcc, w.headStart = num, int(u.acc), int(u.start)
}

// dropWord drops r, the window's first word.
func (w *window) dropWord(r *wword) (dropped bool) {
	w.hword++
	if r.term < 0 {
		return false
	}
	w.qwords--
	w.marks.pop()
	m := r.mask()
	if m == 0 {
		return false
	}
	t := tokenize.KeywordSlot(int(r.term))
	if w.kw[t]--; w.kw[t] == 0 {
		w.qmask &^= m
	}
	w.qcount--
	if w.marks.len() > 0 && w.marks.first() == w.hword {
		// (The word after r, now the window's first.)
		if n := w.word(w.hword).mask(); n != 0 && n == m<<1 {
			w.pairs--
		}
	}
	return true
}

// addMark takes r, the word being added (ordinal w.nword), as a marked
// word.
func (w *window) addMark(r *wword) {
	k := w.nword
	if m := r.mask(); m != 0 {
		if w.marks.len() > 0 && w.last == k-1 {
			if p := w.word(k - 1).mask(); p != 0 && m == p<<1 {
				w.pairs++
			}
		}
		w.kw[tokenize.KeywordSlot(int(r.term))]++
		w.qmask |= m
		w.qcount++
	}
	w.qwords++
	w.marks.push(k)
	w.last = k
}

// markSpread gives where the marked words lie among the window's words:
// the words before the first and after the last (the window must hold a
// marked word).
func (w *window) markSpread() (before, after int) {
	return w.marks.first() - w.hword, w.nword - 1 - w.last
}
