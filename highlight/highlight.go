// Package highlight builds snippets: fragments of a document's own text with
// the words that prove a match wrapped in markers, under size, word and
// snippet-count limits (the specification: shared/spec/highlighting-interface.md).
//
// The caller gives each field's words, boundaries and marks from
// index.TextMatcher: for a stored document, from what the index kept when
// it was written (the posting lists and the word layout stored with the
// text, MatchStored); for other text, by tokenizing it with the table's
// tokenizer (Match). Either way they come from the same tokenizer and query
// tree as the search; this package only chooses passages and renders them.
//
// # Choosing snippets
//
// When a field fits the limits (codepoints of text, words), it is returned
// whole, marked, unless force_snippets. Otherwise every mark opens a window of
// `around` words on each side (word positions, so stopwords count),
// clipped to its sentence, paragraph or zone with snippet_boundary and to the
// phrase_boundary characters with use_boundaries; overlapping windows merge
// while the merged passage still fits the limits. Passages are then taken
// greedily: first those with more marks of complete operator matches (a
// whole phrase, NEAR pair, ...) and longer runs of adjacent marks, then those
// adding more keywords not yet shown, then more marks, then the earlier one;
// a passage that does not fit what is left of the budget is narrowed from
// its edges (keeping its marks) or skipped. force_all_words lifts the size
// limit until every keyword is shown. With limits_per_field=0 the passages of
// all fields compete for one budget. Snippets come in document order, or in
// the order chosen with weight_order.
//
// A field without marks gives its beginning, whole words up to the limits
// (or nothing with allow_empty). Limits count codepoints of the text, not
// markers or separators; a snippet starts and ends on word boundaries, so it
// never cuts a word or a UTF-8 sequence.
//
// # Cost
//
// A field's Layout (one word per position, the boundaries) is decoded from
// the index (about a byte per word) or comes from the one tokenizer pass
// that also finds the marks; nothing here walks every word again. Units,
// zones, glued words and codepoint counts are worked out around the marks
// only, and a field's length in codepoints is counted only when its length
// in bytes does not settle a limit, so the choosing costs what the marks
// cost, whatever the size of the field.
//
// # Markup
//
// html_strip_mode=index strips the markup of fields the table strips (Field.HTML),
// strip strips it anyway, none shows the text as it is, and retain keeps the
// markup and never puts a marker inside a tag (a marked word broken by a tag
// is marked piece by piece); retain highlights whole fields, so it refuses
// size limits (Options.Check). emit_zones puts "<zone>" (the name of the
// innermost zone around the snippet's first word) before each snippet.
// %SNIPPET_ID% in a marker (its first occurrence) becomes the snippet's number,
// counted from start_snippet_id across the fields of one document.
package highlight

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// Mark is one occurrence of a query keyword that proves the match.
// Keyword numbers the distinct query keywords; Group > 0 ties the marks of
// one operator occurrence (a phrase, a NEAR pair), 0 is a lone keyword.
type Mark struct {
	Pos        int
	Start, End int
	Keyword    int
	Group      int
}

// Field is one field (or arbitrary text) to highlight.
type Field struct {
	Name            string
	Text            string
	tokenize.Layout        // where Text's words and boundaries lie (the table's tokenizer)
	Marks           []Mark // sorted by Start
	HTML            bool   // the table strips HTML from this text
	StripOptions    *htmlstrip.Options
	Boundaries      func(rune) bool // the table's phrase_boundary characters (nil: none)
}

