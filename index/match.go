package index

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

// TextMatcher evaluates a query against documents given as text, tokenized
// with the table's tokenizer and judged by the same operators as a search:
// what the highlighter needs to mark exactly the words that make a document
// match. Safe for concurrent use.
type TextMatcher struct {
	s        *Snapshot
	p        *plan
	anyField bool
	kwIndex  []int // per leafTerm: its number among the distinct positive keywords, or -1
	nkw      int
	weights  []int // KeywordWeights

	// The posting lists of p per segment, for MatchStored: fetched on the
	// first document of the segment.
	segFetch []sync.Once
	segErr   []error

	// need is the terms of p's leaves, which a text given to Match is
	// tokenized for (needAll: every term, for a wildcard): the same for
	// every text, made once.
	need    termSet
	needAll bool

	// evals keeps evaluators between documents (docEval, doneEval): their
	// storage is per leaf and keyword, and what they cached of a document
	// is told stale by its number.
	evals sync.Pool
	mems  sync.Pool // memDocs between texts (match, doneMem)
}

// TextMatcher compiles q for matching texts. With anyField, the fields a
// limit names (@title) are ignored but its position limit (@title[N]) is
// not, and every text is matched on its own as arbitrary text (HIGHLIGHT()
// of an attribute or of TO_STRING(), CALL SNIPPETS).
func (s *Snapshot) TextMatcher(q query.Node, anyField bool) (*TextMatcher, error) {
	p := &plan{sentence: -1, paragraph: -1}
	m := &TextMatcher{s: s, p: p, anyField: anyField}
	if q != nil {
		nf := len(s.layout.indexed)
		if anyField {
			nf = 1
		}
		c := compiler{s: s, p: p, cfg: s.t.tok.Config(), anyField: anyField, texts: true}
		root, err := c.node(q, scope{fields: allFields(nf)})
		if err != nil {
			return nil, err
		}
		p.root = root
	}
	m.segFetch, m.segErr = make([]sync.Once, len(s.segs)), make([]error, len(s.segs))
	for _, lt := range p.leaves {
		lt.segs = make([]leafSeg, len(s.segs))
	}
	m.kwIndex = make([]int, len(p.leaves))
	for i := range m.kwIndex {
		m.kwIndex[i] = -1
	}
	for _, l := range p.keywords {
		if !l.neg && m.kwIndex[l.lt] < 0 {
			m.kwIndex[l.lt] = m.nkw
			m.nkw++
		}
	}
	m.weights = m.keywordWeights()
	for i, lt := range p.leaves {
		m.needAll = m.needAll || lt.wildcard
		if !lt.wildcard {
			m.need.add(lt.term, i)
		}
	}
	if m.needAll {
		m.need.filter.All()
	}
	return m, nil
}

// Keywords is the number of distinct positive keywords of the query: the
// range of tokenize.Mark.Keyword.
func (m *TextMatcher) Keywords() int { return m.nkw }

// The unit operators of a query, weakest first (plan.units).
const (
	unitZone = 1 + iota
	unitParagraph
	unitSentence
)

// Units is the strongest unit operator of the query: "sentence" (SENTENCE),
// "paragraph" (PARAGRAPH), "zone" (ZONE or ZONESPAN), or "" for none. A
// highlighter keeps passages within such units, as within a
// snippet_boundary (highlight.Request.Units).
func (m *TextMatcher) Units() string {
	switch m.p.units {
	case unitSentence:
		return "sentence"
	case unitParagraph:
		return "paragraph"
	case unitZone:
		return "zone"
	}
	return ""
}

// KeywordWeights gives each distinct positive keyword (by tokenize.Mark.Keyword)
// its length in characters as written in the query: how much a highlighter
// weighs a passage that shows it. The slice is the matcher's: read it only.
func (m *TextMatcher) KeywordWeights() []int { return m.weights }

