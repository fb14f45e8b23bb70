package index

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"
)

func TestPostingRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		occs []occ
	}{
		{"one", []occ{{0, 1}}},
		{"one doc many positions", []occ{{3, 1}, {3, 2}, {3, 200}, {3, 70000}}},
		{"many docs", []occ{{0, 5}, {1, 1}, {1, 9}, {7, 3}, {65536, 2}, {65537, 1}, {65537, 4}}},
		{"more docs than a skip block", manyOccs()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b postingBuilder
			want := map[uint32][]uint32{}
			var ords []uint32
			for _, o := range c.occs {
				b.add(o.ord, o.pos)
				if _, ok := want[o.ord]; !ok {
					ords = append(ords, o.ord)
				}
				want[o.ord] = append(want[o.ord], o.pos)
			}
			val := encodePosting([]byte("x"), roaring.New(), b.ords, b.counts, b.pos)[1:]
			p, err := decodePosting(val)
			require.NoError(t, err)
			require.Equal(t, uint64(len(c.occs)), p.hits)
			require.Equal(t, ords, p.bm.ToArray())

			// Positions read back, for every ordinal.
			cur := p.cursor(new(roaring.IntIterator))
			for _, ord := range ords {
				require.True(t, cur.next())
				require.Equal(t, ord, cur.ord)
				require.Equal(t, uint32(len(want[ord])), cur.count)
				require.Equal(t, want[ord], cursorPositions(&cur, 2))
			}
			require.False(t, cur.next())

			// Counts only: positions are skipped lazily; reading the last one works.
			cur = p.cursor(new(roaring.IntIterator))
			for range ords {
				require.True(t, cur.next())
			}
			last := ords[len(ords)-1]
			require.Equal(t, want[last], cursorPositions(&cur, 2))

			// One ordinal at a time, in any order, through the skip table.
			for i := len(ords) - 1; i >= 0; i-- {
				require.Equal(t, want[ords[i]], p.positionsOf(ords[i], nil), "ord %d", ords[i])
				require.Empty(t, p.positionsOf(ords[i]+1_000_000, nil))
			}
		})
	}
}

type occ struct{ ord, pos uint32 }

// cursorPositions reads the positions of the cursor's ordinal as spans of
// field f and checks that they are spans of one word in f.
func cursorPositions(c *postingCursor, f int) []uint32 {
	var out []uint32
	for _, sp := range c.appendSpans(nil, f) {
		if sp.f != f || sp.a != sp.b {
			return nil
		}
		out = append(out, sp.a)
	}
	return out
}

// manyOccs are the occurrences of a term in 100 documents, a growing
// number of them in each (so that skip blocks hold different counts).
func manyOccs() []occ {
	var out []occ
	for ord := uint32(0); ord < 100; ord++ {
		for k := uint32(0); k <= ord%13; k++ {
			out = append(out, occ{ord * 3, 1 + k*k*50})
		}
	}
	return out
}

func TestPostingCorrupt(t *testing.T) {
	for name, val := range map[string][]byte{
		"empty":          nil,
		"bad version":    {9},
		"short bitmap":   {postingVersion, 1, 50, 1, 2},
		"garbage bitmap": {postingVersion, 1, 3, 1, 2, 3, 0},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := decodePosting(val)
			require.ErrorIs(t, err, errCorrupt)
		})
	}
}

func testSchema() Schema {
	return Schema{Name: "Books", Columns: []Column{
		{Name: "title", Type: TypeText, Indexed: true, Stored: true},
		{Name: "body", Type: TypeText, Indexed: true, Stored: true},
		{Name: "note", Type: TypeText, Stored: true},
		{Name: "secret", Type: TypeText, Indexed: true},
		{Name: "price", Type: TypeFloat},
		{Name: "year", Type: TypeUint},
		{Name: "big", Type: TypeBigint},
		{Name: "ok", Type: TypeBool},
		{Name: "ts", Type: TypeTimestamp},
		{Name: "author", Type: TypeString},
		{Name: "tags", Type: TypeMulti},
		{Name: "tags64", Type: TypeMulti64},
		{Name: "meta", Type: TypeJSON},
	}}
}

