// Package query parses the full-text query language of MATCH() into a typed tree
// that the index evaluates and the highlighter reuses.
package query

import "github.com/glint-search/glint/index/tokenize"

// Node is one node of a parsed full-text query.
type Node interface{ node() }

// Term is one normalized word (as the table's tokenizer produced it).
type Term struct {
	Word string
	Pos  int // byte offset of the word in the query text
}

// And matches documents that match every child. An And without children
// matches nothing.
type And struct{ Children []Node }

func (Term) node() {}
func (And) node()  {}

// Parse parses the text of MATCH() with the table's tokenizer. For now every
// word of the text must match: the result is a Term for one word, an And of
// Terms for several, and an empty And (matching nothing) for none. Operators are
// not recognized yet; their characters separate words.
func Parse(text string, tok *tokenize.Tokenizer) (Node, error) {
	var terms []Node
	var it tokenize.Iter
	it.Reset(tok, text)
	for it.Next() {
		t := it.Token()
		terms = append(terms, Term{Word: t.Term, Pos: t.Start})
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return And{Children: terms}, nil
}

// Terms appends every Term of the tree under n to dst, in query order.
func Terms(dst []Term, n Node) []Term {
	switch n := n.(type) {
	case Term:
		dst = append(dst, n)
	case And:
		for _, c := range n.Children {
			dst = Terms(dst, c)
		}
	}
	return dst
}
