package highlight

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The last stage: snippets as data (ranges and marked spans), then the two
// renderings of them: each field's snippets as strings (JSON), and one
// string for the document (SQL), with the separators.

// whole is the whole field with its marked spans. Only the marked words
// are looked at. The marks are found in buf, scratch storage, then
// given storage of their own, of their size.
func (f *ufield) whole(o *Options, buf *[]MarkedRange) Snippet {
	s := Snippet{Range: Range{0, len(f.text)}, Marks: (*buf)[:0]}
	id := o.StartSnippetID
	prevStart, prevLast, prevEnd, runEnd := -1, int32(-2), 0, int32(0)
	for _, h := range f.hitWords {
		// The word that holds word h (a blended word holds its parts).
		k := h
		for k > 0 && f.words[k].Start < f.words[k-1].End {
			k--
		}
		start, end := int(f.words[k].Start), int(f.words[k].End)
		if start == prevStart || end > len(f.text) || end <= start || start < prevEnd {
			continue
		}
		pos, last := f.words[k].Pos, f.words[k].Pos
		j := k + 1
		for ; j < len(f.words) && int(f.words[j].Start) < end; j++ {
			last = max(last, f.words[j].Pos)
		}
		// The start of a blended word goes with its first part, its rest
		// with its last part.
		from, to := start, end
		if b := f.blendAt(start); b >= 0 {
			if bs := int(f.blends[b].Start); bs < start && (k == 0 || int(f.words[k-1].End) <= bs) {
				from = bs
			}
			if be := int(f.blends[b].End); be > end && (j == len(f.words) || int(f.words[j].Start) >= be) {
				to = be
			}
		}
		// Neighbouring marked words are one mark, but a gap after a word
		// at the end of the run of marked positions closes it.
		if n := len(s.Marks); n > 0 && pos <= prevLast+1 && !(start > prevEnd && prevLast >= runEnd) &&
			!(f.retain && strings.IndexByte(f.text[prevEnd:start], '<') >= 0) && !f.unitBetween(prevLast, pos) {
			s.Marks[n-1].End = to
		} else {
			s.Marks = append(s.Marks, MarkedRange{Range: Range{from, to}, ID: id})
			id++
			runEnd = f.runEnd(pos)
		}
		prevStart, prevLast, prevEnd = start, last, end
	}
	*buf = s.Marks
	s.Marks = nil
	if n := len(*buf); n > 0 {
		s.Marks = make([]MarkedRange, n)
		copy(s.Marks, *buf)
	}
	return s
}

// beginning is the start of a field without marks: units while they fit
// what is left of the codepoint limit (the first always), and the
// separator when the text goes on. used counts the codepoints shown so far,
// across the fields that share the limit.
func (f *ufield) beginning(l limits, o *Options, used *int) []Snippet {
	if len(f.text) == 0 {
		return nil
	}
	if l.chars == 0 {
		return []Snippet{{Range: Range{0, len(f.text)}}} // no limit: all of it
	}
	if f.ascii && len(f.blends) == 0 && f.boundary == nil && !f.walkAll {
		budget := l.chars - *used
		end := f.beginningEnd(budget)
		*used += end
		return []Snippet{{Range: Range{0, end}, Cut: len(f.text) > budget}}
	}
	end, cut := 0, false
	take := func(u *unit) bool {
		fits := *used+int(u.cp) <= l.chars
		if fits || end == 0 {
			end = int(u.end)
			*used += int(u.cp)
		}
		cut = !fits
		return fits
	}
	f.walk(func(gap []unit, w *unit) bool {
		for i := range gap {
			if !take(&gap[i]) {
				return false
			}
		}
		return w == nil || take(w)
	})
	return []Snippet{{Range: Range{0, end}, Cut: cut}}
}

