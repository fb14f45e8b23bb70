package sql

import (
	"context"

	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The scalar functions and operators this package does not compile itself
// (IF, CASE, CAST, LIKE, SUBSTRING, CONCAT, NOW(), ...) are the catalog's row
// engine's: one implementation for information_schema and for searches. The
// columns, WEIGHT(), aggregates and the other functions of this package
// inside such an expression stay this package's expressions (slots),
// evaluated per row and handed to the catalog's compiled expression.

// ownFunctions are the functions whose calls inside a catalog expression
// are compiled here, as slots.
var ownFunctions = map[string]bool{
	"match": true, "weight": true, "groupby": true, "facet": true, "highlight": true, "highlight_offsets": true,
	"snippet": true, "to_string": true, "last_insert_id": true, dialect.FuncQuery: true,
	"database": true, "schema": true, "user": true, "current_user": true, "session_user": true,
	"system_user": true, "version": true, "connection_id": true, "unix_timestamp": true,
}

// scalarExpr is an expression the catalog compiled, over the values of
// this package's expressions.
type scalarExpr struct {
	s     *catalog.Scalar
	slots []expr
}

func (e *scalarExpr) eval(r *row) (any, error) {
	vals := make([]any, len(e.slots))
	for i, s := range e.slots {
		v, err := s.eval(r)
		if err != nil {
			return nil, err
		}
		if set, ok := v.([]int64); ok {
			v = displayString(set) // a multi reads as its text, 1,2,3
		}
		vals[i] = v
	}
	v, err := e.s.Eval(vals)
	if err != nil {
		return nil, catalogError(err)
	}
	return v, nil
}

// scalar compiles n with the catalog's row engine.
func (sc *scope) scalar(n ast.ExprNode) (expr, error) {
	e := &scalarExpr{}
	claim := func(m ast.ExprNode) (int, catalog.ValueType, error) {
		if m == n {
			return -1, catalog.ValueType{}, nil // the call this package handed over
		}
		switch x := m.(type) {
		case *ast.ColumnNameExpr, *ast.AggregateFuncExpr:
		case *ast.FuncCallExpr:
			if !ownFunctions[x.FnName.L] {
				return -1, catalog.ValueType{}, nil
			}
		case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
			return 0, catalog.ValueType{}, Errorf(CodeUnsupported, "subqueries are not supported")
		default:
			return -1, catalog.ValueType{}, nil
		}
		own, err := sc.compile(m)
		if err != nil {
			return 0, catalog.ValueType{}, err
		}
		e.slots = append(e.slots, own)
		t := exprType(own, sc.schema)
		return len(e.slots) - 1, catalog.ValueType{Type: [...]catalog.Type{catalog.String, catalog.Int, catalog.Uint, catalog.Float}[t], Known: true}, nil
	}
	s, err := catalog.CompileScalar(context.Background(), n, sc.sess.catalogEnv(nil), claim)
	if err != nil {
		if own, ok := err.(*Error); ok {
			return nil, own
		}
		return nil, catalogError(err)
	}
	e.s = s
	if len(e.slots) == 0 {
		// Constant: evaluated once, here.
		v, err := e.eval(nil)
		if err != nil {
			return nil, err
		}
		return constExpr{v}, nil
	}
	return e, nil
}

// scalarType is the result column type of a catalog expression.
func scalarType(e *scalarExpr) ColumnType {
	t := e.s.Type()
	if !t.Known {
		return ColString
	}
	return [...]ColumnType{ColString, ColInt, ColUint, ColFloat}[t.Type]
}
