package tokenize

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/snowballstem"
)

// stemCacheSlots is the number of words a stemCache remembers at most:
// with English words, about 4 MB when it is full (512 KB of slots, the
// rest words and stems). Fewer slots fit the words of a text or two, but
// not those of a workload of many texts and queries: the words the
// filters let through come back from text to text. There is one cache
// for each morphology setting in use (sharedStemCache), whatever the
// number of tables that have it.
const stemCacheSlots = 1 << 16

var (
	stemCachesMu sync.Mutex
	stemCaches   = map[string]*stemCache{}
)

// sharedStemCache is the cache of the stemmers a morphology setting names
// (key: their names in order), shared by every tokenizer that has it: a
// word's stem depends on nothing else.
func sharedStemCache(key string) *stemCache {
	stemCachesMu.Lock()
	defer stemCachesMu.Unlock()
	c := stemCaches[key]
	if c == nil {
		c = newStemCache(stemCacheSlots)
		stemCaches[key] = c
	}
	return c
}

// stemCache remembers the stems of the words a tokenizer has stemmed,
// for every Iter of it: a word is stemmed once, not once per text (Zipf's
// law makes most of a text's words ones seen before). It is a table of
// slots, each holding one word and its stem, in sets of two: a word hashes
// to one set, and is looked for in both its slots. A word stemmed anew
// takes the set's first slot, and what was there moves to the second; a
// word found in the second moves to the first. So a set keeps the two
// words of its last use, and a frequent word loses its slot only to two
// others used since. (With one slot a word, half the words shared their
// slot with another when the table was two-thirds full, and a workload
// that stemmed 21,800 distinct words missed 80 of every 1,300 lookups,
// most of them words it had stemmed before.) Slots are read and written
// atomically, so Iters on any number of goroutines share the cache without
// locks; a move another goroutine makes at the same time can only lose an
// entry or keep it twice, never give a wrong stem (each entry holds its
// word). It never holds more words than it has slots. The slots are made
// on the first word stemmed.
type stemCache struct {
	seed  maphash.Seed
	once  sync.Once
	n     int // slots: a power of two, at least 2
	slots []atomic.Pointer[stemEntry]
}

// stemEntry is a word and its stem.
type stemEntry struct{ word, stem string }

// newStemCache makes a cache of n slots (a power of two, at least 2).
func newStemCache(n int) *stemCache {
	return &stemCache{seed: maphash.MakeSeed(), n: n}
}

// stem returns the stem of word by fns, from the cache when it is there
// (env is scratch for stemming).
func (c *stemCache) stem(fns []func(*snowballstem.Env) bool, env *snowballstem.Env, word []byte) string {
	c.once.Do(func() { c.slots = make([]atomic.Pointer[stemEntry], c.n) })
	set := c.slots[maphash.Bytes(c.seed, word)&uint64(c.n-2):]
	first, second := &set[0], &set[1]
	e1 := first.Load()
	if e1 != nil && e1.word == string(word) {
		return e1.stem
	}
	if e2 := second.Load(); e2 != nil && e2.word == string(word) {
		first.Store(e2)
		second.Store(e1)
		return e2.stem
	}
	w := string(word)
	s := stemWith(fns, env, w)
	first.Store(&stemEntry{word: w, stem: s})
	if e1 != nil {
		second.Store(e1)
	}
	return s
}