// KeywordTexts gives each distinct positive keyword (by tokenize.Mark.Keyword)
// as written in the query (the first occurrence's writing).
func (m *TextMatcher) KeywordTexts() []string {
	t := make([]string, m.nkw)
	for _, l := range m.p.keywords {
		if k := m.kwIndex[l.lt]; k >= 0 && t[k] == "" {
			t[k] = l.kw.Text
			if t[k] == "" {
				t[k] = l.kw.Term
			}
		}
	}
	return t
}

// keywordWeights computes KeywordWeights, once per matcher.
func (m *TextMatcher) keywordWeights() []int {
	w := make([]int, m.nkw)
	for k, text := range m.KeywordTexts() {
		w[k] = utf8.RuneCountInString(text)
	}
	return w
}

// FieldText is what the matcher saw in one text: where its words and
// boundaries lie, and its marks, sorted by position.
type FieldText struct {
	tokenize.Layout
	Marks []tokenize.Mark
	// Found has bit k set when keyword k occurs in the text, whether or
	// not it proves the match (tokenize.KeywordBit: past the 64th, the bits
	// wrap).
	Found uint64
}

// TextMatch is the result of matching one document.
type TextMatch struct {
	Matched bool        // the document as given matches the query
	Fields  []FieldText // per text given
	Indexed bool        // MatchStored answered from the index, without tokenizing
}

// wordPool keeps the word slices of layouts between matches: a field's
// words take about four times the size of its text, and highlighting a page
// of long documents would otherwise hand the collector that much per row.
var wordPool sync.Pool

// Release hands the storage of m's layouts back for reuse by later
// matches: neither m nor anything taken from it (its Layouts) may be used
// afterwards.
func (m *TextMatch) Release() {
	for i := range m.Fields {
		if w := m.Fields[i].Words; cap(w) >= minPooledWords {
			w = w[:0]
			wordPool.Put(&w)
		}
		m.Fields[i] = FieldText{}
	}
}

// pooledLayout starts a layout for a text of n bytes, on pooled storage when
// there is some.
func pooledLayout(n int) tokenize.Layout {
	var l tokenize.Layout
	if n >= 5*minPooledWords {
		if w, ok := wordPool.Get().(*[]tokenize.Word); ok {
			l.Words = *w
		}
	}
	l.Reset(n)
	return l
}

// minPooledWords is the smallest word slice worth pooling: texts from
// about 640 bytes on (a paragraph: CALL SNIPPETS and SNIPPET() on short
// documents) take pooled storage; shorter ones, like titles, allocate
// theirs.
const minPooledWords = 128

// maxPresizedMarks bounds the marks a text's array is first made for
// (mark).
const maxPresizedMarks = 512

// oneField is the field numbers of one text matched as arbitrary text
// (anyField); nothing changes it.
var oneField = []int{0}

// Match matches one document: texts[i] is the text of column cols[i], an
// indexed text column (with anyField, any column: each text stands alone).
// Marks are the keyword occurrences inside the occurrences of the operators
// that make the document match (none under NOT, none on the right of
// NOTNEAR); a document the query does not match has no marks.
func (m *TextMatcher) Match(cols []int, texts []string) (*TextMatch, error) {
	if m.anyField && len(texts) == 1 {
		return m.match(oneField, texts) // (CALL SNIPPETS, SNIPPET(): one text each)
	}
	if m.anyField {
		res := &TextMatch{Fields: make([]FieldText, len(texts))}
		for i, text := range texts {
			one, err := m.match(oneField, []string{text})
			if err != nil {
				return nil, err
			}
			res.Fields[i] = one.Fields[0]
			res.Matched = res.Matched || one.Matched
		}
		return res, nil
	}
	fields, err := m.fieldsOf(cols)
	if err != nil {
		return nil, err
	}
	return m.match(fields, texts)
}

// fieldsOf maps indexed text columns to their field numbers.
func (m *TextMatcher) fieldsOf(cols []int) ([]int, error) {
	fields := make([]int, len(cols))
	for i, col := range cols {
		fields[i] = -1
		for f, c := range m.s.layout.indexed {
			if c == col {
				fields[i] = f
			}
		}
		if fields[i] < 0 {
			return nil, fmt.Errorf("index: column %d of %s is not an indexed text field", col, m.s.schema.Name)
		}
	}
	return fields, nil
}

