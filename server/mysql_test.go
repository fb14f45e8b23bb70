package server

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glint-search/glint/sql"
	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testServer is a Server on free loopback ports for one test.
type testServer struct {
	*Server
	eng       *fakeEngine
	mysqlAddr string
	httpAddr  string
}

func startServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	eng := newFakeEngine()
	s := New(eng, cfg)
	ml, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{}, 2)
	go func() { _ = s.ServeMySQL(ml); done <- struct{}{} }()
	go func() { _ = s.ServeHTTPAPI(hl); done <- struct{}{} }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, s.Shutdown(ctx))
		<-done
		<-done
	})
	return &testServer{Server: s, eng: eng, mysqlAddr: ml.Addr().String(), httpAddr: hl.Addr().String()}
}

// open returns a database/sql handle on the server; params are DSN parameters.
func (ts *testServer) open(t *testing.T, userPass, params string) *dbsql.DB {
	t.Helper()
	db, err := dbsql.Open("mysql", fmt.Sprintf("%s@tcp(%s)/?timeout=5s&%s", userPass, ts.mysqlAddr, params))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// conn returns one connection, so that tests can check what happens to it.
func (ts *testServer) conn(t *testing.T, params string) *dbsql.Conn {
	t.Helper()
	c, err := ts.open(t, "root", params).Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// queryRows runs q and returns its rows as strings ("NULL" for NULL).
func queryRows(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*dbsql.Rows, error)
}, query string, args ...any) [][]string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	require.NoError(t, err)
	defer rows.Close()
	return scanAll(t, rows)
}

func scanAll(t *testing.T, rows *dbsql.Rows) [][]string {
	t.Helper()
	cols, err := rows.Columns()
	require.NoError(t, err)
	out := [][]string{}
	for rows.Next() {
		vals := make([]dbsql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestQueries(t *testing.T) {
	ts := startServer(t, Config{})
	for _, params := range []string{"", "interpolateParams=true"} {
		db := ts.open(t, "root", params)
		tests := []struct {
			name  string
			query string
			want  [][]string
		}{
			{"select 1", "select 1", [][]string{{"1"}}},
			{"zero rows", "select empty", [][]string{}},
			{"types and NULL", "select types", [][]string{
				{"18446744073709551615", "-5", "2.5", "héllo <b>"},
				{"2", "NULL", "NULL", "NULL"},
			}},
			{"many rows", "select rows 3", [][]string{{"1", "row 1"}, {"2", "row 2"}, {"3", "row 3"}}},
			{"trailing semicolon", "select 1;", [][]string{{"1"}}},
		}
		for _, tt := range tests {
			t.Run(tt.name+"/"+params, func(t *testing.T) {
				assert.Equal(t, tt.want, queryRows(t, db, tt.query))
			})
		}
	}
}

func TestOKPacket(t *testing.T) {
	ts := startServer(t, Config{})
	res, err := ts.open(t, "root", "").Exec("insert")
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	assert.Equal(t, int64(7), id)
}

// Column types come from the statement, also when there are no rows, in the
// text protocol and in the binary one (prepared statements).
func TestColumnTypesWithZeroRows(t *testing.T) {
	ts := startServer(t, Config{})
	db := ts.open(t, "root", "")
	for _, q := range []string{"select empty", "select types"} {
		for _, binary := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/binary=%v", q, binary), func(t *testing.T) {
				var rows *dbsql.Rows
				var err error
				if binary {
					rows, err = db.Query(q+" -- ?", 0) // a ? makes the driver prepare it
				} else {
					rows, err = db.Query(q)
				}
				require.NoError(t, err)
				defer rows.Close()
				types, err := rows.ColumnTypes()
				require.NoError(t, err)
				var got []string
				for _, ct := range types {
					got = append(got, ct.Name()+":"+ct.DatabaseTypeName())
				}
				assert.Equal(t, []string{"id:UNSIGNED BIGINT", "n:BIGINT", "price:DOUBLE", "title:VARCHAR"}, got)
				if q == "select types" {
					assert.Equal(t, [][]string{
						{"18446744073709551615", "-5", "2.5", "héllo <b>"},
						{"2", "NULL", "NULL", "NULL"},
					}, scanAll(t, rows))
				}
			})
		}
	}
}

