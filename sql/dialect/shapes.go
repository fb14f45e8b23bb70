package dialect

import (
	"container/list"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Shapes keeps parsed CALL statements whose long literals (the texts of
// CALL SNIPPETS) had stand-ins, by the text the TiDB parser read: the
// statement with its texts cut out, its query and options in. The next
// statement of the same shape (other texts, the same query and options)
// gets the kept tree with its own texts put in, without parsing. It is
// safe for concurrent use; a nil *Shapes keeps nothing.
//
// A kept tree is lent to one statement at a time (its values are that
// statement's); a statement that finds its shape lent parses for itself.
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

type shape struct {
	key   string
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

func (c *Shapes) lend(key string) *shape {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	sh := el.Value.(*shape)
	if sh.lent {
		return nil
	}
	sh.lent = true
	c.lru.MoveToFront(el)
	return sh
}

// add keeps a tree just parsed and returns it lent to the caller; nil when
// key is kept already.
func (c *Shapes) add(key string, node ast.StmtNode, nodes []*test_driver.ValueExpr) *shape {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return nil
	}
	sh := &shape{key: key, node: node, nodes: nodes, lent: true}
	c.entries[key] = c.lru.PushFront(sh)
	c.bytes += len(key)
	for c.lru.Len() > c.size || c.bytes > c.size*keyPerShape {
		last := c.lru.Remove(c.lru.Back()).(*shape)
		delete(c.entries, last.key)
		c.bytes -= len(last.key)
	}
	if _, kept := c.entries[key]; !kept {
		return nil // longer than the whole budget: dropped at once
	}
	return sh
}

// give ends a loan. The tree lets go of the statement's texts, which may be
// large, so that a kept shape holds none.
func (c *Shapes) give(sh *shape) {
	for _, v := range sh.nodes {
		setString(v, "")
	}
	c.mu.Lock()
	sh.lent = false
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
	sh := c.lend(rw.main.text)
	if sh == nil {
		return nil, nil
	}
	for i, v := range sh.nodes {
		setString(v, rw.standIns.values[i])
	}
	return &Statement{Node: sh.node, Text: text}, func() { c.give(sh) }
}

// keep keeps node, parsed from rw with its stand-ins restored, if it is a
// CALL; it returns the release of the loan.
func (c *Shapes) keep(rw *rewritten, node ast.StmtNode) func() {
	if _, isCall := node.(*ast.CallStmt); !isCall {
		return noRelease
	}
	sh := c.add(rw.main.text, node, rw.standIns.nodes)
	if sh == nil {
		return noRelease
	}
	return func() { c.give(sh) }
}
