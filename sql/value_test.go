package sql

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareIntegerFloat: an integer and a float are ordered exactly,
// not as two floats (2^64-1 as a float is 2^64, and 2^53+1 is 2^53).
func TestCompareIntegerFloat(t *testing.T) {
	for _, c := range []struct {
		a, b any
		want int
	}{
		{uint64(math.MaxUint64), float64(1 << 64), -1},
		{uint64(math.MaxUint64), 1.8446744073709553e19, -1},
		{uint64(1 << 63), float64(1 << 63), 0},
		{uint64(5), 5.5, -1},
		{uint64(6), 5.5, 1},
		{uint64(0), -0.5, 1},
		{uint64(0), 0.0, 0},
		{int64(1<<53 + 1), float64(1 << 53), 1},
		{int64(math.MaxInt64), float64(1 << 63), -1},
		{int64(math.MinInt64), float64(-(1 << 63)), 0},
		{int64(math.MinInt64), -9.3e18, 1},
		{int64(math.MinInt64), -9.2e18, -1},
		{int64(-1), -1.5, 1},
		{int64(-2), -1.5, -1},
		{int64(-1), -1.0, 0},
		{int64(3), math.Inf(1), -1},
		{int64(3), math.Inf(-1), 1},
	} {
		got, ok := compare(collBinary, c.a, c.b)
		require.True(t, ok)
		require.Equal(t, c.want, got, "compare(%v, %v)", c.a, c.b)
		got, _ = compare(collBinary, c.b, c.a)
		require.Equal(t, -c.want, got, "compare(%v, %v)", c.b, c.a)
	}
}
