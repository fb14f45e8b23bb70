package sql

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// highlightExpr is HIGHLIGHT([options], [field_list], [query]) in the select
// list (the reference's highlighting page). It runs after LIMIT, on the rows that are returned: their
// stored text comes in the page's one batch read (scope.usesText).
type highlightExpr struct {
	fn      string // HIGHLIGHT, HIGHLIGHT_OFFSETS or SNIPPET, for errors
	offsets bool   // HIGHLIGHT_OFFSETS(): the snippets as data (offsets.go)
	opts    highlight.Options
	fields  []hlField // what to highlight, in output order
	text    expr      // the second argument as arbitrary text (a name or TO_STRING()), or nil
	query   *string   // the third argument; nil: the MATCH() query (set by the planner)
	table   hlTable
	stats   *Stats
	// maxResult bounds a value (max_allowed_packet): markers around many
	// marks can make one far bigger than its text (tooBig).
	maxResult int

	hlMatchers // compiled on the first row, for the snapshot of the statement
}

// hlMatchers are a highlighting query compiled for a statement's snapshot.
type hlMatchers struct {
	snap    *index.Snapshot
	matcher *index.TextMatcher // the table's fields, field limits honoured
	anyText *index.TextMatcher // arbitrary text: field limits ignored
}

// compile builds the matchers of q for snap and completes table with what
// the snapshot's tokenizer knows. Its errors are the index's (an
// *index.QueryError for a query the table cannot run), for the caller to
// place.
func (m *hlMatchers) compile(snap *index.Snapshot, q query.Node, table *hlTable, textOnly bool) error {
	var err error
	if m.matcher, err = snap.TextMatcher(q, false); err != nil {
		var qe *index.QueryError
		if !textOnly || !errors.As(err, &qe) {
			return err
		}
		// Arbitrary text only (SNIPPET('text', ...)): a field limit that
		// names no field of the table is ignored, as for every text of
		// CALL SNIPPETS; the table's fields are not read.
		m.matcher = nil
	}
	if m.anyText, err = snap.TextMatcher(q, true); err != nil {
		return err
	}
	*table = table.withTokenizer(snap.Tokenizer())
	m.snap = snap
	return nil
}

// attrText is the text of a field highlighted as arbitrary text: a string
// attribute, or a stored field that is not indexed.
func attrText(r *row, col int) string {
	if s, ok := r.snap.Attr(r.ref, col).(string); ok {
		return s
	}
	return r.text[col]
}

// hlTable is what a table's settings mean for highlighting its text.
type hlTable struct {
	html   bool // the table strips HTML
	strip  *htmlstrip.Options
	bounds func(rune) bool // phrase_boundary characters; nil: none
}

func tableForHighlight(cfg tokenize.Config) hlTable {
	return hlTable{html: cfg.HTMLStrip,
		strip: &htmlstrip.Options{RemoveElements: cfg.HTMLRemoveElements, IndexAttrs: cfg.HTMLIndexAttrs, Zones: cfg.IndexZones}}
}

// withTokenizer completes the settings with what the table's tokenizer
// knows (the phrase_boundary characters).
func (t hlTable) withTokenizer(tok *tokenize.Tokenizer) hlTable {
	t.bounds = nil
	if tok.Config().PhraseBoundary != "" {
		t.bounds = tok.IsPhraseBoundary
	}
	return t
}

// newHighlightExpr starts a HIGHLIGHT() or SNIPPET() with default options.
func (sc *scope) newHighlightExpr(fn string) *highlightExpr {
	return &highlightExpr{fn: fn, opts: highlight.DefaultOptions(), table: tableForHighlight(sc.schema.Tokenization), stats: &sc.sess.engine.stats,
		maxResult: sc.sess.MaxAllowedPacket()}
}

// hlField is one field of the field list: a stored text column, or a string
// attribute (highlighted as arbitrary text).
type hlField struct {
	col  int
	name string
	attr bool // string attribute, or a text field that is stored but not indexed
}

