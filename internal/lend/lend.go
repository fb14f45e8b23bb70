// Package lend is a bounded LRU cache of values by string key whose
// entries are lent to one user at a time: the SQL layer's parse caches
// keep parsed statements, whose trees a statement may write into while it
// runs, so two statements must never hold one tree at once.
//
//	c := lend.New[*Tree](1024, 256) // at most 1024 entries, 256 key bytes each on average
//	if e := c.Lend(text); e != nil {  // kept, and not lent to another
//		defer c.Give(e)
//		run(e.Value)
//	}
package lend

import (
	"container/list"
	"sync"
)

// Cache keeps at most size entries whose keys take at most size*perKey
// bytes in all, the least recently used dropped first. It is safe for
// concurrent use; a nil *Cache keeps nothing.
type Cache[V any] struct {
	mu      sync.Mutex
	size    int
	perKey  int
	bytes   int                      // the keys' bytes
	entries map[string]*list.Element // of *Entry[V]
	lru     list.List                // front: the most recently used
}

// Entry is one kept value, lent to the caller of Lend or Add until it
// calls Give.
type Entry[V any] struct {
	Key   string
	Value V
	lent  bool // guarded by Cache.mu
}

// New returns a Cache of at most size entries and size*perKey bytes of
// keys; nil (nothing kept) when size <= 0.
func New[V any](size, perKey int) *Cache[V] {
	if size <= 0 {
		return nil
	}
	return &Cache[V]{size: size, perKey: perKey, entries: make(map[string]*list.Element, size)}
}

// Lend returns the entry of key lent to the caller, or nil when none is
// kept or it is lent already.
func (c *Cache[V]) Lend(key string) *Entry[V] {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*Entry[V])
	if e.lent {
		return nil
	}
	e.lent = true
	c.lru.MoveToFront(el)
	return e
}

// Add keeps v under key and returns its entry lent to the caller; nil
// (v is not kept) when key is kept already or longer than the whole
// budget.
func (c *Cache[V]) Add(key string, v V) *Entry[V] {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return nil
	}
	e := &Entry[V]{Key: key, Value: v, lent: true}
	c.entries[key] = c.lru.PushFront(e)
	c.bytes += len(key)
	for c.lru.Len() > c.size || c.bytes > c.size*c.perKey {
		last := c.lru.Remove(c.lru.Back()).(*Entry[V])
		delete(c.entries, last.Key)
		c.bytes -= len(last.Key)
	}
	if _, kept := c.entries[key]; !kept {
		return nil // longer than the whole budget: dropped at once
	}
	return e
}

// Give ends the loan of e (nil does nothing). An entry dropped while it
// was lent is simply gone.
func (c *Cache[V]) Give(e *Entry[V]) {
	if c == nil || e == nil {
		return
	}
	c.mu.Lock()
	e.lent = false
	c.mu.Unlock()
}

// Len is the number of entries kept.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes is the bytes of the keys kept.
func (c *Cache[V]) Bytes() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