// MatchStored matches a document of the snapshot the way Match matches
// its text, from what the index already knows: the positions of the
// query's terms come from the posting lists, and the words' places from
// the layouts kept with the stored text (StoredWithLayouts), so the text
// is not tokenized again and the work follows the matches more than the
// size of the fields. texts and layouts are those of columns cols of ref.
// When the index cannot answer (a layout is missing, as in records written
// before layouts were kept; a table with stopwords, which a highlighter
// counts as words and layouts do not keep; a table with blend_chars, whose parts have
// ranges of their own; arbitrary text), it falls back to Match, with the
// same result.
func (m *TextMatcher) MatchStored(ref DocRef, cols []int, texts, layouts []string) (*TextMatch, error) {
	fields, err := m.fieldsOf(cols)
	if err != nil {
		return nil, err
	}
	if res, ok := m.matchIndexed(ref, fields, texts, layouts); ok {
		return res, nil
	}
	return m.match(fields, texts)
}

// matchIndexed is MatchStored when the index can answer.
func (m *TextMatcher) matchIndexed(ref DocRef, fields []int, texts, layouts []string) (*TextMatch, bool) {
	if cfg := m.s.t.tok.Config(); m.anyField || m.p.root == nil || len(layouts) != len(texts) || cfg.BlendChars != "" || len(cfg.Stopwords) > 0 || !m.fetched(int(ref.Seg)) {
		return nil, false
	}
	res := &TextMatch{Fields: make([]FieldText, len(texts)), Indexed: true}
	for i, text := range texts {
		res.Fields[i].Layout = pooledLayout(len(text))
		if layouts[i] == "" || res.Fields[i].Layout.Decode(unsafe.Slice(unsafe.StringData(layouts[i]), len(layouts[i])), len(text)) != nil {
			res.Release()
			return nil, false
		}
	}
	e := m.docEval()
	e.seg, e.pos, e.direct, e.ord = m.s.segs[ref.Seg], int(ref.Seg), true, ref.Ord
	m.mark(res, e, len(m.s.layout.indexed), fields, func(dst [][2]int, _, i, _ int, pos uint32) [][2]int {
		words := res.Fields[i].Words
		k, found := slices.BinarySearchFunc(words, int32(pos), func(w tokenize.Word, p int32) int { return int(w.Pos - p) })
		if !found {
			return dst
		}
		return append(dst, [2]int{int(words[k].Start), int(words[k].End)})
	})
	m.doneEval(e)
	return res, true
}

// fetched reads the posting lists of the matcher's query in the segment at
// position pos once, for MatchStored, and reports whether they are there (a
// wildcard that expands too far, or a failed read, leaves MatchStored to
// Match).
func (m *TextMatcher) fetched(pos int) bool {
	if pos < 0 || pos >= len(m.segFetch) {
		return false
	}
	m.segFetch[pos].Do(func() { m.segErr[pos] = m.s.fetchSegment(m.p, pos) })
	return m.segErr[pos] == nil
}

func (m *TextMatcher) match(fields []int, texts []string) (*TextMatch, error) {
	nf := len(m.s.layout.indexed)
	if m.anyField {
		nf = 1
	}
	mem, _ := m.mems.Get().(*memDoc)
	if mem == nil {
		mem = new(memDoc)
	}
	defer m.doneMem(mem)
	tok := m.s.t.tok
	if m.anyField {
		tok = tok.Texts() // (texts on their own, as the reference's snippets read them)
	}
	mem.fill(m.p, &m.need, m.needAll, tok, nf, fields, texts)
	res := &TextMatch{Fields: make([]FieldText, len(texts))}
	for i := range texts {
		res.Fields[i].Layout = mem.layouts[i]
	}
	if m.p.root == nil {
		return res, nil
	}
	e := m.docEval()
	e.mem = mem
	m.mark(res, e, nf, fields, func(dst [][2]int, lt, _, f int, pos uint32) [][2]int { return mem.ranges(dst, m.p, lt, f, pos) })
	m.doneEval(e)
	return res, nil
}

