package dialect

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Reserved function names produced by the rewrite. The SQL layer recognises them.
const (
	FuncOptionMap = "__glint_map"       // {k=v, ...}   -> __glint_map('k', v, ...)
	FuncAs        = "__glint_as"        // v AS name    -> __glint_as(v, 'name') (CALL arguments)
	FuncShowMeta  = "__glint_show_meta" // SHOW META [LIKE 'p'] -> SELECT __glint_show_meta(['p'])
	// SHOW TABLE t STATUS | SETTINGS -> SELECT __glint_show_table('t', 'status' | 'settings')
	FuncShowTable = "__glint_show_table"
	FuncQuery     = "__glint_query" // QUERY()      -> __glint_query() (the statement's MATCH query)
	FuncWord      = "__glint_word"  // {k=word}     -> __glint_map('k', __glint_word('word')) (an unquoted value)
	FuncEmpty     = "__glint_empty" // ()           -> __glint_empty() (an empty multi, as a value of INSERT or UPDATE)
)

// quoted is a reserved name as the rewrite writes it: between backquotes,
// because the TiDB lexer takes a bare word starting with '_' for a charset
// introducer (_utf8mb4'x') and looks it up, and a failed lookup builds an
// error with a stack trace: for __glint_as, twice in every CALL SNIPPETS, that
// was about a tenth of the statement's time. A quoted name is the same
// identifier to TiDB, and never an introducer.
func quoted(name string) string { return "`" + name + "`" }

// The calls the rewrite writes most, quoted once.
const (
	callAs        = "`" + FuncAs + "`("        // every "x AS name" argument of CALL
	callOptionMap = "`" + FuncOptionMap + "`(" // every {...}
	wordCall      = "`" + FuncWord + "`("      // a bare word as an option map's value
	emptyCall     = "`" + FuncEmpty + "`()"    // an empty multi
)

// NoColumns is the name of the stand-in column of a CREATE TABLE without a
// column list (CREATE TABLE d type='distributed' agent='...'): the rewrite
// gives TiDB the column list (NoColumns bigint), and the SQL layer reads a
// table whose only column is NoColumns as one with none.
const NoColumns = "__glint_no_columns"

// ColumnTypePrefix starts the comment that carries a column's dialect type through
// the TiDB parser: CREATE TABLE t (title text stored) is parsed as
// CREATE TABLE t (title TEXT COMMENT 'glint:text stored'). What follows the prefix
// is one of the canonical types: text, text indexed, text stored, string, uint
// (for int, integer and uint), bigint, float, bool, timestamp, multi, multi64, json.
const ColumnTypePrefix = "glint:"

// Piece is one statement of a multi-statement text.
type Piece struct {
	Text   string // the statement, without its terminating ';'
	Offset int    // byte offset of Text in the whole text

	toks []token // Text's tokens as Split lexed them (offsets into Text)
}

// Setting is one name=value pair of an OPTION tail or of a CREATE TABLE's settings.
type Setting struct {
	Name  string       // lower case
	Value ast.ExprNode // as TiDB parsed it: a literal, a bare identifier (ColumnNameExpr), or a row (a, b=1)
	Pos   int          // byte offset of the name in the original statement
	// Text is the value's number as written (1e2, 3000.0: digits, not the
	// value TiDB made of them) when the value is a number, signed or not;
	// empty otherwise.
	Text string
}

// Statement is one statement after parsing: Node as TiDB parsed it, or, for
// the statements that manage replication clusters, which TiDB does not know,
// Cluster (and Node nil).
type Statement struct {
	Node     ast.StmtNode
	Cluster  *ClusterStmt
	Settings []Setting // OPTION tail of SELECT, or the settings after CREATE TABLE (...)
	// Facets are the FACET clauses of a SELECT, each rewritten into
	// SELECT exprs FROM FacetTable GROUP BY exprs [ORDER BY ...] [LIMIT ...].
	Facets []*ast.SelectStmt
	// WithinGroup is the WITHIN GROUP ORDER BY of a grouped SELECT: which
	// document of each group its row shows.
	WithinGroup *ast.OrderByClause
	Text        string // the original statement text
	// Shape is set when Node is a tree lent by a Shapes (ParseShaped):
	// Shapes.Lend lends a tree of that shape again with this statement's
	// values, without reading its text.
	Shape *Shape
}

// SyntaxError is a statement the parser rejected.
type SyntaxError struct {
	Msg    string // what is wrong
	Near   string // original text from the error position (at most 40 bytes)
	Line   int    // 1-based, in the original text
	Column int    // 1-based byte column, in the original text
}
