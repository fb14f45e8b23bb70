package server

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/glint-search/glint/sql"
	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// Server-side prepared statements are kept here rather than by go-mysql,
// whose statement handling reads neither a parameter streamed ahead with
// COM_STMT_SEND_LONG_DATA (the execution that follows does not carry its
// value, and the library read the next parameter's bytes in its place)
// nor an execution that does not send the parameter types again (it ran
// the statement with every parameter NULL). Both are what connectors do:
// JDBC's setCharacterStream and setBytes with server-side statements, a
// batch's later rows, go-sql-driver's parameters over max_allowed_packet /
// (parameters + 1), libmariadb's (and so ODBC's) repeated executions.

// stmt is one prepared statement of a connection.
type stmt struct {
	id       uint32
	prepared *sql.Prepared
	params   int
	// types are the parameter types (two bytes each: the type, then
	// 0x80 when unsigned) the last execution that sent them sent: an
	// execution without them reuses them.
	types []byte
	// long holds, per parameter, what COM_STMT_SEND_LONG_DATA streamed
	// since the last execution (or reset); longSize is its total, and
	// longErr what went wrong with it, told by the next execution (the
	// command has no answer).
	long     map[int][]byte
	longSize int64
	longErr  error
}

// resetLong forgets what was streamed for the statement.
func (s *stmt) resetLong() { s.long, s.longSize, s.longErr = nil, 0, nil }

// Flags of COM_STMT_EXECUTE.
const (
	cursorReadOnly   = 0x01
	cursorForUpdate  = 0x02
	cursorScrollable = 0x04
)

// unknownStmt is the error for a statement id the connection has not
// prepared (or has closed).
func unknownStmt(id uint32, command string) error {
	return &mysql.MyError{Code: mysql.ER_UNKNOWN_STMT_HANDLER, State: "HY000",
		Message: fmt.Sprintf("Unknown prepared statement handler (%d) given to %s", id, command)}
}

// malformed is the error for a command whose packet is not as the
// protocol has it (what says how).
func malformed(command, what string) error {
	return &mysql.MyError{Code: mysql.ER_MALFORMED_PACKET, State: "HY000",
		Message: fmt.Sprintf("malformed packet: %s %s", command, what)}
}

// stmtPrepare answers COM_STMT_PREPARE.
func (c *mysqlConn) stmtPrepare(query string) any {
	params, _, ctx, err := c.HandleStmtPrepare(query)
	if err != nil {
		return err
	}
	c.lastStmtID++
	id := c.lastStmtID
	if c.prepared == nil {
		c.prepared = map[uint32]*stmt{}
	}
	c.prepared[id] = &stmt{id: id, prepared: ctx.(*sql.Prepared), params: params}
	// (The result columns are not known before execution: none are
	// announced.)
	st := &gms.Stmt{Query: query, Context: ctx}
	st.ID, st.Params = id, params
	return st
}

// stmtClose takes COM_STMT_CLOSE (which has no answer).
func (c *mysqlConn) stmtClose(data []byte) {
	if len(data) >= 4 {
		if s, ok := c.prepared[binary.LittleEndian.Uint32(data)]; ok {
			_ = c.HandleStmtClose(s)
		}
	}
}

// stmtReset answers COM_STMT_RESET: what was streamed for the statement is
// forgotten.
func (c *mysqlConn) stmtReset(data []byte) any {
	s, err := c.stmtOf(data, 4, "COM_STMT_RESET", "without a statement id", "mysqld_stmt_reset")
	if err != nil {
		return err
	}
	s.resetLong()
	return nil
}

// stmtOf is the statement whose id a command's payload starts with, or
// the error that answers the command: a payload shorter than size (short
// says how), or an id the connection has not prepared (handler is MySQL's
// name for the command in that error).
func (c *mysqlConn) stmtOf(data []byte, size int, command, short, handler string) (*stmt, error) {
	if len(data) < size {
		return nil, malformed(command, short)
	}
	id := binary.LittleEndian.Uint32(data)
	s, ok := c.prepared[id]
	if !ok {
		return nil, unknownStmt(id, handler)
	}
	return s, nil
}