// doneMem keeps d, which the caller is done with, for the next text; it
// lets go of the texts and their layouts (which the TextMatch has, and
// hands back with Release) first.
func (m *TextMatcher) doneMem(d *memDoc) {
	clear(d.layouts)
	clear(d.cache)
	d.terms, d.tok, d.text = nil, nil, nil
	m.mems.Put(d)
}

// docEval starts an evaluator of the matcher's plan for one document; the
// caller says where its positions come from (mem, or seg and ord), and
// hands it back with doneEval. An evaluator kept from an earlier document
// starts the next one (startDoc: nothing it cached holds for it).
func (m *TextMatcher) docEval() *segEval {
	if e, ok := m.evals.Get().(*segEval); ok && e.doc < math.MaxUint32 {
		e.startDoc(0)
		return e
	}
	nl := len(m.p.leaves)
	return &segEval{s: m.s, p: m.p, doc: 1,
		curs: make([][]termCursor, nl), raw: make([][]span, nl), gen: make([]uint32, nl),
		leafOcc: make([][]span, len(m.p.keywords)), leafGen: make([]uint32, len(m.p.keywords))}
}

// doneEval keeps e, which the caller is done with, for the next document;
// it lets go of the document's storage first.
func (m *TextMatcher) doneEval(e *segEval) {
	e.mem, e.seg, e.pos, e.direct, e.ord, e.restrict = nil, nil, 0, false, 0, nil
	m.evals.Put(e)
}

// mark evaluates the query with e and adds to res the marks of the
// keyword occurrences that make the document match (a document that does
// not match gets no marks, only Found). fields[i] is the field number of
// res.Fields[i]; ranges appends to dst the byte ranges of an occurrence of
// leafTerm lt at (field f, position pos) in res.Fields[i].
func (m *TextMatcher) mark(res *TextMatch, e *segEval, nf int, fields []int, ranges func(dst [][2]int, lt, i, f int, pos uint32) [][2]int) {
	var rs [][2]int
	byField := make([]int, nf) // field number -> index in res.Fields
	for i := range byField {
		byField[i] = -1
	}
	for i, f := range fields {
		byField[f] = i
	}
	// The occurrences of the keywords in each text: about as many marks
	// (fewer where an operator holds only some of them), so each text's
	// marks get one array, not one per doubling; at most maxPresizedMarks,
	// as a phrase of common words holds few of their occurrences.
	occs := make([]int, len(res.Fields))
	for _, l := range m.p.keywords {
		if l.neg {
			continue
		}
		k := m.kwIndex[l.lt]
		for _, sp := range e.leafSpans(l) {
			if i := byField[sp.f]; i >= 0 {
				occs[i]++
				if k >= 0 {
					res.Fields[i].Found |= tokenize.KeywordBit(k)
				}
			}
		}
	}
	spans, ok := e.eval(m.p.root, true)
	res.Matched = ok
	if !ok {
		// A text the query does not match has nothing that proves a
		// match: no marks (the reference shows the beginning of such a
		// text, unmarked).
		return
	}
	for i, n := range occs {
		if n > 0 {
			res.Fields[i].Marks = slices.Grow(res.Fields[i].Marks, min(n, maxPresizedMarks))
		}
	}
	var h spanHolder
	for _, l := range m.p.keywords {
		if l.neg {
			continue
		}
		h.reset(spans)
		for _, sp := range e.leafSpans(l) {
			i := byField[sp.f]
			if i < 0 {
				continue
			}
			if !h.holds(sp) {
				continue
			}
			rs = ranges(rs[:0], l.lt, i, sp.f, sp.a)
			for _, r := range rs {
				res.Fields[i].Marks = append(res.Fields[i].Marks, tokenize.Mark{Pos: int(sp.a), Start: r[0], End: r[1], Keyword: m.kwIndex[l.lt]})
			}
		}
	}
	for i := range res.Fields {
		ms := res.Fields[i].Marks
		slices.SortFunc(ms, func(x, y tokenize.Mark) int {
			if x.Start != y.Start {
				return x.Start - y.Start
			}
			return y.End - x.End
		})
		res.Fields[i].Marks = slices.CompactFunc(ms, func(x, y tokenize.Mark) bool { return x.Start == y.Start && x.End == y.End })
	}
}