// Document highlights the fields of one document: per field, its snippets,
// rendered.
func Document(fields []Field, numKeywords int, o *Options) [][]string {
	prepared := make([]*prepared, len(fields))
	for i := range fields {
		prepared[i] = prepare(&fields[i], o)
	}
	out := make([][]string, len(fields))
	// Whole fields when they fit (the budget is per field or shared). The
	// shared budget counts the fields with marks, the ones shown whole,
	// each one snippet.
	whole := !o.ForceSnippets
	if whole && !o.LimitsPerField {
		size, words, shown := 0, 0, 0
		for _, p := range prepared {
			if len(p.marks) > 0 {
				size += len(p.text)
				words += p.wordCount(0, len(p.words)-1)
				shown++
			}
		}
		whole = (o.LimitWords == 0 || words <= o.LimitWords) && (o.LimitSnippets == 0 || shown <= o.LimitSnippets)
		if whole && o.Limit > 0 && size > o.Limit {
			// Count codepoints only when the bytes do not settle it.
			runes := 0
			for _, p := range prepared {
				if runes > o.Limit || size > utf8.UTFMax*o.Limit {
					break
				}
				if len(p.marks) > 0 {
					runes += p.runes(p.text)
				}
			}
			whole = runes <= o.Limit && size <= utf8.UTFMax*o.Limit
		}
	}
	var pool []*passage
	id := o.StartSnippetID
	chosen := make([][]*passage, len(fields))
	for i, p := range prepared {
		switch {
		case len(p.marks) == 0:
			continue
		case whole && (!o.LimitsPerField || p.wholeFits(o)):
			chosen[i] = []*passage{{field: i, a: -1}}
		case o.LimitsPerField:
			chosen[i] = selectPassages(p.candidates(i, o), o, numKeywords)
		default:
			pool = append(pool, p.candidates(i, o)...)
		}
	}
	if len(pool) > 0 {
		for _, ps := range selectPassages(pool, o, numKeywords) {
			chosen[ps.field] = append(chosen[ps.field], ps)
		}
	}
	anyChosen := false
	for _, ps := range chosen {
		anyChosen = anyChosen || len(ps) > 0
	}
	for i, p := range prepared {
		ps := chosen[i]
		if len(ps) == 0 {
			// No match here, or nothing fits: the beginning of the field,
			// unless allow_empty, or the shared budget of limits_per_field=0
			// went to other fields.
			if o.AllowEmpty || !o.LimitsPerField && anyChosen {
				continue
			}
			if s, ok := p.beginning(o); ok {
				out[i] = []string{s}
			}
			continue
		}
		if !o.WeightOrder {
			sort.Slice(ps, func(x, y int) bool { return ps[x].a < ps[y].a })
		}
		for _, s := range ps {
			out[i] = append(out[i], p.render(s, o, id))
			id++
		}
	}
	return out
}

// Join renders the SQL form: snippets joined by snippet_separator, fields by
// field_separator; with omitEmpty, fields without snippets are left out.
func Join(snippets [][]string, o *Options, omitEmpty bool) string {
	var parts []string
	for _, s := range snippets {
		if omitEmpty && len(s) == 0 {
			continue
		}
		parts = append(parts, strings.Join(s, o.SnippetSeparator))
	}
	return strings.Join(parts, o.FieldSeparator)
}

// pmark is a mark on the shown text.
type pmark struct {
	word       int // index in words
	start, end int
	keyword    int
	group      int
}

// prepared is a field ready for choosing: the text that is shown, its words
// and marks with offsets into it. What the choice needs beyond that (units,
// codepoint counts, zones) is worked out only where the marks are, so the
// cost follows the matches rather than the size of the field.
type prepared struct {
	text     string
	retain   bool
	stripped bool // text is the HTML with its markup stripped
	words    []tokenize.Word
	bounds   []tokenize.Bound
	marks    []pmark
	groups   map[int]int // group -> its number of marks in the field
	// cuts are the unit boundaries of snippet_boundary, sorted: a passage
	// never spans positions c and c+1. Boundary characters of
	// use_boundaries (isBoundary) cut between the words they lie between.
	cuts       []int
	isBoundary func(rune) bool
	ascii      bool // text is ASCII: its codepoints are its bytes
}