func TestSegmentMetaRoundTrip(t *testing.T) {
	sc := testSchema()
	l := newLayout(&sc)
	s := &segment{seg: 7, ids: []uint64{5, 3, 1 << 63, 9}, nf: 3, lens: []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 100000}, nextID: 42}
	s.attrs = make([]attrColumn, len(sc.Columns))
	for _, col := range l.attrs {
		s.attrs[col] = newAttrColumn(sc.Columns[col].Type, 4)
	}
	s.attrs[4].floats = []float64{1.5, -2, 0, 3e300}
	s.attrs[5].ints = []int64{0, 1, 4294967295, 7}
	s.attrs[6].ints = []int64{-1 << 63, -5, 0, 1<<63 - 1}
	s.attrs[9].strs = []string{"", "Ann", "Привет", "x"}
	s.attrs[10].multis = [][]int64{nil, {1, 2, 3}, {4294967295}, nil}
	s.attrs[11].multis = [][]int64{{-5, 0, 9}, nil, nil, {1}}
	s.attrs[12].strs = []string{`{"a":1}`, "", "", "[]"}
	s.index()

	got, err := decodeSegMeta(7, encodeSegMeta(s))
	require.NoError(t, err)
	require.NoError(t, decodeAttrs(l, got, encodeAttrs(l, s)))
	require.Equal(t, s, got, "without term blocks (version 1)")

	blocked := *s
	blocked.blocks = make([]blockIndex, 3)
	for _, term := range []string{"apple", "kiwi", "kiwis", "\xffz"} {
		blocked.blocks[0].add([]byte(term))
	}
	blocked.blocks[2].add([]byte("z"))
	blocked.filters = []termFilter{newTermFilter(4), newTermFilter(0), newTermFilter(1000)}
	blocked.filters[0].add([]byte("apple"))
	blocked.filters[2].add([]byte("z"))
	requireMetaRoundTrip(t, l, &blocked, segBlocksVersion, "with term blocks (version 2)")
	merged := blocked
	merged.origin = []docRun{{at: 0, n: 2, seg: 3, ord: 10}, {at: 2, n: 1, seg: 5, ord: 0}, {at: 3, n: 1, seg: 3, ord: 12}}
	requireMetaRoundTrip(t, l, &merged, segOriginVersion, "with an origin (version 3)")
	merged.origin = merged.origin[:2] // covers 3 of the 4 ordinals
	_, err = decodeSegMeta(7, encodeSegMeta(&merged))
	require.ErrorIs(t, err, errCorrupt, "an origin that does not cover every ordinal")

	require.Equal(t, []uint32{1, 0, 3, 2}, got.byID)
	require.Equal(t, int64(100000+45), got.totalLen)

	for _, id := range s.ids {
		ord, ok := got.find(id)
		require.True(t, ok)
		require.Equal(t, id, got.ids[ord])
	}
	_, ok := got.find(4)
	require.False(t, ok)

	_, err = decodeSegMeta(1, []byte{segVersion, 100})
	require.ErrorIs(t, err, errCorrupt)
	require.ErrorIs(t, decodeAttrs(l, got, []byte{segVersion, 1}), errCorrupt)
}

