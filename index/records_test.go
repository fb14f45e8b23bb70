package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecordRuns(t *testing.T) {
	// The records of a segment merged from segment 4 (ordinals 0-2), 9
	// (ordinal 5, then 7 and 8) and 4 again (ordinal 3).
	var runs []docRun
	for _, r := range [][2]uint32{{4, 0}, {4, 1}, {4, 2}, {9, 5}, {9, 7}, {9, 8}, {4, 3}} {
		runs = appendRecord(runs, r[0], r[1])
	}
	require.Equal(t, []docRun{
		{at: 0, n: 3, seg: 4, ord: 0},
		{at: 3, n: 1, seg: 9, ord: 5},
		{at: 4, n: 2, seg: 9, ord: 7},
		{at: 6, n: 1, seg: 4, ord: 3},
	}, runs)

	s := &segment{seg: 12, ids: make([]uint64, 7), origin: runs}
	want := [][2]uint32{{4, 0}, {4, 1}, {4, 2}, {9, 5}, {9, 7}, {9, 8}, {4, 3}}
	c := recordCursor{s: s}
	for ord, w := range want {
		seg, at := s.record(uint32(ord))
		require.Equal(t, w, [2]uint32{seg, at}, "ordinal %d", ord)
		seg, at = c.record(uint32(ord))
		require.Equal(t, w, [2]uint32{seg, at}, "ordinal %d by cursor", ord)
	}
	own := &segment{seg: 3, ids: make([]uint64, 2)}
	seg, at := own.record(1)
	require.Equal(t, [2]uint32{3, 1}, [2]uint32{seg, at}, "a segment without origin has its own records")

	enc := appendRuns(nil, runs)
	r := byteReader{b: enc}
	got, err := decodeRuns(&r, 7)
	require.NoError(t, err)
	require.Equal(t, runs, got)
	require.Empty(t, r.b)
	r = byteReader{b: enc}
	got, err = decodeRuns(&r, -1)
	require.NoError(t, err)
	require.Equal(t, runs, got)

	for name, b := range map[string][]byte{
		"short":             enc[:len(enc)-1],
		"empty run":         appendRuns(nil, []docRun{{n: 0, seg: 1}}),
		"past ordinal 2^32": appendRuns(nil, []docRun{{n: 2, seg: 1, ord: 1<<32 - 1}}),
		"count too big":     {200, 1},
	} {
		r := byteReader{b: b}
		_, err := decodeRuns(&r, -1)
		require.ErrorIs(t, err, errCorrupt, name)
	}
	r = byteReader{b: enc}
	_, err = decodeRuns(&r, 8)
	require.ErrorIs(t, err, errCorrupt, "runs that do not cover the segment")
}
