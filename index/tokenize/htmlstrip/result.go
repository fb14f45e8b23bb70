package htmlstrip

import (
	"fmt"
	"sort"
)

// MarkKind is the kind of a Mark.
type MarkKind int

const (
	// Paragraph is a paragraph boundary (index_sp).
	Paragraph MarkKind = iota + 1
	// ZoneOpen is where a zone's content starts (index_zones).
	ZoneOpen
	// ZoneClose is where a zone's content ends.
	ZoneClose
)

func (k MarkKind) String() string {
	switch k {
	case Paragraph:
		return "Paragraph"
	case ZoneOpen:
		return "ZoneOpen"
	case ZoneClose:
		return "ZoneClose"
	}
	return fmt.Sprintf("MarkKind(%d)", int(k))
}

// Mark is a structural mark in the stripped text.
type Mark struct {
	At   int      // byte offset in Result.Text where the mark stands
	Kind MarkKind //
	Name string   // zone name (lower-case tag) for ZoneOpen/ZoneClose
}

// Result is one stripped document.
type Result struct {
	// Text is the text content: tags removed, entities decoded, attribute
	// values inserted, separators in place of the tags that separate words.
	Text string
	// Marks are in order of At; marks at the same offset are in document
	// order.
	Marks []Mark
	// UnitTags, when Options.UnitTags asks for them, are the offsets in
	// Text of the separators that stand for tags that end a paragraph or a
	// zone (a zone's tags only when Options.Zones are given), in order.
	UnitTags []int

	// identity: Text is the input itself and maps 1:1 (segs is nil).
	identity bool
	// segs partition Text into runs, in order; see seg.
	segs []seg
}

// seg is a run of Result.Text that starts at Text offset t and ends where the
// next one starts (or at the end of Text). A verbatim run (on < 0) is a copy
// of the input from offset o on; any other run replaces the input bytes
// [o, o+on) as a whole (a decoded entity, or a separator standing for a tag).
// Input bytes between the runs were removed without a trace (inline tags,
// comments).
type seg struct {
	t, o, on int
}

// Orig maps the byte range [start, end) of r.Text to the smallest range of
// the original input that covers it: a range inside a verbatim run maps 1:1; a
// byte from a decoded entity maps to the whole entity; a separator maps to the
// tag it stands for; a range spanning removed tags covers the tags between.
// An empty range maps to an empty range at the end of the original of the
// byte before it (at 0 for start == 0). Orig panics unless
// 0 <= start <= end <= len(r.Text).
func (r *Result) Orig(start, end int) (int, int) {
	if start < 0 || end < start || end > len(r.Text) {
		panic(fmt.Sprintf("htmlstrip: Orig(%d, %d) out of range [0, %d]", start, end, len(r.Text)))
	}
	if r.identity {
		return start, end
	}
	if start == end {
		if start == 0 {
			return 0, 0
		}
		_, e := r.Orig(start-1, start)
		return e, e
	}
	i := r.segAt(start)
	s := r.segs[i]
	o1 := s.o
	if s.on < 0 {
		o1 += start - s.t
	}
	if end-1 >= r.segEnd(i) {
		i = r.segAt(end - 1)
		s = r.segs[i]
	}
	o2 := s.o + s.on
	if s.on < 0 {
		o2 = s.o + end - s.t
	}
	return o1, o2
}

// segAt returns the index of the run that holds Text byte x.
func (r *Result) segAt(x int) int {
	return sort.Search(len(r.segs), func(i int) bool { return r.segs[i].t > x }) - 1
}

// segEnd returns the Text offset where run i ends.
func (r *Result) segEnd(i int) int {
	if i+1 < len(r.segs) {
		return r.segs[i+1].t
	}
	return len(r.Text)
}

// verbatim reports whether Text byte x is a copy of the input byte at the
// offset Orig maps it to.
func (r *Result) verbatim(x int) bool {
	return r.identity || r.segs[r.segAt(x)].on < 0
}
