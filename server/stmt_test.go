package server

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/go-mysql-org/go-mysql/client"
	gmysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A parameter over max_allowed_packet / (parameters + 1) is streamed ahead
// by go-sql-driver with COM_STMT_SEND_LONG_DATA, in pieces: the statement
// runs with it whole, beside the parameters the execution carries.
func TestLongDataParameters(t *testing.T) {
	ts := startServer(t, Config{})
	db := ts.open(t, "root", "maxAllowedPacket=1024") // pieces of ~1 KB, and anything over 341 bytes streamed
	long := strings.Repeat("a long parameter, ", 200)
	longBytes := []byte(strings.Repeat("bytes ", 100))
	got := queryRows(t, db, "select ?, ?, ?, ?", int64(7), long, "short", longBytes)
	assert.Equal(t, [][]string{{"7", long, "short", string(longBytes)}}, got)
	// The next execution of a statement sends its values again: nothing
	// streamed for the last one is left over.
	st, err := db.Prepare("select ?, ?")
	require.NoError(t, err)
	defer st.Close()
	for _, args := range [][2]string{{long, "x"}, {"y", "z"}, {"w", long + "!"}} {
		var a, b string
		require.NoError(t, st.QueryRow(args[0], args[1]).Scan(&a, &b))
		assert.Equal(t, args, [2]string{a, b})
	}
}

// rawStmt drives the prepared-statement commands packet by packet.
type rawStmt struct {
	t  *testing.T
	c  *client.Conn
	id uint32
}

func prepareRaw(t *testing.T, ts *testServer, query string) *rawStmt {
	c, err := client.Connect(ts.mysqlAddr, "root", "", "")
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	st, err := c.Prepare(query)
	require.NoError(t, err)
	return &rawStmt{t: t, c: c, id: st.ID}
}

// answer sends one command and returns every packet of its answer (an OK
// or error packet, or a result set through its closing EOF).
func (r *rawStmt) answer(cmd byte, payload ...byte) [][]byte {
	first := rawCommand(r.t, r.c, append([]byte{cmd}, payload...))
	out := [][]byte{first}
	if first[0] == 0x00 || first[0] == 0xff {
		return out
	}
	for eofs := 0; eofs < 2; {
		p, err := r.c.ReadPacket()
		require.NoError(r.t, err)
		out = append(out, p)
		if p[0] == 0xfe && len(p) < 9 {
			eofs++
		}
	}
	return out
}

// send sends a command that has no answer.
func (r *rawStmt) send(cmd byte, payload ...byte) {
	r.c.ResetSequence()
	require.NoError(r.t, r.c.WritePacket(append(make([]byte, 4), append([]byte{cmd}, payload...)...)))
}

func (r *rawStmt) idBytes() []byte { return binary.LittleEndian.AppendUint32(nil, r.id) }

// execute is the payload of COM_STMT_EXECUTE: no cursor, one iteration,
// the NULL bitmap, then the types when given, then the values.
func (r *rawStmt) execute(nulls byte, types, values []byte) []byte {
	p := append(r.idBytes(), 0, 1, 0, 0, 0, nulls)
	if types == nil {
		p = append(p, 0)
	} else {
		p = append(append(p, 1), types...)
	}
	return append(p, values...)
}

// Two parameters: a LONGLONG and a VAR_STRING.
var rawTypes = []byte{gmysql.MYSQL_TYPE_LONGLONG, 0, gmysql.MYSQL_TYPE_VAR_STRING, 0}

func rawValues(n int64, s string) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(n))
	return append(append(b, byte(len(s))), s...)
}

// An execution that does not send the parameter types again (as
// libmariadb's and Connector/J's later executions do) reads its values
// with the types sent last: it answers what one that sends them answers.
func TestExecuteWithoutTypes(t *testing.T) {
	ts := startServer(t, Config{})
	r := prepareRaw(t, ts, "select ?, ?")

	withTypes := r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, rawTypes, rawValues(8, "eight"))...)
	require.NotEqual(t, byte(0xff), withTypes[0][0], "%q", withTypes[0])
	assert.Contains(t, string(withTypes[len(withTypes)-2]), "eight")
	without := r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(8, "eight"))...)
	assert.Equal(t, withTypes, without)
	other := r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(9, "nine"))...)
	assert.Contains(t, string(other[len(other)-2]), "nine")
	// NULL in the bitmap: no value in the packet.
	null := r.answer(gmysql.COM_STMT_EXECUTE, r.execute(1, nil, []byte{4, 'f', 'o', 'u', 'r'})...)
	assert.Contains(t, string(null[len(null)-2]), "four")
}

