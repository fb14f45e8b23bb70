package index

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Where the docstore records of a segment are.
//
// A statement's segment writes the record of its ordinal ord under
// ('D', seg, ord). A merge does not copy records: the stored text is most of
// a table's bytes, and copying it again at every level a document climbs
// made merges the bulk of the writing. A merged segment keeps instead, for
// its ordinals, the (segment, ordinal) each record was written under, as runs
// (its origin), and the records stay where they are until their document is
// left out of a merge (deleted): the merge lists those records in the
// retired marker of the source ('R' <seg>), and they are deleted with the
// source's other keys once no snapshot reads the source (maintain.go), or at
// the next Open.
//
// A merged segment's number is higher than every segment its records are
// under, so the numbers of live segments stay above them and are never
// reused while a record is under them.

// docRun says that the records of ordinals [at, at+n) are under ordinals
// [ord, ord+n) of segment seg.
type docRun struct{ at, n, seg, ord uint32 }

// appendRecord appends the record (seg, ord) as the next ordinal of runs.
func appendRecord(runs []docRun, seg, ord uint32) []docRun {
	if k := len(runs) - 1; k >= 0 {
		if r := &runs[k]; r.seg == seg && r.ord+r.n == ord {
			r.n++
			return runs
		}
		return append(runs, docRun{at: runs[k].at + runs[k].n, n: 1, seg: seg, ord: ord})
	}
	return append(runs, docRun{n: 1, seg: seg, ord: ord})
}

// record returns where the record of ordinal ord is.
func (s *segment) record(ord uint32) (seg, at uint32) {
	if s.origin == nil {
		return s.seg, ord
	}
	i := sort.Search(len(s.origin), func(i int) bool { return s.origin[i].at > ord }) - 1
	r := s.origin[i]
	return r.seg, r.ord + ord - r.at
}

// recordCursor finds the records of a segment's ordinals in ascending order.
type recordCursor struct {
	s *segment
	i int
}

func (c *recordCursor) record(ord uint32) (seg, at uint32) {
	if c.s.origin == nil {
		return c.s.seg, ord
	}
	for r := c.s.origin[c.i]; r.at+r.n <= ord; r = c.s.origin[c.i] {
		c.i++
	}
	r := c.s.origin[c.i]
	return r.seg, r.ord + ord - r.at
}

// appendRuns encodes runs: uvarint(count), then uvarint(n), uvarint(seg),
// uvarint(ord) of each (at is the sum of the n before it).
func appendRuns(b []byte, runs []docRun) []byte {
	b = binary.AppendUvarint(b, uint64(len(runs)))
	for _, r := range runs {
		b = binary.AppendUvarint(b, uint64(r.n))
		b = binary.AppendUvarint(b, uint64(r.seg))
		b = binary.AppendUvarint(b, uint64(r.ord))
	}
	return b
}

// decodeRuns reads what appendRuns wrote, runs covering n ordinals (any
// number when n < 0).
func decodeRuns(r *byteReader, n int) ([]docRun, error) {
	count := r.count(3)
	runs := make([]docRun, 0, count)
	var at uint64
	for range count {
		l, seg, ord := r.uvarint(), r.uvarint(), r.uvarint()
		if r.err != nil || l == 0 || l > 1<<32-1 || seg > 1<<32-1 || ord+l > 1<<32 {
			return nil, fmt.Errorf("%w: record run %d", errCorrupt, len(runs))
		}
		runs = append(runs, docRun{at: uint32(at), n: uint32(l), seg: uint32(seg), ord: uint32(ord)})
		at += l
	}
	if r.err != nil || (n >= 0 && at != uint64(n)) {
		return nil, fmt.Errorf("%w: record runs cover %d of %d ordinals", errCorrupt, at, n)
	}
	return runs, nil
}
