package sql

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glint-search/glint/index"
)

// Values inside the executor are one of: nil, int64, uint64 (document ids),
// float64, string, []int64 (multi attributes). This file converts between them,
// compares them, and converts them to column values and to wire values.

// toFloat converts a numeric value to float64; ok is false for non-numbers.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// truthy is the SQL truth of a value: non-zero numbers and non-empty sets.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return err == nil && f != 0
	case []int64:
		return len(x) > 0
	}
	return false
}

func boolValue(b bool) any {
	if b {
		return int64(1)
	}
	return int64(0)
}

// compare orders two values: numbers numerically (exactly for integers),
// strings under the collation c, nil first. ok is false when they cannot
// be compared.
func compare(c collation, a, b any) (int, bool) {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0, true
		case a == nil:
			return -1, true
		default:
			return 1, true
		}
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y), true
		case uint64:
			if x < 0 {
				return -1, true
			}
			return cmp.Compare(uint64(x), y), true
		case float64:
			return compareIntFloat(x, y), true
		}
	case uint64:
		switch y := b.(type) {
		case uint64:
			return cmp.Compare(x, y), true
		case int64:
			if y < 0 {
				return 1, true
			}
			return cmp.Compare(x, uint64(y)), true
		case float64:
			return compareIntFloat(x, y), true
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return -compareIntFloat(y, x), true
		case uint64:
			return -compareIntFloat(y, x), true
		}
	case string:
		if y, ok := b.(string); ok {
			return c.compare(x, y), true
		}
		switch b.(type) {
		case int64, uint64:
			// A quoted integer ('18446744073709551615', as drivers send
			// parameters) against an integer compares as integers: as a
			// float it would equal its neighbours past 2^53.
			t := strings.TrimSpace(x)
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return compare(c, n, b)
			}
			if n, err := strconv.ParseUint(t, 10, 64); err == nil {
				return compare(c, n, b)
			}
		}
		if f, ok := toFloat(b); ok {
			if xf, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return cmp.Compare(xf, f), true
			}
			return 0, false
		}
	case []int64:
		return 0, false
	}
	if s, ok := b.(string); ok {
		r, ok := compare(c, s, a)
		return -r, ok
	}
	xf, ok1 := toFloat(a)
	yf, ok2 := toFloat(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return cmp.Compare(xf, yf), true
}

// compareIntFloat orders an integer and a float exactly: converted to a
// float, integers past 2^53 round, and an id of 2^64-1 would equal 2^64.
// A float outside T's range orders outright; else its integer part, then
// its fraction, decide.
func compareIntFloat[T int64 | uint64](x T, f float64) int {
	var zero T
	lo, hi := 0.0, math.Ldexp(1, 64) // uint64: [0, 2^64)
	if ^zero < 0 {
		lo, hi = -math.Ldexp(1, 63), math.Ldexp(1, 63) // int64: [-2^63, 2^63)
	}
	switch {
	case math.IsNaN(f), f < lo:
		return 1 // (NaN: as cmp.Compare orders it, before every number)
	case f >= hi:
		return -1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(x, T(t)); c != 0 {
		return c
	}
	return cmp.Compare(0, f-t) // the fraction decides
}

// setContains reports whether a multi value holds v (any numeric value).
func setContains(set []int64, v any) bool {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case uint64:
		if x > math.MaxInt64 {
			return false
		}
		n = int64(x)
	case float64:
		if x != math.Trunc(x) {
			return false
		}
		n = int64(x)
	default:
		return false
	}
	i := sort.Search(len(set), func(i int) bool { return set[i] >= n })
	return i < len(set) && set[i] == n
}

// timestampText reads a date and time ('2024-05-01 12:30:00', RFC 3339 or
// '2024-05-01') as seconds since 1970, in loc (nil: UTC) when the text
// names no zone of its own.
func timestampText(text string, loc *time.Location) (int64, bool) {
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02"} {
		if tm, err := time.ParseInLocation(layout, strings.TrimSpace(text), loc); err == nil {
			return tm.Unix(), true
		}
	}
	return 0, false
}

// columnValueIn is columnValue with a timestamp's date and time text read
// in loc (the session's time zone; nil: UTC): INSERT ... VALUES
// ('2024-05-01 12:30:00') as the comparisons read it.
func columnValueIn(t index.ColumnType, v any, loc *time.Location) (index.Value, string) {
	if text, ok := v.(string); ok && t == index.TypeTimestamp {
		if _, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err != nil {
			n, ok := timestampText(text, loc)
			if !ok {
				return nil, fmt.Sprintf("expects seconds since 1970 or a date and time ('2024-05-01' or '2024-05-01 12:30:00'), got string %s", quoteForError(text))
			}
			v = n
		}
	}
	return columnValue(t, v)
}

