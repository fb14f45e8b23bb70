package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// layout is what a table's schema means for storage.
type layout struct {
	schema    *Schema
	indexed   []int // columns of indexed text fields; the field byte is the position here
	stored    []int // columns of stored text fields; the docstore field is the position here
	storedPos []int // per column: position in stored, or -1
	attrs     []int // columns that are not text

	// The docstore record of a document holds its stored fields, then the
	// encoded word layout (tokenize.Layout) of each field that is both
	// indexed and stored, so that highlighting need not tokenize it again.
	layoutPos []int // per column: position of its layout in the record, or -1
	record    int   // fields in a record: the stored text fields and the layouts
}

func newLayout(s *Schema) *layout {
	l := &layout{schema: s, storedPos: make([]int, len(s.Columns)), layoutPos: make([]int, len(s.Columns))}
	for i, c := range s.Columns {
		l.storedPos[i], l.layoutPos[i] = -1, -1
		if c.Type != TypeText {
			l.attrs = append(l.attrs, i)
			continue
		}
		if c.Indexed {
			l.indexed = append(l.indexed, i)
		}
		if c.Stored {
			l.storedPos[i] = len(l.stored)
			l.stored = append(l.stored, i)
		}
	}
	l.record = len(l.stored)
	for _, col := range l.indexed {
		if s.Columns[col].Stored {
			l.layoutPos[col] = l.record
			l.record++
		}
	}
	return l
}

// attrColumn holds one attribute column of a segment; which slice is used
// depends on the column type.
type attrColumn struct {
	ints   []int64   // uint, bigint, bool, timestamp
	floats []float64 // float
	strs   []string  // string, json
	multis [][]int64 // multi, multi64
}

func (c attrColumn) clone() attrColumn {
	return attrColumn{
		ints:   slices.Clone(c.ints),
		floats: slices.Clone(c.floats),
		strs:   slices.Clone(c.strs),
		multis: slices.Clone(c.multis),
	}
}

func (c *attrColumn) set(ord int, v Value) {
	switch v := v.(type) {
	case int64:
		c.ints[ord] = v
	case float64:
		c.floats[ord] = v
	case string:
		c.strs[ord] = v
	case []int64:
		c.multis[ord] = v
	}
}

func (c attrColumn) get(t ColumnType, ord uint32) Value {
	switch t {
	case TypeUint, TypeBigint, TypeBool, TypeTimestamp:
		return c.ints[ord]
	case TypeFloat:
		return c.floats[ord]
	case TypeString, TypeJSON:
		return c.strs[ord]
	case TypeMulti, TypeMulti64:
		return c.multis[ord]
	}
	return nil
}

func newAttrColumn(t ColumnType, n int) attrColumn {
	switch t {
	case TypeUint, TypeBigint, TypeBool, TypeTimestamp:
		return attrColumn{ints: make([]int64, n)}
	case TypeFloat:
		return attrColumn{floats: make([]float64, n)}
	case TypeString, TypeJSON:
		return attrColumn{strs: make([]string, n)}
	case TypeMulti, TypeMulti64:
		return attrColumn{multis: make([][]int64, n)}
	}
	return attrColumn{}
}

// segment is one immutable batch of documents, addressed by ordinals 0..n-1.
// A segment value is never modified once published in a Snapshot: a change makes
// a shallow copy with the changed parts copied.
type segment struct {
	seg      uint32   // number in the keys
	ids      []uint64 // by ordinal
	byID     []uint32 // ordinals in ascending id order; nil when ids ascend already
	minID    uint64
	maxID    uint64
	nf       int      // indexed text fields
	lens     []uint32 // words per (ordinal, field): lens[ord*nf+field]
	attrs    []attrColumn
	deleted  *roaring.Bitmap // nil when nothing is deleted; never modified
	nextID   uint64          // the table's next auto id when the segment was made
	totalLen int64           // sum of lens over all ordinals, deleted or not

	// blocks is the block index of each field (blocks.go), and filters
	// the filter of its terms; both nil for a segment written before term
	// blocks, whose every term has a 'P' key.
	blocks  []blockIndex
	filters []termFilter

	// origin is where the docstore records of a merged segment's ordinals
	// are (records.go); nil when they are under the segment's own number.
	origin []docRun

	keys *segmentKeys // shared by the copies; see merge.go
}

func (s *segment) n() int { return len(s.ids) }

func (s *segment) isDeleted(ord uint32) bool {
	return s.deleted != nil && s.deleted.Contains(ord)
}

func (s *segment) live() int {
	if s.deleted == nil {
		return len(s.ids)
	}
	return len(s.ids) - int(s.deleted.GetCardinality())
}