// Streamed data takes the parameter's place in the next execution, is
// forgotten after it and by COM_STMT_RESET; errors are told by the next
// execution (COM_STMT_SEND_LONG_DATA has no answer), and the connection
// goes on after each.
func TestStmtCommandErrors(t *testing.T) {
	ts := startServer(t, Config{MaxAllowedPacket: 1024})
	r := prepareRaw(t, ts, "select ?, ?")
	errorOfAnswer := func(a [][]byte) (uint16, string) {
		require.Len(t, a, 1)
		return errorOf(t, a[0])
	}
	rowOf := func(a [][]byte) string {
		require.NotEqual(t, byte(0xff), a[0][0], "%q", a[0])
		return string(a[len(a)-2])
	}

	code, msg := errorOfAnswer(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(1, "x"))...))
	assert.Equal(t, uint16(gmysql.ER_WRONG_ARGUMENTS), code)
	assert.Contains(t, msg, "sends no parameter types, and no earlier execution of it sent them")

	// Parameter 2 streamed in two pieces: the execution carries only the first.
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(r.idBytes(), 1, 0, 's', 't', 'r', 'e')...)
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(r.idBytes(), 1, 0, 'a', 'm', 'e', 'd')...)
	values := binary.LittleEndian.AppendUint64(nil, 5)
	assert.Contains(t, rowOf(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, rawTypes, values)...)), "streamed")
	// Forgotten after the execution.
	assert.Contains(t, rowOf(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, rawTypes, rawValues(5, "sent"))...)), "sent")
	// And by COM_STMT_RESET.
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(r.idBytes(), 1, 0, 'o', 'l', 'd')...)
	require.Equal(t, []byte{0}, r.answer(gmysql.COM_STMT_RESET, r.idBytes()...)[0][:1])
	assert.Contains(t, rowOf(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(5, "new"))...)), "new")

	// A parameter the statement does not have.
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(r.idBytes(), 2, 0, 'x')...)
	code, msg = errorOfAnswer(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(5, "x"))...))
	assert.Equal(t, uint16(gmysql.ER_WRONG_ARGUMENTS), code)
	assert.Equal(t, "COM_STMT_SEND_LONG_DATA sent data for parameter 3 of a statement of 2 parameters", msg)
	assert.Contains(t, rowOf(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(5, "after"))...)), "after")

	// More than max_allowed_packet in all.
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(append(r.idBytes(), 1, 0), strings.Repeat("x", 600)...)...)
	r.send(gmysql.COM_STMT_SEND_LONG_DATA, append(append(r.idBytes(), 1, 0), strings.Repeat("y", 600)...)...)
	code, msg = errorOfAnswer(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, binary.LittleEndian.AppendUint64(nil, 1))...))
	assert.Equal(t, uint16(gmysql.ER_NET_PACKET_TOO_LARGE), code)
	assert.Contains(t, msg, "more than max_allowed_packet (1024 bytes)")

	for _, c := range []struct {
		payload []byte
		code    uint16
		msg     string
	}{
		{r.execute(0, rawTypes, rawValues(1, "x")[:5]), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE parameter 1: 5 bytes of a 8-byte value"},
		{append(r.execute(0, rawTypes, rawValues(1, "x")[:8]), 9, 'x'), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE parameter 2: a string value of 9 bytes with 1 left in the packet"},
		{r.execute(0, []byte{gmysql.MYSQL_TYPE_LONGLONG, 0, 0x77, 0}, rawValues(1, "x")), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE parameter 2: unknown type 0x77"},
		{r.execute(0, rawTypes[:2], nil), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE without the types of its 2 parameters"},
		{append(r.idBytes(), 0, 1, 0, 0, 0), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE without the NULL bitmap of its 2 parameters"},
		{append(r.idBytes(), 0, 1, 0, 0, 0, 0, 2), gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE with a new-parameters-bound flag of 2 (0 or 1)"},
		{append(r.idBytes(), 1, 1, 0, 0, 0, 0, 0), gmysql.ER_UNSUPPORTED_PS,
			"COM_STMT_EXECUTE asks for a cursor (flags 0x01), which glint does not open: read the result whole (JDBC: useCursorFetch=false)"},
		{[]byte{99, 0, 0, 0, 0, 1, 0, 0, 0}, gmysql.ER_UNKNOWN_STMT_HANDLER,
			"Unknown prepared statement handler (99) given to mysqld_stmt_execute"},
		{[]byte{1, 0}, gmysql.ER_MALFORMED_PACKET,
			"malformed packet: COM_STMT_EXECUTE shorter than its statement id, flags and iteration count"},
	} {
		code, msg := errorOfAnswer(r.answer(gmysql.COM_STMT_EXECUTE, c.payload...))
		assert.Equal(t, c.code, code, "%s", msg)
		assert.Equal(t, c.msg, msg)
	}
	code, msg = errorOfAnswer(r.answer(gmysql.COM_STMT_RESET, 99, 0, 0, 0))
	assert.Equal(t, uint16(gmysql.ER_UNKNOWN_STMT_HANDLER), code)
	assert.Equal(t, "Unknown prepared statement handler (99) given to mysqld_stmt_reset", msg)

	// Closed: unknown from then on.
	r.send(gmysql.COM_STMT_CLOSE, r.idBytes()...)
	code, _ = errorOfAnswer(r.answer(gmysql.COM_STMT_EXECUTE, r.execute(0, nil, rawValues(1, "x"))...))
	assert.Equal(t, uint16(gmysql.ER_UNKNOWN_STMT_HANDLER), code)

	res, err := r.c.Execute("select 1")
	require.NoError(t, err)
	v, err := res.GetInt(0, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(1), v)
}

// FuzzBindArgs: any execution packet, with or without types sent before
// and streamed data, is read or refused with an error, never a panic; what
// is read has one value per parameter.
func FuzzBindArgs(f *testing.F) {
	f.Add(2, []byte{}, append([]byte{0, 1}, append(rawTypes, rawValues(8, "eight")...)...), false)
	f.Add(2, rawTypes, append([]byte{0, 0}, rawValues(8, "eight")...), true)
	f.Add(1, []byte{}, []byte{0, 1, gmysql.MYSQL_TYPE_VAR_STRING, 0, 0xfe, 1, 2, 3, 4, 5, 6, 7, 0xff}, false)
	f.Add(9, []byte{}, []byte{0xff, 0x01, 0}, false)
	f.Fuzz(func(t *testing.T, params int, types, b []byte, long bool) {
		params = max(0, min(params, 300))
		s := &stmt{id: 1, params: params}
		if len(types) == 2*params && params > 0 {
			s.types = types
		}
		if long && params > 0 {
			s.long = map[int][]byte{params - 1: []byte("streamed")}
		}
		args, err := bindArgs(s, b)
		if err == nil {
			require.Len(t, args, params)
		}
	})
}