func TestPreparedStatements(t *testing.T) {
	ts := startServer(t, Config{})
	db := ts.open(t, "root", "") // no interpolateParams: PREPARE, EXECUTE, CLOSE
	tests := []struct {
		name string
		args []any
		want [][]string
	}{
		{"int", []any{int64(-42)}, [][]string{{"-42"}}},
		{"uint", []any{uint64(1 << 63)}, [][]string{{"9223372036854775808"}}},
		{"float", []any{1.25}, [][]string{{"1.25"}}},
		{"string", []any{"it's"}, [][]string{{"it's"}}},
		{"bytes", []any{[]byte("raw")}, [][]string{{"raw"}}},
		{"null", []any{nil}, [][]string{{"NULL"}}},
		{"several", []any{int64(1), "two", 3.5}, [][]string{{"1", "two", "3.5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := "select ?" + strings.Repeat(", ?", len(tt.args)-1)
			assert.Equal(t, tt.want, queryRows(t, db, q, tt.args...))
		})
	}
	t.Run("argument types reach the session", func(t *testing.T) {
		rows, err := db.Query("select ?, ?, ?, ?, ?, ?", int64(1), uint64(1<<63), 1.5, "s", []byte("b"), nil)
		require.NoError(t, err)
		defer rows.Close()
		cols, err := rows.Columns()
		require.NoError(t, err)
		assert.Equal(t, []string{"int64", "uint64", "float64", "string", "string", "<nil>"}, cols)
	})
	t.Run("result set of a prepared statement", func(t *testing.T) {
		assert.Equal(t, [][]string{{"1", "row 1"}, {"2", "row 2"}}, queryRows(t, db, "select rows 2 -- ?", 0))
	})
	t.Run("errors keep the connection", func(t *testing.T) {
		c := ts.conn(t, "")
		_, err := c.QueryContext(context.Background(), "bad prepare ?", 1)
		assertMySQLError(t, err, 1064, "42000")
		assert.Equal(t, [][]string{{"5"}}, queryRows(t, c, "select ?", 5))
		_, err = c.QueryContext(context.Background(), "error 3 -- ?", 1) // fails in EXECUTE
		assertMySQLError(t, err, 1146, "42S02")
		assert.Equal(t, "fake error 3", err.(*mysql.MySQLError).Message)
		assert.Equal(t, [][]string{{"6"}}, queryRows(t, c, "select ?", 6))
	})
	t.Run("panic in EXECUTE", func(t *testing.T) {
		c := ts.conn(t, "")
		_, err := c.QueryContext(context.Background(), "panic -- ?", 1)
		assertMySQLError(t, err, 1105, "HY000")
		assert.Contains(t, err.Error(), "internal error: boom")
	})
}

func TestPreparedStatementCap(t *testing.T) {
	ts := startServer(t, Config{MaxPreparedStmts: 3})
	c := ts.conn(t, "")
	var stmts []*dbsql.Stmt
	for range 3 {
		st, err := c.PrepareContext(context.Background(), "select ?")
		require.NoError(t, err)
		stmts = append(stmts, st)
	}
	_, err := c.PrepareContext(context.Background(), "select ?")
	assertMySQLError(t, err, 1461, "42000")
	assert.Contains(t, err.Error(), "limit 3")
	require.NoError(t, stmts[0].Close()) // closing one frees a place
	st, err := c.PrepareContext(context.Background(), "select ?")
	require.NoError(t, err)
	var got string
	require.NoError(t, st.QueryRow("x").Scan(&got))
	assert.Equal(t, "x", got)
}

func TestMultiStatements(t *testing.T) {
	ts := startServer(t, Config{})
	db := ts.open(t, "root", "multiStatements=true")

	rows, err := db.Query("select 1; show meta; select empty")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"1"}}, scanAll(t, rows))
	require.True(t, rows.NextResultSet())
	assert.Equal(t, [][]string{{"total", "1"}, {"time", "0.000"}}, scanAll(t, rows))
	require.True(t, rows.NextResultSet())
	assert.Equal(t, [][]string{}, scanAll(t, rows))
	assert.False(t, rows.NextResultSet())
	require.NoError(t, rows.Close())

	t.Run("OK packets between result sets", func(t *testing.T) {
		rows, err := db.Query("insert; select 1; insert")
		require.NoError(t, err)
		defer rows.Close()
		var sets int
		for {
			scanAll(t, rows)
			sets++
			if !rows.NextResultSet() {
				break
			}
		}
		require.NoError(t, rows.Err())
		assert.GreaterOrEqual(t, sets, 1)
	})

	t.Run("an error after a result set", func(t *testing.T) {
		c, err := db.Conn(context.Background())
		require.NoError(t, err)
		defer c.Close()
		rows, err := c.QueryContext(context.Background(), "select 1; error 3; select 1")
		if err == nil {
			assert.Equal(t, [][]string{{"1"}}, scanAll(t, rows))
			assert.False(t, rows.NextResultSet())
			err = rows.Err()
			rows.Close()
		}
		assertMySQLError(t, err, 1146, "42S02")
		assert.Equal(t, [][]string{{"1"}}, queryRows(t, c, "select 1"))
	})
}