// beginningEnd is where the beginning of a plain ASCII field (no blended
// words, no boundary characters) ends under a budget of n codepoints
// (bytes): at the last end of a unit within it (a word, or a run of a gap),
// found from the layout and the bytes of one gap, without walking the
// units; the whole text when it fits, its first unit when none fits.
func (f *ufield) beginningEnd(n int) int {
	text, words := f.text, f.words
	if len(text) <= n {
		return len(text)
	}
	// Words ending within the budget: words[:k].
	k := sort.Search(len(words), func(i int) bool { return int(words[i].End) > n })
	gapFrom, gapTo := 0, len(text)
	if k > 0 {
		gapFrom = int(words[k-1].End)
	}
	if k < len(words) {
		gapTo = int(words[k].Start)
	}
	if gapTo <= n && gapTo > 0 {
		return gapTo // the gap before word k ends within it
	}
	// A run of the gap ending within it: the last change between white
	// space and the rest.
	for i := min(n, gapTo-1); i > gapFrom; i-- {
		if isSpace(text[i-1]) != isSpace(text[i]) {
			return i
		}
	}
	if gapFrom > 0 {
		return gapFrom
	}
	// Nothing fits: the first unit, a word or the gap's first run.
	if len(words) > 0 && words[0].Start == 0 {
		return int(words[0].End)
	}
	first := len(text)
	if len(words) > 0 {
		first = int(words[0].Start)
	}
	for i := 1; i < first; i++ {
		if isSpace(text[i-1]) != isSpace(text[i]) {
			return i
		}
	}
	return first
}

// render turns the chosen passages of the field (in text order) into
// snippets: their bytes, and the marked spans of the words inside. The
// marks are found in buf, scratch storage, then all of them given one
// array of their size.
func (f *ufield) render(ps []passage, o *Options, buf *[]MarkedRange, res *Result) []Snippet {
	out := res.snippetsFor(len(ps))
	// The snippets' marks share one array; until it is made, each
	// snippet's Marks tells only how many are its own.
	marks := (*buf)[:0]
	id := o.StartSnippetID
	prevTo := 0
	for k, p := range ps {
		// Passages may overlap: a unit belongs to the first that holds
		// it, so a passage starts where the one before it ends (and one
		// inside the one before it shows nothing), as the reference
		// renders them.
		from, to := max(p.from, prevTo), max(p.to, prevTo)
		prevTo = to
		s := Snippet{Range: Range{from, to}, SepBefore: k > 0 || from > 0, SepAfter: to < len(f.text), Weight: p.weight(),
			Rank: p.rank, Score: p.score}
		first := true
		// The snippet's marks are marks[mk:].
		mk := len(marks)
		if !o.EmitZones {
			var ok bool
			if marks, id, ok = f.marksIn(from, to, marks, id); ok {
				if len(marks) > mk {
					s.Marks = marks[mk:len(marks):len(marks)]
				}
				out = append(out, s)
				continue
			}
		}
		open, end, lastPos := false, int32(0), int32(0) // a mark is open until the gap after the end of its run
		f.walkRange(from, to, func(u *unit) {
			if first && o.EmitZones && u.word() {
				s.Zone = zoneBefore(f.bounds, int(u.pos))
				first = false
			}
			if u.span < 0 {
				// A gap after the run's last position, or a piece past
				// it, closes the mark.
				if open && (u.pos == 0 && lastPos >= end || u.pos > end) {
					open = false
				}
				return
			}
			lastPos = u.pos
			if n := len(marks); open && n > mk && marks[n-1].span == u.span {
				marks[n-1].End = int(u.end)
				return
			}
			marks = append(marks, MarkedRange{Range: Range{int(u.start), int(u.end)}, ID: id, span: u.span})
			id++
			open, end = true, f.runEnd(u.pos)
		})
		if len(marks) > mk {
			s.Marks = marks[mk:len(marks):len(marks)]
		}
		out = append(out, s)
	}
	*buf = marks
	if len(marks) > 0 {
		own := res.marksFor(len(marks))
		copy(own, marks)
		for k := range out {
			n := len(out[k].Marks)
			out[k].Marks, own = own[:n:n], own[n:]
			if n == 0 {
				out[k].Marks = nil
			}
		}
	}
	return out
}