// highlightCall compiles HIGHLIGHT() or, with offsets, HIGHLIGHT_OFFSETS()
// (the same arguments; the snippets as data, docs/beyond.md); the planner
// gives it the MATCH() query.
func (sc *scope) highlightCall(x *ast.FuncCallExpr, offsets bool) (expr, error) {
	fn := "HIGHLIGHT"
	if offsets {
		fn = "HIGHLIGHT_OFFSETS"
	}
	if sc.schema == nil {
		return nil, Errorf(CodeSyntax, "%s() needs a table in FROM", fn)
	}
	if !sc.allowText {
		return nil, Errorf(CodeSyntax, "%s() is allowed only in the select list", fn)
	}
	cfg := sc.schema.Tokenization
	h := sc.newHighlightExpr(fn)
	h.offsets = offsets
	args := x.Args
	if len(args) > 3 {
		return nil, Errorf(CodeSyntax, "%s() takes at most 3 arguments (options, fields, query), got %d", fn, len(args))
	}
	if len(args) > 0 {
		if m, ok := args[0].(*ast.FuncCallExpr); ok && m.FnName.L == dialect.FuncOptionMap {
			if err := h.setOptions(m, cfg); err != nil {
				return nil, err
			}
			args = args[1:]
		} else if len(args) == 3 {
			return nil, Errorf(CodeSyntax, "%s(): the first of 3 arguments must be an option map like {limit=100}", fn)
		}
	}
	if len(args) > 0 {
		if err := h.setFields(sc, args[0]); err != nil {
			return nil, err
		}
		args = args[1:]
	} else {
		h.allFields(sc)
	}
	if len(args) > 0 {
		q, ok, err := queryArg(args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, Errorf(CodeSyntax, "%s(): the query (third argument) must be a quoted string or QUERY()", fn)
		}
		h.query = q
	}
	sc.highlights = append(sc.highlights, h)
	sc.docReads++ // (a group shows its best document's highlights)
	return h, nil
}

// queryArg reads the query argument of HIGHLIGHT() or SNIPPET(): a quoted
// string, or QUERY() (nil: the planner gives the MATCH() query).
func queryArg(n ast.ExprNode) (q *string, ok bool, err error) {
	if f, isCall := n.(*ast.FuncCallExpr); isCall && f.FnName.L == dialect.FuncQuery {
		if len(f.Args) != 0 {
			return nil, false, Errorf(CodeSyntax, "QUERY() takes no arguments")
		}
		return nil, true, nil
	}
	s, ok := stringValue(n)
	if !ok {
		return nil, false, nil
	}
	return &s, true, nil
}

func stringValue(n ast.ExprNode) (string, bool) {
	v, ok := n.(ast.ValueExpr)
	if !ok {
		return "", false
	}
	return dialect.StringValue(v)
}

// setOptions applies the {name=value, ...} map: every option is checked
// against the one option table, an unknown one or one given twice (under
// any of its names) is an error naming it.
func (h *highlightExpr) setOptions(m *ast.FuncCallExpr, cfg tokenize.Config) error {
	if len(m.Args)%2 != 0 {
		return Errorf(CodeBadOption, "%s(): malformed option map", h.fn)
	}
	list := highlight.List{Opts: &h.opts, Scope: highlight.ScopeSQL}
	for i := 0; i < len(m.Args); i += 2 {
		name, _ := stringValue(m.Args[i])
		if err := bigOptionNumber(name, m.Args[i+1]); err != nil {
			return Errorf(CodeBadOption, "%s(): %v", h.fn, err)
		}
		v, ok := optionValue(m.Args[i+1])
		if !ok {
			want := "a number, a quoted string or a word"
			if spec, known := highlight.Lookup(name); known {
				switch spec.Kind {
				case highlight.KindString, highlight.KindKeyword:
					want = "a quoted string or a word"
				case highlight.KindNumber, highlight.KindFlag:
					want = "a number"
				}
			}
			if got, err := restore(m.Args[i+1]); err == nil {
				return Errorf(CodeBadOption, "%s(): option '%s' takes %s, not %s", h.fn, name, want, got)
			}
			return Errorf(CodeBadOption, "%s(): option '%s' takes %s", h.fn, name, want)
		}
		if err := list.Set(name, v); err != nil {
			return Errorf(CodeBadOption, "%s(): %v", h.fn, err)
		}
	}
	return h.checkOptions(cfg, &list)
}