// stmtLongData takes COM_STMT_SEND_LONG_DATA (which has no answer): a
// piece of one parameter's value, appended to what came before. Its
// errors are told by the statement's next execution, as MySQL tells them.
func (c *mysqlConn) stmtLongData(data []byte) {
	if len(data) < 6 {
		return // (no statement to tell it to)
	}
	s, ok := c.prepared[binary.LittleEndian.Uint32(data)]
	if !ok || s.longErr != nil {
		return
	}
	param := int(binary.LittleEndian.Uint16(data[4:]))
	piece := data[6:]
	switch limit := c.wire.guard.limit; {
	case param >= s.params:
		s.longErr = &mysql.MyError{Code: mysql.ER_WRONG_ARGUMENTS, State: "HY000",
			Message: fmt.Sprintf("COM_STMT_SEND_LONG_DATA sent data for parameter %d of a statement of %d parameters", param+1, s.params)}
	case limit > 0 && s.longSize+int64(len(piece)) > limit:
		s.longErr = &mysql.MyError{Code: mysql.ER_NET_PACKET_TOO_LARGE, State: "08S01",
			Message: fmt.Sprintf("the parameters streamed with COM_STMT_SEND_LONG_DATA come to more than max_allowed_packet (%d bytes)", limit)}
	}
	if s.longErr != nil {
		s.long = nil // (what came is not kept: the execution fails)
		return
	}
	if s.long == nil {
		s.long = map[int][]byte{}
	}
	s.long[param] = append(s.long[param], piece...)
	s.longSize += int64(len(piece))
}

// stmtExecute answers COM_STMT_EXECUTE: the statement id, flags, an
// iteration count (always 1), then, for a statement with parameters, their
// NULL bitmap, whether their types follow (1) or are those sent last (0),
// the types and the values of the parameters that are neither NULL nor
// streamed ahead. What was streamed is forgotten after it, run or not.
func (c *mysqlConn) stmtExecute(data []byte) any {
	s, err := c.stmtOf(data, 9, "COM_STMT_EXECUTE", "shorter than its statement id, flags and iteration count", "mysqld_stmt_execute")
	if err != nil {
		return err
	}
	defer s.resetLong()
	if s.longErr != nil {
		return s.longErr
	}
	if flags := data[4]; flags != 0 {
		if flags&(cursorReadOnly|cursorForUpdate|cursorScrollable) != 0 {
			return &mysql.MyError{Code: mysql.ER_UNSUPPORTED_PS, State: "HY000",
				Message: fmt.Sprintf("COM_STMT_EXECUTE asks for a cursor (flags 0x%02x), which glint does not open: read the result whole (JDBC: useCursorFetch=false)", flags)}
		}
		return malformed("COM_STMT_EXECUTE", fmt.Sprintf("with unknown flags 0x%02x", flags))
	}
	args, err := bindArgs(s, data[9:])
	if err != nil {
		return err
	}
	r, err := c.HandleStmtExecute(s.prepared, "", args)
	if err != nil {
		return err
	}
	return r
}

// bindArgs reads the parameters of an execution of s from b (what follows
// the iteration count), as go-mysql's values: integers of the type's size
// and signedness, float32 and float64, mysql.TypedBytes for the types sent
// as strings (and for what was streamed ahead), nil for NULL.
func bindArgs(s *stmt, b []byte) ([]any, error) {
	n := s.params
	if n == 0 {
		return nil, nil
	}
	nulls := (n + 7) / 8
	if len(b) < nulls+1 {
		return nil, malformed("COM_STMT_EXECUTE", fmt.Sprintf("without the NULL bitmap of its %d parameters", n))
	}
	null, b := b[:nulls], b[nulls:]
	bound := b[0]
	b = b[1:]
	switch bound {
	case 1:
		if len(b) < 2*n {
			return nil, malformed("COM_STMT_EXECUTE", fmt.Sprintf("without the types of its %d parameters", n))
		}
		s.types = append(s.types[:0], b[:2*n]...)
		b = b[2*n:]
	case 0:
		if s.types == nil {
			return nil, &mysql.MyError{Code: mysql.ER_WRONG_ARGUMENTS, State: "HY000",
				Message: fmt.Sprintf("COM_STMT_EXECUTE of statement %d sends no parameter types, and no earlier execution of it sent them", s.id)}
		}
	default:
		return nil, malformed("COM_STMT_EXECUTE", fmt.Sprintf("with a new-parameters-bound flag of %d (0 or 1)", bound))
	}
	args := make([]any, n)
	for i := range n {
		tp, unsigned := s.types[2*i], s.types[2*i+1]&mysql.PARAM_UNSIGNED != 0
		if v, ok := s.long[i]; ok {
			// (Its value is not in the packet.)
			args[i] = mysql.TypedBytes{Type: tp, Bytes: v}
			continue
		}
		if null[i/8]&(1<<(i%8)) != 0 || tp == mysql.MYSQL_TYPE_NULL {
			continue
		}
		v, size, err := binaryArg(tp, unsigned, b)
		if err != nil {
			return nil, malformed("COM_STMT_EXECUTE", fmt.Sprintf("parameter %d: %v", i+1, err))
		}
		args[i], b = v, b[size:]
	}
	return args, nil
}

