package sql

import (
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Planning a grouped SELECT: its keys (GROUP BY, or the select list of a
// SELECT DISTINCT), HAVING, ORDER BY over groups, and WITHIN GROUP ORDER BY.

// groupPlan is the grouping part of a selectPlan.
type groupPlan struct {
	keys   []groupKey // GROUP BY; none: one group of every match (implicit grouping)
	coll   collation  // of string keys: keys that compare equal are one group
	aggs   []*aggSpec
	having expr // nil: every group
	// within is WITHIN GROUP ORDER BY: the order that picks a group's best
	// document (nil: relevance, then id).
	within []orderKey
	// needBest: the select list, HAVING or ORDER BY read the group's best
	// document, so the scan keeps it.
	needBest bool
	// spellBest: a string key shows the spelling of its group's best
	// document (keys equal under the collation are one group).
	spellBest bool
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
	sc := &scope{schema: list.schema, alias: list.alias, sess: s, allowAgg: true, group: aggs, keys: g.keys, aliases: aliases}
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
				p.order = append(p.order, orderKey{e: p.fields[pos.N-1].e, desc: item.Desc, coll: s.collation()})
				continue
			}
			e, err := sc.compile(item.Expr)
			if err != nil {
				return clauseError("ORDER BY", err)
			}
			coll, err := sc.collationOf(item.Expr)
			if err != nil {
				return clauseError("ORDER BY", err)
			}
			p.order = append(p.order, orderKey{e: e, desc: item.Desc, coll: coll})
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
		wsc := &scope{schema: list.schema, alias: list.alias, sess: s}
		for _, item := range within.Items {
			e, err := wsc.compile(item.Expr)
			if err != nil {
				return clauseError("WITHIN GROUP ORDER BY", err)
			}
			g.within = append(g.within, orderKey{e: e, desc: item.Desc, coll: s.collation()})
		}
	}
	g.aggs = *aggs
	g.needBest = sc.docReads > 0 || n.OrderBy == nil && len(g.keys) > 0
	for _, d := range g.docFields {
		g.needBest = g.needBest || d
	}
	for _, k := range g.keys {
		if k.typ == ColString && !k.multi {
			g.spellBest = true // (the key shows its best document's spelling)
		}
	}
	g.needBest = g.needBest || g.spellBest
	return nil
}

// clauseError says which clause an error of compiling was found in.
func clauseError(clause string, err error) error {
	if e, ok := err.(*Error); ok {
		return Errorf(e.Code, "%s: %s", clause, e.Msg)
	}
	return err
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
					return nil, unknownColumn(sc.schema, "GROUP BY: ", x.Name)
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
