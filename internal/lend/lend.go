// Package lend is a bounded LRU cache of values by string key whose
// entries are lent to one user at a time: the SQL layer's parse caches
// keep parsed statements, whose trees a statement may write into while it
// runs, so two statements must never hold one tree at once. A key may
// keep several values (copies), for as many users of it at once.
//
//	c := lend.New[*Tree](1024, 256, 8) // 1024 keys, 256 key bytes a value on average, 8 values a key
//	if e := c.Lend(text); e != nil {  // kept, and not lent to another
//		defer c.Give(e)
//		run(e.Value)
//	}
package lend

import (
	"container/list"
	"sync"
)

// Cache keeps at most size keys, each with at most copies values, whose
// keys take at most size*perKey bytes in all (a key counted once per
// value), the least recently used key dropped first. It is safe for
// concurrent use; a nil *Cache keeps nothing.
type Cache[V any] struct {
	mu      sync.Mutex
	size    int
	perKey  int
	copies  int
	bytes   int                      // the keys' bytes, once per value
	entries map[string]*list.Element // of *slot[V]
	lru     list.List                // front: the most recently used
}

// slot is the values kept under one key.
type slot[V any] struct {
	key     string
	entries []*Entry[V]
}

// Entry is one kept value, lent to the caller of Lend or Add until it
// calls Give.
type Entry[V any] struct {
	Key   string
	Value V
	lent  bool // guarded by Cache.mu
}

// New returns a Cache of at most size keys of at most copies values each
// (at least one), and size*perKey bytes of keys; nil (nothing kept) when
// size <= 0.
func New[V any](size, perKey, copies int) *Cache[V] {
	if size <= 0 {
		return nil
	}
	return &Cache[V]{size: size, perKey: perKey, copies: max(copies, 1), entries: make(map[string]*list.Element, size)}
}

// Lend returns an entry of key lent to the caller, or nil when none is
// kept or all are lent already.
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
	for _, e := range el.Value.(*slot[V]).entries {
		if !e.lent {
			e.lent = true
			c.lru.MoveToFront(el)
			return e
		}
	}
	return nil
}

// Add keeps v under key and returns its entry lent to the caller; nil
// (v is not kept) when key keeps as many values as it may, or is longer
// than the whole budget.
func (c *Cache[V]) Add(key string, v V) *Entry[V] {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		el = c.lru.PushFront(&slot[V]{key: key})
		c.entries[key] = el
	}
	sl := el.Value.(*slot[V])
	if len(sl.entries) >= c.copies {
		return nil
	}
	e := &Entry[V]{Key: key, Value: v, lent: true}
	sl.entries = append(sl.entries, e)
	c.lru.MoveToFront(el)
	c.bytes += len(key)
	for c.lru.Len() > c.size || c.bytes > c.size*c.perKey {
		last := c.lru.Remove(c.lru.Back()).(*slot[V])
		delete(c.entries, last.key)
		c.bytes -= len(last.key) * len(last.entries)
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

// Len is the number of keys kept.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes is the bytes of the keys kept, once per value.
func (c *Cache[V]) Bytes() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
