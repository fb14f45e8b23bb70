// Package highlight builds snippets: fragments of a document's own text with
// the words that prove a match wrapped in markers, under size, word and
// snippet-count limits (the specification: shared/spec/highlighting-interface.md).
//
// The caller tokenizes each field with the table's tokenizer and evaluates
// the query against it (index.TextMatcher), so the words, the boundaries and
// the marks come from the same tokenizer and query tree as the search; this
// package only chooses passages and renders them.
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
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// TokenKind tells words from the boundary marks the tokenizer emits.
type TokenKind uint8

// Token kinds.
const (
	Word           TokenKind = iota
	SentenceStart            // the word at Pos starts a new sentence (index_sp)
	ParagraphStart           // the word at Pos starts a new paragraph (index_sp)
	ZoneOpen                 // zone Zone opens at the word at Pos (index_zones)
	ZoneClose                // zone Zone closes after the word at Pos
)

// Token is one token of a field: Start and End are byte offsets into
// Field.Text (Start == End for a boundary mark); Pos is the 1-based word
// position. One Word token per position.
type Token struct {
	Kind       TokenKind
	Pos        int
	Start, End int
	Zone       string
}

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
	Name         string
	Text         string
	Tokens       []Token // sorted by Start
	Marks        []Mark  // sorted by Start
	HTML         bool    // the table strips HTML from this text
	StripOptions *htmlstrip.Options
	Boundaries   func(rune) bool // the table's phrase_boundary characters (nil: none)
}