// checkOptions checks the options together and against the table (the
// errors name the options as list was given them).
func (h *highlightExpr) checkOptions(cfg tokenize.Config, list *highlight.List) error {
	if err := h.opts.CheckTable(cfg.IndexSP, len(cfg.IndexZones) > 0); err != nil {
		return Errorf(CodeBadOption, "%s(): %v", h.fn, list.Named(err))
	}
	if err := h.opts.Check(); err != nil {
		return Errorf(CodeBadOption, "%s(): %v", h.fn, list.Named(err))
	}
	return nil
}

// optionValue reads an option value: a string, an integer, a decimal, or
// an unquoted word (highlight.Word).
func optionValue(n ast.ExprNode) (any, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == dialect.FuncWord && len(f.Args) == 1 {
		w, ok := stringValue(f.Args[0])
		return highlight.Word(w), ok
	}
	neg, signed := false, false
	if u, ok := n.(*ast.UnaryOperationExpr); ok && (u.Op.String() == "minus" || u.Op.String() == "plus") {
		neg, signed, n = u.Op.String() == "minus", true, u.V
	}
	v, ok := n.(ast.ValueExpr)
	if !ok {
		return nil, false
	}
	lit, err := catalog.Literal(v.GetValue())
	if err != nil {
		return nil, false
	}
	switch x := lit.(type) {
	case string:
		return x, !signed
	case int64:
		if neg {
			x = -x
		}
		return x, true
	case uint64:
		if x > 1<<62 {
			return nil, false
		}
		if neg {
			return -int64(x), true
		}
		return int64(x), true
	case float64:
		if neg {
			x = -x
		}
		return x, true
	}
	return nil, false
}

// setFields reads the second argument.
func (h *highlightExpr) setFields(sc *scope, arg ast.ExprNode) error {
	switch a := arg.(type) {
	case ast.ValueExpr:
		list, ok := a.GetValue().(string)
		if !ok {
			break
		}
		if strings.TrimSpace(list) == "" {
			h.allFields(sc)
			return nil
		}
		h.listFields(sc, list)
		return nil
	case *ast.ColumnNameExpr, *ast.FuncCallExpr:
		if f, ok := a.(*ast.FuncCallExpr); ok && f.FnName.L != "to_string" {
			break
		}
		e, err := sc.compile(arg)
		if err != nil {
			return err
		}
		h.text = e
		return nil
	}
	return Errorf(CodeSyntax, "%s(): the second argument must be a quoted field list ('title,content'), a field or string attribute name, or TO_STRING(...)", h.fn)
}

// listFields selects the full-text fields a quoted field list names, as
// the reference does: names are split at commas and blanks, in any case;
// a name that is no full-text field of the table (an attribute, a
// misspelling, '-body') is passed over, and so is a field whose text is not
// stored: it has no text to show. A list of which nothing is left
// highlights nothing: the result is an empty string.
func (h *highlightExpr) listFields(sc *scope, list string) {
	seen := map[int]bool{}
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		i := columnIndex(sc.schema, name)
		if i < 0 || seen[i] {
			continue
		}
		c := sc.schema.Columns[i]
		if c.Type != index.TypeText || !c.Stored {
			continue
		}
		seen[i] = true
		sc.highlightText(i, c.Indexed)
		h.fields = append(h.fields, hlField{col: i, name: c.Name, attr: !c.Indexed})
	}
}

// allFields selects every stored full-text field.
func (h *highlightExpr) allFields(sc *scope) {
	for i, c := range sc.schema.Columns {
		if c.Type == index.TypeText && c.Stored && c.Indexed {
			sc.highlightText(i, true)
			h.fields = append(h.fields, hlField{col: i, name: c.Name})
		}
	}
}

