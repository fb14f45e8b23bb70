package dialect

import (
	"hash/maphash"
	"sync"

	"github.com/glint-search/glint/internal/lend"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Shapes keeps parsed CALL and SELECT statements whose literals had
// stand-ins, by the text the TiDB parser read: the statement with its
// literals cut out (a CALL's texts, query and option values; the literals of
// a SELECT's WHERE clause). The next statement of the same shape gets a
// kept tree with its own values put in, without parsing. A SELECT's OPTION
// tail is not part of its shape: it is read for each statement. So the
// searches an application sends, which mostly differ in their query, and a
// coordinator's phase two, which differs in its ids and snapshot, share
// trees. It is safe for concurrent use; a nil *Shapes keeps nothing.
//
// A kept tree is lent to one statement at a time (its values are that
// statement's). A shape keeps up to treesPerShape trees, for as many
// statements of it running at once; a statement that finds them all lent
// parses for itself, and its tree is kept while there is room.
type Shapes struct {
	c *lend.Cache[*shapeTree]

	// The shapes whose stand-ins did not parse back as values (a literal
	// where TiDB takes no string: DECIMAL(10, 2) in a WHERE clause), by
	// their hashes: statements of them are parsed as written at once,
	// rather than once with stand-ins, then again. (A hash that two
	// shapes share costs the other one its stand-ins, never a wrong tree.)
	mu   sync.Mutex
	seed maphash.Seed
	asIs map[uint64]struct{}
}

// maxAsIs bounds the shapes parsed as written that Shapes remembers; it
// forgets them all when there are more.
const maxAsIs = 1024

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
	return &Shapes{c: lend.New[*shapeTree](size, keyPerShape, treesPerShape), seed: maphash.MakeSeed()}
}

// parsedAsIs reports whether statements of the shape key are parsed as
// written (see refuse).
func (c *Shapes) parsedAsIs(key string) bool {
	if c == nil {
		return false
	}
	h := maphash.String(c.seed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.asIs[h]
	return ok
}

// refuse has the statements of the shape key parsed as written from now
// on: its stand-ins did not parse back.
func (c *Shapes) refuse(key string) {
	if c == nil {
		return
	}
	h := maphash.String(c.seed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asIs == nil || len(c.asIs) >= maxAsIs {
		c.asIs = map[uint64]struct{}{}
	}
	c.asIs[h] = struct{}{}
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
		if v.Kind() == test_driver.KindString {
			setString(v, "")
		}
	}
	c.c.Give(e)
}

// ParseShaped is ParsePiece with shapes: a CALL or SELECT whose literals get
// stand-ins is looked up in shapes by its shape, and kept there once
// parsed. A non-nil release means the statement's tree is lent by shapes:
// it must be called once the statement has run and its tree is no longer
// read, and the tree must not be kept elsewhere (the parse cache). nil
// means the tree is the caller's.
func ParseShaped(p *parser.Parser, piece Piece, shapes *Shapes) (st *Statement, release func(), err error) {
	toks := piece.toks
	if toks == nil {
		toks = lex(piece.Text)
	}
	return parse(p, piece.Text, toks, longLiteral, shapes)
}

// shaped reports whether the statement rw may be looked up in shapes and
// kept there: a CALL (which has no tail) or a SELECT, with stand-ins.
func (c *Shapes) shaped(rw *rewritten) bool {
	return c != nil && rw.standIns != nil && rw.facets == nil && rw.within == nil &&
		len(rw.main.text) <= maxShape
}

// Shape is what a statement parsed through a Shapes needs to get a tree of
// its shape again: the shape, and the statement's values.
type Shape struct {
	key    string        // the rewritten text: the shape
	values []string      // the stand-ins' values, by number
	kinds  []literalKind // by number: what the value is (a string, or an integer's digits)
}

// Lend lends a kept tree of st's shape with st's values put in, as
// ParseShaped would give it for st's text, without reading the text: st is
// a statement ParseShaped returned (its Shape set), kept by the caller (in
// its parse cache) with its settings. nil when no tree of the shape is
// free; the caller then parses the text again.
func (c *Shapes) Lend(st *Statement) (*Statement, func()) {
	if c == nil || st.Shape == nil {
		return nil, nil
	}
	e := c.c.Lend(st.Shape.key)
	if e == nil {
		return nil, nil
	}
	si := standIns{values: st.Shape.values, kinds: st.Shape.kinds}
	for i, v := range e.Value.nodes {
		si.set(i, v)
	}
	lent := *st
	lent.Node = e.Value.node
	return &lent, func() { c.give(e) }
}

// fromShape returns the kept tree of rw's shape with rw's values put in,
// and its OPTION tail read; a nil Statement when no tree is free.
func (c *Shapes) fromShape(p *parser.Parser, rw *rewritten, text string) (*Statement, func(), error) {
	e := c.c.Lend(rw.main.text)
	if e == nil {
		return nil, nil, nil
	}
	for i, v := range e.Value.nodes {
		rw.standIns.set(i, v)
	}
	st := &Statement{Node: e.Value.node, Text: text, Shape: rw.shape()}
	if rw.tail != nil {
		var err error
		if st.Settings, err = rw.tail.parse(p, text); err != nil {
			c.give(e)
			return nil, nil, err
		}
	}
	return st, func() { c.give(e) }, nil
}

// keep keeps node, parsed from rw with its stand-ins restored, if it is a
// CALL or a SELECT; it returns the release of the loan, nil when node is
// not kept.
func (c *Shapes) keep(rw *rewritten, node ast.StmtNode) func() {
	switch node.(type) {
	case *ast.CallStmt, *ast.SelectStmt:
	default:
		return nil
	}
	e := c.c.Add(rw.main.text, &shapeTree{node: node, nodes: rw.standIns.nodes})
	if e == nil {
		return nil
	}
	return func() { c.give(e) }
}

// shape is the Shape of rw, a statement with stand-ins.
func (rw *rewritten) shape() *Shape {
	return &Shape{key: rw.main.text, values: rw.standIns.values, kinds: rw.standIns.kinds}
}
