package sql

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Requests without SQL text: POST /search and the JSON writes are typed
// requests that the session plans into the same plans a SELECT, INSERT,
// UPDATE or DELETE becomes (selectPlan, the writer), so both protocols share
// one engine. Every part of a request carries Path, its place in the
// request ("query.bool.must[1].match"), which errors name.

// SearchRequest is a search (POST /search).
type SearchRequest struct {
	Table string
	// Older is set when the request named the table with the older key
	// ("index"): highlighting then defaults to <strong> markers.
	Older  bool
	Query  Cond // nil: every document
	Offset int
	Limit  int // <0: the default (20)
	Sort   []SortKey
	Source SourceFilter
	// Highlight, when set, adds each hit's snippets (post-LIMIT).
	Highlight *HighlightRequest
	// Ranker, FieldWeights and MaxMatches are OPTION ranker, field_weights
	// and max_matches; zero values mean not given.
	Ranker       string
	FieldWeights map[string]int
	MaxMatches   int
	// MaxMatchesPath is where max_matches was given, for errors.
	MaxMatchesPath string
	// MaxQueryTime is OPTION max_query_time: the search stops then and
	// answers with the hits found so far (TimedOut); 0: no limit of its own.
	MaxQueryTime time.Duration
	// Cutoff stops the search once it has found that many matching
	// documents (in index order); 0: no cutoff.
	Cutoff int
	Path   string // where the options were given, for errors
	// Linearizable is options.consistency "linearizable": as OPTION
	// consistency='linearizable', the search of a cluster's table first
	// waits until this member has applied what the cluster committed
	// (docs/replication.md, "Reads"); on a distributed table, each shard's.
	Linearizable bool
	// GlobalIDF is options.global_idf: a search of a distributed table
	// ranks with the statistics of all its shards (docs/distributed.md).
	GlobalIDF bool
	// Global are the collection statistics a coordinator sends a shard
	// (dist_json.go); nil: the table's own.
	Global *index.GlobalStats
	// HoldSnapshot and Snapshot are a coordinator's, as OPTION
	// hold_snapshot and snapshot (dist_snapshot.go): how long to hold
	// the snapshot searched (0: not at all), the token of the one to read.
	HoldSnapshot time.Duration
	Snapshot     string
}

// Cond is one condition of a request's query: *TextCond, *AttrCond,
// *BoolCond or *AllCond.
type Cond interface{ where() string }

// TextCond is a full-text condition: match, match_phrase or query_string.
type TextCond struct {
	Path   string
	Query  string   // in the full query syntax (for a phrase: its words)
	Fields []string // the fields to search; nil: every field
	Phrase bool     // the words as one phrase (match_phrase)
	// AnyWord makes the top-level words alternatives (match's default
	// operator "or"): "a b -c" means (a | b) -c.
	AnyWord bool
}

// AttrOp is the comparison of an AttrCond.
type AttrOp int

// Attribute comparisons.
const (
	AttrEquals AttrOp = iota // Values[0]
	AttrIn                   // any of Values
	AttrRange                // the bounds that are set
)

// AttrCond is a condition on an attribute or the id: equals, in, range.
type AttrCond struct {
	Path   string
	Column string
	Op     AttrOp
	Values []any // JSON scalars: int64, float64, string, bool
	// Range bounds; nil: not given.
	Gt, Gte, Lt, Lte any
}

// BoolCond combines conditions: all of Must and Filter, at least one of
// Should (when given), none of MustNot.
type BoolCond struct {
	Path                          string
	Must, Should, MustNot, Filter []Cond
}

// AllCond matches every document (match_all).
type AllCond struct{ Path string }

func (c *TextCond) where() string { return c.Path }
func (c *AttrCond) where() string { return c.Path }
func (c *BoolCond) where() string { return c.Path }
func (c *AllCond) where() string  { return c.Path }