func assertMySQLError(t *testing.T, err error, number uint16, state string) {
	t.Helper()
	var me *mysql.MySQLError
	require.True(t, errors.As(err, &me), "want MySQL error %d, got %v", number, err)
	assert.Equal(t, number, me.Number, me.Message)
	assert.Equal(t, state, string(me.SQLState[:]), me.Message)
}

func TestErrorsKeepConnectionUsable(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.conn(t, "")
	tests := []struct {
		query  string
		number uint16
		state  string
	}{
		{fmt.Sprintf("error %d", sql.CodeSyntax), 1064, "42000"},
		{fmt.Sprintf("error %d", sql.CodeEmptyQuery), 1065, "42000"},
		{fmt.Sprintf("error %d", sql.CodeNoSuchTable), 1146, "42S02"},
		{fmt.Sprintf("error %d", sql.CodeTableExists), 1050, "42S01"},
		{fmt.Sprintf("error %d", sql.CodeNoSuchColumn), 1054, "42S22"},
		{fmt.Sprintf("error %d", sql.CodeDuplicateID), 1062, "23000"},
		{fmt.Sprintf("error %d", sql.CodeWrongValue), 1366, "HY000"},
		{fmt.Sprintf("error %d", sql.CodeWrongCount), 1136, "21S01"},
		{fmt.Sprintf("error %d", sql.CodeBadOption), 1210, "HY000"},
		{fmt.Sprintf("error %d", sql.CodeQuerySyntax), 1064, "42000"},
		{fmt.Sprintf("error %d", sql.CodeUnsupported), 1235, "42000"},
		{fmt.Sprintf("error %d", sql.CodeCancelled), 1317, "70100"},
		{fmt.Sprintf("error %d", sql.CodeAccessDenied), 1045, "28000"},
		{fmt.Sprintf("error %d", sql.CodePacketTooLarge), 1153, "08S01"},
		{fmt.Sprintf("error %d", sql.CodeNotPreparable), 1295, "HY000"},
		{fmt.Sprintf("error %d", sql.CodeNoSuchDB), 1049, "42000"},
		{fmt.Sprintf("error %d", sql.CodeInternal), 1105, "HY000"},
		{"error 999", 1105, "HY000"}, // a code without a mapping
		{"plain error", 1105, "HY000"},
		{"", 1065, "42000"},
		{"nonsense", 1064, "42000"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, err := c.ExecContext(context.Background(), tt.query)
			assertMySQLError(t, err, tt.number, tt.state)
			assert.Equal(t, [][]string{{"1"}}, queryRows(t, c, "select 1"))
		})
	}
}

func TestHandshakeDatabase(t *testing.T) {
	ts := startServer(t, Config{})
	db, err := dbsql.Open("mysql", "root@tcp("+ts.mysqlAddr+")/glint")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Ping())

	bad, err := dbsql.Open("mysql", "root@tcp("+ts.mysqlAddr+")/nope")
	require.NoError(t, err)
	defer bad.Close()
	assertMySQLError(t, bad.Ping(), 1049, "42000")
}