// columnValue converts an executor value to the value of a column of type t,
// or returns a message saying why it does not fit.
func columnValue(t index.ColumnType, v any) (index.Value, string) {
	if v == nil {
		return nil, ""
	}
	switch t {
	case index.TypeText, index.TypeString:
		switch x := v.(type) {
		case string:
			if msg := notUTF8(x); msg != "" {
				return nil, msg
			}
			return x, ""
		case int64, uint64, float64:
			return formatNumber(x), ""
		}
	case index.TypeJSON:
		switch x := v.(type) {
		case string:
			// Kept as its text, so it must be JSON: text that is not would
			// read back as a JSON string, unlike what was written. An empty
			// text (what SELECT sends for no value) is no value.
			if strings.TrimSpace(x) == "" {
				return nil, ""
			}
			if msg := notUTF8(x); msg != "" {
				return nil, msg
			}
			if !json.Valid([]byte(x)) {
				return nil, fmt.Sprintf("expects JSON, got string %s (%s)", quoteForError(x), jsonSyntaxError(x))
			}
			return x, ""
		case int64, uint64, float64:
			return formatNumber(x), ""
		}
	case index.TypeUint, index.TypeTimestamp:
		return intInRange(v, 0, math.MaxUint32)
	case index.TypeBool:
		return intInRange(v, 0, 1)
	case index.TypeBigint:
		return intInRange(v, math.MinInt64, math.MaxInt64)
	case index.TypeFloat:
		// Finite numbers only: NaN and the infinities (ParseFloat reads
		// them from 'NaN' and 'inf'; arithmetic overflows to them) read
		// back as null in JSON and as words MySQL clients cannot parse.
		if s, ok := v.(string); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Sprintf("expects a number, got string %s", quoteForError(s))
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Sprintf("expects a finite number, got string %s", quoteForError(s))
			}
			return f, ""
		}
		if f, ok := toFloat(v); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Sprintf("expects a finite number, got %s", formatNumber(f))
			}
			return f, ""
		}
	case index.TypeMulti, index.TypeMulti64:
		lo, hi := int64(0), int64(math.MaxUint32)
		if t == index.TypeMulti64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		var in []any
		switch x := v.(type) {
		case []any:
			in = x
		case []int64:
			for _, n := range x {
				in = append(in, n)
			}
		case string:
			// The text glint sends for a multi ("1,2,3", "" for none), as
			// mysqldump writes it back.
			for _, part := range strings.Split(x, ",") {
				part = strings.TrimSpace(part)
				if part == "" && strings.TrimSpace(x) == "" {
					break
				}
				n, err := strconv.ParseInt(part, 10, 64)
				if err != nil {
					return nil, fmt.Sprintf("expects integers, or their list as text like '1,2,3', got string %s", quoteForError(x))
				}
				in = append(in, n)
			}
		default:
			in = []any{x}
		}
		out := make([]int64, 0, len(in))
		for _, e := range in {
			n, msg := intInRange(e, lo, hi)
			if msg != "" {
				return nil, "element " + msg
			}
			out = append(out, n.(int64))
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		uniq := out[:0]
		for i, n := range out {
			if i == 0 || n != out[i-1] {
				uniq = append(uniq, n)
			}
		}
		return uniq, ""
	}
	return nil, fmt.Sprintf("cannot hold %s", describe(v))
}

// intInRange converts v to an int64 within [lo, hi].
func intInRange(v any, lo, hi int64) (index.Value, string) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case uint64:
		if x > math.MaxInt64 || int64(x) > hi {
			return nil, fmt.Sprintf("value %d is out of range %d..%d", x, lo, hi)
		}
		n = int64(x)
	case float64:
		if x != math.Trunc(x) {
			return nil, fmt.Sprintf("expects an integer, got %s", formatNumber(x))
		}
		// An integer past int64 arrives as a float, rounded: -2^63 as a
		// float may have been -9223372036854775809, so only floats
		// strictly between -2^63 and 2^63 are taken (-2^63 itself comes
		// as an int64 when written as an integer).
		if x <= math.MinInt64 || x >= math.MaxInt64 {
			return nil, fmt.Sprintf("value %s is out of range %d..%d", formatNumber(x), lo, hi)
		}
		n = int64(x)
	case string:
		s := strings.TrimSpace(x)
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("expects an integer, got string %s", quoteForError(x))
		}
		n = i
	default:
		return nil, fmt.Sprintf("expects an integer, got %s", describe(v))
	}
	if n < lo || n > hi {
		return nil, fmt.Sprintf("value %d is out of range %d..%d", n, lo, hi)
	}
	return n, ""
}

