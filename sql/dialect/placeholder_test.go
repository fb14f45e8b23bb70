package dialect

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []int
	}{
		{"none", "SELECT 1", nil},
		{"two", "SELECT ? FROM t WHERE id = ?", []int{7, 27}},
		{"not in literals or comments", "SELECT '?', \"?\", `?`, ? /* ? */ -- ?\n", []int{22}},
		{"adjacent", "(?,?)", []int{1, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Placeholders(tc.in))
		})
	}
}

func TestInterpolate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		args []any
		want string
	}{
		{"no placeholders", "SELECT 1", nil, "SELECT 1"},
		{"null", "SELECT ?", []any{nil}, "SELECT NULL"},
		{"integers", "SELECT ?, ?, ?", []any{int64(-5), uint64(math.MaxUint64), 7}, "SELECT -5, 18446744073709551615, 7"},
		{"bools", "SELECT ?, ?", []any{true, false}, "SELECT 1, 0"},
		{"floats keep full precision", "SELECT ?, ?, ?", []any{0.1, 1e21, float64(1) / 3},
			"SELECT 0.1, 1e+21, 0.3333333333333333"},
		{"float32", "SELECT ?", []any{float32(0.1)}, "SELECT 0.1"},
		{"string", "SELECT ?", []any{"abc"}, "SELECT 'abc'"},
		{"string escapes", "SELECT ?", []any{"a'b\"c\\d\x00e\nf\rg\x1ah"}, `SELECT 'a\'b\"c\\d\0e\nf\rg\Zh'`},
		{"bytes", "SELECT ?", []any{[]byte("x'y")}, `SELECT 'x\'y'`},
		{"binary bytes untouched", "SELECT ?", []any{[]byte{0xff, 0xfe}}, "SELECT '\xff\xfe'"},
		{"placeholders in literals are left", "SELECT '?', ? -- ?", []any{"q"}, "SELECT '?', 'q' -- ?"},
		{"value with placeholder mark", "SELECT ?, ?", []any{"?", 1}, "SELECT '?', 1"},
		{"minus before a negative number", "SELECT 1-?", []any{-1}, "SELECT 1--1"},
		{"adjacent placeholders", "SELECT ???", []any{"a", -7, 1.5}, "SELECT 'a' -7 1.5"},
		{"spaced from adjacent literals", "SELECT '='?'x', ?1, a?.b", []any{"s", 2, 3}, "SELECT '=' 's' 'x', 2 1, a 3 .b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Interpolate(tc.in, tc.args)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestInterpolateErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		args []any
		want string
	}{
		{"too few arguments", "SELECT ?, ?", []any{1}, "dialect: the statement has 2 placeholder(s), got 1 argument(s)"},
		{"too many arguments", "SELECT '?'", []any{1}, "dialect: the statement has 0 placeholder(s), got 1 argument(s)"},
		{"unsupported type", "SELECT ?", []any{struct{}{}}, "dialect: argument 1: cannot write a struct {} as an SQL literal"},
		{"NaN", "SELECT ?, ?", []any{1, math.NaN()}, "dialect: argument 2: NaN is not a number SQL can hold"},
		{"infinity", "SELECT ?", []any{math.Inf(-1)}, "dialect: argument 1: -Inf is not a number SQL can hold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Interpolate(tc.in, tc.args)
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestInterpolateParses checks that interpolated values read back as the same
// values through the TiDB parser.
func TestInterpolateParses(t *testing.T) {
	text, err := Interpolate("SELECT ? FROM t WHERE MATCH(?) OPTION max_matches=?",
		[]any{"it's \\ \"x\"\n", "a -b", int64(1000)})
	require.NoError(t, err)
	st, err := Parse(nil, text)
	require.NoError(t, err)
	require.Equal(t, "it's \\ \"x\"\n", fieldValue(t, st, 0))
	require.Len(t, st.Settings, 1)
	require.Equal(t, int64(1000), valueOf(t, st.Settings[0].Value))
}
