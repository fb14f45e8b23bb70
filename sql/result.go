package sql

import "github.com/glint-search/glint/index"

// ColumnType is the wire type of a result column.
type ColumnType int

// Result column types.
const (
	ColString ColumnType = iota // VARCHAR / TEXT; values are string or nil
	ColInt                      // signed 64-bit; values are int64 or nil
	ColUint                     // unsigned 64-bit; values are uint64 or nil
	ColFloat                    // double; values are float64 or nil
)

// Column describes one column of a result set.
type Column struct {
	Name string
	Type ColumnType
}

// Result is the outcome of one statement: a result set (Columns non-nil, possibly
// with zero rows) or an OK packet (Columns nil) with the affected row count.
type Result struct {
	Columns      []Column
	Rows         [][]any // each value: nil, string, int64, uint64 or float64, by column type
	AffectedRows uint64
	InsertID     uint64
	Warnings     uint16
	// WarningTexts are the messages of the statement's warnings, as SHOW
	// WARNINGS gives them (the HTTP /sql answer's "warning").
	WarningTexts []string

	// ShortestFloats asks for floats in their shortest form (7.99), as
	// MySQL prints them: the catalog's answers (information_schema, the
	// questions BI tools and connectors ask) are MySQL's. glint's own
	// results print floats as the reference does (7.990000), but for a
	// dump tool's read (SQL_NO_CACHE, of every row or of a part), which a
	// restore must read back as the same numbers.
	ShortestFloats bool

	// IDs are the document ids of the rows of a SELECT that returns
	// documents (of a grouped one that reads its groups' best documents,
	// theirs), whether or not the select list shows them: /sql's
	// search-shaped answer gives every hit its _id. nil otherwise.
	IDs []uint64

	// Attrs, for a SELECT's rows, is the table's type of each column
	// that shows a multi or json attribute as stored (TypeMulti,
	// TypeMulti64, TypeJSON; TypeText for every other column), so that a
	// JSON answer gives them as /search does: an array, the document; nil
	// when no column is one.
	Attrs []index.ColumnType
}

// IsResultSet reports whether r carries columns and rows rather than an OK.
func (r *Result) IsResultSet() bool { return r.Columns != nil }
