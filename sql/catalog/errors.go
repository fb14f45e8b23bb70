package catalog

import "fmt"

// Code classifies an Error.
type Code int

// Error codes.
const (
	CodeUnsupported  Code = iota // a construct this engine does not have
	CodeNoSuchTable              // unknown table (or schema) in FROM
	CodeNoSuchColumn             // unknown or ambiguous column
	CodeSyntax                   // a construct used where it cannot be
	CodeWrongValue               // a value out of range (LIMIT, a subquery of several rows)
)

// Error is an error of a statement, with a message naming what is wrong.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
