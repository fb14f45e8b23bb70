package tokenize

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blevesearch/snowballstem"
	"github.com/stretchr/testify/require"
)

// stemTestWords are words to stem: English ones with the suffixes the
// stemmers look at, and strings of letters that make many more of them.
func stemTestWords() []string {
	words := []string{"a", "as", "is", "s", "ies", "yes", "y", "yy", "ys", "aed", "ties", "skies", "dying",
		"generously", "running", "cities", "1990s", "4th", "x1", "yearly", "youthfulness", "ability",
		"biliti", "ization", "ational", "agreed", "ugly", "only", "succeeding", "happiness"}
	seed := uint64(7)
	letters := "aeiouybcdglmnrstz0'"
	for range 20000 {
		seed = seed*6364136223846793005 + 1442695040888963407
		n := 1 + int(seed>>59)%12
		b := make([]byte, n)
		for i := range b {
			seed = seed*6364136223846793005 + 1442695040888963407
			b[i] = letters[int(seed>>33)%len(letters)]
		}
		words = append(words, string(b))
	}
	for _, suffix := range []string{"ing", "ingly", "edly", "ies", "ied", "sses", "ational", "fulness", "iviti", "li", "y", "s", "'s'"} {
		for _, stem := range []string{"a", "ab", "yab", "cry", "hop", "bl", "iz", "at", "generous", "tr"} {
			words = append(words, stem+suffix)
		}
	}
	return words
}

// TestKeepsHead checks the property the stemmers marked keepsHead are
// trusted with: a word that starts with a lower-case ASCII letter or digit
// has a stem that starts with the same byte and is no longer.
func TestKeepsHead(t *testing.T) {
	env := snowballstem.NewEnv("")
	words := stemTestWords()
	for name, s := range stemmers {
		if !s.keepsHead {
			continue
		}
		for _, w := range words {
			if c := w[0]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
				continue
			}
			stem := stemWith([]func(*snowballstem.Env) bool{s.stem}, env, w)
			require.True(t, stem != "" && stem[0] == w[0] && len(stem) <= len(w), "%s: %q -> %q", name, w, stem)
		}
	}
}

// TestStemCache: the cache gives what stemming gives, on many goroutines
// at once, for more words than it holds.
func TestStemCache(t *testing.T) {
	fns := []func(*snowballstem.Env) bool{stemmers["stem_en"].stem}
	c := newStemCache(1 << 10)
	words := stemTestWords() // (many more than the cache holds)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			env := snowballstem.NewEnv("")
			for k := range words {
				w := words[(k*(g+1))%len(words)]
				want := stemWith(fns, env, w)
				if got := c.stem(fns, env, []byte(w)); got != want {
					panic(fmt.Sprintf("stem of %q: %q from the cache, %q by stemming", w, got, want))
				}
			}
		})
	}
	wg.Wait()
}

// TestStemCacheSet: a set keeps the two words of its last use, the one
// used last in its first slot.
func TestStemCacheSet(t *testing.T) {
	fns := []func(*snowballstem.Env) bool{stemmers["stem_en"].stem}
	env := snowballstem.NewEnv("")
	c := newStemCache(2) // one set: every word hashes to it
	held := func() (words []string) {
		for i := range c.slots {
			if e := c.slots[i].Load(); e != nil {
				words = append(words, e.word+">"+e.stem)
			}
		}
		return words
	}
	require.Equal(t, "run", c.stem(fns, env, []byte("running")))
	require.Equal(t, "citi", c.stem(fns, env, []byte("cities")))
	require.Equal(t, []string{"cities>citi", "running>run"}, held())
	require.Equal(t, "run", c.stem(fns, env, []byte("running")), "found in the second slot")
	require.Equal(t, []string{"running>run", "cities>citi"}, held(), "and moved to the first")
	require.Equal(t, "happi", c.stem(fns, env, []byte("happiness")))
	require.Equal(t, []string{"happiness>happi", "running>run"}, held(), "the word used least recently goes")
}

// TestSharedStemCache: tokenizers of one morphology share a cache, those
// of another have theirs.
func TestSharedStemCache(t *testing.T) {
	rules := func(morphology ...string) *rules {
		r, err := (&Config{Morphology: morphology}).compile()
		require.NoError(t, err)
		return r
	}
	require.Same(t, rules("stem_en").stems, rules("stem_en").stems)
	require.NotSame(t, rules("stem_en").stems, rules("stem_ru").stems)
	require.NotSame(t, rules("stem_en").stems, rules("stem_en", "stem_ru").stems)
	require.Nil(t, rules().stems)
}