// prepare compiles the matchers for the statement's snapshot.
func (h *highlightExpr) prepare(snap *index.Snapshot) error {
	if h.snap == snap {
		return nil
	}
	q, err := snap.ParseQuery(*h.query)
	if err != nil {
		return Errorf(CodeQuerySyntax, "%s(): %v", h.fn, err)
	}
	err = h.compile(snap, q, &h.table, h.text != nil)
	var qe *index.QueryError
	if errors.As(err, &qe) {
		// The function's own query (MATCH()'s was run by the search
		// first): name the function, not MATCH().
		return Errorf(CodeQuerySyntax, "%s(): %v", h.fn, qe)
	}
	return asError(err)
}

// rowMatches are the text matches of one row, released once its snippets
// are rendered.
type rowMatches []*index.TextMatch

func (ms *rowMatches) match(m *index.TextMatcher, cols []int, texts []string) (*index.TextMatch, error) {
	tm, err := m.Match(cols, texts)
	if err != nil {
		return nil, asError(err)
	}
	*ms = append(*ms, tm)
	return tm, nil
}

// matchStored matches the stored text of columns cols of row r: from the
// index when the page read their layouts, else by tokenizing the text.
func (ms *rowMatches) matchStored(m *index.TextMatcher, r *row, cols []int, texts []string, stats *Stats) (*index.TextMatch, error) {
	if r.layout == nil {
		return ms.match(m, cols, texts)
	}
	layouts := make([]string, len(cols))
	for i, c := range cols {
		layouts[i] = r.layout[c]
	}
	tm, err := m.MatchStored(r.ref, cols, texts, layouts)
	if err != nil {
		return nil, asError(err)
	}
	if tm.Indexed {
		stats.HighlightsFromIndex.Add(1)
	}
	*ms = append(*ms, tm)
	return tm, nil
}

func (ms *rowMatches) release() {
	for _, m := range *ms {
		m.Release()
	}
}

func (h *highlightExpr) budgetOptions() *highlight.Options { return &h.opts }

func (h *highlightExpr) workCost(r *row) (int, error) {
	if h.text != nil {
		v, err := h.text.eval(r)
		return len(displayString(v)), err
	}
	n := 0
	for _, f := range h.fields {
		n += len(f.text(r))
	}
	return n, nil
}

// text is the field's text in row r.
func (f hlField) text(r *row) string {
	if f.attr {
		return attrText(r, f.col)
	}
	return r.text[f.col]
}

func (h *highlightExpr) eval(r *row) (any, error) {
	if err := h.prepare(r.snap); err != nil {
		return nil, err
	}
	h.stats.Highlights.Add(1)
	var ms rowMatches
	defer ms.release()
	if r.fallback {
		return h.beginning(r, &ms)
	}
	if h.text != nil {
		v, err := h.text.eval(r)
		if err != nil || v == nil {
			return nil, err // (NULL text, NULL snippet)
		}
		text := displayString(v)
		if msg := notUTF8(text); msg != "" {
			// (As writes and CALL SNIPPETS refuse it: snippets of it would
			// not be UTF-8.)
			return nil, Errorf(CodeWrongValue, "%s(): %s", h.fn, msg)
		}
		m, err := ms.match(h.anyText, nil, []string{text})
		if err != nil {
			return nil, err
		}
		// The text is read with the table's settings, its HTML stripping
		// included (html_strip_mode=index), as CALL SNIPPETS reads it.
		f := h.table.field("", text, m.Fields[0], h.table.html)
		return h.value(&highlight.Request{Fields: []highlight.Field{f}, Weights: h.anyText.KeywordWeights(), Options: &h.opts}, h.anyText)
	}
	if len(h.fields) == 0 {
		return "", nil // a field list that names no stored full-text field
	}
	var fields []highlight.Field
	var cols []int
	var texts, names []string
	var attrs []hlField
	for _, f := range h.fields {
		if f.attr {
			attrs = append(attrs, f)
			continue
		}
		cols = append(cols, f.col)
		texts = append(texts, r.text[f.col])
		names = append(names, f.name)
	}
	m, err := ms.matchStored(h.matcher, r, cols, texts, h.stats)
	if err != nil {
		return nil, err
	}
	byCol := map[int]highlight.Field{}
	for i, col := range cols {
		byCol[col] = h.table.field(names[i], texts[i], m.Fields[i], h.table.html)
	}
	for _, f := range attrs {
		text := attrText(r, f.col)
		am, err := ms.match(h.anyText, nil, []string{text})
		if err != nil {
			return nil, err
		}
		byCol[f.col] = h.table.field(f.name, text, am.Fields[0], false)
	}
	for _, f := range h.fields {
		fields = append(fields, byCol[f.col])
	}
	return h.value(&highlight.Request{Fields: fields, Weights: h.matcher.KeywordWeights(), Options: &h.opts, Stored: true}, h.matcher)
}

