package index

import (
	"sync"

	"github.com/glint-search/glint/index/query"
)

// queryCache keeps the trees of the queries a table was asked most
// recently, by their text: the same MATCH() text comes again and again
// (a search box's common words, an application's fixed queries), and its
// parse costs more than the lookup of a short search. A tree depends only
// on the text and the table's tokenizer, which a table keeps for its life,
// and nothing changes a tree once parsed. Texts that do not parse are not
// kept: their errors are cheap and rare.
type queryCache struct {
	mu    sync.Mutex
	trees map[string]query.Node
	ring  []string // the keys in the order they came; the oldest goes first
	next  int      // where the next key goes in ring once it is full
}

// Bounds of the cache: how many trees, and the longest text kept.
const (
	queryCacheSize = 512
	queryCacheText = 1 << 10
)

func (c *queryCache) get(text string) (query.Node, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.trees[text]
	return n, ok
}

func (c *queryCache) put(text string, n query.Node) {
	if len(text) > queryCacheText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees == nil {
		c.trees = make(map[string]query.Node, queryCacheSize)
	}
	if _, ok := c.trees[text]; ok {
		return
	}
	if len(c.ring) < queryCacheSize {
		c.ring = append(c.ring, text)
	} else {
		delete(c.trees, c.ring[c.next])
		c.ring[c.next] = text
		c.next = (c.next + 1) % queryCacheSize
	}
	c.trees[text] = n
}