// SortKey is one sort key: an attribute, "id", or "_score" (the weight).
type SortKey struct {
	Path   string
	Column string
	Desc   bool
}

// SourceFilter selects the columns of _source: names or patterns with '*'.
// No Includes means every column; None leaves _source empty.
type SourceFilter struct {
	Path               string
	Includes, Excludes []string
	None               bool
}

// HighlightRequest is the JSON highlight object (docs/http.md).
type HighlightRequest struct {
	Path    string
	Options []OptionValue // global options, in the order given
	// Fields to highlight, in output order; nil: every stored full-text
	// field.
	Fields []HighlightField
	// Query is highlight_query; nil: the search query.
	Query Cond
}

// HighlightField is one field of highlight.fields with its own options.
type HighlightField struct {
	Path    string
	Name    string
	Options []OptionValue
}

// OptionValue is one highlighting option as JSON gave it: a string,
// int64, float64, bool or []any.
type OptionValue struct {
	Path  string
	Name  string
	Value any
}

// SearchResponse is the answer to a SearchRequest (docs/http.md).
type SearchResponse struct {
	Took  time.Duration
	Total int // matching documents
	// TotalAtLeast: the cutoff stopped the search, so more documents may
	// match than Total ("total_relation": "gte").
	TotalAtLeast bool
	// TimedOut: options.max_query_time stopped the search, and the hits are
	// those found by then ("timed_out": true).
	TimedOut bool
	// HighlightTruncated is how many hits are past the highlighting work
	// budget: their highlight shows the beginning of each field.
	HighlightTruncated int
	Hits               []Hit
	Warnings           []string
	// Snapshot is the token of the snapshot held for the request's
	// HoldSnapshot; "" when none.
	Snapshot string
}

// Hit is one matching document.
type Hit struct {
	ID        uint64
	Score     int64 // WEIGHT()
	Source    []Value
	Highlight []FieldSnippets // nil without a highlight request
	// HighlightOffsets are the snippets as data, with the offsets option
	// (docs/beyond.md); nil without it.
	HighlightOffsets []SnippetData
	// HighlightTruncated: the hit is past the highlighting work budget,
	// and Highlight shows the beginning of each field, unmarked.
	HighlightTruncated bool
}

// Value is a named column value: nil, int64, uint64, float64, string or
// []int64 (multi). JSON is set for a json column, whose string is JSON text.
type Value struct {
	Name  string
	Value any
	JSON  bool
}

// hitHighlight is the value of a search request's highlight in one hit.
type hitHighlight struct {
	Fields  []FieldSnippets
	Offsets []SnippetData // with the offsets option
}

// FieldSnippets are the snippets of one field, without separators.
type FieldSnippets struct {
	Field    string
	Snippets []string
}

// colAny is the internal column type of request plans: values are kept as
// they are (no wire conversion).
const colAny ColumnType = -1

