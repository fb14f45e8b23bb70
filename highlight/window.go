package highlight

import "unicode/utf8"

// window is the run of units the extractor looks at: unit numbers
// start..start+len(units)-1, as the extractor counts them. Besides the
// units it keeps, in step, what weighing a passage needs without walking
// the window again: the running total of codepoints before each unit, the
// ordinal of each word (so the window's codepoints and words are those
// added since its first unit), and the unit numbers of its words and of
// its marked words. Every operation costs what it adds or drops.
type window struct {
	start  int // -1: empty
	qwords int // marked words

	buf   []wunit // the units are buf[head:]
	head  int
	total int // codepoints of every unit added since the reset
	nword int // words added since the reset

	// wordNums[k&(len-1)] is the unit number of word k (counted since the
	// reset), for the window's words: a ring, grown to hold them all.
	wordNums []int
	markNums deque // unit numbers of the marked words, in order
	// The ordinals of the first and the last marked word (when there is one).
	firstMarkOrd, lastMarkOrd int
}

// wunit is a unit of the window: what the extractor needs of it.
type wunit struct {
	start, end int32
	acc        int32 // codepoints of the units added before it (since the reset)
	ord        int32 // a word's ordinal among the words added (since the reset)
	term       int16 // a marked word's keyword; -1 otherwise
	isWord     bool
}

// mask is the keyword bit of a marked word, 0 for any other unit.
func (u *wunit) mask() uint64 {
	if u.term >= 0 && u.term < 64 {
		return 1 << uint(u.term)
	}
	return 0
}

// marked reports whether u is a marked word.
func (u *wunit) marked() bool { return u.term >= 0 }

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
	w.start, w.qwords = -1, 0
	w.buf, w.head = w.buf[:0], 0
	w.total, w.nword = 0, 0
	w.markNums.clear()
}

// codes is the codepoints of the window's units.
func (w *window) codes() int {
	if w.head == len(w.buf) {
		return 0
	}
	return w.total - int(w.buf[w.head].acc)
}

// words is the number of words in the window.
func (w *window) words() int {
	if w.head == len(w.buf) {
		return 0
	}
	return w.nword - int(w.buf[w.head].ord)
}

// wordNum is the unit number of word k (counted since the reset), one of
// the window's words.
func (w *window) wordNum(k int) int { return w.wordNums[k&(len(w.wordNums)-1)] }

// n is the number of units in the window.
func (w *window) n() int { return len(w.buf) - w.head }

// at is the unit numbered num.
func (w *window) at(num int) *wunit { return &w.buf[w.head+num-w.start] }

// accAt is the codepoints added before unit num (num may be one past the
// last unit).
func (w *window) accAt(num int) int {
	if num-w.start >= w.n() {
		return w.total
	}
	return int(w.at(num).acc)
}

func (w *window) add(num int, u *unit) {
	if len(w.buf) == cap(w.buf) {
		w.room()
	}
	if w.start < 0 {
		w.start = num
	}
	w.buf = w.buf[:len(w.buf)+1]
	e := &w.buf[len(w.buf)-1]
	e.start, e.end, e.acc, e.ord = u.start, u.end, int32(w.total), int32(w.nword)
	e.term, e.isWord = -1, u.kind == kindWord
	if u.hit {
		e.term = max(u.term, 0)
	}
	w.total += int(u.cp)
	if u.word() {
		if w.nword-int(w.buf[w.head].ord) >= len(w.wordNums) { // (the window is not empty now)
			w.growWordNums(w.words() + 1)
		}
		w.wordNums[w.nword&(len(w.wordNums)-1)] = num
		w.nword++
		if u.hit {
			if w.markNums.len() == 0 {
				w.firstMarkOrd = w.nword - 1
			}
			w.lastMarkOrd = w.nword - 1
			w.qwords++
			w.markNums.push(num)
		}
	}
}

// growWordNums makes the ring of word numbers hold at least n words, the
// window's words kept.
func (w *window) growWordNums(n int) {
	size := max(16, len(w.wordNums))
	for size < n {
		size *= 2
	}
	ring := make([]int, size)
	for k := w.nword - w.words(); k < w.nword; k++ {
		ring[k&(size-1)] = w.wordNum(k)
	}
	w.wordNums = ring
}

// popMark drops the first marked word from the marked-word list.
func (w *window) popMark() {
	w.qwords--
	w.markNums.pop()
	if w.markNums.len() > 0 {
		w.firstMarkOrd = int(w.at(w.markNums.first()).ord)
	}
}

// addGap adds the runs of text[from:to], the characters between two
// words (white space and the rest apart; no boundary characters), numbered
// from num; it returns the number after the last.
func (w *window) addGap(p *ufield, from, to, num int) int {
	if from >= to {
		return num
	}
	text := p.text
	if to == from+1 && text[from] < utf8.RuneSelf && len(w.buf) < cap(w.buf) && w.start >= 0 {
		// One character (most often a blank): one run.
		w.buf = w.buf[:len(w.buf)+1]
		e := &w.buf[len(w.buf)-1]
		e.start, e.end, e.acc, e.ord, e.term, e.isWord = int32(from), int32(to), int32(w.total), int32(w.nword), -1, false
		w.total++
		return num + 1
	}
	runStart := from
	sp := isSpace(text[from])
	for i := from + 1; i <= to; i++ {
		if i < to {
			if s := isSpace(text[i]); s == sp {
				continue
			} else {
				sp = s
			}
		}
		if len(w.buf) == cap(w.buf) {
			w.room()
		}
		if w.start < 0 {
			w.start = num
		}
		cp := int32(i - runStart)
		if !p.ascii {
			cp = int32(utf8.RuneCountInString(text[runStart:i]))
		}
		w.buf = w.buf[:len(w.buf)+1]
		e := &w.buf[len(w.buf)-1]
		e.start, e.end, e.acc, e.ord, e.term, e.isWord = int32(runStart), int32(i), int32(w.total), int32(w.nword), -1, false
		w.total += int(cp)
		num++
		runStart = i
	}
	return num
}

// room makes room for one more unit: it moves the units down once half
// the storage is dropped units (so the window stays small and each unit
// is moved about once), or grows the storage.
func (w *window) room() {
	if 2*w.head >= len(w.buf) && w.head > 0 {
		k := copy(w.buf, w.buf[w.head:])
		w.buf, w.head = w.buf[:k], 0
		return
	}
	w.buf = append(w.buf, wunit{})[:len(w.buf)]
}

// wordsBefore is the number of words added before unit num (num may be
// one past the last unit).
func (w *window) wordsBefore(num int) int {
	if num-w.start >= w.n() {
		return w.nword
	}
	return int(w.at(num).ord)
}

// markSpread gives where the marked words lie among the window's words:
// the words before the first and after the last (the window must hold a
// marked word).
func (w *window) markSpread() (before, after int) {
	words := w.nword - int(w.buf[w.head].ord)
	first := w.nword - words // the window's words are the last added
	before = w.firstMarkOrd - first
	after = words - 1 - (w.lastMarkOrd - first)
	return before, after
}