func TestPanicClosesOnlyThatConnection(t *testing.T) {
	ts := startServer(t, Config{})
	other := ts.conn(t, "")
	c := ts.conn(t, "")
	_, err := c.ExecContext(context.Background(), "panic")
	assertMySQLError(t, err, 1105, "HY000")
	assert.Contains(t, err.Error(), "boom")
	// That connection is closed ...
	err = c.PingContext(context.Background())
	assert.Error(t, err)
	// ... the others and the server are not.
	assert.Equal(t, [][]string{{"1"}}, queryRows(t, other, "select 1"))
	assert.Equal(t, [][]string{{"1"}}, queryRows(t, ts.open(t, "root", ""), "select 1"))
}

func TestPacketTooLarge(t *testing.T) {
	const limit = 1 << 20
	ts := startServer(t, Config{MaxAllowedPacket: limit})
	tests := []struct {
		name string
		size int
	}{
		{"just over", limit},               // "echo " + size > limit
		{"two physical packets", 17 << 20}, // over 16 MiB - 1: continued packets
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ts.conn(t, "maxAllowedPacket=67108864")
			_, err := c.ExecContext(context.Background(), "echo "+strings.Repeat("x", tt.size))
			assertMySQLError(t, err, 1153, "08S01")
			assert.Contains(t, err.Error(), "max_allowed_packet")
		})
	}
	t.Run("at the limit is fine", func(t *testing.T) {
		c := ts.conn(t, "maxAllowedPacket=67108864")
		text := strings.Repeat("y", limit-len("echo ")-1) // +1 for the command byte
		assert.Equal(t, [][]string{{text}}, queryRows(t, c, "echo "+text))
	})
	t.Run("server still serves", func(t *testing.T) {
		assert.Equal(t, [][]string{{"1"}}, queryRows(t, ts.open(t, "root", ""), "select 1"))
	})
}

func TestAuthentication(t *testing.T) {
	ts := startServer(t, Config{Users: map[string]string{"alice": "secret", "nopw": ""}})
	tests := []struct {
		name     string
		userPass string
		params   string
		denied   bool
	}{
		{"right password", "alice:secret", "", false},
		{"user with empty password", "nopw", "", false},
		{"wrong password", "alice:wrong", "", true},
		{"no password", "alice", "", true},
		{"unknown user", "bob:secret", "", true},
		{"unknown user without password", "bob", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ts.open(t, tt.userPass, tt.params).Ping()
			if !tt.denied {
				require.NoError(t, err)
				return
			}
			assertMySQLError(t, err, 1045, "28000")
		})
	}
	ts.eng.mu.Lock()
	defer ts.eng.mu.Unlock()
	assert.Contains(t, ts.eng.users, "alice")
	assert.NotContains(t, ts.eng.users, "bob")
}

func TestNoUsersAcceptsAnyone(t *testing.T) {
	ts := startServer(t, Config{})
	for _, up := range []string{"root", "someone:with-a-password", ":"} {
		assert.NoError(t, ts.open(t, up, "").Ping(), up)
	}
}

func TestStatementCancelledWhenClientGoesAway(t *testing.T) {
	ts := startServer(t, Config{})
	db := ts.open(t, "root", "")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := db.ExecContext(ctx, "sleep 30s") // the driver closes the socket on timeout
	require.Error(t, err)
	select {
	case <-ts.eng.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the statement's context was not cancelled after the client went away")
	}
}

