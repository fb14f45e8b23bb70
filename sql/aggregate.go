package sql

import (
	"reflect"
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Aggregates: how a call compiles (aggregate, aggSpec) and how it folds a
// group's matches (accumulator, one per call and group).

// aggSpec is one aggregate call of a grouped SELECT; a group's value for it
// is groupRow.aggs[slot].
type aggSpec struct {
	fn       string // count, sum, min, max, avg, group_concat (lower case)
	text     string // as written, for errors and for finding the same call twice
	star     bool   // COUNT(*)
	distinct bool
	arg      expr // nil for COUNT(*)
	argType  ColumnType
	sep      string    // GROUP_CONCAT's separator
	coll     collation // of strings: MIN, MAX and DISTINCT
}

// aggRef reads an aggregate's value in the group of the row.
type aggRef struct {
	slot int
	typ  ColumnType
}

func (e aggRef) eval(r *row) (any, error) { return r.grp.aggs[e.slot], nil }

// aggregate compiles an aggregate call of a grouped SELECT.
func (sc *scope) aggregate(x *ast.AggregateFuncExpr) (expr, error) {
	name := strings.ToLower(x.F)
	text := aggText(x)
	if !sc.allowAgg || sc.group == nil {
		return nil, Errorf(CodeSyntax, "%s() is allowed only in the select list, HAVING and ORDER BY", strings.ToUpper(name))
	}
	spec := &aggSpec{fn: name, text: text, distinct: x.Distinct, sep: ",", coll: sc.collation()}
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
		inner := &scope{schema: sc.schema, alias: sc.alias, sess: sc.sess} // attributes and WEIGHT()
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
		return &countDistinct{seen: map[any]struct{}{}, coll: a.coll}
	case a.fn == "count":
		return &countValues{}
	case a.fn == "sum":
		return &sumAcc{float: a.argType == ColFloat}
	case a.fn == "avg":
		return &sumAcc{float: true, avg: true}
	case a.fn == "min":
		return &extremeAcc{min: true, coll: a.coll}
	case a.fn == "max":
		return &extremeAcc{coll: a.coll}
	}
	c := &concatAcc{sep: a.sep, coll: a.coll}
	if a.distinct {
		c.seen = map[any]struct{}{}
	}
	return c
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

type countDistinct struct {
	seen map[any]struct{}
	coll collation
}

func (c *countDistinct) add(v any) error {
	if v != nil {
		c.seen[collKey(c.coll, v)] = struct{}{}
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
	coll collation
}

func (e *extremeAcc) add(v any) error {
	if v == nil {
		return nil
	}
	if e.best == nil {
		e.best = v
		return nil
	}
	c, ok := compare(e.coll, v, e.best)
	if !ok {
		return Errorf(CodeWrongValue, "cannot compare %s with %s", describe(v), describe(e.best))
	}
	if e.min && c < 0 || !e.min && c > 0 {
		e.best = v
	}
	return nil
}
func (e *extremeAcc) result() any { return e.best }

// concatAcc is GROUP_CONCAT: the values in the order of the matches; with
// DISTINCT (seen), each value once, where it first comes.
type concatAcc struct {
	sep  string
	b    strings.Builder
	n    int
	seen map[any]struct{}
	coll collation
}

func (c *concatAcc) add(v any) error {
	if v == nil {
		return nil
	}
	if c.seen != nil {
		k := collKey(c.coll, v)
		if _, dup := c.seen[k]; dup {
			return nil
		}
		c.seen[k] = struct{}{}
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

// collKey is v as a map key under the collation c: strings that compare
// equal are one key.
func collKey(c collation, v any) any {
	if s, ok := v.(string); ok {
		return c.key(s)
	}
	return hashable(v)
}

// hashable is v as a map key: a multi attribute's set becomes its text.
func hashable(v any) any {
	if set, ok := v.([]int64); ok {
		return "\x00set:" + displayString(set)
	}
	return v
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
