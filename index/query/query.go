// Package query parses the full-text query language of MATCH() into a typed tree
// that the index evaluates and the highlighter reuses.
package query

// Node is one node of a parsed full-text query.
type Node interface{ node() }

// Term is one normalized word (as the table's tokenizer produced it).
type Term struct {
	Word string
	Pos  int // byte offset of the word in the query text
}

// And matches documents that match every child.
type And struct{ Children []Node }

func (Term) node() {}
func (And) node()  {}
