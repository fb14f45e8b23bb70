package sql

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// SQL-level prepared statements: PREPARE name FROM 'text' | @var, EXECUTE
// name [USING @a, @b ...], DEALLOCATE | DROP PREPARE name. They are the
// session's, by case-insensitive name, and share the binary protocol's
// Prepare and ExecPrepared.

// defaultMaxPrepared is the cap of SQL-level prepared statements per
// session until SetMaxPreparedStatements sets it (the server's
// max_prepared_statements).
const defaultMaxPrepared = 1024

// SetMaxPreparedStatements caps the statements one session may hold
// prepared with PREPARE (n <= 0 keeps the default, 1024).
func (e *Engine) SetMaxPreparedStatements(n int) {
	if n > 0 {
		e.maxPrepared = n
	}
}

func (s *Session) execPrepare(n *ast.PrepareStmt) (*Result, error) {
	text := n.SQLText
	if n.SQLVar != nil {
		v, ok := s.userVars[strings.ToLower(n.SQLVar.Name)].(string)
		if !ok {
			return nil, Errorf(CodeWrongValue, "PREPARE %s FROM @%s: the variable holds no statement text", n.Name, n.SQLVar.Name)
		}
		text = v
	}
	name := strings.ToLower(n.Name)
	if _, replaced := s.prepared[name]; !replaced && len(s.prepared) >= s.engine.maxPrepared {
		return nil, Errorf(CodeTooManyStatements, "too many prepared statements in this session (limit %d): DEALLOCATE PREPARE the ones you no longer use", s.engine.maxPrepared)
	}
	p, err := s.Prepare(text)
	if err != nil {
		return nil, err
	}
	// As in MySQL, a PREPARE of a name in use replaces the statement, and
	// one that fails leaves the name unused.
	delete(s.prepared, name)
	s.prepared[name] = p
	return &Result{}, nil
}

func (s *Session) execExecute(ctx context.Context, n *ast.ExecuteStmt) (*Result, error) {
	p, ok := s.prepared[strings.ToLower(n.Name)]
	if !ok {
		return nil, Errorf(CodeUnknownStatement, "unknown prepared statement '%s' given to EXECUTE", n.Name)
	}
	args := make([]any, len(n.UsingVars))
	for i, u := range n.UsingVars {
		v, ok := u.(*ast.VariableExpr)
		if !ok || v.IsSystem {
			return nil, Errorf(CodeSyntax, "EXECUTE ... USING takes user variables (@name)")
		}
		args[i] = s.userVars[strings.ToLower(v.Name)]
	}
	if len(args) != p.NumParams {
		return nil, Errorf(CodeWrongCount, "EXECUTE %s: the statement has %d placeholder(s), USING gives %d variable(s)", n.Name, p.NumParams, len(args))
	}
	return s.ExecPrepared(ctx, p, args)
}

func (s *Session) execDeallocate(n *ast.DeallocateStmt) (*Result, error) {
	name := strings.ToLower(n.Name)
	if _, ok := s.prepared[name]; !ok {
		return nil, Errorf(CodeUnknownStatement, "unknown prepared statement '%s' given to DEALLOCATE PREPARE", n.Name)
	}
	delete(s.prepared, name)
	return &Result{}, nil
}
