package dialect

import (
	"github.com/glint-search/glint/internal/lend"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Shapes keeps parsed CALL statements whose literals had stand-ins, by the
// text the TiDB parser read: the statement with its literals (texts, query,
// option values) cut out. The next statement of the same shape gets a kept
// tree with its own values put in, without parsing. It is safe for
// concurrent use; a nil *Shapes keeps nothing.
//
// A kept tree is lent to one statement at a time (its values are that
// statement's). A shape keeps up to treesPerShape trees, for as many
// statements of it running at once; a statement that finds them all lent
// parses for itself, and its tree is kept while there is room.
type Shapes struct {
	c *lend.Cache[*shapeTree]
}

// maxShape is the longest rewritten text Shapes keeps.
const maxShape = 4 << 10

// keyPerShape bounds the rewritten text Shapes keeps: size shapes of
// keyPerShape bytes on average (a parsed tree takes about 64 bytes per byte
// of the text it was parsed from).
const keyPerShape = 256

// treesPerShape is how many trees of one shape are kept, for as many
// statements of that shape running at once (CALLs that differ only in
// their literals share a shape).
const treesPerShape = 8

// shapeTree is one parsed tree of a shape.
type shapeTree struct {
	node  ast.StmtNode
	nodes []*test_driver.ValueExpr // where each stand-in's value goes, by number
}

// NewShapes returns a Shapes of at most size statements, the least
// recently used dropped first; nil (nothing kept) when size <= 0.
func NewShapes(size int) *Shapes {
	if size <= 0 {
		return nil
	}
	return &Shapes{c: lend.New[*shapeTree](size, keyPerShape, treesPerShape)}
}

// Len is the number of shapes kept.
func (c *Shapes) Len() int {
	if c == nil {
		return 0
	}
	return c.c.Len()
}

// give ends a loan. The tree lets go of the statement's texts, which may be
// large, so that a kept shape holds none.
func (c *Shapes) give(e *lend.Entry[*shapeTree]) {
	for _, v := range e.Value.nodes {
		setString(v, "")
	}
	c.c.Give(e)
}

func noRelease() {}

// ParseShaped is ParsePiece with shapes: a CALL whose long literals get
// stand-ins is looked up in shapes by its shape, and kept there once
// parsed. release must be called once the statement has run and its tree
// is no longer read; it is never nil.
func ParseShaped(p *parser.Parser, piece Piece, shapes *Shapes) (st *Statement, release func(), err error) {
	toks := piece.toks
	if toks == nil {
		toks = lex(piece.Text)
	}
	return parse(p, piece.Text, toks, longLiteral, shapes)
}

// shaped reports whether the statement rw may be looked up in shapes and
// kept there.
func (c *Shapes) shaped(rw *rewritten) bool {
	return c != nil && rw.standIns != nil && rw.tail == nil && rw.facets == nil && rw.within == nil &&
		len(rw.main.text) <= maxShape
}

// fromShape returns the kept tree of rw's shape with rw's values put in.
func (c *Shapes) fromShape(rw *rewritten, text string) (*Statement, func()) {
	e := c.c.Lend(rw.main.text)
	if e == nil {
		return nil, nil
	}
	for i, v := range e.Value.nodes {
		setString(v, rw.standIns.values[i])
	}
	return &Statement{Node: e.Value.node, Text: text}, func() { c.give(e) }
}

// keep keeps node, parsed from rw with its stand-ins restored, if it is a
// CALL; it returns the release of the loan.
func (c *Shapes) keep(rw *rewritten, node ast.StmtNode) func() {
	if _, isCall := node.(*ast.CallStmt); !isCall {
		return noRelease
	}
	e := c.c.Add(rw.main.text, &shapeTree{node: node, nodes: rw.standIns.nodes})
	if e == nil {
		return noRelease
	}
	return func() { c.give(e) }
}