// tooBig refuses a highlighting result over max bytes (max_allowed_packet),
// before it is rendered: long before_match / after_match around many
// marks would make it many times its text.
func tooBig(what string, res *highlight.Result, max int) error {
	if n := res.Size(); max > 0 && n > max {
		return Errorf(CodeWrongValue, "%s: the result would be about %d bytes, over max_allowed_packet (%d): shorter markers (before_match, after_match) or a limit would fit", what, n, max)
	}
	return nil
}

// value highlights req: the string HIGHLIGHT() shows, or for
// HIGHLIGHT_OFFSETS() the snippets as JSON data, their keywords named as
// m's query writes them.
func (h *highlightExpr) value(req *highlight.Request, m *index.TextMatcher) (any, error) {
	req.Offsets, req.Units = h.offsets, m.Units()
	h.stats.countHighlight(req)
	res := highlight.Highlight(req)
	defer res.Release()
	if err := tooBig(h.fn+"()", res, h.maxResult); err != nil {
		return nil, err
	}
	if !h.offsets {
		return res.Join(), nil
	}
	texts := make([]string, len(req.Fields))
	for i := range req.Fields {
		texts[i] = req.Fields[i].Text
	}
	return offsetsJSON(res, texts, m.KeywordTexts()), nil
}

// beginning is the value of a row past the work budget: the beginning of
// each field, unmarked, as a document without a match shows it.
func (h *highlightExpr) beginning(r *row, ms *rowMatches) (any, error) {
	o := fallbackOptions(&h.opts)
	var fields []highlight.Field
	add := func(name, text string, html bool) error {
		f, err := h.beginningField(h.table, name, text, o.Limit, html, ms)
		fields = append(fields, f)
		return err
	}
	if h.text != nil {
		v, err := h.text.eval(r)
		if err != nil || v == nil {
			return nil, err
		}
		text := displayString(v)
		if msg := notUTF8(text); msg != "" {
			return nil, Errorf(CodeWrongValue, "%s(): %s", h.fn, msg)
		}
		if err := add("", text, false); err != nil {
			return nil, err
		}
	}
	for _, f := range h.fields {
		if err := add(f.name, f.text(r), h.table.html && !f.attr); err != nil {
			return nil, err
		}
	}
	return h.value(&highlight.Request{Fields: fields, Options: o, Stored: h.text == nil}, h.anyText)
}

// field is the highlighter's input for one text the matcher saw.
func (t hlTable) field(name, text string, ft index.FieldText, html bool) highlight.Field {
	f := highlight.Field{Name: name, Text: text, Layout: ft.Layout, Found: ft.Found, HTML: html, StripOptions: t.strip, Boundaries: t.bounds,
		Marks: ft.Marks}
	return f
}

