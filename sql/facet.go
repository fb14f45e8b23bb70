package sql

import (
	"context"
	"slices"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// FACET: a SELECT with FACET clauses returns its own result set and then one
// per facet. The dialect bridge rewrites each clause into a grouped SELECT
// over dialect.FacetTable; here it takes the main statement's FROM, WHERE
// and OPTION, a COUNT(*) column, and ORDER BY COUNT(*) DESC when it has no
// ORDER BY of its own (Manticore's "Faceted search"). Each facet runs the
// search again: the same as the several GROUP BY statements a client would
// otherwise send, in one round trip.

// runFacets runs the facets of st, whose main SELECT has run.
func (s *Session) runFacets(ctx context.Context, st *dialect.Statement) ([]*Result, error) {
	main, ok := st.Node.(*ast.SelectStmt)
	if !ok || main.From == nil || s.readsCatalog(main) {
		return nil, Errorf(CodeSyntax, "FACET needs a full-text table in FROM")
	}
	if main.GroupBy != nil {
		return nil, Errorf(CodeUnsupported, "FACET after GROUP BY is not supported: facets group the matches themselves")
	}
	meta, metaQuery := s.meta, s.metaQuery // SHOW META tells of the main query
	defer func() { s.meta, s.metaQuery = meta, metaQuery }()
	ctx, done := s.statementTime(ctx)
	defer done()
	var out []*Result
	for n, f := range st.Facets {
		q := *f
		// FACET a, AVG(b): the aggregates are columns, not keys.
		keys := &ast.GroupByClause{}
		for _, item := range q.GroupBy.Items {
			if !hasAggregate(item.Expr) {
				keys.Items = append(keys.Items, item)
			}
		}
		if len(keys.Items) == 0 {
			return nil, Errorf(CodeSyntax, "FACET %d: nothing to group by: every item is an aggregate", n+1)
		}
		q.GroupBy = keys
		q.From, q.Where = main.From, main.Where
		fields := slices.Clone(q.Fields.Fields)
		if !hasAggregate(q.Fields) {
			fields = append(fields, &ast.SelectField{Expr: countStar()})
		}
		q.Fields = &ast.FieldList{Fields: fields}
		if q.OrderBy == nil {
			q.OrderBy = &ast.OrderByClause{Items: []*ast.ByItem{{Expr: countStar(), Desc: true}}}
		}
		r, err := s.execSelect(ctx, &q, st.Settings)
		if err != nil {
			err = s.statementTimeError(ctx, err)
			if e, ok := err.(*Error); ok && e.Code != CodeQueryTimeout && e.Code != CodeCancelled {
				err = Errorf(e.Code, "FACET %d: %s", n+1, e.Msg)
			}
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// countStar is COUNT(*) as the TiDB parser gives it.
func countStar() *ast.AggregateFuncExpr {
	return &ast.AggregateFuncExpr{F: "count", Args: []ast.ExprNode{ast.NewValueExpr(int64(1), "", "")}}
}