func prepare(f *Field, o *Options) *prepared {
	p := &prepared{text: f.Text, retain: o.HTMLStripMode == "retain", words: f.Words, bounds: f.Bounds}
	if o.UseBoundaries {
		p.isBoundary = f.Boundaries
	}
	mapOff := func(x int) int { return x }
	mapEnd := func(x int) int { return x }
	if o.HTMLStripMode == "strip" || o.HTMLStripMode == "index" && f.HTML {
		r := htmlstrip.Strip(f.Text, f.StripOptions)
		p.text, p.stripped = r.Text, true
		// origEnd(x) is where the original of text[:x] ends: non-decreasing.
		origEnd := func(x int) int { _, e := r.Orig(x, x); return e }
		n := len(r.Text)
		mapOff = func(o int) int { return sort.Search(n, func(x int) bool { return origEnd(x+1) > o }) }
		mapEnd = func(o int) int { return sort.Search(n+1, func(x int) bool { return origEnd(x) >= o }) }
		p.words = make([]tokenize.Word, 0, len(f.Words))
		for _, w := range f.Words {
			s, e := mapOff(int(w.Start)), mapEnd(int(w.End))
			if e <= s || e > len(p.text) {
				continue // inside removed markup
			}
			p.words = append(p.words, tokenize.Word{Pos: w.Pos, Start: int32(s), End: int32(e)})
		}
	}
	for _, b := range p.bounds {
		switch {
		case b.Kind == tokenize.SentenceStart && o.SnippetBoundary == "sentence",
			b.Kind == tokenize.ParagraphStart && (o.SnippetBoundary == "paragraph" || o.SnippetBoundary == "sentence"),
			b.Kind == tokenize.ZoneOpen && o.SnippetBoundary == "zone":
			p.cuts = append(p.cuts, b.Pos-1)
		case b.Kind == tokenize.ZoneClose && o.SnippetBoundary == "zone":
			p.cuts = append(p.cuts, b.Pos)
		}
	}
	slices.Sort(p.cuts)
	// Marks onto words.
	p.marks = make([]pmark, 0, len(f.Marks))
	wi := 0
	for _, m := range f.Marks {
		s, e := mapOff(m.Start), mapEnd(m.End)
		if e <= s || e > len(p.text) {
			continue
		}
		// The first word that ends after s.
		words := p.words[wi:]
		wi += sort.Search(len(words), func(i int) bool { return int(words[i].End) > s })
		if wi == len(p.words) || p.start(wi) > s {
			continue
		}
		if n := len(p.marks); n > 0 && p.marks[n-1].start == s {
			continue
		}
		p.marks = append(p.marks, pmark{word: wi, start: s, end: e, keyword: m.Keyword, group: m.Group})
		if m.Group > 0 {
			if p.groups == nil {
				p.groups = map[int]int{}
			}
			p.groups[m.Group]++
		}
	}
	p.ascii = isASCII(p.text)
	return p
}

// start, end and pos are the byte range and the position of word i.
func (p *prepared) start(i int) int { return int(p.words[i].Start) }
func (p *prepared) end(i int) int   { return int(p.words[i].End) }
func (p *prepared) pos(i int) int   { return int(p.words[i].Pos) }

// cutAfter reports whether a unit boundary lies between words i and i+1.
func (p *prepared) cutAfter(i int) bool {
	if len(p.cuts) == 0 && p.isBoundary == nil {
		return false
	}
	if c, _ := slices.BinarySearch(p.cuts, p.pos(i)); c < len(p.cuts) && p.cuts[c] < p.pos(i+1) {
		return true
	}
	return p.isBoundary != nil && strings.IndexFunc(p.text[p.end(i):p.start(i+1)], p.isBoundary) >= 0
}