// snippetCall compiles SNIPPET(text, query[, 'name=value', ...]), the
// older per-field form: the text (a field, an attribute or any string
// expression) highlighted against the query as arbitrary text. The query
// is a quoted string or QUERY(), the statement's MATCH() query. Each
// option is one quoted 'name=value': the value is the rest of the string
// after '=' without the blanks that start it, read as a number for the options
// that take one; the names are those of HIGHLIGHT()'s option map.
func (sc *scope) snippetCall(x *ast.FuncCallExpr) (expr, error) {
	if sc.schema == nil {
		return nil, Errorf(CodeSyntax, "SNIPPET() needs a table in FROM")
	}
	if !sc.allowText {
		return nil, Errorf(CodeSyntax, "SNIPPET() is allowed only in the select list")
	}
	if len(x.Args) < 2 {
		return nil, Errorf(CodeSyntax, "SNIPPET() takes the text, the query and options like 'limit=100'")
	}
	h := sc.newHighlightExpr("SNIPPET")
	text, err := sc.compile(x.Args[0])
	if err != nil {
		return nil, err
	}
	h.text = text
	q, ok, err := queryArg(x.Args[1])
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Errorf(CodeSyntax, "SNIPPET(): the query (second argument) must be a quoted string or QUERY()")
	}
	h.query = q
	list := highlight.List{Opts: &h.opts, Scope: highlight.ScopeSQL}
	for i, a := range x.Args[2:] {
		opt, ok := stringValue(a)
		if !ok {
			return nil, Errorf(CodeBadOption, "SNIPPET(): argument %d: options are quoted 'name=value' strings, like 'limit=100'", i+3)
		}
		name, value, err := snippetOption(opt)
		if err != nil {
			return nil, Errorf(CodeBadOption, "SNIPPET(): argument %d ('%s'): %v", i+3, opt, err)
		}
		if err := list.Set(name, value); err != nil {
			return nil, Errorf(CodeBadOption, "SNIPPET(): %v", err)
		}
	}
	if err := h.checkOptions(sc.schema.Tokenization, &list); err != nil {
		return nil, err
	}
	if h.query == nil {
		sc.highlights = append(sc.highlights, h)
	}
	return h, nil
}

// snippetOption splits one 'name=value' option of SNIPPET(). The value is
// a number for the options that take one, else the text as written (which
// may be empty: 'before_match=' is no marker).
func snippetOption(opt string) (string, any, error) {
	name, value, hasEq := strings.Cut(opt, "=")
	name = strings.TrimSpace(name)
	if !hasEq || name == "" {
		return "", nil, errors.New("an option is written 'name=value', like 'limit=100'")
	}
	value = strings.TrimLeft(value, " \t\r\n")
	if spec, ok := highlight.Lookup(name); ok && (spec.Kind == highlight.KindNumber || spec.Kind == highlight.KindFlag) {
		value = strings.TrimRight(value, " \t\r\n") // (a number's blanks after it too: 'limit=10 ')
		if value == "" {
			return "", nil, fmt.Errorf("option '%s' has no value after '='", name)
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err == nil {
			return name, n, nil
		}
		if errors.Is(err, strconv.ErrRange) {
			return "", nil, outOfRange(name, spec, value)
		}
	}
	return name, value, nil
}

// bigOptionNumber is the error for a whole number too large for any option
// (99999999999999999999, or 2^62 and more), given to an option that takes a
// number, or nil. Such a number reaches optionValue as an inexact float64 or
// not at all, so it is answered here, as written.
func bigOptionNumber(name string, node ast.ExprNode) error {
	text := numberText(node)
	if text == "" {
		if v, ok := node.(ast.ValueExpr); ok {
			if u, ok := v.GetValue().(uint64); ok && u > 1<<62 {
				text = strconv.FormatUint(u, 10)
			}
		}
	}
	if text == "" || len(text) > maxNumberText {
		return nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || !r.IsInt() || r.Num().IsInt64() && r.Num().Int64() >= -1<<53 && r.Num().Int64() <= 1<<53 {
		return nil
	}
	spec, ok := highlight.Lookup(name)
	if !ok || spec.Kind != highlight.KindNumber && spec.Kind != highlight.KindFlag {
		return nil
	}
	return outOfRange(name, spec, text)
}

// outOfRange says that a number option's value, as written, is outside its range.
func outOfRange(name string, spec *highlight.Spec, value string) error {
	if spec.Kind == highlight.KindFlag {
		return &highlight.OptionError{Option: name, Msg: "takes 0 or 1, not " + value}
	}
	return &highlight.OptionError{Option: name, Msg: fmt.Sprintf("must be from %d to %d, not %s", spec.Min, spec.Max, value)}
}
