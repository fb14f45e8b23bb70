package htmlstrip

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Strip strips input with the options opts (nil for none). It never fails:
// malformed HTML is read the way browsers read it. To strip many documents
// with the same options, compile them once with New.
func Strip(input string, opts *Options) *Result {
	return New(opts).Strip(input)
}

// Strip strips one document. A text without '<' and '&' (or without '<',
// when entities are kept) is returned as it is, without a copy.
func (s *Stripper) Strip(input string) *Result {
	if strings.IndexByte(input, '<') < 0 && (s.keepEnts || strings.IndexByte(input, '&') < 0) {
		return &Result{Text: input, identity: true}
	}
	st := state{s: s, in: input, lastPara: -1, zones: s.hasZones()}
	st.b.Grow(len(input) + len(input)/8)
	// A tag is a separator and a text after it; so is an entity.
	st.segs = make([]seg, 0, 2*(strings.Count(input, "<")+strings.Count(input, "&"))+1)
	st.run()
	return &Result{Text: st.b.String(), Marks: st.marks, UnitTags: st.unit, segs: st.segs}
}

// maxDepth bounds the stack of open elements kept for zones; elements opened
// deeper are not tracked (and are not zones).
const maxDepth = 256

// state is one run of Strip.
type state struct {
	s     *Stripper
	in    string
	b     strings.Builder
	segs  []seg
	marks []Mark
	unit  []int // Result.UnitTags

	// content: text other than ASCII space was written since the last
	// Paragraph mark (or the start); lastPara is that mark's index in marks,
	// or -1.
	content  bool
	lastPara int
	// afterZone: a zone's tag came and no text since (ZonesNoParagraph).
	afterZone bool

	// zones: the stack of open elements is kept (only when there are zones).
	zones bool
	stack []openElem

	nameBuf [16]byte // tagName's buffer for short names
}

// tagName returns the lower-case name of the raw start or end tag ("<a ...>",
// "</a>"), as the Tokenizer reads it but without its allocation. The result
// is valid until the next call.
func (st *state) tagName(raw []byte) []byte {
	i := 1
	if len(raw) > 1 && raw[1] == '/' {
		i = 2
	}
	j := i
	for j < len(raw) && !isHTMLSpace(raw[j]) && raw[j] != '/' && raw[j] != '>' {
		j++
	}
	name := st.nameBuf[:0]
	for _, c := range raw[i:j] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name = append(name, c)
	}
	return name
}

// openElem is an element on the stack of open elements.
type openElem struct {
	a    atom.Atom
	f    elemFlags
	zone bool
	name string // lower case; set for zones and unknown elements
}

func (st *state) run() {
	z := html.NewTokenizer(strings.NewReader(st.in))
	pos := 0
	// textFlags: the flags of the raw-text or RCDATA element whose content
	// the next text token is, if any.
	var textFlags elemFlags
	// Removal of an element (html_remove_elements): its name, how many of
	// its kind are open, where it started, and its flags.
	var (
		skipName  string
		skipDepth int
		skipStart int
		skipFlags elemFlags
	)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // EOF; an unterminated tag at the end is dropped
		}
		start := pos
		pos += len(z.Raw())
		tf := textFlags
		textFlags = 0

		var (
			name    []byte
			hasAttr bool
			a       atom.Atom
			f       elemFlags
		)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			raw := z.Raw()
			name = st.tagName(raw)
			hasAttr = tt != html.EndTagToken && len(raw) > len(name)+2
			a = atom.Lookup(name)
			f = flagsOf(a)
		}
		if tt != html.EndTagToken && f&(fRawText|fRCData|fFallback) != 0 {
			if tt == html.SelfClosingTagToken || f&fFallback != 0 {
				z.NextIsNotRawText() // <script/> is empty; <noscript> holds markup
			} else {
				textFlags = f
			}
		}

		if skipDepth > 0 {
			if string(name) == skipName {
				switch tt {
				case html.StartTagToken:
					skipDepth++
				case html.EndTagToken:
					if skipDepth--; skipDepth == 0 {
						st.removed(skipStart, pos, skipFlags)
					}
				}
			}
			continue
		}

		switch tt {
		case html.TextToken:
			if tf&fRawText != 0 {
				st.verbatim(start, pos)
			} else {
				st.text(start, pos, false)
			}
		case html.CommentToken, html.DoctypeToken:
			// dropped without a trace, like the processing instructions and
			// CDATA sections that the Tokenizer reads as comments
		case html.StartTagToken, html.SelfClosingTagToken:
			empty := tt == html.SelfClosingTagToken || f&fVoid != 0
			if st.s.remove[string(name)] {
				if empty {
					st.removed(start, pos, f)
				} else {
					skipName, skipDepth, skipStart, skipFlags = string(name), 1, start, f
				}
				continue
			}
			st.startTag(a, f, name, hasAttr, empty, start, pos)
		case html.EndTagToken:
			st.endTag(a, f, name, start, pos)
		}
	}
	if skipDepth > 0 {
		st.removed(skipStart, pos, skipFlags)
	}
	if st.zones {
		st.closeTo(0)
	}
	if !st.content && st.lastPara >= 0 {
		st.marks = append(st.marks[:st.lastPara], st.marks[st.lastPara+1:]...)
		if len(st.marks) == 0 {
			st.marks = nil
		}
	}
}