// Search runs a search request.
func (s *Session) Search(ctx context.Context, req *SearchRequest) (*SearchResponse, error) {
	start := time.Now()
	s.pending = nil
	if d, dist, err := s.distributed(req.Table); dist {
		if err != nil {
			return nil, err
		}
		return s.searchDistributed(ctx, d, req, start)
	}
	if req.GlobalIDF {
		return nil, Errorf(CodeBadOption, "%s: global_idf applies to distributed tables", orRoot(req.Path))
	}
	if req.Linearizable {
		if err := s.linearizeTable(ctx, req.Table); err != nil {
			return nil, err
		}
	}
	if unlock, held := s.engine.repl.holdDBs(s); held {
		defer unlock() // a cluster's database is not replaced under the search
	}
	p, hl, err := s.planSearch(req)
	if err != nil {
		return nil, err
	}
	ctx, done := s.statementTime(ctx)
	defer done()
	r, total, err := s.runSelect(ctx, p)
	if err != nil {
		return nil, s.statementTimeError(ctx, err)
	}
	resp := &SearchResponse{Total: total, TotalAtLeast: p.cutoffHit, TimedOut: p.timedOut, HighlightTruncated: p.hlTruncated,
		Hits: make([]Hit, 0, len(r.Rows)), Snapshot: p.heldToken}
	for _, w := range s.pending {
		resp.Warnings = append(resp.Warnings, w.msg)
	}
	s.pending = nil
	schema := p.table.Schema()
	for i, row := range r.Rows {
		h := Hit{ID: row[0].(uint64), Score: row[1].(int64), HighlightTruncated: p.hlOver != nil && p.hlOver[i]}
		n := len(row)
		if hl != nil {
			n--
			hh := row[n].(hitHighlight)
			h.Highlight, h.HighlightOffsets = hh.Fields, hh.Offsets
		}
		for j := 2; j < n; j++ {
			f := p.fields[j]
			v := Value{Name: f.name, Value: row[j]}
			if a, ok := f.e.(attrExpr); ok && schema.Columns[a.col].Type == index.TypeJSON {
				v.JSON = true
			}
			h.Source = append(h.Source, v)
		}
		resp.Hits = append(resp.Hits, h)
	}
	resp.Took = time.Since(start)
	return resp, nil
}

// planSearch builds the selectPlan of a search request.
func (s *Session) planSearch(req *SearchRequest) (*selectPlan, *jsonHighlightExpr, error) {
	t, err := s.table(req.Table)
	if err != nil {
		return nil, nil, err
	}
	schema := t.Schema()
	p := &selectPlan{table: t}
	sc := &scope{schema: schema, sess: s}
	p.sc = sc

	var text query.Node
	hasText := false
	if req.Query != nil {
		c := &condCompiler{sess: s, table: t, sc: sc, parts: query.NewParts(t.Tokenizer())}
		part, err := c.compile(req.Query)
		if err != nil {
			return nil, nil, err
		}
		if p.where, err = sc.filter(part, req.Query.where()); err != nil {
			return nil, nil, err
		}
		text, hasText = part.text, part.hasText
	}

	// The select list: id, weight, _source columns, then the highlight.
	sc.usesText = map[int]bool{}
	p.fields = []field{{name: "id", e: idExpr{}, typ: colAny}, {name: "_score", e: weightExpr{}, typ: colAny}}
	// The sort keys first: a coordinator asks a shard for its sort
	// columns in _source, and a key that is no column should be named as
	// the sort key the client wrote.
	for _, k := range req.Sort {
		if _, err := sortExpr(schema, k); err != nil {
			return nil, nil, err
		}
	}
	if err := req.Source.check(schema); err != nil {
		return nil, nil, err
	}
	if !req.Source.None {
		for i, c := range schema.Columns {
			if c.Type == index.TypeText && !c.Stored || !req.Source.keeps(c.Name) {
				continue
			}
			var e expr = attrExpr{col: i}
			if c.Type == index.TypeText {
				e = textExpr{col: i}
				sc.usesText[i] = true
			}
			p.fields = append(p.fields, field{name: c.Name, e: e, typ: colAny})
		}
	}
	var hl *jsonHighlightExpr
	if req.Highlight != nil {
		if hl, err = s.planJSONHighlight(t, sc, req, text); err != nil {
			return nil, nil, err
		}
		p.fields = append(p.fields, field{name: "highlight", e: hl, typ: colAny})
	}

	for _, k := range req.Sort {
		e, err := sortExpr(schema, k)
		if err != nil {
			return nil, nil, err
		}
		p.order = append(p.order, orderKey{e: e, desc: k.Desc})
	}
	if req.Sort == nil && hasText {
		p.order = []orderKey{{e: weightExpr{}, desc: true}}
	}

	p.offset, p.count, p.cutoff = req.Offset, req.Limit, req.Cutoff
	if p.count < 0 {
		p.count = defaultLimit
	}
	if p.offset < 0 || p.offset > 1<<31-1 || p.count > 1<<31-1 {
		return nil, nil, Errorf(CodeSyntax, "%s: offset and limit must be from 0 to 2147483647", orRoot(req.Path))
	}
	if req.Ranker != "" {
		rk, err := index.ParseRanker(req.Ranker)
		if err != nil {
			return nil, nil, Errorf(CodeBadOption, "%s: %v; use one of %s", orRoot(req.Path), err, strings.Join(index.RankerNames(), ", "))
		}
		p.opts.ranker = rk
	}
	for name, w := range req.FieldWeights {
		if !isIndexedField(schema, name) {
			return nil, nil, Errorf(CodeBadOption, "%s: field_weights: '%s' is not a full-text field of table '%s'", orRoot(req.Path), name, schema.Name)
		}
		if w < 0 || w > 1_000_000 {
			return nil, nil, Errorf(CodeBadOption, "%s: field_weights: the weight of '%s' must be from 0 to 1000000", orRoot(req.Path), name)
		}
		if p.opts.fieldWeights == nil {
			p.opts.fieldWeights = map[string]int{}
		}
		p.opts.fieldWeights[strings.ToLower(name)] = w
	}
	if sc.match != nil {
		sc.match.opts = index.SearchOptions{Ranker: p.opts.ranker, FieldWeights: p.opts.fieldWeights, Global: req.Global, Only: onlyIDs(p.where)}
	}
	p.opts.maxQueryTime = req.MaxQueryTime
	p.opts.holdSnapshot, p.opts.snapshot = req.HoldSnapshot, req.Snapshot
	if req.Limit < 0 && req.MaxMatches > 0 {
		p.count = defaultPageWithin(p.offset, p.count, req.MaxMatches)
	}
	want := p.offset + p.count
	switch {
	case req.MaxMatches < 0 || req.MaxMatches > maxMatchesLimit:
		return nil, nil, Errorf(CodeBadOption, "%s: max_matches must be from 1 to %d", orRoot(cmp.Or(req.MaxMatchesPath, req.Path)), maxMatchesLimit)
	case req.MaxMatches == 0:
		p.maxMatches = max(defaultMaxMatches, want)
	case want > req.MaxMatches:
		return nil, nil, Errorf(CodeBadOption, "%s: offset+limit (%d) exceeds max_matches (%d)", orRoot(cmp.Or(req.MaxMatchesPath, req.Path)), want, req.MaxMatches)
	default:
		p.maxMatches = req.MaxMatches
	}
	return p, hl, nil
}