// maxSpanLookback bounds how far back Match looks for the operator
// occurrence that holds a keyword (occurrences are short: phrases,
// windows of NEAR and proximity).
const maxSpanLookback = 1 << 16

// heldBy reports whether an occurrence of the operators (spans, sorted by
// field, then start) holds keyword occurrence sp: looking back from the
// last span that starts before sp (or the first that starts where sp
// does) through the spans of sp's field, for one that ends at or after
// sp, up to the first that starts more than maxSpanLookback positions
// before sp (that one is still looked at).
func heldBy(spans []span, sp span) bool {
	j, found := slices.BinarySearchFunc(spans, sp, func(x, y span) int {
		if x.f != y.f {
			return x.f - y.f
		}
		return int(x.a) - int(y.a)
	})
	if !found {
		j--
	}
	for k := j; k >= 0 && spans[k].f == sp.f; k-- {
		if spans[k].a <= sp.a && sp.b <= spans[k].b {
			return true
		}
		if sp.a-spans[k].a > maxSpanLookback {
			return false
		}
	}
	return false
}

// spanHolder answers heldBy for the occurrences of one keyword, taken in
// (field, position) order, in time linear in the spans and occurrences
// (heldBy looks back through every span within reach, for each
// occurrence: a frequent keyword in a long text that few operator
// occurrences hold made that quadratic). The spans heldBy would look at
// for an occurrence are a window, [lo-1, hi] within the field, whose both
// ends only move forward as the occurrences do; a queue keeps the window's
// spans that may end the furthest (in order, their ends decreasing), so
// its head is the window's furthest end. An occurrence out of order is
// answered by heldBy itself.
type spanHolder struct {
	spans   []span
	prev    span
	ins     int   // the first span at or after the last occurrence (field, start)
	pushed  int   // spans[:pushed] have been through the queue
	lo      int   // the first span of the occurrence's field within maxSpanLookback
	queue   []int // span indices, ends decreasing
	head    int
	ordered bool
}

// reset starts the occurrences of a keyword against spans.
func (h *spanHolder) reset(spans []span) {
	*h = spanHolder{spans: spans, queue: h.queue[:0], ordered: true}
}

// holds reports heldBy(h.spans, sp).
func (h *spanHolder) holds(sp span) bool {
	spans := h.spans
	if !h.ordered || sp.f < h.prev.f || sp.f == h.prev.f && sp.a < h.prev.a {
		h.ordered = false
		return heldBy(spans, sp)
	}
	h.prev = sp
	before := func(x span) bool { return x.f < sp.f || x.f == sp.f && x.a < sp.a }
	for h.ins < len(spans) && before(spans[h.ins]) {
		h.ins++
	}
	hi := h.ins - 1
	if h.ins < len(spans) && spans[h.ins].f == sp.f && spans[h.ins].a == sp.a {
		hi = h.ins
	}
	for ; h.pushed <= hi; h.pushed++ {
		for len(h.queue) > h.head && spans[h.queue[len(h.queue)-1]].b <= spans[h.pushed].b {
			h.queue = h.queue[:len(h.queue)-1]
		}
		h.queue = append(h.queue, h.pushed)
	}
	for h.lo < len(spans) && (spans[h.lo].f < sp.f || spans[h.lo].f == sp.f && int64(sp.a)-int64(spans[h.lo].a) > maxSpanLookback) {
		h.lo++
	}
	lo := h.lo
	if lo > 0 && spans[lo-1].f == sp.f {
		lo-- // (the first span out of reach is looked at too)
	}
	for h.head < len(h.queue) && h.queue[h.head] < lo {
		h.head++
	}
	if h.head == len(h.queue) {
		h.queue, h.head = h.queue[:0], 0
		return false
	}
	return hi >= lo && sp.b <= spans[h.queue[h.head]].b
}

