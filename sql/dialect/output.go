package dialect

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// edit replaces src[start:end] with text; start == end inserts text.
type edit struct {
	start, end int
	text       string
}

// segment is one piece of an output text: either bytes copied from the source
// (copied), or text the rewrite put there, which stands for the source offset
// origin.
type segment struct {
	out    int  // offset in the output
	origin int  // offset in the source
	n      int  // length in the output
	copied bool // out[out:out+n] == src[origin:origin+n]
}

// output is text derived from a source text, with the map back to it.
type output struct {
	text string
	segs []segment
	end  int // source offset of the end of the output
}

// builder builds an output from a source text, in order.
type builder struct {
	src  string
	buf  strings.Builder
	segs []segment
}

// copy appends src[from:to].
func (b *builder) copy(from, to int) {
	if from < to {
		b.segs = append(b.segs, segment{out: b.buf.Len(), origin: from, n: to - from, copied: true})
		b.buf.WriteString(b.src[from:to])
	}
}

// insert appends text that stands for the source offset origin.
func (b *builder) insert(text string, origin int) {
	if text != "" {
		b.segs = append(b.segs, segment{out: b.buf.Len(), origin: origin, n: len(text)})
		b.buf.WriteString(text)
	}
}

// output returns the text built, whose end stands for the source offset end.
func (b *builder) output(end int) *output {
	return &output{text: b.buf.String(), segs: b.segs, end: end}
}

// editOrder is the order applyEdits applies edits in: by offset; at one
// offset an insertion before a replacement.
func editOrder(a, b edit) int {
	if a.start != b.start {
		return cmp.Compare(a.start, b.start)
	}
	ai, bi := a.end == a.start, b.end == b.start
	switch {
	case ai && !bi:
		return -1
	case bi && !ai:
		return 1
	}
	return 0
}

// mergeEdits puts edits[k:], in editOrder, among edits[:k] in that order
// too, as a stable sort would (at equal places the earlier edits first),
// when edits[:k] is in order; otherwise it leaves them for applyEdits to
// sort. (The stand-ins' edits come in order, after a few of other
// rewrites: merged, they cost no sort.)
func mergeEdits(edits []edit, k int) {
	if k == 0 || k == len(edits) || !slices.IsSortedFunc(edits[:k], editOrder) || !slices.IsSortedFunc(edits[k:], editOrder) {
		return
	}
	var room [8]edit
	later := append(room[:0], edits[k:]...)
	i, w := k-1, len(edits)-1
	for j := len(later) - 1; j >= 0; w-- {
		if i >= 0 && editOrder(edits[i], later[j]) > 0 {
			edits[w] = edits[i]
			i--
		} else {
			edits[w] = later[j]
			j--
		}
	}
}

// applyEdits returns src[from:to] with the edits applied. Edits must lie within
// [from, to] and must not overlap; at one offset, insertions come before a
// replacement, in the order given.
func applyEdits(src string, from, to int, edits []edit) (*output, error) {
	if !slices.IsSortedFunc(edits, editOrder) { // the rewrites make them mostly in order
		slices.SortStableFunc(edits, editOrder)
	}
	// The output's size and pieces are known: grown once.
	size := max(to-from, 0)
	for _, e := range edits {
		size += len(e.text) - (e.end - e.start)
	}
	b := &builder{src: src, segs: make([]segment, 0, 2*len(edits)+1)}
	b.buf.Grow(max(size, 0))
	at := from
	for _, e := range edits {
		if e.start < at || e.end > to || e.end < e.start {
			return nil, fmt.Errorf("dialect: internal error: rewrite %q at %d..%d overlaps", e.text, e.start, e.end)
		}
		b.copy(at, e.start)
		b.insert(e.text, e.start)
		at = e.end
	}
	b.copy(at, to)
	return b.output(to), nil
}

// origin maps an offset in the output (0 <= off <= len(text)) to the source: an
// offset in copied text maps to the byte it was copied from, an offset in
// inserted text to the source offset that text stands for, and the end of the
// output to the end of the source range.
func (o *output) origin(off int) int {
	if off >= len(o.text) || len(o.segs) == 0 {
		return o.end
	}
	i := sort.Search(len(o.segs), func(i int) bool { return o.segs[i].out > off }) - 1
	if i < 0 {
		return o.end
	}
	s := o.segs[i]
	if s.copied {
		return s.origin + off - s.out
	}
	return s.origin
}
