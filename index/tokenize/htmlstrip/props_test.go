package htmlstrip

import (
	"fmt"
	"strings"
)

// checkResult checks the invariants of a Result r of Strip(input): it returns
// a description of the first one that does not hold, or "".
//
//   - Runs partition Text in order; their originals are inside the input, in
//     order, and do not overlap.
//   - Orig of each byte is inside the input and monotonic; a verbatim byte
//     maps to one input byte equal to it.
//   - Orig of a range is the hull of Orig of its first and last byte.
//   - Marks are in order and inside Text; zones open and close like brackets
//     and are all closed; two Paragraph marks have text between them.
func checkResult(input string, r *Result) string {
	if r.identity {
		if r.Text != input || len(r.segs) != 0 || len(r.Marks) != 0 {
			return "identity result is not the input"
		}
		return ""
	}
	if len(r.Text) > 0 && (len(r.segs) == 0 || r.segs[0].t != 0) {
		return "first run does not start at 0"
	}
	prevEnd := 0
	for i, s := range r.segs {
		end := r.segEnd(i)
		if end <= s.t {
			return fmt.Sprintf("run %d %+v is empty or out of order", i, s)
		}
		on := s.on
		if on < 0 {
			on = end - s.t
		}
		if s.o < prevEnd || s.o+on > len(input) {
			return fmt.Sprintf("run %d %+v maps outside [%d, %d]", i, s, prevEnd, len(input))
		}
		prevEnd = s.o + on
	}
	p1, p2 := 0, 0
	for x := 0; x < len(r.Text); x++ {
		o1, o2 := r.Orig(x, x+1)
		if o1 < p1 || o2 < p2 || o1 >= o2 || o2 > len(input) {
			return fmt.Sprintf("Orig(%d, %d) = (%d, %d) after (%d, %d)", x, x+1, o1, o2, p1, p2)
		}
		if r.verbatim(x) && (o2 != o1+1 || input[o1] != r.Text[x]) {
			return fmt.Sprintf("verbatim byte %d %q maps to %q", x, r.Text[x], input[o1:o2])
		}
		p1, p2 = o1, o2
	}
	n := len(r.Text)
	for _, ab := range [][2]int{{0, n}, {0, n / 2}, {n / 3, n}, {n / 4, 3 * n / 4}, {n / 2, n/2 + 1}} {
		a, b := ab[0], ab[1]
		if a >= b || b > n {
			continue
		}
		o1, o2 := r.Orig(a, b)
		w1, _ := r.Orig(a, a+1)
		_, w2 := r.Orig(b-1, b)
		if o1 != w1 || o2 != w2 {
			return fmt.Sprintf("Orig(%d, %d) = (%d, %d), want (%d, %d)", a, b, o1, o2, w1, w2)
		}
	}
	var open []string
	lastPara := -1
	for i, m := range r.Marks {
		if m.At < 0 || m.At > len(r.Text) || i > 0 && m.At < r.Marks[i-1].At {
			return fmt.Sprintf("mark %d %+v out of order", i, m)
		}
		switch m.Kind {
		case ZoneOpen:
			open = append(open, m.Name)
		case ZoneClose:
			if len(open) == 0 || open[len(open)-1] != m.Name {
				return fmt.Sprintf("mark %d %+v closes %v", i, m, open)
			}
			open = open[:len(open)-1]
		case Paragraph:
			if blank(r.Text[max(lastPara, 0):m.At]) {
				return fmt.Sprintf("mark %d %+v has no text before it", i, m)
			}
			lastPara = m.At
		default:
			return fmt.Sprintf("mark %d %+v has a bad kind", i, m)
		}
	}
	if len(open) > 0 {
		return fmt.Sprintf("zones %v are left open", open)
	}
	if lastPara >= 0 && blank(r.Text[lastPara:]) {
		return "last Paragraph mark has no text after it"
	}
	return ""
}

// blank reports whether s is all ASCII space, what Paragraph marks do not count as text.
func blank(s string) bool { return strings.Trim(s, " \t\n\r\f\v") == "" }
