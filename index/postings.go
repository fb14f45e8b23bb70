package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

var errCorrupt = errors.New("index: corrupt data")

// postingVersion is the first byte of every posting list.
const postingVersion = 1

// A posting list is the value of one (segment, field, term) key:
//
//	version:1
//	uvarint hits                 total occurrences (sum of counts)
//	uvarint len(bitmap) bitmap   portable roaring bitmap of the ordinals
//	uvarint len(counts) counts   uvarint occurrences per ordinal, in ordinal order
//	positions                    per ordinal, in ordinal order, its counts[i]
//	                             1-based word positions as uvarint deltas
//	                             (first one from 0)
//
// encodePosting writes it, decodePosting reads it.

// appendWriter is an io.Writer that appends to a slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// encodePosting appends the posting list of ords, counts and the encoded
// positions to dst. bm is scratch space.
func encodePosting(dst []byte, bm *roaring.Bitmap, ords, counts []uint32, pos []byte) []byte {
	var hits uint64
	for _, c := range counts {
		hits += uint64(c)
	}
	dst = append(dst, postingVersion)
	dst = binary.AppendUvarint(dst, hits)
	dst = appendBitmap(dst, bm, ords)
	n := 0
	for _, c := range counts {
		n += uvarintLen(uint64(c))
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for _, c := range counts {
		dst = binary.AppendUvarint(dst, uint64(c))
	}
	return append(dst, pos...)
}

// appendBitmap appends the length and the portable roaring bitmap of ords
// (ascending, distinct) to dst. bm is scratch space, used only for lists
// that are not one array container (appendArrayBitmap).
func appendBitmap(dst []byte, bm *roaring.Bitmap, ords []uint32) []byte {
	if n := len(ords); n > 0 && n <= arrayMax && ords[n-1] < 1<<16 {
		dst = binary.AppendUvarint(dst, uint64(arrayHeader+2*n))
		return appendArrayBitmap(dst, ords)
	}
	bm.Clear()
	bm.AddMany(ords)
	dst = binary.AppendUvarint(dst, bm.GetSerializedSizeInBytes())
	w := appendWriter{dst}
	_, _ = bm.WriteTo(&w) // appendWriter does not fail
	return w.b
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// posting is a decoded posting list. It shares the memory of the value it was
// decoded from.
type posting struct {
	bm     *roaring.Bitmap
	hits   uint64
	counts []byte // uvarint per ordinal
	pos    []byte // positions, see postingBuilder
	skips  *postingSkips
}

// postingSkips let positionsOf reach the positions of one ordinal without
// reading those of every ordinal before it: the offsets in counts and pos
// of every skipEvery-th ordinal (by rank). Built on first use and kept with
// the posting (and so in the cache): highlighting a page reads the
// positions of a few documents of long lists, query after query.
type postingSkips struct {
	once sync.Once
	at   []uint32 // per block of skipEvery ordinals: offset in counts, offset in pos
}

const skipEvery = 8

func (p *posting) buildSkips() {
	card := p.bm.GetCardinality()
	at := make([]uint32, 0, 2*(card/skipEvery+1))
	counts, pos := 0, 0
	for r := uint64(0); r < card; r++ {
		if r%skipEvery == 0 {
			at = append(at, uint32(counts), uint32(pos))
		}
		n, k := binary.Uvarint(p.counts[counts:])
		if k <= 0 {
			break // corrupt: positionsOf finds the table short
		}
		counts += k
		pos = skipUvarints(p.pos, pos, int(n))
	}
	p.skips.at = at
}

// skipUvarints returns the offset in b after n uvarints from offset at
// (len(b) when b ends first).
func skipUvarints(b []byte, at, n int) int {
	for ; n > 0 && at < len(b); at++ {
		if b[at] < 0x80 {
			n--
		}
	}
	return at
}

// positionsOf appends the positions of ordinal ord (none when the posting
// does not have it) to dst.
func (p *posting) positionsOf(ord uint32, dst []uint32) []uint32 {
	if !p.bm.Contains(ord) {
		return dst
	}
	p.skips.once.Do(p.buildSkips)
	r := int(p.bm.Rank(ord)) - 1
	blk := r / skipEvery
	if 2*blk+1 >= len(p.skips.at) {
		return dst // corrupt counts
	}
	counts, pos := int(p.skips.at[2*blk]), int(p.skips.at[2*blk+1])
	skip := 0
	for i := blk * skipEvery; i <= r; i++ {
		n, k := binary.Uvarint(p.counts[counts:])
		if k <= 0 {
			return dst
		}
		counts += k
		if i < r {
			skip += int(n)
			continue
		}
		pos = skipUvarints(p.pos, pos, skip)
		var last uint32
		for range n {
			d, k := binary.Uvarint(p.pos[pos:])
			if k <= 0 {
				return dst
			}
			pos += k
			last += uint32(d)
			dst = append(dst, last)
		}
	}
	return dst
}

func decodePosting(val []byte) (posting, error) {
	p := posting{bm: roaring.New(), skips: &postingSkips{}}
	return p, p.decode(val)
}

// decode reads val into p, whose bitmap is reused (a merge decodes a list
// per term and source into one); p keeps slices of val.
func (p *posting) decode(val []byte) error {
	if len(val) < 1 || val[0] != postingVersion {
		return fmt.Errorf("%w: posting version", errCorrupt)
	}
	val = val[1:]
	hits, k := binary.Uvarint(val)
	if k <= 0 {
		return fmt.Errorf("%w: posting hits", errCorrupt)
	}
	val = val[k:]
	p.hits = hits
	n, k := binary.Uvarint(val)
	if k <= 0 || n > uint64(len(val)-k) {
		return fmt.Errorf("%w: posting bitmap", errCorrupt)
	}
	if _, err := p.bm.FromBuffer(val[k : k+int(n)]); err != nil {
		return fmt.Errorf("%w: posting bitmap: %v", errCorrupt, err)
	}
	val = val[k+int(n):]
	n, k = binary.Uvarint(val)
	if k <= 0 || n > uint64(len(val)-k) {
		return fmt.Errorf("%w: posting counts", errCorrupt)
	}
	p.counts = val[k : k+int(n)]
	p.pos = val[k+int(n):]
	return nil
}

// postingCursor walks the ordinals of a posting in order with their counts and,
// on demand, positions (which are skipped lazily, so counting costs nothing).
type postingCursor struct {
	it     *roaring.IntIterator
	counts []byte
	pos    []byte
	skip   uint32 // position values before the current ordinal's not yet skipped
	ord    uint32
	count  uint32
	read   bool // the current ordinal's positions were consumed
}

// cursor starts a cursor over p with it, an iterator the caller provides (a
// search makes thousands a second, so they come from one slab per segment).
func (p *posting) cursor(it *roaring.IntIterator) postingCursor {
	it.Initialize(p.bm)
	return postingCursor{it: it, counts: p.counts, pos: p.pos}
}

// next moves to the next ordinal. It returns false at the end or on corrupt data.
func (c *postingCursor) next() bool {
	if !c.it.HasNext() {
		return false
	}
	if !c.read {
		c.skip += c.count
	}
	c.read = false
	c.ord = c.it.Next()
	n, k := binary.Uvarint(c.counts)
	if k <= 0 {
		c.count = 0
		return false
	}
	c.counts = c.counts[k:]
	c.count = uint32(n)
	return true
}

// appendSpans appends the positions of the current ordinal to dst, in
// order, as spans of one word in field f. Call it at most once per ordinal.
func (c *postingCursor) appendSpans(dst []span, f int) []span {
	if c.read {
		return dst
	}
	if c.skip > 0 {
		c.pos = c.pos[skipUvarints(c.pos, 0, int(c.skip)):]
		c.skip = 0
	}
	n := len(dst)
	dst = slices.Grow(dst, int(c.count))[:n+int(c.count)]
	out := dst[n:]
	var last uint32
	b := c.pos
	j := 0
	for i := range out {
		if j < len(b) && b[j] < 0x80 { // most gaps take one byte
			last += uint32(b[j])
			j++
		} else {
			d, k := binary.Uvarint(b[j:])
			if k <= 0 { // corrupt: the positions read so far
				dst = dst[:n+i]
				break
			}
			j += k
			last += uint32(d)
		}
		out[i] = span{f: f, a: last, b: last}
	}
	c.pos = b[j:]
	c.read = true
	return dst
}