// memOcc is one occurrence of a term in a document given as text.
type memOcc struct {
	f          int
	pos        uint32
	start, end int
}

// memDoc is a document given as text, tokenized: the in-memory counterpart
// of a segment's posting lists for one document.
type memDoc struct {
	lens    []uint32
	layouts []tokenize.Layout
	// occ holds the occurrences of each leafTerm (by index in the plan),
	// sorted (occs); terms those of every term when the query has a
	// wildcard, whose expansions are found in it.
	occ    [][]memOcc
	sorted []bool
	terms  map[string][]memOcc
	cache  [][]span // positions of each leafTerm; nil until asked for

	// With a wildcard, a word also matches by its folded form before
	// stemming (the reference matches wildcards against the words as
	// written): the tokenizer and each field's text to fold them from.
	tok  *tokenize.Tokenizer
	text map[int]string

	// Storage kept for the next text: the occurrences of the leaves (occ
	// is made of it), the leaves' counts, and the positions (cache).
	occBuf  []memOcc
	ends    []int
	spanBuf []span
}

// sized is s with n zero elements, on s's storage when it has room.
func sized[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// fill makes d the tokenized texts (texts[i] is field fields[i]), for the
// terms of need (all: every term), which it only reads. What d held
// before is gone; its storage is reused.
func (d *memDoc) fill(p *plan, need *termSet, all bool, tok *tokenize.Tokenizer, nf int, fields []int, texts []string) {
	nl := len(p.leaves)
	d.lens, d.layouts = sized(d.lens, nf), sized(d.layouts, len(texts))
	d.occ, d.sorted, d.cache = sized(d.occ, nl), sized(d.sorted, nl), sized(d.cache, nl)
	d.terms, d.tok, d.text = nil, nil, nil
	d.spanBuf = d.spanBuf[:0]
	// Only the terms the query asks for are kept, unless a wildcard needs
	// the whole vocabulary.
	if all {
		d.terms = map[string][]memOcc{}
		if cfg := tok.Config(); len(cfg.Morphology) > 0 || len(cfg.Wordforms) > 0 {
			d.tok, d.text = tok, make(map[int]string, len(texts))
			for i, text := range texts {
				d.text[fields[i]] = text
			}
		}
	}
	var it tokenize.Iter
	it.KeepStopwords(true)
	found := leafOccPool.Get().(*[]leafOcc)
	defer leafOccPool.Put(found)
	*found = (*found)[:0]
	for i, text := range texts {
		f := fields[i]
		d.layouts[i] = pooledLayout(len(text))
		it.Reset(tok, text)
		for it.NextCandidate(&d.layouts[i], &need.filter) {
			term := it.Term()
			o := memOcc{f: f, pos: uint32(it.Pos()), start: it.Start(), end: it.End()}
			if all {
				d.terms[string(term)] = append(d.terms[string(term)], o)
			} else if lt := need.index(term); lt >= 0 {
				*found = append(*found, leafOcc{lt, o})
			}
		}
		d.lens[f] = uint32(it.Pos())
	}
	d.groupOccs(*found)
}

// leafOcc is an occurrence of the query's leaf term lt.
type leafOcc struct {
	lt int
	o  memOcc
}

var leafOccPool = sync.Pool{New: func() any { return new([]leafOcc) }}

// groupOccs sets each leaf's occurrences from found (in text order), all
// on one backing array: one allocation, not a growing list per leaf.
func (d *memDoc) groupOccs(found []leafOcc) {
	if len(found) == 0 {
		return
	}
	ends := sized(d.ends, len(d.occ)) // each leaf's start, then its end
	d.ends = ends
	for _, h := range found {
		ends[h.lt]++
	}
	at := 0
	for lt, n := range ends {
		ends[lt] = at
		at += n
	}
	all := sized(d.occBuf, len(found))
	d.occBuf = all
	for _, h := range found {
		all[ends[h.lt]] = h.o
		ends[h.lt]++
	}
	start := 0
	for lt, end := range ends {
		if end > start {
			d.occ[lt] = all[start:end:end]
		}
		start = end
	}
}

// termSet is the set of terms a query asks for, tested against every token
// of a text: most tokens are turned away by the filter, on their length and
// first byte, before any comparison.
type termSet struct {
	filter tokenize.Filter
	terms  []string
	at     []int          // terms[i]'s value
	many   map[string]int // the terms, when there are too many to compare one by one
}

// add adds term with the value i.
func (s *termSet) add(term string, i int) {
	if term == "" {
		return
	}
	s.filter.Add(term)
	if s.many != nil {
		s.many[term] = i
		return
	}
	s.terms = append(s.terms, term)
	s.at = append(s.at, i)
	if len(s.terms) > 8 {
		s.many = map[string]int{}
		for k, t := range s.terms {
			s.many[t] = s.at[k]
		}
		s.terms, s.at = nil, nil
	}
}

// index returns the value of term, or -1 when it is not in the set.
func (s *termSet) index(term []byte) int {
	if len(term) == 0 || !s.filter.Maybe(term) {
		return -1
	}
	if s.many != nil {
		if i, ok := s.many[string(term)]; ok {
			return i
		}
		return -1
	}
	for k, t := range s.terms {
		if t == string(term) {
			return s.at[k]
		}
	}
	return -1
}

// positions are the positions of leafTerm lt, in (field, position) order.
func (d *memDoc) positions(p *plan, lt int) []span {
	if d.cache[lt] != nil {
		return d.cache[lt]
	}
	occs := d.occs(p, lt)
	// On the storage the positions of every leaf share (each its own
	// piece: a piece made before the storage grew stays where it is).
	from := len(d.spanBuf)
	for _, o := range occs {
		d.spanBuf = append(d.spanBuf, span{f: o.f, a: o.pos, b: o.pos})
	}
	out := slices.Compact(d.spanBuf[from:])
	d.spanBuf = d.spanBuf[:from+len(out)]
	out = d.spanBuf[from : from+len(out) : from+len(out)]
	d.cache[lt] = out
	return out
}

// occs are the occurrences of leafTerm lt in (field, position, start) order.
func (d *memDoc) occs(p *plan, lt int) []memOcc {
	if d.sorted[lt] {
		return d.occ[lt]
	}
	d.sorted[lt] = true
	out := d.occ[lt]
	if l := p.leaves[lt]; l.wildcard {
		reserved := tokenize.IsReserved(l.term)
		for term, occs := range d.terms {
			if tokenize.IsReserved(term) != reserved {
				continue
			}
			if l.pattern.match(term) {
				out = append(out, occs...)
				continue
			}
			if d.tok == nil || reserved {
				continue
			}
			for _, o := range occs {
				if text, ok := d.text[o.f]; ok && o.end <= len(text) && l.pattern.match(d.tok.Fold(text[o.start:o.end])) {
					out = append(out, o)
				}
			}
		}
	} else if d.terms != nil {
		out = d.terms[l.term]
	}
	less := func(x, y memOcc) int {
		switch {
		case x.f != y.f:
			return x.f - y.f
		case x.pos != y.pos:
			return int(x.pos) - int(y.pos)
		}
		return x.start - y.start
	}
	if !slices.IsSortedFunc(out, less) { // texts out of field order, or a wildcard's terms
		out = slices.Clone(out)
		slices.SortFunc(out, less)
	}
	d.occ[lt] = out
	return out
}

// ranges appends to dst the byte ranges of the occurrences of leafTerm lt
// at (f, pos).
func (d *memDoc) ranges(dst [][2]int, p *plan, lt, f int, pos uint32) [][2]int {
	occs := d.occs(p, lt)
	i, _ := slices.BinarySearchFunc(occs, memOcc{f: f, pos: pos}, func(x, y memOcc) int {
		if x.f != y.f {
			return x.f - y.f
		}
		return int(x.pos) - int(y.pos)
	})
	for ; i < len(occs) && occs[i].f == f && occs[i].pos == pos; i++ {
		dst = append(dst, [2]int{occs[i].start, occs[i].end})
	}
	return dst
}