// binaryArg reads one parameter value of type tp from the start of b and
// returns it and its size.
func binaryArg(tp byte, unsigned bool, b []byte) (any, int, error) {
	switch tp {
	case mysql.MYSQL_TYPE_TINY, mysql.MYSQL_TYPE_SHORT, mysql.MYSQL_TYPE_YEAR, mysql.MYSQL_TYPE_INT24,
		mysql.MYSQL_TYPE_LONG, mysql.MYSQL_TYPE_LONGLONG, mysql.MYSQL_TYPE_FLOAT, mysql.MYSQL_TYPE_DOUBLE:
		size := fixedSize[tp]
		if len(b) < size {
			return nil, 0, fmt.Errorf("%d bytes of a %d-byte value", len(b), size)
		}
		return fixedValue(tp, unsigned, b[:size]), size, nil
	case mysql.MYSQL_TYPE_DECIMAL, mysql.MYSQL_TYPE_NEWDECIMAL, mysql.MYSQL_TYPE_VARCHAR, mysql.MYSQL_TYPE_BIT,
		mysql.MYSQL_TYPE_ENUM, mysql.MYSQL_TYPE_SET, mysql.MYSQL_TYPE_TINY_BLOB, mysql.MYSQL_TYPE_MEDIUM_BLOB,
		mysql.MYSQL_TYPE_LONG_BLOB, mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_VAR_STRING, mysql.MYSQL_TYPE_STRING,
		mysql.MYSQL_TYPE_GEOMETRY, mysql.MYSQL_TYPE_JSON, mysql.MYSQL_TYPE_VECTOR,
		// (Dates and times: a length byte and that many bytes, which
		// reads as a string.)
		mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_NEWDATE, mysql.MYSQL_TYPE_TIMESTAMP, mysql.MYSQL_TYPE_DATETIME,
		mysql.MYSQL_TYPE_TIME:
		v, size, err := lengthEncoded(b)
		if err != nil {
			return nil, 0, err
		}
		return mysql.TypedBytes{Type: tp, Bytes: v}, size, nil
	}
	return nil, 0, fmt.Errorf("unknown type 0x%02x", tp)
}

// fixedSize is the size of the numeric types' values.
var fixedSize = map[byte]int{
	mysql.MYSQL_TYPE_TINY: 1, mysql.MYSQL_TYPE_SHORT: 2, mysql.MYSQL_TYPE_YEAR: 2, mysql.MYSQL_TYPE_INT24: 4,
	mysql.MYSQL_TYPE_LONG: 4, mysql.MYSQL_TYPE_LONGLONG: 8, mysql.MYSQL_TYPE_FLOAT: 4, mysql.MYSQL_TYPE_DOUBLE: 8,
}

// fixedValue is a numeric value of type tp (b is its size): a float32 or
// float64, or an integer of its size and signedness.
func fixedValue(tp byte, unsigned bool, b []byte) any {
	switch tp {
	case mysql.MYSQL_TYPE_FLOAT:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case mysql.MYSQL_TYPE_DOUBLE:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	switch {
	case len(b) == 1 && unsigned:
		return uint8(u)
	case len(b) == 1:
		return int8(u)
	case len(b) == 2 && unsigned:
		return uint16(u)
	case len(b) == 2:
		return int16(u)
	case len(b) == 4 && unsigned:
		return uint32(u)
	case len(b) == 4:
		return int32(u)
	case unsigned:
		return u
	}
	return int64(u)
}

// lengthEncoded reads a length-encoded string from the start of b: its
// bytes and its whole size.
func lengthEncoded(b []byte) ([]byte, int, error) {
	if len(b) == 0 {
		return nil, 0, fmt.Errorf("no value")
	}
	var length uint64
	head := 1
	switch b[0] {
	case 0xfb, 0xff:
		return nil, 0, fmt.Errorf("a string value of length 0x%02x", b[0])
	case 0xfc:
		head = 3
	case 0xfd:
		head = 4
	case 0xfe:
		head = 9
	default:
		length = uint64(b[0])
	}
	if len(b) < head {
		return nil, 0, fmt.Errorf("a string value's length cut short")
	}
	for i := head - 1; i >= 1; i-- {
		length = length<<8 | uint64(b[i])
	}
	if length > uint64(len(b)-head) {
		return nil, 0, fmt.Errorf("a string value of %d bytes with %d left in the packet", length, len(b)-head)
	}
	end := head + int(length)
	return b[head:end:end], end, nil
}
