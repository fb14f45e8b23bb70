package query

import "github.com/glint-search/glint/index/tokenize"

// Parts parses several query texts that make one query together, such as
// the clauses of a JSON bool query: each is parsed on its own (so an error
// points into its own text), while query positions and the keyword limit
// run on across them, so that the trees can be joined with And, Or and Not
// into one query whose phrases and proximity ranking stay right.
type Parts struct {
	tok       *tokenize.Tokenizer
	qpos, nkw int
}

// NewParts starts a query made of parts, for a table's tokenizer.
func NewParts(tok *tokenize.Tokenizer) *Parts { return &Parts{tok: tok} }

// Parse parses the next part, like Parse. A part without a searchable
// word gives (nil, nil).
func (ps *Parts) Parse(text string) (Node, error) {
	n, qpos, nkw, err := parseAt(text, ps.tok, ps.qpos, ps.nkw)
	if err != nil {
		return nil, err
	}
	// A gap of one position keeps a phrase-like ranking from joining the
	// last word of one part to the first word of the next.
	ps.qpos, ps.nkw = qpos+1, nkw
	return n, nil
}