// zone is the innermost zone around word i (emit_zones).
func (p *prepared) zone(i int) string {
	pos := p.pos(i)
	var open []string
	for _, b := range p.bounds {
		if b.Pos > pos || b.Pos == pos && b.Kind == tokenize.ZoneClose {
			break
		}
		switch b.Kind {
		case tokenize.ZoneOpen:
			open = append(open, b.Zone)
		case tokenize.ZoneClose:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return ""
	}
	return open[len(open)-1]
}

// glued reports whether words i and i+1 touch without white space between
// them (one word of the text the tokenizer cut in two, like "Atlanta's").
func (p *prepared) glued(i int) bool {
	gap := p.text[p.end(i):p.start(i+1)]
	return len(gap) <= 2 && strings.TrimFunc(gap, unicode.IsSpace) == gap
}

// spanRunes counts the codepoints from the start of word a to the end of word b.
func (p *prepared) spanRunes(a, b int) int {
	return p.runes(p.text[p.start(a):p.end(b)])
}

// spanFits reports whether words a..b fit the limits of o.
func (p *prepared) spanFits(o *Options, a, b int) bool {
	return (o.LimitWords == 0 || p.wordCount(a, b) <= o.LimitWords) &&
		(o.Limit == 0 || p.runesAtMost(p.text[p.start(a):p.end(b)], o.Limit))
}

// wholeFits reports whether the whole field fits the limits of o.
func (p *prepared) wholeFits(o *Options) bool {
	return (o.LimitWords == 0 || p.wordCount(0, len(p.words)-1) <= o.LimitWords) &&
		(o.Limit == 0 || p.runesAtMost(p.text, o.Limit))
}

// runesAtMost reports whether s, a piece of p's text, has at most n
// codepoints, counting them only when its length in bytes does not settle it.
func (p *prepared) runesAtMost(s string, n int) bool {
	switch {
	case len(s) <= n:
		return true
	case len(s) > utf8.UTFMax*n:
		return false
	}
	return p.runes(s) <= n
}

// runes counts the codepoints of s, a piece of p's text.
func (p *prepared) runes(s string) int {
	if p.ascii {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// isASCII reports whether s has only ASCII bytes, 8 at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wordCount is the number of words (positions, stopwords included) from
// word a to word b.
func (p *prepared) wordCount(a, b int) int {
	if a > b || b < 0 {
		return 0
	}
	return p.pos(b) - p.pos(a) + 1
}

// passage is a candidate snippet: words a..b of one field (a == -1: the
// whole field), holding marks ma..mb-1.
type passage struct {
	field  int
	p      *prepared
	a, b   int
	ma, mb int
	taken  bool

	scored         bool
	phrase, nmarks int
	kws            []int // distinct keywords
}

// candidates builds the passages of a field: a window around each mark,
// merged with the next while the result fits the limits.
func (p *prepared) candidates(field int, o *Options) []*passage {
	out := make([]*passage, 0, len(p.marks))
	window := func(mi int) (int, int) {
		w := p.marks[mi].word
		a, b := w, w
		for a > 0 && !p.cutAfter(a-1) && p.pos(w)-p.pos(a-1) <= o.Around {
			a--
		}
		for b+1 < len(p.words) && !p.cutAfter(b) && p.pos(b+1)-p.pos(w) <= o.Around {
			b++
		}
		// Do not split a word the tokenizer cut in pieces ("Atlanta's").
		for a > 0 && !p.cutAfter(a-1) && p.glued(a-1) {
			a--
		}
		for b+1 < len(p.words) && !p.cutAfter(b) && p.glued(b) {
			b++
		}
		return a, b
	}
	for mi := 0; mi < len(p.marks); {
		a, b := window(mi)
		cur := &passage{field: field, p: p, a: a, b: b, ma: mi, mb: mi + 1}
		mi++
		for mi < len(p.marks) {
			na, nb := window(mi)
			// Windows of one unit overlap or touch; a window that starts
			// after this one ends is of the same unit unless a cut lies
			// between them.
			if na > cur.b+1 || na == cur.b+1 && p.cutAfter(cur.b) {
				break
			}
			if !p.spanFits(o, cur.a, max(nb, cur.b)) {
				break
			}
			cur.b = max(nb, cur.b)
			cur.mb = mi + 1
			mi++
		}
		out = append(out, cur)
	}
	return out
}

// score ranks a passage: marks of complete operator matches and the longest
// run of adjacent marked words (closer phrase matches), then keywords not yet
// shown, then marks. What does not depend on shown is computed once.
func (s *passage) score(shown []bool) (phrase, fresh, marks int) {
	if !s.scored {
		s.scored = true
		p := s.p
		var groups []int // group, count pairs
		run, best := 0, 0
		for i := s.ma; i < s.mb; i++ {
			m := p.marks[i]
			if m.word < s.a || m.word > s.b {
				continue
			}
			s.nmarks++
			if m.group > 0 {
				found := false
				for j := 0; j < len(groups); j += 2 {
					if groups[j] == m.group {
						groups[j+1]++
						found = true
					}
				}
				if !found {
					groups = append(groups, m.group, 1)
				}
			}
			if i > s.ma && p.marks[i-1].word >= s.a && p.pos(m.word) == p.pos(p.marks[i-1].word)+1 {
				run++
			} else {
				run = 1
			}
			best = max(best, run)
			known := false
			for _, k := range s.kws {
				known = known || k == m.keyword
			}
			if !known {
				s.kws = append(s.kws, m.keyword)
			}
		}
		for j := 0; j < len(groups); j += 2 {
			if groups[j+1] == p.groups[groups[j]] {
				s.phrase += groups[j+1]
			}
		}
		s.phrase += best
	}
	for _, k := range s.kws {
		if k >= len(shown) || !shown[k] {
			fresh++
		}
	}
	return s.phrase, fresh, s.nmarks
}

// maxMisses bounds the rounds of selectPassages that take nothing.
const maxMisses = 32

// selectPassages takes passages greedily under the budget of o.
func selectPassages(cands []*passage, o *Options, numKeywords int) []*passage {
	shown := make([]bool, numKeywords)
	allShown := func() bool {
		for _, s := range shown {
			if !s {
				return false
			}
		}
		return true
	}
	leftRunes, leftWords, leftSnippets := o.Limit, o.LimitWords, o.LimitSnippets
	var out []*passage
	// Each round scans the candidates; rounds that take nothing (the best
	// left does not fit even narrowed to one word) are bounded, so a field
	// with many marks costs O(candidates x snippets).
	misses := 0
	for misses < maxMisses {
		if o.LimitSnippets > 0 && leftSnippets == 0 || o.Limit > 0 && leftRunes <= 0 && !(o.ForceAllWords && !allShown()) ||
			o.LimitWords > 0 && leftWords <= 0 {
			break
		}
		var best *passage
		var bp, bf, bm int
		for _, c := range cands {
			if c.taken {
				continue
			}
			ph, fr, mk := c.score(shown)
			if best == nil || ph > bp || ph == bp && (fr > bf || fr == bf && (mk > bm || mk == bm && (c.field < best.field || c.field == best.field && c.a < best.a))) {
				best, bp, bf, bm = c, ph, fr, mk
			}
		}
		if best == nil {
			break
		}
		best.taken = true
		ignoreSize := o.ForceAllWords && !allShown()
		if !best.shrink(o, leftRunes, leftWords, ignoreSize) {
			misses++
			continue
		}
		p := best.p
		if o.Limit > 0 {
			leftRunes = max(0, leftRunes-p.spanRunes(best.a, best.b))
		}
		if o.LimitWords > 0 {
			leftWords -= p.wordCount(best.a, best.b)
		}
		leftSnippets--
		for i := best.ma; i < best.mb; i++ {
			if m := p.marks[i]; m.word >= best.a && m.word <= best.b && m.keyword < len(shown) {
				shown[m.keyword] = true
			}
		}
		// Passages of the same field that overlap this one are gone.
		for _, c := range cands {
			if !c.taken && c.p == p && c.a <= best.b && best.a <= c.b {
				c.taken = true
			}
		}
		out = append(out, best)
	}
	return out
}

// shrink narrows a passage from its edges until it fits what is left of the
// budget, keeping its first mark; false when even that does not fit.
func (s *passage) shrink(o *Options, leftRunes, leftWords int, ignoreSize bool) bool {
	p := s.p
	sized := !ignoreSize && o.Limit > 0
	runes := 0
	if sized {
		runes = p.spanRunes(s.a, s.b)
	}
	first := p.marks[s.ma].word
	lastMark := func() int {
		last := first
		for i := s.ma; i < s.mb; i++ {
			if w := p.marks[i].word; w <= s.b {
				last = max(last, w)
			}
		}
		return last
	}
	last := lastMark()
	// Codepoints counted as words leave: the word and the gap on its inner side.
	dropEnd := func() {
		if sized {
			runes -= p.runes(p.text[p.end(s.b-1):p.end(s.b)])
		}
		s.b--
	}
	for sized && runes > leftRunes || o.LimitWords > 0 && p.wordCount(s.a, s.b) > leftWords {
		switch {
		case s.b > last && (s.a == first || s.b-last >= first-s.a):
			dropEnd()
		case s.a < first:
			if sized {
				runes -= p.runes(p.text[p.start(s.a):p.start(s.a+1)])
			}
			s.a++
		case s.b > first:
			dropEnd() // drop marks from the end
			if s.b < last {
				last = lastMark()
			}
		default:
			return false
		}
	}
	return true
}

// beginning is the start of a field without marks, whole words within the
// limits.
func (p *prepared) beginning(o *Options) (string, bool) {
	if len(p.words) == 0 {
		return p.shown(p.text), p.text != "" && (o.Limit == 0 || p.runesAtMost(p.text, o.Limit))
	}
	if p.wholeFits(o) {
		return p.shown(p.text), true
	}
	// Words one by one while they fit, counting the codepoints as they come.
	b, runes := -1, 0
	for b+1 < len(p.words) {
		next := runes + p.runes(p.text[p.end(max(b, 0)):p.end(b+1)])
		if b < 0 {
			next = p.runes(p.text[p.start(0):p.end(0)])
		}
		if o.Limit > 0 && next > o.Limit || o.LimitWords > 0 && p.wordCount(0, b+1) > o.LimitWords {
			break
		}
		b, runes = b+1, next
	}
	if b < 0 {
		return "", false
	}
	return p.shown(p.text[p.start(0):p.end(b)]), true
}

// shown is a piece of the text as it is shown: stripped text stands a space
// for each tag that separates words, so runs of spaces show as one, and
// none at the ends.
func (p *prepared) shown(s string) string {
	if p.stripped {
		return strings.TrimSpace(collapseSpaces(s))
	}
	return s
}

// render writes a passage with its marks.
func (p *prepared) render(s *passage, o *Options, id int) string {
	from, to := 0, len(p.text)
	if s.a >= 0 {
		from, to = p.start(s.a), p.end(s.b)
	}
	before, after := expandID(o.BeforeMatch, id), expandID(o.AfterMatch, id)
	var b strings.Builder
	if o.EmitZones && s.a >= 0 {
		at := s.a
		if s.ma < s.mb {
			at = p.marks[s.ma].word
		}
		zone := p.zone(at)
		if zone != "" {
			b.WriteString("<" + zone + ">")
		}
	}
	at := from
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].start >= from })
	j := i + sort.Search(len(p.marks)-i, func(k int) bool { return p.marks[i+k].start >= to })
	b.Grow(to - from + (j-i)*(len(before)+len(after)))
	for ; i < len(p.marks) && p.marks[i].end <= to; i++ {
		m := p.marks[i]
		if m.start < at {
			continue
		}
		b.WriteString(p.text[at:m.start])
		p.mark(&b, p.text[m.start:m.end], before, after)
		at = m.end
	}
	b.WriteString(p.text[at:to])
	return p.shown(b.String())
}

// collapseSpaces turns runs of spaces into one space.
func collapseSpaces(s string) string {
	if !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	prev := false
	for _, r := range s {
		if r == ' ' && prev {
			continue
		}
		prev = r == ' '
		b.WriteRune(r)
	}
	return b.String()
}

// writeMarked writes a word between the markers.
func writeMarked(b *strings.Builder, before, w, after string) {
	b.WriteString(before)
	b.WriteString(w)
	b.WriteString(after)
}

// mark wraps a word; in retain mode a word broken by tags is marked piece
// by piece, so no marker lands inside a tag.
func (p *prepared) mark(b *strings.Builder, w, before, after string) {
	if !p.retain || !strings.Contains(w, "<") {
		writeMarked(b, before, w, after)
		return
	}
	for w != "" {
		lt := strings.IndexByte(w, '<')
		if lt < 0 {
			writeMarked(b, before, w, after)
			return
		}
		if lt > 0 {
			writeMarked(b, before, w[:lt], after)
		}
		gt := strings.IndexByte(w[lt:], '>')
		if gt < 0 {
			b.WriteString(w[lt:])
			return
		}
		b.WriteString(w[lt : lt+gt+1])
		w = w[lt+gt+1:]
	}
}
