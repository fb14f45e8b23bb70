package sql

import (
	"context"
	"strings"

	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Derived tables: SELECT ... FROM (SELECT ...) AS q ... The inner SELECT is
// a search like any other (with the statement's OPTION); its result, a few
// rows cut by its LIMIT, is an in-memory table, over which the catalog's row
// engine (package sql/catalog) runs the outer SELECT: WHERE, GROUP BY,
// ORDER BY, LIMIT and the scalar functions it has. BI tools send
// SELECT * FROM (their query) AS q LIMIT 0 to learn a query's columns.

// derivedTable is the name the outer SELECT reads the inner result by.
const derivedTable = "__glint_derived"

// derivedSource returns the derived table of a SELECT that reads exactly one
// (FROM (SELECT ...) AS q), or nil.
func derivedSource(n *ast.SelectStmt) *ast.TableSource {
	if n.From == nil || n.From.TableRefs == nil || n.From.TableRefs.Right != nil {
		return nil
	}
	ts, ok := n.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil
	}
	if _, isSelect := ts.Source.(*ast.SelectStmt); !isSelect {
		return nil
	}
	return ts
}

// selectDerived runs a SELECT over a derived table.
func (s *Session) selectDerived(ctx context.Context, n *ast.SelectStmt, ts *ast.TableSource, options []dialect.Setting) (*Result, error) {
	if ts.AsName.O == "" {
		return nil, Errorf(CodeSyntax, "every derived table must have its own alias: FROM (SELECT ...) AS q")
	}
	if hasMatch(n.Where) || hasMatch(n.Fields) {
		return nil, Errorf(CodeSyntax, "MATCH() belongs in the derived table's own WHERE: the outer SELECT reads its rows, not the full-text index")
	}
	inner, err := s.execSelect(ctx, ts.Source.(*ast.SelectStmt), options, nil)
	if err != nil {
		return nil, err
	}
	t := &catalog.Table{Name: ts.AsName.O, Columns: make([]catalog.Column, len(inner.Columns)), Rows: inner.Rows}
	for i, c := range inner.Columns {
		t.Columns[i] = catalog.Column{Name: c.Name, Type: [...]catalog.Type{catalog.String, catalog.Int, catalog.Uint, catalog.Float}[c.Type]}
	}
	outer := *n
	outer.From = &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{
		Source: &ast.TableName{Name: ast.NewCIStr(derivedTable)}, AsName: ts.AsName}}}
	env := s.catalogEnv(nil)
	env.Table = func(schema, name string) (*catalog.Table, error) {
		if schema == "" && strings.EqualFold(name, derivedTable) {
			return t, nil
		}
		return nil, Errorf(CodeUnsupported, "the outer SELECT of a derived table reads that table only")
	}
	res, err := catalog.Select(ctx, &outer, env)
	if err != nil {
		return nil, catalogError(err)
	}
	return catalogResult(res), nil
}

// hasMatch reports whether a node holds a MATCH() call.
func hasMatch(n ast.Node) bool {
	return holds(n, func(n ast.Node) bool {
		f, ok := n.(*ast.FuncCallExpr)
		return ok && f.FnName.L == "match"
	})
}

// holds reports whether n, or a node under it, is one that is says.
func holds(n ast.Node, is func(ast.Node) bool) bool {
	if n == nil {
		return false
	}
	v := &finder{is: is}
	n.Accept(v)
	return v.found
}

// finder is holds' visitor: it stops at the first node is takes.
type finder struct {
	is    func(ast.Node) bool
	found bool
}

func (v *finder) Enter(n ast.Node) (ast.Node, bool) {
	v.found = v.found || v.is(n)
	return n, v.found
}

func (v *finder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
