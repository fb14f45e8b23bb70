package sql

import (
	"context"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Grouping, in the stages of a grouped SELECT:
//
//	scan      every match (after WHERE and MATCH) goes to the group of its key
//	          values, made on first sight; a multi attribute key puts the
//	          document in the group of each of its values
//	fold      the group counts it, feeds its aggregates (accumulators, one per
//	          aggregate call) and keeps it as the group's best document when
//	          it sorts before the one kept (relevance, then id)
//	HAVING    filters the groups
//	ORDER BY  sorts the groups (default: by their best documents, in the order
//	          a SELECT without ORDER BY has), LIMIT cuts them
//	select    each group row is its best document's columns with the group's
//	          aggregates; stored text and highlights are read for the page only
//
// Nothing of a document is kept but its reference, so a grouped search holds
// one entry per group, not per match; the common COUNT(*) per attribute value
// costs one map lookup per match.

// groupPlan is the grouping part of a selectPlan.
type groupPlan struct {
	keys   []groupKey // GROUP BY; none: one group of every match (implicit grouping)
	aggs   []*aggSpec
	having expr // nil: every group
	// within is WITHIN GROUP ORDER BY: the order that picks a group's best
	// document (nil: relevance, then id).
	within []orderKey
	// needBest: the select list, HAVING or ORDER BY read the group's best
	// document, so the scan keeps it.
	needBest bool
	// docFields[i]: select-list item i reads its group's best document, so it
	// is NULL in the group of no match (implicit grouping over nothing).
	docFields []bool
}

// groupKey is one compiled GROUP BY item.
type groupKey struct {
	e     expr
	typ   ColumnType // of the group's value
	multi bool       // a multi attribute: a document is in the group of each value
}

// aggSpec is one aggregate call of a grouped SELECT; a group's value for it
// is groupRow.aggs[slot].
type aggSpec struct {
	fn       string // count, sum, min, max, avg, group_concat (lower case)
	text     string // as written, for errors and for finding the same call twice
	star     bool   // COUNT(*)
	distinct bool
	arg      expr // nil for COUNT(*)
	argType  ColumnType
	sep      string // GROUP_CONCAT's separator
}

// aggRef reads an aggregate's value in the group of the row.
type aggRef struct {
	slot int
	typ  ColumnType
}

func (e aggRef) eval(r *row) (any, error) { return r.grp.aggs[e.slot], nil }

// groupKeyExpr reads the group's value of GROUP BY key i: GROUPBY(), and a
// key column named in the select list, HAVING or ORDER BY.
type groupKeyExpr struct {
	i   int
	typ ColumnType
}

func (e groupKeyExpr) eval(r *row) (any, error) {
	if r.grp == nil || len(r.grp.key) <= e.i {
		return nil, nil
	}
	return r.grp.key[e.i], nil
}

// denseKeys bounds the integer keys whose groups a slice indexes (at most
// 512 KB of pointers).
const denseKeys = 1 << 16

// groupRow is what a group holds once its matches are folded in.
type groupRow struct {
	key   []any // the group's key values (a multi attribute's: the one value)
	count int64
	acc   []accumulator
	aggs  []any     // the accumulators' results, for aggRef
	best  candidate // best.keys: its WITHIN GROUP ORDER BY keys
	found bool      // best is a document (false only in the implicit group of no match)
}

// aggregate compiles an aggregate call of a grouped SELECT.
func (sc *scope) aggregate(x *ast.AggregateFuncExpr) (expr, error) {
	name := strings.ToLower(x.F)
	text := aggText(x)
	if !sc.allowAgg || sc.group == nil {
		return nil, Errorf(CodeSyntax, "%s() is allowed only in the select list, HAVING and ORDER BY", strings.ToUpper(name))
	}
	spec := &aggSpec{fn: name, text: text, distinct: x.Distinct, sep: ","}
	args := x.Args
	switch name {
	case "count":
		if !x.Distinct && isCountStar(x) {
			spec.star, args = true, nil
		} else if len(args) != 1 {
			return nil, Errorf(CodeSyntax, "%s: COUNT() takes *, one expression, or DISTINCT and one expression", text)
		}
	case "sum", "min", "max", "avg":
		if len(args) != 1 {
			return nil, Errorf(CodeSyntax, "%s() takes one argument, got %d", strings.ToUpper(name), len(args))
		}
		if x.Distinct {
			return nil, Errorf(CodeUnsupported, "%s: DISTINCT is supported in COUNT() only", text)
		}
	case "group_concat":
		// The TiDB parser puts the separator (default ',') last.
		if len(args) != 2 {
			return nil, Errorf(CodeUnsupported, "%s: GROUP_CONCAT() takes one expression", text)
		}
		sep, ok := args[1].(ast.ValueExpr)
		if !ok {
			return nil, Errorf(CodeSyntax, "%s: the SEPARATOR must be a string", text)
		}
		spec.sep, args = displayString(sep.GetValue()), args[:1]
		if x.Order != nil {
			return nil, Errorf(CodeUnsupported, "%s: GROUP_CONCAT(... ORDER BY) is not supported; the values come in the order of the matches", text)
		}
	default:
		return nil, Errorf(CodeUnsupported, "aggregate %s() is not supported; use COUNT, SUM, MIN, MAX, AVG or GROUP_CONCAT", strings.ToUpper(name))
	}
	if len(args) == 1 {
		if c, ok := args[0].(*ast.ColumnNameExpr); ok {
			if i := columnIndex(sc.schema, c.Name.Name.O); i >= 0 && sc.schema.Columns[i].Type == index.TypeText {
				return nil, Errorf(CodeWrongValue, "%s: '%s' is a full-text field; aggregates take attributes", text, c.Name.Name.O)
			}
		}
		if hasAggregate(args[0]) {
			return nil, Errorf(CodeSyntax, "%s: an aggregate cannot take an aggregate", text)
		}
		inner := &scope{schema: sc.schema, sess: sc.sess} // attributes and WEIGHT()
		arg, err := inner.compile(args[0])
		if err != nil {
			return nil, err
		}
		spec.arg, spec.argType = arg, exprType(arg, sc.schema)
		if a, ok := arg.(attrExpr); ok {
			col := sc.schema.Columns[a.col]
			switch col.Type {
			case index.TypeMulti, index.TypeMulti64, index.TypeJSON:
				if name != "group_concat" && !(name == "count" && col.Type == index.TypeJSON) {
					kind := "multi"
					if col.Type == index.TypeJSON {
						kind = "json"
					}
					return nil, Errorf(CodeWrongValue, "%s: '%s' is a %s attribute; %s() takes a single value", text, col.Name, kind, strings.ToUpper(name))
				}
			case index.TypeString:
				if name == "sum" || name == "avg" {
					return nil, Errorf(CodeWrongValue, "%s: '%s' is a string attribute; %s() takes numbers", text, col.Name, strings.ToUpper(name))
				}
			}
		}
	}
	for i, a := range *sc.group {
		if a.text == text {
			return aggRef{slot: i, typ: a.resultType()}, nil
		}
	}
	*sc.group = append(*sc.group, spec)
	return aggRef{slot: len(*sc.group) - 1, typ: spec.resultType()}, nil
}

// resultType is the column type of the aggregate's values.
func (a *aggSpec) resultType() ColumnType {
	switch a.fn {
	case "count":
		return ColInt
	case "avg":
		return ColFloat
	case "group_concat":
		return ColString
	case "sum":
		if a.argType == ColFloat {
			return ColFloat
		}
		return ColInt
	}
	return a.argType
}

// newAccumulator returns an empty accumulator of the aggregate.
func (a *aggSpec) newAccumulator() accumulator {
	switch {
	case a.star:
		return nil // the group's count
	case a.fn == "count" && a.distinct:
		return &countDistinct{seen: map[any]struct{}{}}
	case a.fn == "count":
		return &countValues{}
	case a.fn == "sum":
		return &sumAcc{float: a.argType == ColFloat}
	case a.fn == "avg":
		return &sumAcc{float: true, avg: true}
	case a.fn == "min":
		return &extremeAcc{min: true}
	case a.fn == "max":
		return &extremeAcc{}
	}
	return &concatAcc{sep: a.sep}
}

// accumulator folds the values of one aggregate over a group's matches.
type accumulator interface {
	add(v any) error
	result() any
}

// countValues is COUNT(expr): the matches where expr is not NULL.
type countValues struct{ n int64 }

func (c *countValues) add(v any) error {
	if v != nil {
		c.n++
	}
	return nil
}
func (c *countValues) result() any { return c.n }

type countDistinct struct{ seen map[any]struct{} }

func (c *countDistinct) add(v any) error {
	if v != nil {
		c.seen[hashable(v)] = struct{}{}
	}
	return nil
}
func (c *countDistinct) result() any { return int64(len(c.seen)) }

type sumAcc struct {
	float, avg bool
	n          int64
	i          int64
	f          float64
}

func (s *sumAcc) add(v any) error {
	if v == nil {
		return nil
	}
	s.n++
	if !s.float {
		switch x := v.(type) {
		case int64:
			s.i += x
			return nil
		case uint64:
			s.i += int64(x)
			return nil
		}
	}
	f, ok := toFloat(v)
	if !ok {
		return Errorf(CodeWrongValue, "cannot sum %s", describe(v))
	}
	s.f += f
	return nil
}

func (s *sumAcc) result() any {
	switch {
	case s.n == 0:
		return nil
	case s.avg:
		return s.f / float64(s.n)
	case s.float:
		return s.f
	}
	return s.i
}

type extremeAcc struct {
	min  bool
	best any
}

func (e *extremeAcc) add(v any) error {
	if v == nil {
		return nil
	}
	if e.best == nil {
		e.best = v
		return nil
	}
	c, ok := compare(v, e.best)
	if !ok {
		return Errorf(CodeWrongValue, "cannot compare %s with %s", describe(v), describe(e.best))
	}
	if e.min && c < 0 || !e.min && c > 0 {
		e.best = v
	}
	return nil
}
func (e *extremeAcc) result() any { return e.best }

type concatAcc struct {
	sep string
	b   strings.Builder
	n   int
}

func (c *concatAcc) add(v any) error {
	if v == nil {
		return nil
	}
	if c.n > 0 {
		c.b.WriteString(c.sep)
	}
	c.n++
	c.b.WriteString(displayString(v))
	return nil
}

func (c *concatAcc) result() any {
	if c.n == 0 {
		return nil
	}
	return c.b.String()
}

// hashable is v as a map key: a multi attribute's set becomes its text.
func hashable(v any) any {
	if set, ok := v.([]int64); ok {
		return "\x00set:" + displayString(set)
	}
	return v
}

// planGroups compiles HAVING and ORDER BY of a grouped SELECT, whose
// select list is compiled in list, and decides what the scan keeps.
func (s *Session) planGroups(p *selectPlan, n *ast.SelectStmt, within *ast.OrderByClause, at []int, list *scope, aggs *[]*aggSpec) error {
	g := p.group
	aliases := map[string]expr{}
	for i, f := range n.Fields.Fields {
		if f.AsName.O != "" {
			aliases[strings.ToLower(f.AsName.O)] = p.fields[at[i]].e
		}
	}
	// HAVING and ORDER BY read attributes, aggregates, keys and aliases.
	sc := &scope{schema: list.schema, sess: s, allowAgg: true, group: aggs, keys: g.keys, aliases: aliases}
	if n.Having != nil {
		var err error
		if g.having, err = sc.compile(n.Having.Expr); err != nil {
			return clauseError("HAVING", err)
		}
	}
	if n.OrderBy != nil {
		for _, item := range n.OrderBy.Items {
			if pos, ok := item.Expr.(*ast.PositionExpr); ok {
				if pos.P != nil || pos.N < 1 || pos.N > len(p.fields) {
					return Errorf(CodeSyntax, "ORDER BY %d: the select list has %d item(s)", pos.N, len(p.fields))
				}
				p.order = append(p.order, orderKey{e: p.fields[pos.N-1].e, desc: item.Desc})
				continue
			}
			e, err := sc.compile(item.Expr)
			if err != nil {
				return clauseError("ORDER BY", err)
			}
			p.order = append(p.order, orderKey{e: e, desc: item.Desc})
		}
	}
	for _, o := range p.order {
		switch o.e.(type) {
		case textExpr:
			return Errorf(CodeWrongValue, "cannot ORDER BY a full-text field")
		case *highlightExpr:
			return Errorf(CodeWrongValue, "cannot ORDER BY highlighting: it is computed after sorting and LIMIT")
		}
	}
	if within != nil {
		// Per document: attributes and WEIGHT(), no aggregate.
		wsc := &scope{schema: list.schema, sess: s}
		for _, item := range within.Items {
			e, err := wsc.compile(item.Expr)
			if err != nil {
				return clauseError("WITHIN GROUP ORDER BY", err)
			}
			g.within = append(g.within, orderKey{e: e, desc: item.Desc})
		}
	}
	g.aggs = *aggs
	g.needBest = sc.docReads > 0 || n.OrderBy == nil && len(g.keys) > 0
	for _, d := range g.docFields {
		g.needBest = g.needBest || d
	}
	return nil
}

// clauseError says which clause an error of compiling was found in.
func clauseError(clause string, err error) error {
	if e, ok := err.(*Error); ok {
		return Errorf(e.Code, "%s: %s", clause, e.Msg)
	}
	return err
}

// aggText is an aggregate call as a column name: count(*), sum(price),
// group_concat(id) (with SEPARATOR only when it is not the default ',').
func aggText(x *ast.AggregateFuncExpr) string {
	name := strings.ToLower(x.F)
	if name == "count" && !x.Distinct && isCountStar(x) {
		return "count(*)"
	}
	if name == "group_concat" && len(x.Args) == 2 && x.Order == nil {
		if sep, ok := x.Args[1].(ast.ValueExpr); ok && displayString(sep.GetValue()) == "," {
			d := ""
			if x.Distinct {
				d = "distinct "
			}
			return "group_concat(" + d + exprText(x.Args[0]) + ")"
		}
	}
	return exprText(x)
}

// groupKeys compiles GROUP BY: attributes, expressions over them, and
// select-list aliases and positions, compiled in sc (attributes only).
// clause names the clause in errors: "GROUP BY", or "SELECT DISTINCT" for
// the GROUP BY a DISTINCT is planned as.
func groupKeys(sc *scope, clause string, items []*ast.ByItem, list []*ast.SelectField) ([]groupKey, error) {
	var keys []groupKey
	for _, item := range items {
		n := item.Expr
		what := exprText(n)
		if a, ok := n.(*ast.AggregateFuncExpr); ok {
			what = aggText(a)
		}
		switch x := n.(type) {
		case *ast.PositionExpr:
			if x.P != nil || x.N < 1 || x.N > len(list) {
				return nil, Errorf(CodeSyntax, "GROUP BY %d: the select list has %d item(s)", x.N, len(list))
			}
			if list[x.N-1].WildCard != nil {
				return nil, Errorf(CodeSyntax, "GROUP BY %d: the item is *", x.N)
			}
			n = list[x.N-1].Expr
			if clause != "GROUP BY" {
				what = exprText(n)
			}
		case *ast.ColumnNameExpr:
			name := x.Name.Name.O
			i := columnIndex(sc.schema, name)
			if i >= 0 && sc.schema.Columns[i].Type == index.TypeText {
				return nil, Errorf(CodeWrongValue, "GROUP BY '%s': a full-text field cannot be grouped by; group by attributes", name)
			}
			if i < 0 && !strings.EqualFold(name, "id") {
				n = nil
				for _, f := range list {
					if f.AsName.O != "" && strings.EqualFold(f.AsName.O, name) {
						n = f.Expr
					}
				}
				if n == nil {
					return nil, Errorf(CodeNoSuchColumn, "GROUP BY: unknown column '%s' in table '%s'", name, sc.schema.Name)
				}
			}
		}
		if hasAggregate(n) {
			return nil, Errorf(CodeSyntax, "GROUP BY %s: cannot group by an aggregate", what)
		}
		if x, ok := n.(*ast.ColumnNameExpr); ok && columnIndex(sc.schema, x.Name.Name.O) >= 0 && sc.schema.Columns[columnIndex(sc.schema, x.Name.Name.O)].Type == index.TypeText {
			return nil, Errorf(CodeWrongValue, "%s %s: '%s' is a full-text field; only attributes and expressions over them can be grouped", clause, what, x.Name.Name.O)
		}
		e, err := sc.compile(n)
		if err != nil {
			return nil, clauseError(clause, err)
		}
		k := groupKey{e: e, typ: exprType(e, sc.schema)}
		if a, ok := e.(attrExpr); ok {
			switch sc.schema.Columns[a.col].Type {
			case index.TypeMulti, index.TypeMulti64:
				k.multi, k.typ = true, ColInt
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// hasAggregate reports whether any of the nodes holds an aggregate call.
func hasAggregate(nodes ...ast.Node) bool {
	v := &aggregateFinder{}
	for _, n := range nodes {
		// A nil clause comes as a typed nil (*ast.OrderByClause(nil)).
		if n != nil && !reflect.ValueOf(n).IsNil() && !v.found {
			n.Accept(v)
		}
	}
	return v.found
}

type aggregateFinder struct{ found bool }

func (v *aggregateFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.AggregateFuncExpr); ok {
		v.found = true
	}
	return n, v.found
}

func (v *aggregateFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// runGrouped runs a grouped SELECT: the scan folds matches into groups, and
// the groups are filtered, sorted and cut before the page is read.
func (s *Session) runGrouped(ctx context.Context, p *selectPlan) (*Result, int, error) {
	snap := p.table.Snapshot()
	c := s.groupCollector(p, snap)
	n, err := s.eachMatch(ctx, p, snap, c.add)
	if err != nil {
		return nil, 0, err
	}
	return c.finish(ctx, n)
}

// groupCollector folds the matches of a search over snap into the groups
// of p.
func (s *Session) groupCollector(p *selectPlan, snap *index.Snapshot) *collector {
	g := p.group
	groups := map[any]*groupRow{}
	// The groups of one integer key, the common case, without boxing: small
	// non-negative values index a slice, others a map.
	var dense []*groupRow
	ints := map[int64]*groupRow{}
	var order []*groupRow // in order of first sight, for a stable result
	var implicit *groupRow
	if len(g.keys) == 0 {
		implicit = s.newGroup(g, nil)
		order = append(order, implicit)
	}
	relevance := p.sc.match != nil
	keyVals := make([]any, len(g.keys))
	scratch := make([]any, len(g.within))
	var composite []byte
	fold := func(gr *groupRow, r *row) error {
		gr.count++
		for i, a := range g.aggs {
			if gr.acc[i] == nil {
				continue
			}
			v, err := a.arg.eval(r)
			if err != nil {
				return err
			}
			if err := gr.acc[i].add(v); err != nil {
				return Errorf(CodeWrongValue, "%s: %v", a.text, err)
			}
		}
		if g.needBest && len(g.within) > 0 {
			return within(g, gr, r, snap, scratch)
		}
		if g.needBest && (!gr.found || relevance && r.weight > gr.best.weight) {
			gr.best, gr.found = candidate{ref: r.ref, id: snap.ID(r.ref), weight: r.weight}, true
		} else if g.needBest && (!relevance || r.weight == gr.best.weight) {
			if id := snap.ID(r.ref); id < gr.best.id {
				gr.best = candidate{ref: r.ref, id: id, weight: r.weight}
			}
		}
		return nil
	}
	var place func(r *row, k int) error
	// place puts r in the group of keyVals, expanding multi attribute keys
	// (from key k on) into one group per value.
	place = func(r *row, k int) error {
		if n, ok := keyVals[0].(int64); ok && len(keyVals) == 1 {
			var gr *groupRow
			if n >= 0 && n < denseKeys {
				if int(n) >= len(dense) {
					dense = append(dense, make([]*groupRow, int(n)+1-len(dense))...)
				}
				gr = dense[n]
			} else {
				gr = ints[n]
			}
			if gr == nil {
				gr = s.newGroup(g, []any{n})
				if n >= 0 && n < denseKeys {
					dense[n] = gr
				} else {
					ints[n] = gr
				}
				order = append(order, gr)
			}
			return fold(gr, r)
		}
		for ; k < len(g.keys); k++ {
			if set, ok := keyVals[k].([]int64); ok {
				for _, v := range set {
					keyVals[k] = v
					if err := place(r, k+1); err != nil {
						return err
					}
				}
				keyVals[k] = set
				return nil
			}
		}
		var key any
		if len(keyVals) == 1 {
			key = hashable(keyVals[0])
		} else {
			composite = appendKey(composite[:0], keyVals)
			if gr, ok := groups[string(composite)]; ok {
				return fold(gr, r)
			}
			key = string(composite)
		}
		gr, ok := groups[key]
		if !ok {
			gr = s.newGroup(g, append([]any(nil), keyVals...))
			groups[key] = gr
			order = append(order, gr)
		}
		return fold(gr, r)
	}
	add := func(r *row) error {
		if implicit != nil {
			return fold(implicit, r)
		}
		for i, k := range g.keys {
			v, err := k.e.eval(r)
			if err != nil {
				return err
			}
			keyVals[i] = v
		}
		return place(r, 0)
	}
	return &collector{add: add, finish: func(ctx context.Context, _ int) (*Result, int, error) {
		return s.finishGroups(ctx, p, snap, order)
	}}
}

// finishGroups applies HAVING, ORDER BY and LIMIT to the groups, in order
// of first sight, and builds the page.
func (s *Session) finishGroups(ctx context.Context, p *selectPlan, snap *index.Snapshot, order []*groupRow) (*Result, int, error) {
	g := p.group
	relevance := p.sc.match != nil
	var err error
	r := &row{snap: snap}
	kept := make([]candidate, 0, len(order))
	for _, gr := range order {
		gr.aggs = make([]any, len(g.aggs))
		for i, a := range g.aggs {
			if a.star {
				gr.aggs[i] = gr.count
			} else {
				gr.aggs[i] = gr.acc[i].result()
			}
		}
		c := gr.best
		c.grp = gr
		r.ref, r.weight, r.grp = c.ref, c.weight, gr
		if !gr.found {
			r.snap = nil // the implicit group of no match: its columns are NULL
		}
		if g.having != nil {
			v, err := g.having.eval(r)
			if err != nil {
				return nil, 0, err
			}
			if !truthy(v) {
				continue
			}
		}
		if len(p.order) > 0 {
			c.keys = make([]any, len(p.order))
			for i, o := range p.order {
				if c.keys[i], err = o.e.eval(r); err != nil {
					return nil, 0, err
				}
			}
		}
		kept = append(kept, c)
	}
	total := len(kept)
	sort.SliceStable(kept, func(i, j int) bool { return groupLess(p.order, relevance, kept[i], kept[j]) })
	kept = kept[min(p.offset, len(kept)):]
	kept = kept[:min(len(kept), p.count, max(0, p.maxMatches-p.offset))]
	res, err := s.page(ctx, p, snap, kept)
	return res, total, err
}

// groupLess is the order of group rows: by the ORDER BY keys; without ORDER
// BY, by their best documents as a SELECT without ORDER BY sorts documents
// (relevance with a full-text query, then id). Ties go by the group keys.
func groupLess(order []orderKey, relevance bool, a, b candidate) bool {
	if len(order) > 0 {
		for i, o := range order {
			c, ok := compare(a.keys[i], b.keys[i])
			if !ok || c == 0 {
				continue
			}
			return o.desc == (c > 0)
		}
	} else if a.grp.found && b.grp.found {
		if relevance && a.weight != b.weight {
			return a.weight > b.weight
		}
		if a.id != b.id {
			return a.id < b.id
		}
	}
	for i := range a.grp.key {
		if c, ok := compare(a.grp.key[i], b.grp.key[i]); ok && c != 0 {
			return c < 0
		}
	}
	return false
}

// within makes the document at r the best of gr if it sorts before it by
// WITHIN GROUP ORDER BY, then by id; scratch holds its keys.
func within(g *groupPlan, gr *groupRow, r *row, snap *index.Snapshot, scratch []any) error {
	for i, o := range g.within {
		v, err := o.e.eval(r)
		if err != nil {
			return err
		}
		scratch[i] = v
	}
	if gr.found && !withinBefore(g.within, scratch, gr.best.keys, func() bool { return snap.ID(r.ref) < gr.best.id }) {
		return nil
	}
	gr.best = candidate{ref: r.ref, id: snap.ID(r.ref), weight: r.weight, keys: append(gr.best.keys[:0], scratch...)}
	gr.found = true
	return nil
}

// withinBefore reports whether keys a sort before keys b; tie decides
// when they are equal.
func withinBefore(order []orderKey, a, b []any, tie func() bool) bool {
	for i, o := range order {
		c, ok := compare(a[i], b[i])
		if ok && c != 0 {
			return o.desc == (c > 0)
		}
	}
	return tie()
}

// newGroup makes an empty group with the given key values.
func (s *Session) newGroup(g *groupPlan, key []any) *groupRow {
	gr := &groupRow{key: key, acc: make([]accumulator, len(g.aggs))}
	for i, a := range g.aggs {
		gr.acc[i] = a.newAccumulator()
	}
	return gr
}

// appendKey encodes several key values into one map key: each value is a
// type byte and its bytes, strings with their length first.
func appendKey(b []byte, vals []any) []byte {
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			b = append(b, 0)
		case int64:
			b = append(b, 1)
			b = strconv.AppendInt(b, x, 10)
			b = append(b, 0)
		case uint64:
			b = append(b, 2)
			b = strconv.AppendUint(b, x, 10)
			b = append(b, 0)
		case float64:
			b = append(b, 3)
			b = strconv.AppendUint(b, math.Float64bits(x), 16)
			b = append(b, 0)
		default:
			s := displayString(x)
			b = append(b, 4)
			b = strconv.AppendInt(b, int64(len(s)), 10)
			b = append(b, ':')
			b = append(b, s...)
		}
	}
	return b
}