// Document highlights the fields of one document: per field, its snippets,
// rendered.
func Document(fields []Field, numKeywords int, o *Options) [][]string {
	prepared := make([]*prepared, len(fields))
	for i := range fields {
		prepared[i] = prepare(&fields[i], o)
	}
	out := make([][]string, len(fields))
	// Whole fields when they fit (the budget is per field or shared).
	whole := !o.ForceSnippets
	if whole && !o.LimitsPerField {
		cp, words := 0, 0
		for _, p := range prepared {
			cp += p.runes(0, len(p.text))
			words += p.wordCount(0, len(p.words)-1)
		}
		whole = fits(o, cp, words)
	}
	var pool []*passage
	id := o.StartSnippetID
	chosen := make([][]*passage, len(fields))
	for i, p := range prepared {
		switch {
		case len(p.marks) == 0:
			continue
		case whole && (!o.LimitsPerField || fits(o, p.runes(0, len(p.text)), p.wordCount(0, len(p.words)-1))):
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

func fits(o *Options, runes, words int) bool {
	return (o.Limit == 0 || runes <= o.Limit) && (o.LimitWords == 0 || words <= o.LimitWords)
}

// word is one word of the shown text.
type word struct {
	pos        int
	start, end int // in prepared.text
	unit       int // sentence, paragraph or zone it belongs to (snippet_boundary, use_boundaries)
	zone       string
}

// pmark is a mark on the shown text.
type pmark struct {
	word       int // index in words
	start, end int
	keyword    int
	group      int
}

// prepared is a field ready for choosing: the text that is shown, its words
// and marks with offsets into it.
type prepared struct {
	text     string
	retain   bool
	stripped bool // text is the HTML with its markup stripped
	words    []word
	marks    []pmark
	groups   map[int]int // group -> its number of marks in the field
	// cum[i] is the number of runes in text[:words[i].start]; cumEnd the
	// same at words[i].end: codepoint counts of any span in O(1).
	cum, cumEnd []int
}

func prepare(f *Field, o *Options) *prepared {
	p := &prepared{text: f.Text, retain: o.HTMLStripMode == "retain", groups: map[int]int{}}
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
	}
	// Words and boundaries in position order.
	type bound struct {
		pos  int
		kind TokenKind
		zone string
	}
	var bounds []bound
	p.words = make([]word, 0, len(f.Tokens))
	for _, t := range f.Tokens {
		if t.Kind == Word {
			s, e := mapOff(t.Start), mapEnd(t.End)
			if e <= s || e > len(p.text) {
				continue // inside removed markup
			}
			if n := len(p.words); n > 0 && p.words[n-1].pos == t.Pos {
				continue
			}
			p.words = append(p.words, word{pos: t.Pos, start: s, end: e})
		} else {
			bounds = append(bounds, bound{t.Pos, t.Kind, t.Zone})
		}
	}
	// Units: a new unit at each boundary that snippet_boundary names; zones
	// for emit_zones.
	var open []string
	bi := 0
	unit := 0
	for i := range p.words {
		w := &p.words[i]
		for bi < len(bounds) && (bounds[bi].pos < w.pos || bounds[bi].pos == w.pos && bounds[bi].kind != ZoneClose) {
			b := bounds[bi]
			switch b.kind {
			case SentenceStart:
				if o.SnippetBoundary == "sentence" {
					unit++
				}
			case ParagraphStart:
				if o.SnippetBoundary == "paragraph" || o.SnippetBoundary == "sentence" {
					unit++
				}
			case ZoneOpen:
				open = append(open, b.zone)
				if o.SnippetBoundary == "zone" {
					unit++
				}
			case ZoneClose:
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
				if o.SnippetBoundary == "zone" {
					unit++
				}
			}
			bi++
		}
		if o.UseBoundaries && f.Boundaries != nil && i > 0 && strings.IndexFunc(p.text[p.words[i-1].end:w.start], f.Boundaries) >= 0 {
			unit++
		}
		w.unit = unit
		if len(open) > 0 {
			w.zone = open[len(open)-1]
		}
		// Closes of zones around this word come after it.
		for bi < len(bounds) && bounds[bi].pos == w.pos && bounds[bi].kind == ZoneClose {
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			if o.SnippetBoundary == "zone" {
				unit++
			}
			bi++
		}
	}
	// Marks onto words.
	wi := 0
	for _, m := range f.Marks {
		s, e := mapOff(m.Start), mapEnd(m.End)
		if e <= s || e > len(p.text) {
			continue
		}
		for wi < len(p.words) && p.words[wi].end <= s {
			wi++
		}
		if wi == len(p.words) || p.words[wi].start > s {
			continue
		}
		if n := len(p.marks); n > 0 && p.marks[n-1].start == s {
			continue
		}
		p.marks = append(p.marks, pmark{word: wi, start: s, end: e, keyword: m.Keyword, group: m.Group})
		if m.Group > 0 {
			p.groups[m.Group]++
		}
	}
	// Codepoint counts.
	p.cum = make([]int, len(p.words))
	p.cumEnd = make([]int, len(p.words))
	at, n := 0, 0
	for i, w := range p.words {
		n += utf8.RuneCountInString(p.text[at:w.start])
		p.cum[i] = n
		n += utf8.RuneCountInString(p.text[w.start:w.end])
		p.cumEnd[i] = n
		at = w.end
	}
	return p
}

// glued reports whether words i and i+1 touch without white space between
// them (one word of the text the tokenizer cut in two, like "Atlanta's").
func (p *prepared) glued(i int) bool {
	gap := p.text[p.words[i].end:p.words[i+1].start]
	return len(gap) <= 2 && strings.TrimFunc(gap, unicode.IsSpace) == gap
}

// runes counts the codepoints of text[from:to] where from and to are word
// boundaries or the ends of the text.
func (p *prepared) runes(from, to int) int { return utf8.RuneCountInString(p.text[from:to]) }

// spanRunes counts the codepoints from the start of word a to the end of word b.
func (p *prepared) spanRunes(a, b int) int { return p.cumEnd[b] - p.cum[a] }

// wordCount is the number of words (positions, stopwords included) from
// word a to word b.
func (p *prepared) wordCount(a, b int) int {
	if a > b || b < 0 {
		return 0
	}
	return p.words[b].pos - p.words[a].pos + 1
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
	var out []*passage
	window := func(mi int) (int, int) {
		w := p.marks[mi].word
		a, b := w, w
		u := p.words[w].unit
		for a > 0 && p.words[a-1].unit == u && p.words[w].pos-p.words[a-1].pos <= o.Around {
			a--
		}
		for b+1 < len(p.words) && p.words[b+1].unit == u && p.words[b+1].pos-p.words[w].pos <= o.Around {
			b++
		}
		// Do not split a word the tokenizer cut in pieces ("Atlanta's").
		for a > 0 && p.words[a-1].unit == u && p.glued(a-1) {
			a--
		}
		for b+1 < len(p.words) && p.words[b+1].unit == u && p.glued(b) {
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
			if na > cur.b+1 || p.words[na].unit != p.words[cur.b].unit {
				break
			}
			if !fits(o, p.spanRunes(cur.a, max(nb, cur.b)), p.wordCount(cur.a, max(nb, cur.b))) {
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
			if i > s.ma && p.marks[i-1].word >= s.a && p.words[m.word].pos == p.words[p.marks[i-1].word].pos+1 {
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
	ok := func() bool {
		return (ignoreSize || o.Limit == 0 || p.spanRunes(s.a, s.b) <= leftRunes) &&
			(o.LimitWords == 0 || p.wordCount(s.a, s.b) <= leftWords)
	}
	for !ok() {
		first := p.marks[s.ma].word
		lastMark := first
		for i := s.ma; i < s.mb; i++ {
			if w := p.marks[i].word; w <= s.b {
				lastMark = max(lastMark, w)
			}
		}
		switch {
		case s.b > lastMark && (s.a == first || s.b-lastMark >= first-s.a):
			s.b--
		case s.a < first:
			s.a++
		case s.b > first:
			s.b-- // drop marks from the end
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
		return p.shown(p.text), p.text != "" && fits(o, p.runes(0, len(p.text)), 0)
	}
	if fits(o, p.runes(0, len(p.text)), p.wordCount(0, len(p.words)-1)) {
		return p.shown(p.text), true
	}
	b := -1
	for b+1 < len(p.words) && fits(o, p.spanRunes(0, b+1), p.wordCount(0, b+1)) {
		b++
	}
	if b < 0 {
		return "", false
	}
	return p.shown(p.text[p.words[0].start:p.words[b].end]), true
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
		from, to = p.words[s.a].start, p.words[s.b].end
	}
	before, after := expandID(o.BeforeMatch, id), expandID(o.AfterMatch, id)
	var b strings.Builder
	if o.EmitZones && s.a >= 0 {
		zone := p.words[s.a].zone
		if s.ma < s.mb {
			zone = p.words[p.marks[s.ma].word].zone
		}
		if zone != "" {
			b.WriteString("<" + zone + ">")
		}
	}
	at := from
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].start >= from })
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

// mark wraps a word; in retain mode a word broken by tags is marked piece
// by piece, so no marker lands inside a tag.
func (p *prepared) mark(b *strings.Builder, w, before, after string) {
	if !p.retain || !strings.Contains(w, "<") {
		b.WriteString(before + w + after)
		return
	}
	for w != "" {
		lt := strings.IndexByte(w, '<')
		if lt < 0 {
			b.WriteString(before + w + after)
			return
		}
		if lt > 0 {
			b.WriteString(before + w[:lt] + after)
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