func (s *segment) docLen(ord uint32) uint32 {
	var l uint32
	for _, x := range s.lens[int(ord)*s.nf : int(ord+1)*s.nf] {
		l += x
	}
	return l
}

// find returns the ordinal of id (deleted or not).
func (s *segment) find(id uint64) (uint32, bool) {
	if id < s.minID || id > s.maxID {
		return 0, false
	}
	if s.byID == nil {
		i, ok := slices.BinarySearch(s.ids, id)
		return uint32(i), ok
	}
	i, ok := slices.BinarySearchFunc(s.byID, id, func(ord uint32, id uint64) int {
		switch x := s.ids[ord]; {
		case x < id:
			return -1
		case x > id:
			return 1
		}
		return 0
	})
	if !ok {
		return 0, false
	}
	return s.byID[i], true
}

// ordAt returns the ordinal with the i-th smallest id.
func (s *segment) ordAt(i int) uint32 {
	if s.byID == nil {
		return uint32(i)
	}
	return s.byID[i]
}

// index computes the derived fields (byID, minID, maxID, totalLen).
func (s *segment) index() {
	s.byID = nil
	if len(s.ids) == 0 {
		return
	}
	if !slices.IsSorted(s.ids) {
		s.byID = make([]uint32, len(s.ids))
		for i := range s.byID {
			s.byID[i] = uint32(i)
		}
		slices.SortFunc(s.byID, func(a, b uint32) int {
			switch x, y := s.ids[a], s.ids[b]; {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	}
	s.minID, s.maxID = s.ids[s.ordAt(0)], s.ids[s.ordAt(len(s.ids)-1)]
	s.totalLen = 0
	for _, l := range s.lens {
		s.totalLen += int64(l)
	}
}

// segVersion is the version of the 'A' value (and of 'S' values without
// term blocks); segBlocksVersion that of 'S' values with them, and
// segOriginVersion that of merged segments' (term blocks and origin).
const (
	segVersion       = 1
	segBlocksVersion = 2
	segOriginVersion = 3
)

// encodeSegMeta encodes the 'S' value of a segment:
//
//	version:1 uvarint(n) uvarint(nextID) uvarint(nf)
//	n x varint(id - previous id), the first from 0 (wrapping, zigzag)
//	n*nf x uvarint(words in (ordinal, field))
//	nf x (block index, term filter) (blockIndex.encode, termFilter.encode), from version 2 on
//	the origin's runs (appendRuns), in version 3 only
func encodeSegMeta(s *segment) []byte {
	b := make([]byte, 0, 16+len(s.ids)*(3+s.nf*2))
	switch {
	case s.blocks == nil:
		b = append(b, segVersion)
	case s.origin == nil:
		b = append(b, segBlocksVersion)
	default:
		b = append(b, segOriginVersion)
	}
	b = binary.AppendUvarint(b, uint64(len(s.ids)))
	b = binary.AppendUvarint(b, s.nextID)
	b = binary.AppendUvarint(b, uint64(s.nf))
	var prev uint64
	for _, id := range s.ids {
		b = binary.AppendVarint(b, int64(id-prev))
		prev = id
	}
	for _, l := range s.lens {
		b = binary.AppendUvarint(b, uint64(l))
	}
	for i := range s.blocks {
		b = s.blocks[i].encode(b)
		b = s.filters[i].encode(b)
	}
	if s.origin != nil {
		b = appendRuns(b, s.origin)
	}
	return b
}

// byteReader decodes varints and stops at the first error.
type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[k:]
	return x
}

func (r *byteReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, k := binary.Varint(r.b)
	if k <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[k:]
	return x
}

func (r *byteReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errCorrupt
		return nil
	}
	x := r.b[:n]
	r.b = r.b[n:]
	return x
}

// count reads a count of items that take at least min bytes each.
func (r *byteReader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n*uint64(min) > uint64(len(r.b)) {
		r.err = errCorrupt
		return 0
	}
	return int(n)
}

func decodeSegMeta(seg uint32, val []byte) (*segment, error) {
	if len(val) == 0 || val[0] < segVersion || val[0] > segOriginVersion {
		return nil, fmt.Errorf("%w: segment %d meta version", errCorrupt, seg)
	}
	r := byteReader{b: val[1:]}
	n := r.count(1)
	s := &segment{seg: seg, nextID: r.uvarint(), nf: int(r.uvarint())}
	if r.err == nil && uint64(n)*uint64(s.nf+1) > uint64(len(r.b)) {
		r.err = errCorrupt
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: segment %d meta", errCorrupt, seg)
	}
	s.ids = make([]uint64, n)
	var prev uint64
	for i := range s.ids {
		prev += uint64(r.varint())
		s.ids[i] = prev
	}
	s.lens = make([]uint32, n*s.nf)
	for i := range s.lens {
		s.lens[i] = uint32(r.uvarint())
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: segment %d meta", errCorrupt, seg)
	}
	if val[0] >= segBlocksVersion {
		s.blocks = make([]blockIndex, s.nf)
		s.filters = make([]termFilter, s.nf)
		for f := range s.blocks {
			var err error
			if s.blocks[f], err = decodeBlockIndex(&r); err == nil {
				s.filters[f], err = decodeTermFilter(&r)
			}
			if err != nil {
				return nil, fmt.Errorf("segment %d field %d: %w", seg, f, err)
			}
		}
	}
	if val[0] == segOriginVersion {
		var err error
		if s.origin, err = decodeRuns(&r, n); err != nil {
			return nil, fmt.Errorf("segment %d: %w", seg, err)
		}
	}
	if len(r.b) > 0 {
		return nil, fmt.Errorf("%w: segment %d meta: %d bytes after the end", errCorrupt, seg, len(r.b))
	}
	s.index()
	return s, nil
}

// encodeAttrs encodes the 'A' value of a segment: version:1, uvarint(number of
// attribute columns), then per attribute column in schema order
// uvarint(column index), type:1 and n values:
//
//	integer types: varint each (zigzag)
//	float: 8 bytes little-endian IEEE 754 each
//	string, json: uvarint(length) bytes
//	multi, multi64: uvarint(count), then varint deltas from 0
func encodeAttrs(l *layout, s *segment) []byte {
	n := len(s.ids)
	b := make([]byte, 0, 8+n*len(l.attrs)*4)
	b = append(b, segVersion)
	b = binary.AppendUvarint(b, uint64(len(l.attrs)))
	for _, col := range l.attrs {
		t := l.schema.Columns[col].Type
		b = binary.AppendUvarint(b, uint64(col))
		b = append(b, byte(t))
		c := s.attrs[col]
		switch t {
		case TypeUint, TypeBigint, TypeBool, TypeTimestamp:
			for _, v := range c.ints {
				b = binary.AppendVarint(b, v)
			}
		case TypeFloat:
			for _, v := range c.floats {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			}
		case TypeString, TypeJSON:
			for _, v := range c.strs {
				b = binary.AppendUvarint(b, uint64(len(v)))
				b = append(b, v...)
			}
		case TypeMulti, TypeMulti64:
			for _, v := range c.multis {
				b = binary.AppendUvarint(b, uint64(len(v)))
				var prev int64
				for _, x := range v {
					b = binary.AppendVarint(b, x-prev)
					prev = x
				}
			}
		}
	}
	return b
}

func decodeAttrs(l *layout, s *segment, val []byte) error {
	if len(val) == 0 || val[0] != segVersion {
		return fmt.Errorf("%w: segment %d attributes version", errCorrupt, s.seg)
	}
	r := byteReader{b: val[1:]}
	n := len(s.ids)
	s.attrs = make([]attrColumn, len(l.schema.Columns))
	ncols := r.count(2)
	if r.err == nil && ncols != len(l.attrs) {
		r.err = errCorrupt
	}
	for k := 0; k < ncols && r.err == nil; k++ {
		col := int(r.uvarint())
		tb := r.bytes(1)
		if r.err != nil || col != l.attrs[k] || ColumnType(tb[0]) != l.schema.Columns[col].Type {
			r.err = errCorrupt
			break
		}
		t := ColumnType(tb[0])
		c := newAttrColumn(t, n)
		switch t {
		case TypeUint, TypeBigint, TypeBool, TypeTimestamp:
			for i := range c.ints {
				c.ints[i] = r.varint()
			}
		case TypeFloat:
			raw := r.bytes(uint64(8 * n))
			for i := range c.floats {
				if r.err == nil {
					c.floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
				}
			}
		case TypeString, TypeJSON:
			for i := range c.strs {
				c.strs[i] = string(r.bytes(r.uvarint()))
			}
		case TypeMulti, TypeMulti64:
			for i := range c.multis {
				m := r.count(1)
				if m == 0 || r.err != nil {
					continue
				}
				v := make([]int64, m)
				var prev int64
				for j := range v {
					prev += r.varint()
					v[j] = prev
				}
				c.multis[i] = v
			}
		}
		s.attrs[col] = c
	}
	if r.err != nil {
		return fmt.Errorf("%w: segment %d attributes", errCorrupt, s.seg)
	}
	return nil
}