// requireMetaRoundTrip checks that s's meta is of version and decodes to s
// (with its attributes), and that every truncation of it and a byte after
// its end are errors.
func requireMetaRoundTrip(t *testing.T, l *layout, s *segment, version byte, what string) {
	t.Helper()
	meta := encodeSegMeta(s)
	require.Equal(t, version, meta[0], what)
	got, err := decodeSegMeta(s.seg, meta)
	require.NoError(t, err, what)
	require.NoError(t, decodeAttrs(l, got, encodeAttrs(l, s)), what)
	require.Equal(t, s, got, what)
	for cut := 1; cut < len(meta); cut++ {
		_, err := decodeSegMeta(s.seg, meta[:cut])
		require.ErrorIs(t, err, errCorrupt, "%s: cut at %d", what, cut)
	}
	_, err = decodeSegMeta(s.seg, append(meta, 0))
	require.ErrorIs(t, err, errCorrupt, "%s: a byte after the end", what)
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		name string
		typ  ColumnType
		in   Value
		want Value
		bad  bool
	}{
		{"text nil", TypeText, nil, "", false},
		{"text", TypeText, "a", "a", false},
		{"text int", TypeText, int64(1), nil, true},
		{"string", TypeString, "s", "s", false},
		{"json", TypeJSON, "{}", "{}", false},
		{"float", TypeFloat, 1.5, 1.5, false},
		{"float nil", TypeFloat, nil, 0.0, false},
		{"float from int", TypeFloat, int64(1), nil, true},
		{"uint", TypeUint, int64(4294967295), int64(4294967295), false},
		{"uint too big", TypeUint, int64(4294967296), nil, true},
		{"uint negative", TypeUint, int64(-1), nil, true},
		{"uint from int", TypeUint, 5, nil, true},
		{"timestamp", TypeTimestamp, int64(1700000000), int64(1700000000), false},
		{"bool", TypeBool, int64(1), int64(1), false},
		{"bool 2", TypeBool, int64(2), nil, true},
		{"bigint", TypeBigint, int64(-1 << 63), int64(-1 << 63), false},
		{"bigint nil", TypeBigint, nil, int64(0), false},
		{"multi sorted", TypeMulti, []int64{3, 1, 3, 2}, []int64{1, 2, 3}, false},
		{"multi nil", TypeMulti, nil, []int64(nil), false},
		{"multi empty", TypeMulti, []int64{}, []int64(nil), false},
		{"multi out of range", TypeMulti, []int64{-1}, nil, true},
		{"multi64 negative", TypeMulti64, []int64{5, -5}, []int64{-5, 5}, false},
		{"multi string", TypeMulti, "1,2", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := normalize(&Column{Name: "c", Type: c.typ}, c.in)
			if c.bad {
				var ve *ValueError
				require.ErrorAs(t, err, &ve)
				require.Equal(t, "c", ve.Column)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestTermDict(t *testing.T) {
	d := newTermDict(0)
	want := map[string]uint32{}
	for i := 0; i < 100000; i++ {
		w := []byte{byte('a' + i%26), byte(i / 26 % 251), byte(i / 6526)}
		if i%3 == 0 {
			w = w[:1+i%3]
		}
		id := d.id(w)
		if old, ok := want[string(w)]; ok {
			require.Equal(t, old, id)
		} else {
			require.Equal(t, uint32(len(want)), id)
			want[string(w)] = id
		}
	}
	require.Equal(t, len(want), d.len())
	for w, id := range want {
		require.Equal(t, w, string(d.term(id)))
	}
}

func TestHead(t *testing.T) {
	text := []byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\xff\xfe")
	for lo := 0; lo < 3; lo++ {
		for n := 0; lo+n <= len(text); n++ {
			term := text[lo : lo+n]
			var b [8]byte
			copy(b[:], term)
			require.Equal(t, binary.LittleEndian.Uint64(b[:]), head(term), "%x", term)
		}
	}
}

func TestArrayBitmap(t *testing.T) {
	cases := [][]uint32{{0}, {7}, {65535}, {1, 2, 3}, {0, 999, 1000, 65535}}
	var all []uint32
	for i := range uint32(arrayMax) {
		all = append(all, i*13%65536)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	cases = append(cases, all[:arrayMax/2], all)
	for _, ords := range cases {
		bm := roaring.New()
		bm.AddMany(ords)
		var want bytes.Buffer
		_, err := bm.WriteTo(&want)
		require.NoError(t, err)
		got := appendArrayBitmap([]byte("x"), ords)
		require.Equal(t, want.Bytes(), got[1:], "%d ordinals", len(ords))
		require.Equal(t, arrayHeader+2*len(ords), len(got)-1)
	}
}

// postingBuilder collects the occurrences of one term, as encodePosting takes
// them.
type postingBuilder struct {
	ords    []uint32
	counts  []uint32
	pos     []byte
	lastPos uint32
}

// add records that word position pos (1-based, increasing within a document)
// of document ord holds the term. Documents must come in ascending ord order.
func (p *postingBuilder) add(ord, pos uint32) {
	n := len(p.ords)
	if n == 0 || p.ords[n-1] != ord {
		p.ords = append(p.ords, ord)
		p.counts = append(p.counts, 0)
		p.lastPos = 0
		n++
	}
	p.counts[n-1]++
	p.pos = binary.AppendUvarint(p.pos, uint64(pos-p.lastPos))
	p.lastPos = pos
}