// startTag handles the start tag [start, end) of an element that is not
// removed. empty: the element is void or the tag self-closing.
func (st *state) startTag(a atom.Atom, f elemFlags, name []byte, hasAttr, empty bool, start, end int) {
	zone := st.zones && st.s.isZone(name)
	if st.zones {
		st.implyEnd(a, f)
	}
	var vals []attrSpan
	if hasAttr && st.s.attrs != nil {
		vals = st.indexedAttrs(name, start, end)
	}
	// A zone element is marked if it can be tracked until its end.
	marked := zone && (empty || len(st.stack) < maxDepth)
	if f&fInline != 0 && !zone && len(vals) == 0 {
		// a tag inside a word
	} else {
		if f&fPara != 0 || zone {
			st.unitEnd(zone)
		}
		if len(vals) == 0 {
			st.separator(start, end)
		} else {
			st.separator(start, vals[0].v0)
		}
		if marked {
			st.mark(ZoneOpen, zoneName(a, name))
		}
		for i, v := range vals {
			st.text(v.v0, v.v1, true)
			next := end
			if i+1 < len(vals) {
				next = vals[i+1].v0
			}
			if marked && empty && i+1 == len(vals) {
				st.mark(ZoneClose, zoneName(a, name))
			}
			st.separator(v.v1, next)
		}
		if marked && empty && len(vals) == 0 {
			st.mark(ZoneClose, zoneName(a, name))
		}
	}
	if st.zones && !empty && len(st.stack) < maxDepth {
		e := openElem{a: a, f: f, zone: marked}
		if marked {
			e.name = zoneName(a, name)
		} else if a == 0 {
			e.name = string(name)
		}
		st.stack = append(st.stack, e)
	}
}

// endTag handles an end tag [start, end).
func (st *state) endTag(a atom.Atom, f elemFlags, name []byte, start, end int) {
	if f&fVoid != 0 {
		// </br> and the like close nothing
		if f&fInline == 0 {
			st.separator(start, end)
		}
		return
	}
	zone := st.zones && st.s.isZone(name)
	if st.zones {
		st.closeElem(a, f, name)
	}
	if f&fInline == 0 || zone {
		if f&fPara != 0 || zone {
			st.unitEnd(zone)
		}
		st.separator(start, end)
	}
}

// unitEnd handles a tag that ends a paragraph, or a zone's (zone): a
// Paragraph mark; with ZonesNoParagraph, a zone's tag instead takes away
// a Paragraph mark no text came after, and keeps one from coming until
// text does.
func (st *state) unitEnd(zone bool) {
	switch {
	case zone && st.s.zoneNoPara:
		if !st.content && st.lastPara >= 0 {
			st.marks = slices.Delete(st.marks, st.lastPara, st.lastPara+1)
			st.lastPara = -1
		}
		st.afterZone = true
	case !st.afterZone || !st.s.zoneNoPara:
		st.paragraph()
	}
	st.unitTag()
}

// unitTag notes, when asked, that the separator written next stands for a
// tag that ends a paragraph or a zone.
func (st *state) unitTag() {
	if st.s.unitTags {
		st.unit = append(st.unit, st.b.Len())
	}
}

// removed handles a removed element (or its lone tag) [start, end).
func (st *state) removed(start, end int, f elemFlags) {
	if f&fInline != 0 {
		return
	}
	if f&fPara != 0 {
		st.paragraph()
	}
	st.separator(start, end)
}

