package index

import "github.com/glint-search/glint/index/tokenize"

// ColumnType is the type of one table column, as the dialect names it.
type ColumnType int

// The column types of the dialect (the reference's CREATE TABLE).
const (
	TypeText      ColumnType = iota // full-text field; see Column.Indexed and Column.Stored
	TypeString                      // stored, filterable string attribute, not full-text indexed
	TypeUint                        // unsigned 32-bit integer ("int" and "uint" in the dialect)
	TypeBigint                      // signed 64-bit integer
	TypeFloat                       // 32-bit float, kept as float64 in memory
	TypeBool                        // 0 or 1
	TypeTimestamp                   // seconds since the Unix epoch, unsigned 32-bit
	TypeMulti                       // set of unsigned 32-bit integers
	TypeMulti64                     // set of signed 64-bit integers
	TypeJSON                        // a JSON document, kept as its text
)

// Column is one column of a table. The implicit id column is not listed.
type Column struct {
	Name    string
	Type    ColumnType
	Indexed bool // TypeText only: words are in the inverted index
	Stored  bool // TypeText only: the original text is in the document store
}

// Setting is one table setting of CREATE TABLE, such as morphology='stem_en'.
// Names are lower case; values are kept as the user wrote them.
type Setting struct {
	Name  string
	Value string
}

// Schema describes a table. Columns are in declaration order; that order is the
// order of Document.Values and Row values.
type Schema struct {
	Name     string
	Columns  []Column
	Settings []Setting

	// Tokenization is the resolved form of the tokenization settings
	// (tokenize.ParseSettings of Settings, files read at CREATE TABLE), which
	// the table's tokenizer is built from.
	Tokenization tokenize.Config `json:",omitzero"`
}

// Value is one column value. It is one of: nil (absent), int64 (uint, bigint,
// bool, timestamp), float64 (float), string (text, string, json), []int64 (multi,
// multi64, sorted and without duplicates).
type Value = any

// Document is one row to write. Values are in schema column order; a text column
// holds a string (or nil for empty). ID 0 asks for a new unique id.
type Document struct {
	ID     uint64
	Values []Value
}
