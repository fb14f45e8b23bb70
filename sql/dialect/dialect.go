// Package dialect bridges the Sphinx/Manticore SQL dialect to the TiDB parser. It is
// the one place that knows the pieces of the dialect the TiDB parser does not: it
// rewrites them, outside string literals and comments only, into text the TiDB
// parser accepts, and maps error positions back to the client's text.
package dialect

import (
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Reserved function names produced by the rewrite. The SQL layer recognises them.
const (
	FuncOptionMap = "__glint_map"       // {k=v, ...}   -> __glint_map('k', v, ...)
	FuncAs        = "__glint_as"        // v AS name    -> __glint_as(v, 'name') (CALL arguments)
	FuncShowMeta  = "__glint_show_meta" // SHOW META [LIKE 'p'] -> SELECT __glint_show_meta(['p'])
)

// Piece is one statement of a multi-statement text.
type Piece struct {
	Text   string // the statement, without its terminating ';'
	Offset int    // byte offset of Text in the whole text
}

// Split cuts a text into statements at ';' outside literals and comments,
// dropping statements that are only white space and comments.
func Split(text string) []Piece { panic("unimplemented") }

// Setting is one name=value pair of an OPTION tail or of a CREATE TABLE's settings.
type Setting struct {
	Name  string       // lower case
	Value ast.ExprNode // as TiDB parsed it: a literal, a bare identifier (ColumnNameExpr), or a row (a, b=1)
	Pos   int          // byte offset of the name in the original statement
}

// Statement is one statement after parsing.
type Statement struct {
	Node     ast.StmtNode
	Settings []Setting // OPTION tail of SELECT, or the settings after CREATE TABLE (...)
	Text     string    // the original statement text
}

// Parse rewrites one statement's text and parses it with p. A syntax error is a
// *SyntaxError whose position is in the original text.
func Parse(p *parser.Parser, text string) (*Statement, error) { panic("unimplemented") }

// SyntaxError is a statement the parser rejected.
type SyntaxError struct {
	Msg    string // what is wrong
	Near   string // original text from the error position (at most 40 bytes)
	Line   int    // 1-based, in the original text
	Column int    // 1-based byte column, in the original text
}

func (e *SyntaxError) Error() string { panic("unimplemented") }

// Placeholders returns the byte offsets of the ? placeholders outside literals
// and comments.
func Placeholders(text string) []int { panic("unimplemented") }

// Interpolate replaces the placeholders with args written as SQL literals (nil,
// int64, uint64, float64, string, []byte, bool). It is an error when the counts differ.
func Interpolate(text string, args []any) (string, error) { panic("unimplemented") }
