package catalog

import (
	"cmp"
	"math"
	"strconv"
	"strings"
)

// Values are nil, int64, uint64, float64 or string.

// Type is the type of a result column.
type Type uint8

// Column types.
const (
	String Type = iota
	Int
	Uint
	Float
)

// Column is one column of a table or a result.
type Column struct {
	Name string
	Type Type
}

// Table is an in-memory table. Rows hold one value per column, of the
// column's type or nil.
type Table struct {
	Name    string
	Columns []Column
	Rows    [][]any
}

// Result is the outcome of Select.
type Result struct {
	Columns []Column
	Rows    [][]any
}

func truthy(v any) bool {
	switch x := v.(type) {
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	case string:
		f, _ := toNumber(x)
		return f != 0
	}
	return false
}

func boolValue(b bool) any {
	if b {
		return int64(1)
	}
	return int64(0)
}

// toNumber reads the leading number of a string, as MySQL does in a numeric
// context ("12abc" is 12, "abc" is 0); ok is false when there is none.
func toNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && strings.IndexByte("+-.0123456789eE", s[end]) >= 0 {
		end++
	}
	for ; end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		return toNumber(x)
	}
	return 0, false
}

// toInt converts a value to int64 for LIMIT-like arguments.
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		if x > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(x), true
	}
	if f, ok := toFloat(v); ok {
		return int64(f), true
	}
	return 0, false
}

// toString renders a value as MySQL renders it in a string context.
func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// compare orders two non-nil values: numbers numerically, strings
// case-insensitively (then bytewise, for a stable order), a string and a
// number as numbers.
func compare(a, b any) int {
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr && bStr {
		if c := strings.Compare(strings.ToLower(as), strings.ToLower(bs)); c != 0 {
			return c
		}
		return 0
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case uint64:
		if y, ok := b.(uint64); ok {
			return cmp.Compare(x, y)
		}
	}
	fa, _ := toFloat(a)
	fb, _ := toFloat(b)
	return cmp.Compare(fa, fb)
}

// order is compare with nil first, for ORDER BY and grouping.
func order(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return compare(a, b)
}

// groupKey is a value's identity for GROUP BY and DISTINCT: strings
// case-insensitively, numbers by value.
func groupKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00"
	case string:
		return "s" + strings.ToLower(x)
	}
	f, _ := toFloat(v)
	return "n" + strconv.FormatFloat(f, 'g', -1, 64)
}

// Like reports whether s matches the LIKE pattern p (% and _, each
// itself after a backslash), case-insensitively: SHOW ... LIKE's rule.
func Like(s, p string) bool { return like(s, p, '\\') }

// like reports whether s matches the LIKE pattern p with escape character
// esc, case-insensitively.
func like(s, p string, esc rune) bool {
	return likeRunes([]rune(strings.ToLower(s)), []rune(strings.ToLower(p)), esc)
}

// likeRunes is the classic wildcard match with one backtracking point: on a
// mismatch after a '%', retry with the '%' taking one more rune. It runs in
// O(len(s) * len(p)), whatever the pattern.
func likeRunes(s, p []rune, esc rune) bool {
	// Resolve escapes first: lit[i] says p[i] stands for itself.
	var pat []rune
	var lit []bool
	for i := 0; i < len(p); i++ {
		if p[i] == esc && i+1 < len(p) {
			i++
			pat, lit = append(pat, p[i]), append(lit, true)
			continue
		}
		pat, lit = append(pat, p[i]), append(lit, false)
	}
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && !lit[pi] && pat[pi] == '%':
			star, mark = pi, si
			pi++
		case pi < len(pat) && (pat[pi] == s[si] || !lit[pi] && pat[pi] == '_'):
			si++
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && !lit[pi] && pat[pi] == '%' {
		pi++
	}
	return pi == len(pat)
}
