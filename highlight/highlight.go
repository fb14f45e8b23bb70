package highlight

import (
	"slices"
	"sync"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

// Field is one field (or arbitrary text) to highlight.
type Field struct {
	Name            string
	Text            string
	tokenize.Layout // where Text's words and boundaries lie (the table's tokenizer)
	// Marks, in any order, are the query's matches in Text. What is marked
	// follows from their positions: the words at marked positions, folded
	// into spans where the positions are neighbours; a mark whose bytes
	// hold several words (a blended word matched as a whole) marks all of
	// them.
	Marks        []tokenize.Mark
	Found        uint64 // bit k: keyword k occurs in the text (marked or not)
	HTML         bool   // the table strips HTML from this text
	StripOptions *htmlstrip.Options
	Boundaries   func(rune) bool // the table's phrase_boundary characters (nil: none)

	// Limits, when set, are this field's own limit, limit_words and
	// limit_snippets (JSON's per-field options); they apply when the
	// request's Stored and limits_per_field hold.
	Limits *Options
}

// Request is one document to highlight.
type Request struct {
	Fields []Field
	// Weights are the query's keywords (tokenize.Mark.Keyword numbers them), each
	// weighing its length in codepoints as written in the query.
	Weights []int
	Options *Options
	// Stored is set when the fields are a document's stored fields
	// (HIGHLIGHT(), JSON): only then do limits apply per field
	// (limits_per_field); SNIPPET() and CALL SNIPPETS highlight one text.
	Stored bool
	// Pack gives every field its own result (JSON): a field without a
	// match then shows its beginning, even when another field matches.
	Pack bool
	// Units is the strongest unit operator of the query: "sentence"
	// (SENTENCE), "paragraph" (PARAGRAPH), "zone" (ZONE, ZONESPAN), or ""
	// (index.TextMatcher.Units). As in the reference, such a query strips
	// markup as snippet_boundary does, and passages cut from a text that
	// is not shown whole keep within those units (with snippet_boundary
	// too, the stronger of the two); whether a text is shown whole
	// depends on snippet_boundary alone.
	Units string

	// Offsets asks for what HIGHLIGHT_OFFSETS() and the offsets options
	// tell: the keywords of each marked span, and offsets in the field's
	// own text (FieldResult.StoredOffset). Without it, nothing of it is
	// computed.
	Offsets bool

	noSkip bool // tests: take every unit one by one (no skipping ahead, no sliding shortcut), weigh by walking the marked words
}

// Range is a byte range of a field's shown text.
type Range struct{ Start, End int }

// MarkedRange is a marked span of a snippet and the number %SNIPPET_ID%
// stands for in its markers.
type MarkedRange struct {
	Range
	ID int
	// Keywords has bit k set when the span shows keyword k (Request.Offsets
	// only; keywords past the 64th are not told).
	Keywords uint64
	span     int32
}

// Snippet is one snippet of a field, as data: a range of the field's shown
// text and the marked spans inside it.
type Snippet struct {
	Range
	Marks []MarkedRange
	// SepBefore and SepAfter are set when the snippet does not start
	// (end) where the field does: the SQL form shows the snippet separator
	// there.
	SepBefore, SepAfter bool
	// Cut is set on the beginning of a field without a match that the
	// limit cut short: the separator is part of the snippet then.
	Cut    bool
	Weight int
	// Open and Close are markup written before and after the snippet's
	// text with balance_markup: the elements open where it starts, opened
	// again, and those open where it ends, closed (markup.go).
	Open, Close string
	// Rank is the order in which the chooser took the passage (1: first),
	// and Score its weight then, which decided it; both 0 for a whole
	// field or a field's beginning, which no choice made.
	Rank, Score int
	// Zone is the zone the snippet starts in, shown before it with
	// emit_zones ("" for none).
	Zone string
}

// FieldResult is the snippets of one field.
type FieldResult struct {
	Name     string
	Text     string // the shown text the ranges point into
	Snippets []Snippet
	// Considered is how many passages the chooser weighed for the field
	// (for all fields, where they share the limits).
	Considered int
	// stored maps offsets of Text to the field's own text where they
	// differ (HTML stripped; Request.Offsets only); nil: the same.
	stored func(x int, end bool) int
}

// Result is a highlighted document.
type Result struct {
	Fields []FieldResult
	opts   *Options
	one    [1]FieldResult // Fields of a one-field result: no allocation of its own

	// Storage the fields' snippets and marks are cut from, kept with the
	// result when it is released (Release) for a later call to reuse.
	snips []Snippet
	marks []MarkedRange
}

// The most snippets and marks a released result keeps storage for: a
// result that needed more gives its storage to the garbage collector.
const (
	keepSnippets = 64
	keepMarks    = 512
)

var resultPool = sync.Pool{New: func() any { return new(Result) }}

// Release hands the result's storage back for later calls to Highlight:
// after it neither the result nor anything it holds (snippets, marks) may
// be used. Releasing is optional: a result that is not released is
// collected as any value is.
func (res *Result) Release() {
	clear(res.snips)
	clear(res.Fields)
	res.Fields, res.opts = nil, nil
	res.snips, res.marks = res.snips[:0], res.marks[:0]
	if cap(res.snips) > keepSnippets {
		res.snips = nil
	}
	if cap(res.marks) > keepMarks {
		res.marks = nil
	}
	resultPool.Put(res)
}

// snippetsFor is storage for a field's n snippets (length 0, capacity n),
// cut from the result's.
func (res *Result) snippetsFor(n int) []Snippet {
	if cap(res.snips)-len(res.snips) < n {
		// A new block; the snippets cut from the old one keep it.
		res.snips = make([]Snippet, 0, max(n, 2*cap(res.snips), 4))
	}
	at := len(res.snips)
	res.snips = res.snips[:at+n]
	return res.snips[at : at : at+n]
}

// marksFor is storage for n marks (length n), cut from the result's.
func (res *Result) marksFor(n int) []MarkedRange {
	if cap(res.marks)-len(res.marks) < n {
		res.marks = make([]MarkedRange, 0, max(n, 2*cap(res.marks), 16))
	}
	at := len(res.marks)
	res.marks = res.marks[:at+n]
	return res.marks[at : at+n : at+n]
}

// Highlight highlights one document.
func Highlight(req *Request) *Result {
	o := req.Options
	res := resultPool.Get().(*Result)
	res.opts = o
	if len(req.Fields) <= len(res.one) {
		res.Fields = res.one[:len(req.Fields)]
	} else {
		res.Fields = make([]FieldResult, len(req.Fields))
	}
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	fields := sc.fieldsFor(len(req.Fields))
	var found uint64
	total, anyHit := 0, false
	for i := range req.Fields {
		newField(fields[i], &req.Fields[i], o, req.Units)
		fields[i].walkAll = req.noSkip
		found |= fields[i].found
		total += len(fields[i].text)
		anyHit = anyHit || fields[i].marked
		res.Fields[i] = FieldResult{Name: fields[i].name, Text: fields[i].text}
	}
	global := limitsOf(o)
	perField := req.Stored && o.LimitsPerField
	lims := slices.Grow(sc.lims[:0], len(fields))[:len(fields)]
	sc.lims = lims
	for i := range fields {
		lims[i] = global
		if perField && req.Fields[i].Limits != nil {
			lims[i] = limitsOf(req.Fields[i].Limits)
		}
		lims[i] = fixLimits(lims[i], o, req.Weights, found)
	}
	if !anyHit && !req.Pack {
		// Nothing matches anywhere: the beginning of the text, the fields
		// sharing one budget.
		if !o.AllowEmpty {
			used := 0
			for i, f := range fields {
				res.Fields[i].Snippets = f.beginning(lims[i], o, &used)
			}
		}
		finish(req, fields, res)
		return res
	}
	wholeAll := canShowWhole(total, global, o)
	shared := &sc.shared
	shared.reset()
	for i, f := range fields {
		whole := wholeAll
		if perField {
			whole = canShowWhole(len(f.text), lims[i], o)
		}
		switch {
		case !f.marked:
			if req.Pack && !o.AllowEmpty {
				used := 0
				res.Fields[i].Snippets = f.beginning(lims[i], o, &used)
			}
		case whole:
			res.Fields[i].Snippets = []Snippet{f.whole(o, &sc.marks)}
		case perField:
			ctx := &sc.field
			ctx.reset()
			extract(f, i, lims[i], o, req.Weights, ctx, &sc.win, !req.noSkip)
			res.Fields[i].Considered = len(ctx.passages)
			if ps := choose(ctx, lims[i], o, req.Weights, found, fields); len(ps) > 0 {
				res.Fields[i].Snippets = f.render(ps, o, &sc.marks, res)
			}
		default:
			extract(f, i, lims[i], o, req.Weights, shared, &sc.win, !req.noSkip)
		}
	}
	if !perField {
		for i := range res.Fields {
			res.Fields[i].Considered = len(shared.passages)
		}
		// In text order within each field. The shared budget is raised
		// as each field's is (fixLimits), to show the longest keyword.
		ps := choose(shared, fixLimits(global, o, req.Weights, found), o, req.Weights, found, fields)
		slices.SortStableFunc(ps, func(a, b passage) int { return a.field - b.field })
		for len(ps) > 0 {
			n := 1
			for n < len(ps) && ps[n].field == ps[0].field {
				n++
			}
			res.Fields[ps[0].field].Snippets = fields[ps[0].field].render(ps[:n], o, &sc.marks, res)
			ps = ps[n:]
		}
	}
	if req.Pack && !o.AllowEmpty {
		// A field with a match none of whose passages was chosen (the
		// budget it shares went to other fields, or nothing fits its
		// limits) shows its beginning, as a field without a match does.
		for i, f := range fields {
			if f.marked && len(res.Fields[i].Snippets) == 0 {
				used := 0
				res.Fields[i].Snippets = f.beginning(lims[i], o, &used)
			}
		}
	} else if !req.Pack && !o.AllowEmpty && !slices.ContainsFunc(res.Fields, func(fr FieldResult) bool { return len(fr.Snippets) > 0 }) {
		// Matches, but no passage of any fits the limits (a marked word
		// longer than the limit: "softwares" for the keyword "software"
		// under limit=8): the beginning, as when nothing matched, not
		// an empty answer.
		used := 0
		for i, f := range fields {
			res.Fields[i].Snippets = f.beginning(lims[i], o, &used)
		}
	}
	finish(req, fields, res)
	return res
}

// finish does what options ask of the snippets once they are cut: markup
// made well-formed (balance_markup), then the data Request.Offsets asks for.
func finish(req *Request, fields []*ufield, res *Result) {
	if o := req.Options; o.BalanceMarkup && o.HTMLStripMode == "retain" {
		for i := range res.Fields {
			balanceMarkup(&res.Fields[i])
		}
	}
	annotate(req, fields, res)
}

// scratch is the storage one Highlight works in, kept for the next.
type scratch struct {
	win           window
	shared, field context
	ufields       []ufield
	fields        []*ufield
	lims          []limits      // per field
	marks         []MarkedRange // the marks of a field's snippets, before they get storage of their own
}

// release puts sc back in the pool, first letting go of the document's
// text and words so that an idle pool holds no documents.
func (sc *scratch) release() {
	for i := range sc.ufields {
		u := &sc.ufields[i]
		*u = ufield{hits: u.hits[:0], hitWords: u.hitWords[:0], gap: u.gap[:0]}
	}
	scratchPool.Put(sc)
}

// fieldsFor gives n prepared-field slots, their storage kept from before.
func (sc *scratch) fieldsFor(n int) []*ufield {
	if len(sc.ufields) < n {
		sc.ufields = append(sc.ufields, make([]ufield, n-len(sc.ufields))...)
		sc.fields = sc.fields[:0]
		for i := range sc.ufields {
			sc.fields = append(sc.fields, &sc.ufields[i])
		}
	}
	return sc.fields[:n]
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// limitsOf is the size limits of o.
func limitsOf(o *Options) limits {
	return limits{chars: o.Limit, words: o.LimitWords, snippets: o.LimitSnippets}
}

// fixLimits raises limits that could not show a single keyword: limit to
// the longest keyword found (with force_all_words, to all of them and a
// space between each), limit_words to the number of keywords found with
// force_all_words.
func fixLimits(l limits, o *Options, weights []int, found uint64) limits {
	used := func(t int) bool { return found == 0 || found&tokenize.KeywordBit(t) != 0 }
	if l.words > 0 && o.ForceAllWords {
		n := 0
		for t := range weights {
			if used(t) {
				n++
			}
		}
		l.words = max(l.words, n)
	}
	if l.chars > 0 {
		total, longest, n := 0, 0, 0
		for t, w := range weights {
			if used(t) {
				total += w
				longest = max(longest, w)
				n++
			}
		}
		need := longest
		if o.ForceAllWords {
			need = total + n - 1
		}
		l.chars = max(l.chars, need)
	}
	return l
}

// canShowWhole reports whether a text of n bytes is shown whole, marked,
// rather than cut into snippets.
func canShowWhole(n int, l limits, o *Options) bool {
	whole := (l.chars == 0 || l.chars >= n) && (l.words == 0 || l.words > n/2) && o.SnippetBoundary == ""
	if whole && o.ForceSnippets && (l.chars != 0 || l.words != 0 || l.snippets != 0) {
		whole = false
	}
	return whole
}