// indexedAttrs returns the values of the raw start tag [start, end) that
// html_index_attrs keeps, in the order of the tag, with offsets in the input;
// the first of attributes of the same name counts; empty values are left out.
func (st *state) indexedAttrs(name []byte, start, end int) []attrSpan {
	want := st.s.attrs[string(name)]
	if len(want) == 0 {
		return nil
	}
	raw := st.in[start:end]
	var vals []attrSpan
	var seen uint64 // of want, by index (the first 64)
	var seenMore map[string]bool
	scanAttrs(raw, func(sp attrSpan) {
		key := raw[sp.k0:sp.k1]
		for i, w := range want {
			if !equalFoldASCII(key, w) {
				continue
			}
			if i < 64 {
				if seen&(1<<i) != 0 {
					return
				}
				seen |= 1 << i
			} else {
				if seenMore[w] {
					return
				}
				if seenMore == nil {
					seenMore = make(map[string]bool)
				}
				seenMore[w] = true
			}
			if sp.v1 > sp.v0 {
				sp.k0, sp.k1, sp.v0, sp.v1 = sp.k0+start, sp.k1+start, sp.v0+start, sp.v1+start
				vals = append(vals, sp)
			}
			return
		}
	})
	return vals
}

// zoneName is the lower-case name of an element, without allocating for the
// known ones.
func zoneName(a atom.Atom, name []byte) string {
	if a != 0 {
		return a.String()
	}
	return string(name)
}

// The text and its mapping.

// verbatim writes the input [o1, o2) to the text as it is.
func (st *state) verbatim(o1, o2 int) {
	if o1 == o2 {
		return
	}
	t := st.b.Len()
	if n := len(st.segs); n == 0 || !st.continues(n-1, t, o1) {
		st.segs = append(st.segs, seg{t: t, o: o1, on: -1})
	}
	s := st.in[o1:o2]
	st.b.WriteString(s)
	st.noteText(s)
}

// continues reports whether the verbatim run i ends at text offset t and
// input offset o, so that a verbatim run from there extends it.
func (st *state) continues(i, t, o int) bool {
	s := st.segs[i]
	return s.on < 0 && s.o+(t-s.t) == o
}

// replace writes txt to the text in place of the input [o1, o2).
func (st *state) replace(txt string, o1, o2 int) {
	st.segs = append(st.segs, seg{t: st.b.Len(), o: o1, on: o2 - o1})
	st.b.WriteString(txt)
	st.noteText(txt)
}

// noteText notes text written: content (and no longer just after a zone's
// tag) unless it is all white space.
func (st *state) noteText(s string) {
	if (!st.content || st.afterZone) && !allSpace(s) {
		st.content, st.afterZone = true, false
	}
}

// separator writes a space in place of the markup [o1, o2).
func (st *state) separator(o1, o2 int) {
	st.replace(" ", o1, o2)
}

// text writes the input [o1, o2) with its character references decoded
// (entityAt), unless they are kept. An attribute value (attr) is written
// as it is, as the reference indexes one.
func (st *state) text(o1, o2 int, attr bool) {
	if st.s.keepEnts || attr {
		st.verbatim(o1, o2)
		return
	}
	s := st.in[o1:o2]
	from, i := 0, 0
	for {
		j := strings.IndexByte(s[i:], '&')
		if j < 0 {
			break
		}
		i += j
		dec, n := entityAt(s[i:])
		if n == 0 {
			i++
			continue
		}
		st.verbatim(o1+from, o1+i)
		if dec != "" {
			st.replace(dec, o1+i, o1+i+n)
		} // (else a numeric reference that is dropped)
		i += n
		from = i
	}
	st.verbatim(o1+from, o2)
}

func allSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// Marks.

// mark adds a mark at the current end of the text.
func (st *state) mark(k MarkKind, name string) {
	st.marks = append(st.marks, Mark{At: st.b.Len(), Kind: k, Name: name})
}

// paragraph adds a Paragraph mark, unless no text has come since the last one
// (or since the start).
func (st *state) paragraph() {
	if !st.content {
		return
	}
	st.content = false
	st.lastPara = len(st.marks)
	st.mark(Paragraph, "")
}

// The stack of open elements, for zones.

