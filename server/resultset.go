package server

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/glint-search/glint/sql"
	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// Collations of result columns.
const (
	collationUTF8MB4 = 45 // utf8mb4_general_ci: text columns
	collationBinary  = 63 // numbers
)

// fieldOf is the column definition of a result column, from its declared type
// (never from the values, so a result with no rows is typed too).
func fieldOf(col sql.Column) *mysql.Field {
	f := &mysql.Field{Name: []byte(col.Name)}
	switch col.Type {
	case sql.ColInt:
		f.Type, f.Charset, f.Flag, f.ColumnLength = mysql.MYSQL_TYPE_LONGLONG, collationBinary, mysql.BINARY_FLAG, 20
	case sql.ColUint:
		f.Type, f.Charset, f.Flag, f.ColumnLength = mysql.MYSQL_TYPE_LONGLONG, collationBinary, mysql.BINARY_FLAG|mysql.UNSIGNED_FLAG, 20
	case sql.ColFloat:
		f.Type, f.Charset, f.Flag, f.ColumnLength = mysql.MYSQL_TYPE_DOUBLE, collationBinary, mysql.BINARY_FLAG, 22
		f.Decimal = 31 // not a fixed number of decimals
	default:
		f.Type, f.Charset, f.ColumnLength = mysql.MYSQL_TYPE_VAR_STRING, collationUTF8MB4, 1020
	}
	return f
}

// writeResultSet writes a complete result set: column count, column
// definitions, EOF, one packet per row (text or binary protocol), EOF. status
// goes into both EOF packets.
func writeResultSet(conn *gms.Conn, r *sql.Result, binaryRows bool, status uint16) error {
	buf := make([]byte, 4, 1024)
	buf = mysql.AppendLengthEncodedInteger(buf, uint64(len(r.Columns)))
	if err := conn.WritePacket(buf); err != nil {
		return err
	}
	for _, col := range r.Columns {
		buf = append(buf[:4], fieldOf(col).Dump()...)
		if err := conn.WritePacket(buf); err != nil {
			return err
		}
	}
	if err := conn.WritePacket(eofPacket(buf[:4], 0, status)); err != nil {
		return err
	}
	for i, row := range r.Rows {
		if len(row) != len(r.Columns) {
			return fmt.Errorf("server: row %d has %d values for %d columns", i, len(row), len(r.Columns))
		}
		var err error
		if binaryRows {
			buf, err = appendBinaryRow(buf[:4], r.Columns, row)
		} else {
			buf, err = appendTextRow(buf[:4], row, r.ShortestFloats)
		}
		if err != nil {
			return fmt.Errorf("server: row %d: %w", i, err)
		}
		if err := conn.WritePacket(buf); err != nil {
			return err
		}
	}
	return conn.WritePacket(eofPacket(buf[:4], r.Warnings, status))
}

// eofPacket appends an EOF packet's payload to b (which holds the header room).
func eofPacket(b []byte, warnings, status uint16) []byte {
	return append(b, mysql.EOF_HEADER, byte(warnings), byte(warnings>>8), byte(status), byte(status>>8))
}

// appendTextRow appends a text-protocol row: each value as a length-encoded
// string, NULL as 0xfb; floats in their shortest form when shortestFloats is
// set, else as the reference prints them.
func appendTextRow(b []byte, row []any, shortestFloats bool) ([]byte, error) {
	for _, v := range row {
		if v == nil {
			b = append(b, 0xfb)
			continue
		}
		if f, ok := v.(float64); ok && shortestFloats {
			v = formatShortest(f)
		}
		var err error
		if b, err = appendLengthEncodedText(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendBinaryRow appends a binary-protocol row: a 0x00 header, the NULL bitmap
// (offset 2), then each non-NULL value in the encoding of its column's type.
func appendBinaryRow(b []byte, cols []sql.Column, row []any) ([]byte, error) {
	b = append(b, 0)
	bitmap := len(b)
	for range (len(cols) + 7 + 2) / 8 {
		b = append(b, 0)
	}
	for j, col := range cols {
		v := row[j]
		if v == nil {
			b[bitmap+(j+2)/8] |= 1 << ((j + 2) % 8)
			continue
		}
		switch col.Type {
		case sql.ColInt, sql.ColUint:
			n, err := intBits(v)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", col.Name, err)
			}
			b = binary.LittleEndian.AppendUint64(b, n)
		case sql.ColFloat:
			f, err := floatValue(v)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", col.Name, err)
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		default:
			var err error
			if b, err = appendLengthEncodedText(b, v); err != nil {
				return nil, fmt.Errorf("column %q: %w", col.Name, err)
			}
		}
	}
	return b, nil
}

// appendLengthEncodedText appends the text form of a value as a
// length-encoded string. A string or []byte is copied once, straight into b.
func appendLengthEncodedText(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		b = mysql.AppendLengthEncodedInteger(b, uint64(len(x)))
		return append(b, x...), nil
	case []byte:
		b = mysql.AppendLengthEncodedInteger(b, uint64(len(x)))
		return append(b, x...), nil
	}
	var num [32]byte
	t, err := appendText(num[:0], v)
	if err != nil {
		return nil, err
	}
	b = mysql.AppendLengthEncodedInteger(b, uint64(len(t)))
	return append(b, t...), nil
}

// appendText appends the text form of a value.
func appendText(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return append(b, x...), nil
	case []byte:
		return append(b, x...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case float64:
		return append(b, formatFloat(x)...), nil
	case bool:
		if x {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	}
	return nil, fmt.Errorf("value of unexpected type %T", v)
}

// formatFloat prints a float as the reference prints its floats: with six
// decimals (7.990000), or with eight when six do not read back as the same
// number (0.12345670, 0.00000010). Plain notation always, however large.
// "The same number" is the same 32-bit float, the reference's float: so a
// sum or an average whose last bits depend on the order it was added up
// in (a distributed table's shards against one table) prints the same
// (14.700000, not 14.70000000 for 14.700000000000001).
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'f', 6, 64)
	if back, err := strconv.ParseFloat(s, 64); err != nil || float32(back) != float32(f) {
		s = strconv.FormatFloat(f, 'f', 8, 64)
	}
	return s
}

