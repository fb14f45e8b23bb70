package catalog

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A Scalar is an expression compiled by this package's row engine for a
// caller with rows of its own (the full-text path): the caller keeps the
// nodes it knows (its columns, its own functions) as slots, computes their
// values per row, and the Scalar does the rest with this package's
// operators and scalar functions (IF, CASE, SUBSTRING, CONCAT, ...).
//
//	s, err := catalog.CompileScalar(ctx, ifNode, env, claim) // IF(price > 10, 'dear', 'cheap'); claim makes price slot 0
//	v, err := s.Eval([]any{12.5})                            // "dear"
type Scalar struct {
	t typed
}

// ValueType is the type of a value, and whether it is known before the
// values are (an IF's type is not).
type ValueType struct {
	Type  Type
	Known bool
}

// Claim decides whether a node of a Scalar is the caller's: it returns the
// node's slot (the index of its value in Eval's argument) and type, or a
// slot of -1 for a node the Scalar compiles itself. Every node is offered
// before it is compiled, outermost first.
type Claim func(n ast.ExprNode) (slot int, t ValueType, err error)

// CompileScalar compiles n with claim taking the caller's nodes. env gives
// DATABASE(), variables and the like; its Table is not used (a subquery is
// for claim to refuse).
func CompileScalar(ctx context.Context, n ast.ExprNode, env *Env, claim Claim) (*Scalar, error) {
	sc := &scope{ctx: ctx, env: env, claim: claim}
	t, err := sc.compile(n)
	if err != nil {
		return nil, err
	}
	return &Scalar{t: t}, nil
}

// Eval evaluates the Scalar over the values of its slots.
func (s *Scalar) Eval(slots []any) (any, error) {
	return s.t.eval(&evalCtx{row: slots})
}

// Type is the type of the Scalar's values.
func (s *Scalar) Type() ValueType { return ValueType{Type: s.t.typ, Known: s.t.known} }