func orRoot(path string) string {
	if path == "" {
		return "request"
	}
	return path
}

// keeps reports whether _source shows the column name: it matches an
// include (or there is none) and no exclude.
func (f SourceFilter) keeps(name string) bool {
	if len(f.Includes) > 0 && !slices.ContainsFunc(f.Includes, func(p string) bool { return sourceMatch(p, name) }) {
		return false
	}
	return !slices.ContainsFunc(f.Excludes, func(p string) bool { return sourceMatch(p, name) })
}

// check refuses a name without '*' that is no column of schema (a typo
// that would drop the column from _source, or keep it, without a word).
// The empty name is no typo: it matches no column, and "_source": [""] is
// how the reference's users ask for hits without their columns.
func (f SourceFilter) check(schema *index.Schema) error {
	for _, p := range append(slices.Clip(f.Includes), f.Excludes...) {
		if p != "" && !strings.Contains(p, "*") && !strings.EqualFold(p, "id") && columnIndex(schema, p) < 0 {
			return Errorf(CodeNoSuchColumn, "%s: unknown column '%s' in table '%s'", f.Path, p, schema.Name)
		}
	}
	return nil
}

// sourceMatch reports whether name matches the _source pattern p, whose
// only wildcard is '*' (any run of characters), case-insensitively. Every
// other character is itself: '_', which column names hold, and '%' too.
func sourceMatch(p, name string) bool {
	p, name = strings.ToLower(p), strings.ToLower(name)
	star, from := -1, 0 // the last '*' seen, and where in name it took up to
	for i, j := 0, 0; j < len(name) || i < len(p); {
		switch {
		case i < len(p) && p[i] == '*':
			star, from = i, j
			i++
		case i < len(p) && j < len(name) && p[i] == name[j]:
			i, j = i+1, j+1
		case star >= 0 && from < len(name):
			from++
			i, j = star+1, from
		default:
			return false
		}
	}
	return true
}

