package sql

import (
	"github.com/glint-search/glint/internal/lend"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The parse cache keeps the parsed form of the reading statements the
// engine ran lately, by their exact text, so that a statement sent again
// (the same search, from any connection) skips the dialect's rewrite and
// the TiDB parser, which were about a tenth of a short search's time.
// A SELECT with literals in its WHERE clause has its tree kept by its shape
// (dialect.Shapes, where statements differing only in those literals find
// it); the parse cache then keeps its values and settings, and lends it a
// tree of its shape.
//
// A parsed statement is read, never changed, by the SQL layer (its plans copy
// what they change: facetSelect, DISTINCT, derived tables); but walking it
// with ast.Node.Accept stores each child back into its parent. So an entry is
// lent to one statement at a time: a statement that finds its entry lent
// parses its text itself.

// DefaultParseCache is the number of statements the parse cache holds
// unless SetParseCache says otherwise.
const DefaultParseCache = 1024

// MaxParseCache is the largest parse cache SetParseCache takes.
const MaxParseCache = 1 << 20

// maxCachedText is the longest statement the parse cache keeps: a longer
// one is rarely a query sent again.
const maxCachedText = 4 << 10

// textPerEntry bounds the text the parse cache keeps: size statements of
// textPerEntry bytes on average. A parsed tree takes about 64 bytes per
// byte of its text (measured: 3 KB for a 47-byte search, 64 KB for a
// 1,000-byte IN list), so the default cache's trees stay under about 16 MB
// whatever the statements, and a search of 50 bytes still gets all 1024.
const textPerEntry = 256

// copiesPerText is how many trees of one statement text the parse cache
// keeps: one for each connection running it at once (up to this many).
const copiesPerText = 8

// parseCache is a bounded LRU of parsed statements by text, each lent to
// one statement at a time (lend.Cache). It is safe for concurrent use; a
// nil one caches nothing.
type parseCache struct {
	c *lend.Cache[*dialect.Statement]
}

type cachedStatement = lend.Entry[*dialect.Statement]

func newParseCache(size int) *parseCache {
	if size <= 0 {
		return nil
	}
	return &parseCache{c: lend.New[*dialect.Statement](size, textPerEntry, copiesPerText)}
}

// cacheable reports whether a statement parsed from text may be kept: a
// SELECT or UNION of a reasonable length, or SHOW WARNINGS (a coordinator
// sends one to every shard with every search; its tree is only read).
func cacheable(text string, st *dialect.Statement) bool {
	if len(text) > maxCachedText {
		return false
	}
	switch n := st.Node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return true
	case *ast.ShowStmt:
		return n.Tp == ast.ShowWarnings
	}
	return false
}

// lend returns the cached statement of text, lent to the caller until it
// calls give, or nil.
func (c *parseCache) lend(text string) *cachedStatement {
	if c == nil || len(text) > maxCachedText {
		return nil
	}
	return c.c.Lend(text)
}

// add keeps st, just parsed from text, and returns its entry lent to the
// caller; nil (st is not kept) when the statement is not cacheable or text
// keeps copiesPerText trees already. A statement whose tree the engine's
// shapes lent (st.Shape set) is kept without it: lending it again takes a
// tree of its shape (Session.lendParsed).
func (c *parseCache) add(text string, st *dialect.Statement) *cachedStatement {
	if c == nil || !cacheable(text, st) {
		return nil
	}
	if st.Shape != nil {
		values := *st
		values.Node = nil
		st = &values
	}
	return c.c.Add(text, st)
}

// give ends the loan of e (nil does nothing). An entry evicted while it was
// lent is simply dropped.
func (c *parseCache) give(e *cachedStatement) {
	if c != nil {
		c.c.Give(e)
	}
}

// len is the number of statements cached.
func (c *parseCache) len() int {
	if c == nil {
		return 0
	}
	return c.c.Len()
}