// marksIn appends the marks of text[from:to] to marks, numbered from id,
// as render finds them walking its units, but looking at the marked words
// alone. It can when the words are plain: no blended words, and the words
// of the range lie in the text, in order, none inside another; it reports
// false (and appends nothing) otherwise.
func (f *ufield) marksIn(from, to int, marks []MarkedRange, id int) ([]MarkedRange, int, bool) {
	if len(f.blends) > 0 {
		return marks, id, false
	}
	words := f.words
	first := sort.Search(len(words), func(i int) bool { return int(words[i].Start) >= from })
	h := sort.Search(len(f.hitWords), func(k int) bool { return f.hitWords[k] >= first })
	lastHit := -1 // the last marked word of the range
	for k := h; k < len(f.hitWords) && int(words[f.hitWords[k]].End) <= to; k++ {
		lastHit = f.hitWords[k]
	}
	// The words up to it must be plain: each the one after the word
	// before, for the cursor.
	at := from
	for i := first; i <= lastHit; i++ {
		s, e := int(words[i].Start), int(words[i].End)
		if e <= s || s < at || e > len(f.text) || i+1 < len(words) && int(words[i+1].Start) < e {
			return marks, id, false
		}
		at = e
	}
	// Marked words fold into one span as the word cursor folds them: with
	// the word before, when it is marked at the position before (or the
	// same), with no tag between in retain mode. A mark closes at a gap
	// after the end of its run of marked positions, and a word that is
	// not marked ends its span.
	span := int32(-1)
	if first > 0 && h > 0 && f.hitWords[h-1] == first-1 {
		span = 0
	}
	mk := len(marks)
	open, end, lastPos := false, int32(0), int32(0)
	for ; h < len(f.hitWords); h++ {
		k := f.hitWords[h]
		w := words[k]
		if int(w.End) > to {
			break
		}
		prevHit := k > 0 && h > 0 && f.hitWords[h-1] == k-1
		if prevHit && open && words[k-1].End < w.Start && lastPos >= end {
			open = false // (the gap before it)
		}
		if !(prevHit && w.Pos <= words[k-1].Pos+1 && !(f.retain && strings.IndexByte(f.text[words[k-1].End:w.Start], '<') >= 0)) {
			span++
		}
		lastPos = w.Pos
		if n := len(marks); open && n > mk && marks[n-1].span == span {
			marks[n-1].End = int(w.End)
			continue
		}
		marks = append(marks, MarkedRange{Range: Range{int(w.Start), int(w.End)}, ID: id, span: span})
		id++
		open, end = true, f.runEnd(w.Pos)
	}
	return marks, id, true
}

// text renders one snippet of the field.
func (r *FieldResult) text(s *Snippet, o *Options) string {
	var b strings.Builder
	b.Grow(textSize(s, o))
	r.writeText(&b, s, o)
	return b.String()
}

// textSize is about the bytes of s rendered (more when markers hold ids).
func textSize(s *Snippet, o *Options) int {
	return s.End - s.Start + len(s.Marks)*(len(o.BeforeMatch)+len(o.AfterMatch)) + len(s.Zone) + 2 + len(o.SnippetSeparator)
}

// writeText renders one snippet of the field into b.
func (r *FieldResult) writeText(b *strings.Builder, s *Snippet, o *Options) {
	if s.Zone != "" {
		b.WriteString("<" + s.Zone + ">")
	}
	b.WriteString(s.Open)
	at := s.Start
	for _, m := range s.Marks {
		b.WriteString(r.Text[at:m.Start])
		writeMarker(b, o.BeforeMatch, m.ID)
		b.WriteString(r.Text[m.Start:m.End])
		writeMarker(b, o.AfterMatch, m.ID)
		at = m.End
	}
	b.WriteString(r.Text[at:s.End])
	b.WriteString(s.Close)
	if s.Cut {
		b.WriteString(o.SnippetSeparator)
	}
}

