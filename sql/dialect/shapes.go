package dialect

import (
	"container/list"
	"sync"

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
	mu      sync.Mutex
	size    int                      // most shapes
	bytes   int                      // their keys' bytes, at most size * keyPerShape
	entries map[string]*list.Element // of *shape
	lru     list.List                // front: the most recently used
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

// shape is the trees kept for one rewritten text.
type shape struct {
	key   string
	trees []*shapeTree
}

// shapeTree is one parsed tree of a shape, lent to one statement at a time.
type shapeTree struct {
	node  ast.StmtNode
	nodes []*test_driver.ValueExpr // where each stand-in's value goes, by number
	lent  bool
}

// NewShapes returns a Shapes of at most size statements, the least
// recently used dropped first; nil (nothing kept) when size <= 0.
func NewShapes(size int) *Shapes {
	if size <= 0 {
		return nil
	}
	return &Shapes{size: size, entries: make(map[string]*list.Element)}
}

// Len is the number of shapes kept.
func (c *Shapes) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *Shapes) lend(key string) *shapeTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	for _, t := range el.Value.(*shape).trees {
		if !t.lent {
			t.lent = true
			c.lru.MoveToFront(el)
			return t
		}
	}
	return nil
}

// add keeps a tree just parsed and returns it lent to the caller; nil when
// its shape has all the trees it may keep, or the tree does not fit.
func (c *Shapes) add(key string, node ast.StmtNode, nodes []*test_driver.ValueExpr) *shapeTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		el = c.lru.PushFront(&shape{key: key})
		c.entries[key] = el
	}
	sh := el.Value.(*shape)
	if len(sh.trees) >= treesPerShape {
		return nil
	}
	t := &shapeTree{node: node, nodes: nodes, lent: true}
	sh.trees = append(sh.trees, t)
	c.lru.MoveToFront(el)
	c.bytes += len(key)
	for c.lru.Len() > c.size || c.bytes > c.size*keyPerShape {
		last := c.lru.Remove(c.lru.Back()).(*shape)
		delete(c.entries, last.key)
		c.bytes -= len(last.key) * len(last.trees)
	}
	if _, kept := c.entries[key]; !kept {
		return nil // longer than the whole budget: dropped at once
	}
	return t
}

// give ends a loan. The tree lets go of the statement's texts, which may be
// large, so that a kept shape holds none.
func (c *Shapes) give(t *shapeTree) {
	for _, v := range t.nodes {
		setString(v, "")
	}
	c.mu.Lock()
	t.lent = false
	c.mu.Unlock()
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
	t := c.lend(rw.main.text)
	if t == nil {
		return nil, nil
	}
	for i, v := range t.nodes {
		setString(v, rw.standIns.values[i])
	}
	return &Statement{Node: t.node, Text: text}, func() { c.give(t) }
}

// keep keeps node, parsed from rw with its stand-ins restored, if it is a
// CALL; it returns the release of the loan.
func (c *Shapes) keep(rw *rewritten, node ast.StmtNode) func() {
	if _, isCall := node.(*ast.CallStmt); !isCall {
		return noRelease
	}
	t := c.add(rw.main.text, node, rw.standIns.nodes)
	if t == nil {
		return noRelease
	}
	return func() { c.give(t) }
}
