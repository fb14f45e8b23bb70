//go:build !race

package index

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/assert"
)

// TestCacheAccounting: what the posting cache counts for its entries is
// within a quarter of the heap they take, for absent keys and for decoded
// lists of a few sizes. (The race detector changes allocation sizes, so this
// runs without it.)
func TestCacheAccounting(t *testing.T) {
	for _, n := range []int{0, 1, 3, 40, 400} {
		var occ []ordPos
		for i := range n {
			occ = append(occ, ordPos{ord: uint32(i * 3), pos: uint32(i)})
		}
		val, _ := encodeOccurrences(nil, roaring.New(), nil, occ)
		c := newPostingCache(1 << 40)
		const entries = 50000
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range entries {
			key := fmt.Appendf(nil, "t\x00\x00\x00\x01P\x00\x00\x00%dbody:term%d", i, i)
			if n == 0 {
				c.put(key, cacheEntry{absent: true}, 0)
				continue
			}
			v := append([]byte(nil), val...)
			p, err := decodePosting(v)
			if err != nil {
				t.Fatal(err)
			}
			c.put(key, cacheEntry{p: p}, len(v))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		var counted int64
		for i := range c.shards {
			counted += c.shards[i].bytes
		}
		real := float64(after.HeapAlloc-before.HeapAlloc) / entries
		ratio := float64(counted) / entries / real
		assert.InDelta(t, 1, ratio, 0.25, "%d occurrences: counted %d bytes an entry, the heap grew %.0f", n, counted/entries, real)
		runtime.KeepAlive(c)
	}
}