// writeMarker writes a marker with its %SNIPPET_ID% / %PASSAGE_ID%
// replaced by id, cut as the reference cuts it: the first %PASSAGE_ID%
// splits the marker into what comes before the id and what follows it,
// then the first %SNIPPET_ID% of the part before splits it again; a split
// with nothing after the macro keeps what followed before. So
// '%SNIPPET_ID%%PASSAGE_ID%' writes the id alone, and in
// 'a%SNIPPET_ID%b%PASSAGE_ID%c' the c is lost: a<id>b.
func writeMarker(b *strings.Builder, marker string, id int) {
	if strings.IndexByte(marker, '%') < 0 { // (most markers)
		b.WriteString(marker)
		return
	}
	pre, post, found := marker, "", false
	for _, macro := range [...]string{"%PASSAGE_ID%", "%SNIPPET_ID%"} {
		if i := strings.Index(pre, macro); i >= 0 {
			if tail := pre[i+len(macro):]; tail != "" {
				post = tail
			}
			pre, found = pre[:i], true
		}
	}
	if !found {
		b.WriteString(marker)
		return
	}
	b.WriteString(pre)
	b.WriteString(strconv.Itoa(id))
	b.WriteString(post)
}

// order is the order the snippets of a field are shown in: text order, or
// heavier first with weight_order.
func order(r *FieldResult, o *Options) []Snippet {
	if !o.WeightOrder {
		return r.Snippets
	}
	s := slices.Clone(r.Snippets)
	slices.SortStableFunc(s, func(a, b Snippet) int { return b.Weight - a.Weight })
	return s
}

// Strings renders each field's snippets (the JSON form).
func (res *Result) Strings() [][]string {
	out := make([][]string, len(res.Fields))
	for i := range res.Fields {
		r := &res.Fields[i]
		for _, s := range order(r, res.opts) {
			out[i] = append(out[i], r.text(&s, res.opts))
		}
	}
	return out
}

// shows reports whether the field shows anything: a field whose only
// snippet is empty has none.
func (r *FieldResult) shows() bool {
	return len(r.Snippets) > 1 || len(r.Snippets) == 1 && (r.Snippets[0].End > r.Snippets[0].Start || r.Snippets[0].Cut)
}

// Size is about the bytes the result renders to, Join's string or the
// snippets of every field together (at least that, for the markers as
// given): known before anything is rendered, so that a caller can refuse a
// result too big to send (long markers around many marks) before it takes
// the memory.
func (res *Result) Size() int {
	o := res.opts
	size := 0
	for i := range res.Fields {
		for k := range res.Fields[i].Snippets {
			size += textSize(&res.Fields[i].Snippets[k], o) + len(o.SnippetSeparator)
		}
		size += len(o.FieldSeparator)
	}
	return size
}

// Join renders the SQL form: the snippets of a field joined by
// snippet_separator (and led or followed by it where a snippet does not
// reach the start or the end of its field), the fields with snippets joined
// by field_separator.
func (res *Result) Join() string {
	o := res.opts
	if len(res.Fields) == 1 && res.Fields[0].shows() && len(res.Fields[0].Snippets) == 1 {
		if s := res.Fields[0].Snippets[0]; !s.SepBefore && !s.SepAfter {
			return res.Fields[0].text(&s, o)
		}
	}
	var b strings.Builder
	b.Grow(res.Size())
	last := -1 // the last field that shows anything
	for i := range res.Fields {
		if res.Fields[i].shows() {
			last = i
		}
	}
	for i := range res.Fields {
		// (A field that shows nothing still has its separator when a
		// later field shows something.)
		if b.Len() > 0 && i <= last {
			b.WriteString(o.FieldSeparator)
		}
		r := &res.Fields[i]
		if !r.shows() {
			continue
		}
		ss := order(r, o)
		for k, s := range ss {
			if k == 0 && s.SepBefore {
				b.WriteString(o.SnippetSeparator)
			}
			r.writeText(&b, &s, o)
			if k < len(ss)-1 || s.SepAfter {
				b.WriteString(o.SnippetSeparator)
			}
		}
	}
	return b.String()
}