// describe names a value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "string " + quoteForError(x)
	case []any, []int64:
		return "a list of values"
	default:
		return formatNumber(x)
	}
}

func quoteForError(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "'" + s + "'"
}

func formatNumber(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// wireValue converts a value for a result column of type t. A value of
// the column's type is returned as it is: putting it in an interface again
// would allocate (each id, weight and highlighted text of every row).
func wireValue(t ColumnType, v any) any {
	if v == nil || t == colAny {
		return v
	}
	switch t {
	case ColInt:
		switch x := v.(type) {
		case int64:
			return v
		case uint64:
			return int64(x)
		case float64:
			return int64(x)
		}
	case ColUint:
		switch x := v.(type) {
		case uint64:
			return v
		case int64:
			return uint64(x)
		}
	case ColFloat:
		if _, ok := v.(float64); ok {
			return v
		}
		if f, ok := toFloat(v); ok {
			return f
		}
	}
	if _, ok := v.(string); ok {
		return v
	}
	return displayString(v)
}

// displayString renders any value as the text a client sees.
func displayString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(parts, ",")
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 32)
	default:
		return formatNumber(x)
	}
}

// columnWireType is the result column type of a table column.
func columnWireType(t index.ColumnType) ColumnType {
	switch t {
	case index.TypeUint, index.TypeBool, index.TypeTimestamp, index.TypeBigint:
		return ColInt
	case index.TypeFloat:
		return ColFloat
	}
	return ColString
}

// intSet is the list of an IN whose items are all integer constants, as a
// hash set. Its answers are those of compare (and of setContains for multi
// attributes) against each item in turn.
type intSet struct {
	small map[int64]struct{}  // items up to MaxInt64
	big   map[uint64]struct{} // uint64 items above MaxInt64
}

// newIntSet returns the set of list, or nil when an item is not an integer
// constant.
func newIntSet(list []expr) *intSet {
	s := &intSet{small: make(map[int64]struct{}, len(list))}
	for _, e := range list {
		c, ok := e.(constExpr)
		if !ok {
			return nil
		}
		switch x := c.v.(type) {
		case int64:
			s.small[x] = struct{}{}
		case uint64:
			if x <= math.MaxInt64 {
				s.small[int64(x)] = struct{}{}
				continue
			}
			if s.big == nil {
				s.big = map[uint64]struct{}{}
			}
			s.big[x] = struct{}{}
		default:
			return nil
		}
	}
	return s
}

// exactFloat is 2^53: whole floats of smaller magnitude are exact integers,
// and an integer compares equal to one of them only if it is that integer.
const exactFloat = 1 << 53

// contains reports whether v equals an item. ok is false when the set cannot
// tell (a float of 2^53 or more, which compares inexactly, or NaN): the caller
// then compares item by item.
func (s *intSet) contains(v any) (found, ok bool) {
	switch x := v.(type) {
	case int64:
		_, found = s.small[x]
		return found, true
	case uint64:
		if x <= math.MaxInt64 {
			_, found = s.small[int64(x)]
		} else {
			_, found = s.big[x]
		}
		return found, true
	case float64:
		return s.containsFloat(x)
	case string:
		// compare reads a string as a number against a number.
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return false, true
		}
		return s.containsFloat(f)
	case []int64:
		for _, n := range x {
			if _, found := s.small[n]; found {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

func (s *intSet) containsFloat(f float64) (found, ok bool) {
	if math.IsNaN(f) || math.Abs(f) >= exactFloat {
		return false, false
	}
	if f != math.Trunc(f) {
		return false, true // no integer equals it
	}
	_, found = s.small[int64(f)]
	return found, true
}

// jsonSyntaxError says where text stops being JSON.
func jsonSyntaxError(text string) string {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	if err != nil {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	return "not JSON"
}

// notUTF8 says where text is not UTF-8 ("" when it is). glint keeps text
// as UTF-8 (limits count codepoints, offsets are given in both): other
// bytes, such as text a client sent in another character set, would be
// kept as they came and read back as what they are not.
func notUTF8(text string) string {
	if utf8.ValidString(text) {
		return ""
	}
	i := NotUTF8At(text)
	return fmt.Sprintf("the text is not UTF-8 at byte %d (0x%02X): glint keeps text as UTF-8", i, text[i])
}

// NotUTF8At is the offset of the first byte of text that is not UTF-8
// (len(text) when every byte is).
func NotUTF8At(text string) int {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return i
}