func TestShutdownLetsStatementsFinish(t *testing.T) {
	ts := startServer(t, Config{})
	busy := ts.conn(t, "")
	idle := ts.conn(t, "")
	require.NoError(t, idle.PingContext(context.Background()))

	type result struct {
		rows [][]string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		rows, err := busy.QueryContext(context.Background(), "sleep 300ms")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer rows.Close()
		var s string
		var out [][]string
		for rows.Next() {
			if err := rows.Scan(&s); err != nil {
				done <- result{err: err}
				return
			}
			out = append(out, []string{s})
		}
		done <- result{out, rows.Err()}
	}()
	time.Sleep(100 * time.Millisecond) // the statement is running
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	require.NoError(t, ts.Shutdown(ctx))
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "Shutdown waited for the statement")
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, [][]string{{"300ms"}}, r.rows)
	assert.Error(t, idle.PingContext(context.Background()), "idle connections are closed")
	_, err := net.DialTimeout("tcp", ts.mysqlAddr, time.Second)
	assert.Error(t, err, "no longer accepting")
}

func TestShutdownCancelsAfterDeadline(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.conn(t, "")
	errc := make(chan error, 1)
	go func() {
		_, err := c.ExecContext(context.Background(), "sleep 30s")
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, ts.Shutdown(ctx), context.DeadlineExceeded)
	select {
	case err := <-errc:
		assert.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the statement was not interrupted")
	}
	select {
	case <-ts.eng.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the statement's context was not cancelled")
	}
}

func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, Config{IdleTimeout: 200 * time.Millisecond})
	c := ts.conn(t, "")
	require.NoError(t, c.PingContext(context.Background()))
	time.Sleep(500 * time.Millisecond)
	assert.Error(t, c.PingContext(context.Background()))
}

func TestHandshakeVersion(t *testing.T) {
	ts := startServer(t, Config{Version: "1.2.3"})
	nc, err := net.DialTimeout("tcp", ts.mysqlAddr, time.Second)
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(5*time.Second)))
	buf := make([]byte, 256)
	n, err := io.ReadAtLeast(nc, buf, 40)
	require.NoError(t, err)
	payload := buf[4:n]
	require.Equal(t, byte(10), payload[0])
	version, _, _ := strings.Cut(string(payload[1:]), "\x00")
	assert.Equal(t, "8.0.36-glint-1.2.3", version)
}

func BenchmarkSelect1(b *testing.B) {
	ts := startServerB(b)
	db, err := dbsql.Open("mysql", "root@tcp("+ts.mysqlAddr+")/")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n int
	for b.Loop() {
		if err := db.QueryRow("select 1").Scan(&n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStream10kRows(b *testing.B) {
	ts := startServerB(b)
	db, err := dbsql.Open("mysql", "root@tcp("+ts.mysqlAddr+")/")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		rows, err := db.Query("select rows 10000")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
	}
}

func startServerB(b *testing.B) *testServer {
	s := New(newFakeEngine(), Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.ServeMySQL(ml)
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return &testServer{Server: s, mysqlAddr: ml.Addr().String()}
}

func TestHandshakeTimeout(t *testing.T) {
	ts := startServer(t, Config{HandshakeTimeout: 200 * time.Millisecond})
	nc, err := net.DialTimeout("tcp", ts.mysqlAddr, time.Second)
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(5*time.Second)))
	// The greeting, then EOF when the server gives up; a server that kept
	// the connection would hit the read deadline, an error.
	_, err = io.ReadAll(nc)
	require.NoError(t, err)
}

// lockedBuffer is a log destination safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A refused password is logged as access denied; a client that hangs up
// in the middle of the handshake is logged with what failed, not as a
// refused login.
func TestHandshakeFailuresLogged(t *testing.T) {
	var logs lockedBuffer
	ts := startServer(t, Config{Users: map[string]string{"alice": "secret"},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	assertMySQLError(t, ts.open(t, "alice:wrong", "").Ping(), 1045, "28000")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "access denied") }, 5*time.Second, 10*time.Millisecond)
	require.Contains(t, logs.String(), "user=alice")

	c, err := net.Dial("tcp", ts.mysqlAddr)
	require.NoError(t, err)
	greeting := make([]byte, 4)
	_, err = io.ReadFull(c, greeting) // the server's handshake packet's header
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "handshake failed") }, 5*time.Second, 10*time.Millisecond)
	require.NotContains(t, logs.String(), ".go:", "the error's message, not its stack")
	require.Equal(t, 1, strings.Count(logs.String(), "access denied"), logs.String())
}
