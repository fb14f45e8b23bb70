package server

import (
	"math"
	"testing"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestArgValueDateTime: date and time parameters of a prepared statement
// in the binary protocol's form (JDBC's setTimestamp, setDate, setTime)
// arrive as the literals glint reads, in each length the protocol allows.
func TestArgValueDateTime(t *testing.T) {
	le16 := func(v int) []byte { return []byte{byte(v), byte(v >> 8)} }
	le32 := func(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	for _, tc := range []struct {
		tp   byte
		b    []byte
		want string
	}{
		{mysql.MYSQL_TYPE_DATETIME, cat(le16(2000), []byte{1, 2}), "2000-01-02 00:00:00"},
		{mysql.MYSQL_TYPE_DATETIME, cat(le16(2024), []byte{5, 6, 7, 8, 9}), "2024-05-06 07:08:09"},
		{mysql.MYSQL_TYPE_TIMESTAMP, cat(le16(2024), []byte{5, 6, 7, 8, 9}, le32(120)), "2024-05-06 07:08:09.000120"},
		{mysql.MYSQL_TYPE_DATETIME, nil, "0000-00-00 00:00:00"},
		{mysql.MYSQL_TYPE_DATE, cat(le16(1999), []byte{12, 31}), "1999-12-31"},
		{mysql.MYSQL_TYPE_TIME, cat([]byte{0}, le32(0), []byte{10, 20, 30}), "10:20:30"},
		{mysql.MYSQL_TYPE_TIME, cat([]byte{1}, le32(2), []byte{1, 0, 5}, le32(7)), "-49:00:05.000007"},
		{mysql.MYSQL_TYPE_TIME, nil, "00:00:00"},
	} {
		v, err := argValue(mysql.TypedBytes{Type: tc.tp, Bytes: tc.b})
		require.NoError(t, err)
		assert.Equal(t, tc.want, v, "type %d, % x", tc.tp, tc.b)
	}
	_, err := argValue(mysql.TypedBytes{Type: mysql.MYSQL_TYPE_DATETIME, Bytes: []byte{1, 2, 3}})
	require.ErrorContains(t, err, "a date parameter of 3 bytes")
	_, err = argValue(mysql.TypedBytes{Type: mysql.MYSQL_TYPE_TIME, Bytes: []byte{1}})
	require.ErrorContains(t, err, "a time parameter of 1 bytes")
}
