package server

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Floats are printed the reference's way: six decimals when they read back
// as the same number, eight otherwise, never an exponent.
func TestFormatFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.000000"},
		{2.5, "2.500000"},
		{-7.99, "-7.990000"},
		{1.0 / 3, "0.33333333"},
		{0.1234567, "0.12345670"},
		{1e-7, "0.00000010"},
		{1e21, "1000000000000000000000.000000"},
		{123456.5, "123456.500000"},
		// The same 32-bit float: the order of a sum does not show.
		{sum(1.3, 8.5, 4.9), "14.700000"}, // 14.700000000000001
		{sum(1.3, 4.9, 8.5), "14.700000"}, // 14.7
		{sum(1.3, 8.5, 4.9) / 3, "4.900000"},
		{sum(0.1, 0.2), "0.300000"},
		{0.1234567891, "0.12345679"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, formatFloat(tt.in), "formatFloat(%v)", tt.in)
	}
}

// sum adds xs up in float64, in their order.
func sum(xs ...float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// JSON and the catalog's answers print a float the shortest way.
func TestFormatShortest(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 2.5: "2.5", 20: "20", 1e-7: "1e-07", 1e21: "1e+21"} {
		assert.Equal(t, want, formatShortest(in), "formatShortest(%v)", in)
	}
}
