package sql

import "context"

// Session is one client connection's state: current database, variables, the
// last statement's metadata (SHOW META) and warnings. A Session is used by one
// goroutine at a time.
type Session struct{}

// Exec runs every statement of query in order and returns one Result each. When
// a statement fails, Exec returns the results of the statements before it and the
// error (an *Error); later statements are not run.
func (s *Session) Exec(ctx context.Context, query string) ([]*Result, error) {
	panic("unimplemented")
}

// Prepared is a statement prepared with Prepare.
type Prepared struct {
	NumParams int
}

// Prepare checks a single statement with ? placeholders. CodeNotPreparable for
// text holding several statements.
func (s *Session) Prepare(query string) (*Prepared, error) { panic("unimplemented") }

// ExecPrepared runs p with args bound to its placeholders in order. Each arg is
// nil, int64, uint64, float64, string or []byte.
func (s *Session) ExecPrepared(ctx context.Context, p *Prepared, args []any) (*Result, error) {
	panic("unimplemented")
}

// UseDB sets the current database (COM_INIT_DB, USE). glint has one database,
// named "glint"; another name is a CodeNoSuchDB error.
func (s *Session) UseDB(name string) error { panic("unimplemented") }

// FieldList answers COM_FIELD_LIST: the columns of a table.
func (s *Session) FieldList(table string) ([]Column, error) { panic("unimplemented") }
