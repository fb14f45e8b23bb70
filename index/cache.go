package index

import (
	"hash/maphash"
	"sync"
)

// postingCache keeps decoded posting lists of published segments in memory,
// keyed by their badger key, including the keys that have no posting list
// (most (segment, field, term) triples): a search of hot words then reads no
// storage at all. Published posting lists never change and keys are never
// reused (a segment number is used once per table id, and TRUNCATE and DROP
// retire the table id), so entries never go stale; they only take memory,
// which is bounded: when a shard is over its share of the budget, entries
// picked at random (Go's map order) are dropped.
type postingCache struct {
	seed   maphash.Seed
	shards [cacheShards]cacheShard
	limit  int64 // bytes per shard
}

const cacheShards = 16

type cacheShard struct {
	mu    sync.Mutex
	m     map[string]cacheEntry
	bytes int64
}

// cacheEntry is a decoded posting list, or absent when the key has none.
type cacheEntry struct {
	p      posting
	absent bool
	size   int64
}

// The memory of an entry besides its key and encoded value, measured
// (TestCacheAccounting): the map slot and key string of every entry, and for
// a present one also the decoded bitmap's structures and the skips.
const (
	entryOverhead   = 160
	decodedOverhead = 190
)

func newPostingCache(bytes int64) *postingCache {
	if bytes <= 0 {
		return nil
	}
	c := &postingCache{seed: maphash.MakeSeed(), limit: max(1, bytes/cacheShards)}
	for i := range c.shards {
		c.shards[i].m = map[string]cacheEntry{}
	}
	return c
}

func (c *postingCache) shard(key []byte) *cacheShard {
	return &c.shards[maphash.Bytes(c.seed, key)%cacheShards]
}

// get returns the entry of key, if cached.
func (c *postingCache) get(key []byte) (cacheEntry, bool) {
	if c == nil {
		return cacheEntry{}, false
	}
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[string(key)]
	s.mu.Unlock()
	return e, ok
}

// put caches the entry of key. e.p must not share memory that is reused.
func (c *postingCache) put(key []byte, e cacheEntry, valueLen int) {
	if c == nil {
		return
	}
	e.size = int64(len(key)+valueLen) + entryOverhead
	if !e.absent {
		e.size += decodedOverhead
	}
	if e.size > c.limit/4 {
		return // one huge list would push everything else out
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[string(key)]; ok {
		s.bytes -= old.size
	}
	s.m[string(key)] = e
	s.bytes += e.size
	for k, old := range s.m {
		if s.bytes <= c.limit {
			break
		}
		delete(s.m, k)
		s.bytes -= old.size
	}
}