// sortExpr compiles one sort key.
func sortExpr(schema *index.Schema, k SortKey) (expr, error) {
	switch strings.ToLower(k.Column) {
	case "_score", "weight()":
		return weightExpr{}, nil
	case "id", "_id":
		return idExpr{}, nil
	}
	i := columnIndex(schema, k.Column)
	if i < 0 {
		return nil, Errorf(CodeNoSuchColumn, "%s: unknown column '%s' in table '%s'", k.Path, k.Column, schema.Name)
	}
	if schema.Columns[i].Type == index.TypeText {
		return nil, Errorf(CodeWrongValue, "%s: cannot sort by full-text field '%s'", k.Path, k.Column)
	}
	if err := sortable(schema, attrExpr{col: i}, k.Path); err != nil {
		return nil, err
	}
	return attrExpr{col: i}, nil
}

// filter is the WHERE of a compiled condition: its full-text query as the
// scope's MATCH(), AND its attribute filter.
func (sc *scope) filter(part condPart, path string) (expr, error) {
	if !part.hasText {
		return part.where, nil
	}
	if err := positive(part.text, path); err != nil {
		return nil, err
	}
	m := &matchExpr{query: part.words, node: part.text, parsed: true}
	sc.match = m
	if part.where == nil {
		return m, nil
	}
	return logicExpr{and: true, l: m, r: part.where}, nil
}

// positive checks that a full-text query has a word that must occur: one
// that only excludes cannot be searched.
func positive(n query.Node, path string) error {
	neg := false
	switch x := n.(type) {
	case query.Not:
		neg = true
	case query.And:
		neg = true
		for _, c := range x.Children {
			if _, isNot := c.(query.Not); !isNot {
				neg = false
			}
		}
	}
	if neg {
		return Errorf(CodeQuerySyntax, "%s: the full-text conditions only exclude words (must_not); add one that must match", orRoot(path))
	}
	return nil
}

// condPart is a compiled condition: its full-text query and its attribute
// filter, which hold together (AND).
type condPart struct {
	hasText bool       // a full-text condition is part of it
	text    query.Node // nil with hasText: no searchable word
	words   string     // the texts, for telling an empty query from stopwords
	where   expr       // nil: no attribute filter
}

// condCompiler compiles a request's conditions. Full-text conditions are
// parsed apart (errors point into their own text) and joined into one
// query; attribute conditions become the WHERE filter. A full-text and an
// attribute condition can be alternatives (should) or be negated together
// (must_not) only when nothing else is full-text there: the engine runs one
// full-text query per search.
type condCompiler struct {
	sess  *Session
	table *index.Table
	sc    *scope
	parts *query.Parts
	// textOnly refuses attribute conditions (highlight_query).
	textOnly bool
}

func (c *condCompiler) compile(cond Cond) (condPart, error) {
	switch x := cond.(type) {
	case *AllCond:
		return condPart{}, nil
	case *TextCond:
		return c.text(x)
	case *AttrCond:
		if c.textOnly {
			return condPart{}, Errorf(CodeSyntax, "%s: only full-text conditions (match, match_phrase, query_string) can be highlighted", x.Path)
		}
		e, err := c.attr(x)
		return condPart{where: e}, err
	case *BoolCond:
		return c.boolean(x)
	}
	return condPart{}, Errorf(CodeSyntax, "%s: unknown condition", cond.where())
}

