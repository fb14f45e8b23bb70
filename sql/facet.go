package sql

import (
	"context"
	"slices"
	"time"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// FACET: a SELECT with FACET clauses returns its own result set and then one
// per facet. The dialect bridge rewrites each clause into a grouped SELECT
// over dialect.FacetTable; here it takes the main statement's FROM, WHERE
// and OPTION, a COUNT(*) column, and ORDER BY COUNT(*) DESC when it has no
// ORDER BY of its own (Manticore's "Faceted search"). The search runs once:
// each match goes to the main SELECT's collector and to every facet's, as
// Manticore reuses the main query's matches for its facets.

// selectFacets runs a SELECT with FACET clauses.
func (s *Session) selectFacets(ctx context.Context, n *ast.SelectStmt, facets []*ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) ([]*Result, error) {
	s.meta, s.metaQuery = nil, nil // as execSelect
	if n.From == nil || s.readsCatalog(n) || derivedSource(n) != nil {
		return nil, Errorf(CodeSyntax, "FACET needs a full-text table in FROM")
	}
	if d, ok, err := s.distributedSource(n); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return s.selectDistributedFacets(ctx, d, n, facets, options, within)
	}
	if n.GroupBy != nil || n.Distinct || hasAggregate(n.Fields, n.Having, n.OrderBy) {
		return nil, Errorf(CodeUnsupported, "FACET after GROUP BY, DISTINCT or aggregates is not supported: facets group the matches themselves")
	}
	if n.Kind != ast.SelectStmtKindSelect || n.With != nil || n.SelectIntoOpt != nil || n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone {
		return nil, Errorf(CodeUnsupported, "this form of SELECT is not supported")
	}
	start := time.Now()
	main, unlock, err := s.planRead(ctx, n, options, within)
	if err != nil {
		return nil, err
	}
	defer unlock()
	plans := []*selectPlan{main}
	for i, f := range facets {
		p, err := s.planSelect(facetSelect(n, f), options, nil)
		if err != nil {
			if e, ok := err.(*Error); ok {
				err = Errorf(e.Code, "FACET %d: %s", i+1, e.Msg)
			}
			return nil, err
		}
		plans = append(plans, p)
	}
	snap, err := s.snapshotOf(main)
	if err != nil {
		return nil, err
	}
	collectors := make([]*collector, len(plans))
	for i, p := range plans {
		collectors[i] = s.collect(p, snap)
	}
	matches, err := s.eachMatch(ctx, main, snap, func(r *row) error {
		for _, c := range collectors {
			if err := c.add(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Result, len(plans))
	mainTotal := 0
	for i, c := range collectors {
		r, total, err := c.finish(ctx, matches)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			mainTotal = total
		}
		out[i] = r
	}
	// SHOW META tells of the main query, and of the time the statement
	// took: its facets too.
	s.setMeta(main, mainTotal, start)
	return out, nil
}

// facetSelect is the grouped SELECT of a facet of the main SELECT n.
func facetSelect(n, f *ast.SelectStmt) *ast.SelectStmt {
	q := *f
	q.From, q.Where = n.From, n.Where
	// FACET a, AVG(b): the aggregates are columns, not keys.
	keys := &ast.GroupByClause{}
	for _, item := range q.GroupBy.Items {
		expr := item.Expr
		if pos, ok := expr.(*ast.PositionExpr); ok && pos.N >= 1 && pos.N <= len(q.Fields.Fields) {
			expr = q.Fields.Fields[pos.N-1].Expr
		}
		if !hasAggregate(expr) {
			keys.Items = append(keys.Items, item)
		}
	}
	q.GroupBy = keys
	fields := slices.Clone(q.Fields.Fields)
	if !hasAggregate(q.Fields) {
		fields = append(fields, &ast.SelectField{Expr: countStar()})
	}
	q.Fields = &ast.FieldList{Fields: fields}
	if q.OrderBy == nil {
		q.OrderBy = &ast.OrderByClause{Items: []*ast.ByItem{{Expr: countStar(), Desc: true}}}
	}
	return &q
}

// countStar is COUNT(*) as the TiDB parser gives it.
func countStar() *ast.AggregateFuncExpr {
	return &ast.AggregateFuncExpr{F: "count", Args: []ast.ExprNode{ast.NewValueExpr(int64(1), "", "")}}
}

// runFacets runs a statement with FACET clauses: a SELECT, bounded by the
// server's max_query_time as one statement.
func (s *Session) runFacets(ctx context.Context, n *ast.SelectStmt, st *dialect.Statement) ([]*Result, error) {
	s.engine.stats.Selects.Add(1)
	ctx, done := s.statementTime(ctx)
	defer done()
	// (The searches of one statement leave out a shard that did not
	// answer the first: eachShard.)
	s.leftOut = map[string]error{}
	defer func() { s.leftOut = nil }()
	rs, err := s.selectFacets(ctx, n, st.Facets, st.Settings, st.WithinGroup)
	return rs, s.statementTimeError(ctx, err)
}
