package dialect

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Placeholders returns the byte offsets of the ? placeholders outside literals
// and comments.
func Placeholders(text string) []int {
	var offsets []int
	for _, t := range lex(text) {
		if t.kind == tokPunct && text[t.start] == '?' {
			offsets = append(offsets, t.start)
		}
	}
	return offsets
}

// Interpolate replaces the placeholders with args written as SQL literals (nil,
// int64, uint64, float64, string, []byte, bool). It is an error when the counts differ.
//
// nil is NULL; a bool is 1 or 0; a float is written with the fewest digits that
// read back as the same float64 (NaN and infinities are errors); a string or a
// []byte is a single-quoted literal with MySQL's escapes for the quotes, the
// backslash, NUL, \n, \r and \x1a (\Z). The other Go integer types are accepted too.
// A value is written with a space on a side where it would otherwise run into
// the text next to it (?'x', x?1).
func Interpolate(text string, args []any) (string, error) {
	offsets := Placeholders(text)
	if len(offsets) != len(args) {
		return "", fmt.Errorf("dialect: the statement has %d placeholder(s), got %d argument(s)", len(offsets), len(args))
	}
	var b strings.Builder
	b.Grow(len(text) + 8*len(args))
	at := 0
	for i, off := range offsets {
		lit, err := literal(args[i])
		if err != nil {
			return "", fmt.Errorf("dialect: argument %d: %w", i+1, err)
		}
		b.WriteString(text[at:off])
		if done := b.String(); done != "" && glues(done[len(done)-1]) {
			b.WriteByte(' ')
		}
		b.WriteString(lit)
		if off+1 < len(text) && glues(text[off+1]) {
			b.WriteByte(' ')
		}
		at = off + 1
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// glues reports whether a literal written next to c would read as one token with
// it, such as the strings of '='?'x' (one string once ? is 's'), x?y (a word) or
// ?? (one number): such a literal gets a space on that side.
func glues(c byte) bool {
	return isWordByte(c) || c == '.' || c == '@' || c == '\'' || c == '"' || c == '`'
}

// literal writes v as an SQL literal.
func literal(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "NULL", nil
	case bool:
		if v {
			return "1", nil
		}
		return "0", nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int:
		return strconv.FormatInt(int64(v), 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case int16:
		return strconv.FormatInt(int64(v), 10), nil
	case int8:
		return strconv.FormatInt(int64(v), 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case uint:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint32:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint16:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint8:
		return strconv.FormatUint(uint64(v), 10), nil
	case float64:
		return formatFloat(v, 64)
	case float32:
		return formatFloat(float64(v), 32)
	case string:
		return quoteString(v), nil
	case []byte:
		return quoteString(string(v)), nil
	}
	return "", fmt.Errorf("cannot write a %T as an SQL literal", v)
}

func formatFloat(f float64, bits int) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v is not a number SQL can hold", f)
	}
	return strconv.FormatFloat(f, 'g', -1, bits), nil
}

// quoteString writes s as a single-quoted string literal, escaped as
// mysql_real_escape_string does.
func quoteString(s string) string { return quoteStringBetween("", s, "") }

// quoteStringBetween is before + quoteString(s) + after, made in one
// allocation.
func quoteStringBetween(before, s, after string) string {
	var b strings.Builder
	b.Grow(len(before) + len(s) + 2 + len(after))
	b.WriteString(before)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		case '\\', '\'', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	b.WriteString(after)
	return b.String()
}