func (c *condCompiler) text(x *TextCond) (condPart, error) {
	schema := c.table.Schema()
	text := x.Query
	if x.Phrase {
		text = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(x.Query) + `"`
	}
	n, err := c.parts.Parse(text)
	if err != nil {
		return condPart{}, Errorf(CodeQuerySyntax, "%s: %v", x.Path, err)
	}
	if n != nil && x.AnyWord {
		n = anyWord(n)
	}
	if n != nil && x.Fields != nil {
		names := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			if !isIndexedField(schema, f) {
				if columnIndex(schema, f) >= 0 {
					return condPart{}, Errorf(CodeWrongValue, "%s: '%s' is not a full-text field of table '%s'", x.Path, f, schema.Name)
				}
				return condPart{}, Errorf(CodeNoSuchColumn, "%s: unknown field '%s' in table '%s'", x.Path, f, schema.Name)
			}
			names[i] = strings.ToLower(f)
		}
		n = query.Field{Fields: names, Child: n}
	}
	if n != nil {
		// Checked on its own, so that an unknown @field says which
		// condition it is in.
		if _, err := c.table.Snapshot().TextMatcher(n, false); err != nil {
			return condPart{}, Errorf(CodeQuerySyntax, "%s: %v", x.Path, err)
		}
	}
	return condPart{hasText: true, text: n, words: x.Query}, nil
}

// anyWord turns the top-level AND of a query into alternatives, keeping its
// exclusions: "a b -c" becomes (a | b) -c.
func anyWord(n query.Node) query.Node {
	and, ok := n.(query.And)
	if !ok {
		return n
	}
	var pos, neg []query.Node
	for _, c := range and.Children {
		if _, isNot := c.(query.Not); isNot {
			neg = append(neg, c)
		} else {
			pos = append(pos, c)
		}
	}
	if len(pos) < 2 {
		return n
	}
	or := query.Node(query.Or{Children: pos, Pos: and.Pos})
	if len(neg) == 0 {
		return or
	}
	return query.And{Children: append([]query.Node{or}, neg...), Pos: and.Pos}
}

func (c *condCompiler) attr(x *AttrCond) (expr, error) {
	schema := c.table.Schema()
	var col expr
	if strings.EqualFold(x.Column, "id") || x.Column == "_id" {
		col = idExpr{}
	} else {
		i := columnIndex(schema, x.Column)
		if i < 0 {
			return nil, Errorf(CodeNoSuchColumn, "%s: unknown column '%s' in table '%s'", x.Path, x.Column, schema.Name)
		}
		if schema.Columns[i].Type == index.TypeText {
			return nil, Errorf(CodeWrongValue, "%s: '%s' is a full-text field; filter it with match", x.Path, x.Column)
		}
		col = attrExpr{col: i}
	}
	value := func(v any) (expr, error) {
		switch y := v.(type) {
		case bool:
			return constExpr{boolValue(y)}, nil
		case int64, uint64, float64, string:
			return constExpr{y}, nil
		}
		return nil, Errorf(CodeWrongValue, "%s: '%s' is compared with a number or a string, not %s", x.Path, x.Column, describe(v))
	}
	switch x.Op {
	case AttrEquals, AttrIn:
		if len(x.Values) == 0 {
			return nil, Errorf(CodeSyntax, "%s: 'in' needs at least one value", x.Path)
		}
		list := make([]expr, len(x.Values))
		for i, v := range x.Values {
			e, err := value(v)
			if err != nil {
				return nil, err
			}
			list[i] = e
		}
		for _, e := range list {
			if err := notANumber(schema, col, e, x.Path); err != nil {
				return nil, err
			}
		}
		if x.Op == AttrEquals {
			return cmpExpr{op: opcode.EQ, l: col, r: list[0]}, nil
		}
		return newInExpr(col, list, false, collLibcCI), nil
	}
	var out expr
	for _, b := range []struct {
		v  any
		op opcode.Op
	}{{x.Gt, opcode.GT}, {x.Gte, opcode.GE}, {x.Lt, opcode.LT}, {x.Lte, opcode.LE}} {
		if b.v == nil {
			continue
		}
		e, err := value(b.v)
		if err != nil {
			return nil, err
		}
		if err := notANumber(schema, col, e, x.Path); err != nil {
			return nil, err
		}
		var cmp expr = cmpExpr{op: b.op, l: col, r: e}
		if out != nil {
			cmp = logicExpr{and: true, l: out, r: cmp}
		}
		out = cmp
	}
	if out == nil {
		return nil, Errorf(CodeSyntax, "%s: a range needs at least one of gt, gte, lt, lte", x.Path)
	}
	return out, nil
}