// formatShortest prints a float the shortest way that reads back exactly, in
// plain notation unless the number is very large or very small: MySQL's way,
// and JSON's.
func formatShortest(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// intBits is an integer column's value as the 8 bytes of a LONGLONG.
func intBits(v any) (uint64, error) {
	switch x := v.(type) {
	case int64:
		return uint64(x), nil
	case uint64:
		return x, nil
	case int:
		return uint64(x), nil
	case float64:
		return uint64(int64(x)), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return uint64(n), nil
		}
		if n, err := strconv.ParseUint(x, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("value %v (%T) in an integer column", v, v)
}

// floatValue is a float column's value.
func floatValue(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case int:
		return float64(x), nil
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("value %v (%T) in a float column", v, v)
}

// argValue converts a prepared statement argument, as go-mysql decodes it, to
// what Session.ExecPrepared takes: nil, int64, uint64, float64, string or []byte.
func argValue(a any) (any, error) {
	switch x := a.(type) {
	case nil:
		return nil, nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case float32:
		// The shortest decimal that reads back as this float32: 0.1, not
		// 0.10000000149011612.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return f, nil
	case float64:
		return x, nil
	case string:
		return x, nil
	case mysql.TypedBytes:
		switch x.Type {
		case mysql.MYSQL_TYPE_DECIMAL, mysql.MYSQL_TYPE_NEWDECIMAL:
			if f, err := strconv.ParseFloat(string(x.Bytes), 64); err == nil {
				return f, nil
			}
			return string(x.Bytes), nil
		case mysql.MYSQL_TYPE_TINY_BLOB, mysql.MYSQL_TYPE_MEDIUM_BLOB, mysql.MYSQL_TYPE_LONG_BLOB,
			mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_GEOMETRY, mysql.MYSQL_TYPE_BIT:
			return append([]byte(nil), x.Bytes...), nil
		case mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_NEWDATE, mysql.MYSQL_TYPE_DATETIME, mysql.MYSQL_TYPE_TIMESTAMP:
			return binaryDateTime(x.Type, x.Bytes)
		case mysql.MYSQL_TYPE_TIME:
			return binaryTime(x.Bytes)
		}
		return string(x.Bytes), nil
	}
	return nil, fmt.Errorf("unsupported parameter type %T", a)
}

// binaryDateTime is the text of a DATE, DATETIME or TIMESTAMP parameter
// as the binary protocol sends it (a connector's setTimestamp): year (2
// bytes), month and day, then hour, minute and second, then microseconds
// (4 bytes), each part there only when a later one is not zero. A DATE
// reads as 'YYYY-MM-DD', the others as 'YYYY-MM-DD HH:MM:SS[.ffffff]',
// the literals glint takes for a timestamp.
func binaryDateTime(tp byte, b []byte) (string, error) {
	var year, month, day, hour, minute, second, micro int
	switch len(b) {
	case 0:
	case 4, 7, 11:
		year, month, day = int(binary.LittleEndian.Uint16(b)), int(b[2]), int(b[3])
		if len(b) >= 7 {
			hour, minute, second = int(b[4]), int(b[5]), int(b[6])
		}
		if len(b) == 11 {
			micro = int(binary.LittleEndian.Uint32(b[7:]))
		}
	default:
		return "", fmt.Errorf("a date parameter of %d bytes (the binary protocol sends 0, 4, 7 or 11)", len(b))
	}
	if tp == mysql.MYSQL_TYPE_DATE || tp == mysql.MYSQL_TYPE_NEWDATE {
		return fmt.Sprintf("%04d-%02d-%02d", year, month, day), nil
	}
	text := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", year, month, day, hour, minute, second)
	if micro != 0 {
		text += fmt.Sprintf(".%06d", micro)
	}
	return text, nil
}

// binaryTime is the text of a TIME parameter as the binary protocol sends
// it: a sign byte, days (4 bytes), hour, minute and second, then
// microseconds (4 bytes); '[-]HH:MM:SS[.ffffff]' with the days in the hours.
func binaryTime(b []byte) (string, error) {
	switch len(b) {
	case 0:
		return "00:00:00", nil
	case 8, 12:
	default:
		return "", fmt.Errorf("a time parameter of %d bytes (the binary protocol sends 0, 8 or 12)", len(b))
	}
	sign := ""
	if b[0] == 1 {
		sign = "-"
	}
	hours := int(binary.LittleEndian.Uint32(b[1:]))*24 + int(b[5])
	text := fmt.Sprintf("%s%02d:%02d:%02d", sign, hours, b[6], b[7])
	if len(b) == 12 {
		if micro := binary.LittleEndian.Uint32(b[8:]); micro != 0 {
			text += fmt.Sprintf(".%06d", micro)
		}
	}
	return text, nil
}
