package tokenize

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/snowballstem"
)

// stemCacheSlots is the number of words a stemCache remembers at most:
// with English words, about 2 MB when it is full (256 KB of slots, the
// rest words and stems). Fewer slots fit the words of a text or two, but
// not those of a workload of many texts and queries: the words the
// filters let through come back from text to text.
const stemCacheSlots = 1 << 15

// stemCache remembers the stems of the words a tokenizer has stemmed,
// for every Iter of it: a word is stemmed once, not once per text (Zipf's
// law makes most of a text's words ones seen before). It is a table of
// slots, each holding one word and its stem; a word hashes to one slot,
// and a word stemmed anew takes its slot, whatever it held. Slots are read
// and written atomically, so Iters on any number of goroutines share the
// cache without locks, and it never holds more than stemCacheSlots words.
// The slots are made on the first word stemmed.
type stemCache struct {
	seed  maphash.Seed
	once  sync.Once
	slots []atomic.Pointer[stemEntry]
}

// stemEntry is a word and its stem.
type stemEntry struct{ word, stem string }

func newStemCache() *stemCache {
	return &stemCache{seed: maphash.MakeSeed()}
}

// stem returns the stem of word by fns, from the cache when it is there
// (env is scratch for stemming).
func (c *stemCache) stem(fns []func(*snowballstem.Env) bool, env *snowballstem.Env, word []byte) string {
	c.once.Do(func() { c.slots = make([]atomic.Pointer[stemEntry], stemCacheSlots) })
	slot := &c.slots[maphash.Bytes(c.seed, word)&(stemCacheSlots-1)]
	if e := slot.Load(); e != nil && e.word == string(word) {
		return e.stem
	}
	w := string(word)
	s := stemWith(fns, env, w)
	slot.Store(&stemEntry{word: w, stem: s})
	return s
}
