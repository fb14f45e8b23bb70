package catalog

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// fromClause evaluates the tables of FROM and their joins.
func fromClause(ctx context.Context, n ast.ResultSetNode, env *Env) (*relation, error) {
	switch x := n.(type) {
	case *ast.Join:
		left, err := fromClause(ctx, x.Left, env)
		if err != nil {
			return nil, err
		}
		if x.Right == nil {
			return left, nil
		}
		right, err := fromClause(ctx, x.Right, env)
		if err != nil {
			return nil, err
		}
		return join(ctx, left, right, x, env)
	case *ast.TableSource:
		return tableSource(ctx, x, env)
	}
	return nil, errorf(CodeUnsupported, "this FROM clause is not supported in information_schema queries")
}

func tableSource(ctx context.Context, ts *ast.TableSource, env *Env) (*relation, error) {
	var name string
	var t *Table
	switch src := ts.Source.(type) {
	case *ast.TableName:
		var err error
		if t, err = env.Table(src.Schema.O, src.Name.O); err != nil {
			return nil, err
		}
		name = src.Name.O
	case *ast.SelectStmt:
		res, err := Select(ctx, src, env)
		if err != nil {
			return nil, err
		}
		if ts.AsName.O == "" {
			return nil, errorf(CodeSyntax, "every derived table must have its own alias")
		}
		t = &Table{Name: ts.AsName.O, Columns: res.Columns, Rows: res.Rows}
	case *ast.Join:
		return fromClause(ctx, src, env)
	default:
		return nil, errorf(CodeUnsupported, "this table source is not supported in information_schema queries")
	}
	if ts.AsName.O != "" {
		name = ts.AsName.O
	}
	r := &relation{cols: make([]scopeCol, len(t.Columns)), rows: t.Rows}
	for i, c := range t.Columns {
		r.cols[i] = scopeCol{table: name, name: c.Name, typ: c.Type}
	}
	return r, nil
}

// join joins two relations by nested loops, as the catalog is small.
func join(ctx context.Context, left, right *relation, j *ast.Join, env *Env) (*relation, error) {
	if j.NaturalJoin {
		return nil, errorf(CodeUnsupported, "NATURAL JOIN is not supported in information_schema queries")
	}
	out := &relation{cols: append(append([]scopeCol(nil), left.cols...), right.cols...)}
	var cond expr
	switch {
	case j.On != nil:
		sc := &scope{ctx: ctx, env: env, cols: out.cols}
		t, err := sc.compile(j.On.Expr)
		if err != nil {
			return nil, err
		}
		cond = t.eval
	case len(j.Using) > 0:
		var pairs [][2]int
		for _, u := range j.Using {
			l, err := (&scope{cols: left.cols}).resolve("", u.Name.O)
			if err != nil {
				return nil, err
			}
			r, err := (&scope{cols: right.cols}).resolve("", u.Name.O)
			if err != nil {
				return nil, err
			}
			pairs = append(pairs, [2]int{l, len(left.cols) + r})
		}
		cond = func(c *evalCtx) (any, error) {
			for _, p := range pairs {
				a, b := c.row[p[0]], c.row[p[1]]
				if a == nil || b == nil || compare(a, b) != 0 {
					return int64(0), nil
				}
			}
			return int64(1), nil
		}
	}
	outer := j.Tp == ast.LeftJoin || j.Tp == ast.RightJoin
	if int64(len(left.rows))*int64(len(right.rows)) > maxRows && cond == nil {
		return nil, errorf(CodeWrongValue, "a join of %d by %d rows is more than information_schema queries build (%d)", len(left.rows), len(right.rows), maxRows)
	}
	outerRows, innerRows := left.rows, right.rows
	if j.Tp == ast.RightJoin {
		outerRows, innerRows = right.rows, left.rows
	}
	missing := len(right.cols) // the columns an outer join leaves NULL
	if j.Tp == ast.RightJoin {
		missing = len(left.cols)
	}
	combine := func(o, i []any) []any {
		if j.Tp == ast.RightJoin {
			o, i = i, o
		}
		row := make([]any, 0, len(out.cols))
		row = append(row, o...)
		return append(row, i...)
	}
	for n, o := range outerRows {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		matched := false
		for _, i := range innerRows {
			row := combine(o, i)
			if cond != nil {
				v, err := cond(&evalCtx{row: row})
				if err != nil {
					return nil, err
				}
				if !truthy(v) {
					continue
				}
			}
			matched = true
			out.rows = append(out.rows, row)
			if len(out.rows) > maxRows {
				return nil, errorf(CodeWrongValue, "the join builds more than %d rows", maxRows)
			}
		}
		if !matched && outer {
			nulls := make([]any, missing)
			out.rows = append(out.rows, combine(o, nulls))
		}
	}
	return out, nil
}

// ReadsSchema reports whether a statement reads a table of the schema: one
// named schema.name, or an unqualified one when current is the schema
// (anywhere: in joins, derived tables and subqueries).
func ReadsSchema(n ast.Node, schema, current string) bool {
	v := &schemaVisitor{schema: schema, current: current}
	n.Accept(v)
	return v.found
}

type schemaVisitor struct {
	schema, current string
	found           bool
}

func (v *schemaVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if t, ok := n.(*ast.TableName); ok {
		s := t.Schema.O
		if s == "" {
			s = v.current
		}
		v.found = v.found || strings.EqualFold(s, v.schema)
	}
	return n, v.found
}

func (v *schemaVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