func (c *condCompiler) boolean(x *BoolCond) (condPart, error) {
	var out condPart
	var texts []query.Node
	var words []string
	addText := func(p condPart) {
		if p.hasText {
			out.hasText = true
			words = append(words, p.words)
			if p.text != nil {
				texts = append(texts, p.text)
			}
		}
	}
	andWhere := func(e expr) {
		if e == nil {
			return
		}
		if out.where == nil {
			out.where = e
		} else {
			out.where = logicExpr{and: true, l: out.where, r: e}
		}
	}
	for _, list := range [][]Cond{x.Must, x.Filter} {
		for _, cond := range list {
			p, err := c.compile(cond)
			if err != nil {
				return out, err
			}
			addText(p)
			andWhere(p.where)
		}
	}
	if len(x.Should) > 0 {
		var alts []condPart
		textCount, whereCount := 0, 0
		for _, cond := range x.Should {
			p, err := c.compile(cond)
			if err != nil {
				return out, err
			}
			if p.hasText {
				textCount++
			}
			if p.where != nil {
				whereCount++
			}
			if !p.hasText && p.where == nil {
				// match_all among the alternatives: any document.
				alts = nil
				textCount, whereCount = 0, 0
				break
			}
			alts = append(alts, p)
		}
		switch {
		case textCount > 0 && whereCount > 0:
			return out, Errorf(CodeUnsupported, "%s.should: full-text and attribute conditions cannot be alternatives of one another (one full-text query per search); move the attribute conditions to filter", x.Path)
		case textCount > 0:
			var or []query.Node
			for _, p := range alts {
				words = append(words, p.words)
				if p.text != nil {
					if err := positive(p.text, p.words); err != nil {
						return out, Errorf(CodeQuerySyntax, "%s.should: an alternative only excludes words", x.Path)
					}
					or = append(or, p.text)
				}
			}
			out.hasText = true
			switch len(or) {
			case 0:
			case 1:
				texts = append(texts, or[0])
			default:
				texts = append(texts, query.Or{Children: or})
			}
		case whereCount > 0:
			var e expr
			for _, p := range alts {
				if e == nil {
					e = p.where
				} else {
					e = logicExpr{l: e, r: p.where}
				}
			}
			andWhere(e)
		}
	}
	for _, cond := range x.MustNot {
		p, err := c.compile(cond)
		if err != nil {
			return out, err
		}
		switch {
		case p.hasText && p.where != nil:
			return out, Errorf(CodeUnsupported, "%s.must_not: a condition that is both full-text and attribute cannot be negated as a whole; negate each in its own must_not", x.Path)
		case p.hasText:
			out.hasText = true
			if p.text != nil {
				texts = append(texts, query.Not{Child: p.text})
			}
		case p.where != nil:
			andWhere(notExpr{x: p.where})
		default:
			return out, Errorf(CodeSyntax, "%s.must_not: excluding every document (match_all) leaves nothing to find", x.Path)
		}
	}
	out.words = strings.Join(words, " ")
	switch len(texts) {
	case 0:
	case 1:
		out.text = texts[0]
	default:
		out.text = query.And{Children: texts}
	}
	return out, nil
}