// closeTo pops the elements from i up, closing the zones among them,
// innermost first.
func (st *state) closeTo(i int) {
	if i < 0 {
		return
	}
	for j := len(st.stack) - 1; j >= i; j-- {
		if e := st.stack[j]; e.zone {
			st.mark(ZoneClose, e.name)
		}
	}
	st.stack = st.stack[:i]
}

// kinds matches elements: those with any of the flags, those of the atom,
// and (when the atom is 0) those of an unknown name.
type kinds struct {
	flags elemFlags
	a     atom.Atom
	name  []byte
}

func (k *kinds) has(e *openElem) bool {
	return e.f&k.flags != 0 || e.a == k.a && (e.a != 0 || k.name != nil && e.name == string(k.name))
}

// find walks the stack from the top down and returns the index of the first
// element of kind match, or -1 if an element of kind stop comes first (or
// none matches).
func (st *state) find(match, stop kinds) int {
	for i := len(st.stack) - 1; i >= 0; i-- {
		if e := &st.stack[i]; match.has(e) {
			return i
		} else if stop.has(e) {
			return -1
		}
	}
	return -1
}

// top returns the element on top of the stack (its zero value if the stack
// is empty).
func (st *state) top() openElem {
	if n := len(st.stack); n > 0 {
		return st.stack[n-1]
	}
	return openElem{}
}

// implyEnd closes the elements whose end tags HTML lets a start tag of kind a
// imply: <p>a<p>b, <li>a<li>b, <td>a<td>b, <h1>a<h2>b, ...
func (st *state) implyEnd(a atom.Atom, f elemFlags) {
	if f&fClosesP != 0 {
		st.closeTo(st.find(kinds{a: atom.P}, kinds{flags: fScope | fButton}))
	}
	switch {
	case f&fHeading != 0:
		if st.top().f&fHeading != 0 {
			st.closeTo(len(st.stack) - 1)
		}
	case a == atom.Li:
		st.closeTo(st.findListItem(kinds{a: atom.Li}))
	case f&fDdDt != 0:
		st.closeTo(st.findListItem(kinds{flags: fDdDt}))
	case f&fCell != 0:
		st.closeTo(st.find(kinds{flags: fCell}, kinds{flags: fRow | fTableScope}))
	case a == atom.Tr:
		st.closeTo(st.find(kinds{a: atom.Tr}, kinds{flags: fSection | fTableScope}))
	case f&fSection != 0:
		st.closeTo(st.find(kinds{flags: fSection}, kinds{flags: fTableScope}))
	case a == atom.Option || a == atom.Optgroup:
		if st.top().a == atom.Option {
			st.closeTo(len(st.stack) - 1)
		}
		if a == atom.Optgroup && st.top().a == atom.Optgroup {
			st.closeTo(len(st.stack) - 1)
		}
	case a == atom.Body:
		st.closeTo(st.find(kinds{a: atom.Head}, kinds{a: atom.Html}))
	case a == atom.A:
		st.closeTo(st.find(kinds{a: atom.A}, kinds{flags: fScope}))
	}
}

// findListItem is find for li, dd and dt, whose search stops at the special
// elements other than address, div and p.
func (st *state) findListItem(match kinds) int {
	for i := len(st.stack) - 1; i >= 0; i-- {
		e := &st.stack[i]
		if match.has(e) {
			return i
		}
		if e.f&fSpecial != 0 && e.f&fPlainSpecial == 0 {
			return -1
		}
	}
	return -1
}

// closeElem closes what the end tag of kind a (name) closes: the nearest open
// element of its kind and everything opened after it. Without one, or when a
// scope boundary (a table, a cell, ...) stands between, it closes nothing.
func (st *state) closeElem(a atom.Atom, f elemFlags, name []byte) {
	var match kinds
	switch {
	case f&fHeading != 0:
		match.flags = fHeading // any heading end tag closes any heading
	case a != 0:
		match.a = a
	case len(name) == 0:
		return
	default:
		match.name = name
	}
	var stop kinds
	switch {
	case a == atom.Html || a == atom.Body:
		return // they stay open until the end
	case a == atom.Table || f&(fRow|fSection|fCell) != 0 || a == atom.Caption:
		stop.flags = fTableScope
	case a == atom.Li:
		stop.flags = fScope | fList
	default:
		stop.flags = fScope
	}
	st.closeTo(st.find(match, stop))
}
