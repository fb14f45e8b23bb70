package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireCode runs stmt and requires an error of code and msg.
func requireCode(t *testing.T, s *Session, stmt string, code Code, msg string) {
	t.Helper()
	_, err := s.Exec(context.Background(), stmt)
	var e *Error
	require.ErrorAs(t, err, &e, stmt)
	require.Equal(t, code, e.Code, stmt)
	require.Equal(t, msg, e.Msg, stmt)
}

// value is what SELECT expr answers in s, as text.
func value(t *testing.T, s *Session, expr string) string {
	t.Helper()
	res, err := s.Exec(context.Background(), "SELECT "+expr)
	require.NoError(t, err, expr)
	return fmt.Sprint(res[0].Rows[0][0])
}

// TestSetUnknownVariable: a system variable glint does not know is MySQL's
// error 1193, in SET as in SELECT, and the SET sets nothing; a user
// variable is anything.
func TestSetUnknownVariable(t *testing.T) {
	s := newTestSession(t)
	requireCode(t, s, "SET nonsense_var = 5", CodeUnknownVariable, "Unknown system variable 'nonsense_var'")
	requireCode(t, s, "SET GLOBAL nonsense_var = 5", CodeUnknownVariable, "Unknown system variable 'nonsense_var'")
	requireCode(t, s, "SET sql_notes = 0, @@session.Nonsense = 1", CodeUnknownVariable, "Unknown system variable 'nonsense'")
	require.Equal(t, "1", value(t, s, "@@sql_notes"), "a refused SET sets nothing")
	requireCode(t, s, "SELECT @@nonsense_var", CodeUnknownVariable, "Unknown system variable 'nonsense_var'")
	mustExec(t, s, "SET @nonsense_var = 5")
	require.Equal(t, "5", value(t, s, "@nonsense_var"))
	// What connectors set when they connect is known.
	mustExec(t, s, "SET session_track_schema = 1, net_read_timeout = 600, SQL_SELECT_LIMIT = DEFAULT")
	require.Equal(t, "1", value(t, s, "@@session_track_schema"))
	require.Equal(t, "600", value(t, s, "@@net_read_timeout"))
}

// TestSetGlobal: SET GLOBAL changes what sessions opened after it start
// with (@@global.x at once), not the session that ran it nor those open.
func TestSetGlobal(t *testing.T) {
	s := newTestSession(t)
	other := s.engine.NewSession("root")
	mustExec(t, s, "SET GLOBAL sql_notes = OFF, GLOBAL group_concat_max_len = 4096")
	for _, sess := range []*Session{s, other} {
		require.Equal(t, "1", value(t, sess, "@@sql_notes"))
		require.Equal(t, "1", value(t, sess, "@@session.sql_notes"))
		require.Equal(t, "0", value(t, sess, "@@global.sql_notes"))
		require.Equal(t, "1024", value(t, sess, "@@group_concat_max_len"))
	}
	later := s.engine.NewSession("root")
	require.Equal(t, "0", value(t, later, "@@sql_notes"))
	require.Equal(t, "4096", value(t, later, "@@group_concat_max_len"))

	// SHOW GLOBAL VARIABLES shows the global values, SHOW VARIABLES the
	// session's.
	mustExec(t, s, "SET sql_notes = 1")
	show := func(stmt string) string {
		res, err := s.Exec(context.Background(), stmt)
		require.NoError(t, err)
		return fmt.Sprint(res[0].Rows)
	}
	require.Equal(t, "[[sql_notes 0]]", show("SHOW GLOBAL VARIABLES LIKE 'sql_notes'"))
	require.Equal(t, "[[sql_notes 1]]", show("SHOW SESSION VARIABLES LIKE 'sql_notes'"))

	// DEFAULT: the global value goes back to the server's, a session's to
	// what it started with.
	mustExec(t, later, "SET sql_notes = 1")
	mustExec(t, later, "SET sql_notes = DEFAULT")
	require.Equal(t, "0", value(t, later, "@@sql_notes"))
	mustExec(t, s, "SET GLOBAL sql_notes = DEFAULT")
	require.Equal(t, "1", value(t, s.engine.NewSession("root"), "@@sql_notes"))
	require.Equal(t, "4096", value(t, s.engine.NewSession("root"), "@@group_concat_max_len"))
}

// TestMaxAllowedPacketVariable: as in MySQL, a session reads
// max_allowed_packet and only SET GLOBAL changes it, for the sessions
// after it, in whole KiB from 1 KiB to 1 GiB.
func TestMaxAllowedPacketVariable(t *testing.T) {
	s := newTestSession(t)
	requireCode(t, s, "SET max_allowed_packet = 4096", CodeGlobalVariable,
		"SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value")
	requireCode(t, s, "SET SESSION max_allowed_packet = 4096", CodeGlobalVariable,
		"SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value")
	requireCode(t, s, "SET GLOBAL max_allowed_packet = 1000", CodeWrongVariableValue,
		"Variable 'max_allowed_packet' can't be set to the value of '1000' (it takes 1024 to 1073741824)")
	requireCode(t, s, "SET GLOBAL max_allowed_packet = 2147483648", CodeWrongVariableValue,
		"Variable 'max_allowed_packet' can't be set to the value of '2147483648' (it takes 1024 to 1073741824)")
	requireCode(t, s, "SET GLOBAL max_allowed_packet = '4K'", CodeWrongVariableType,
		"Incorrect argument type to variable 'max_allowed_packet'")

	mustExec(t, s, "SET GLOBAL max_allowed_packet = 5000")
	res, err := s.Exec(context.Background(), "SHOW WARNINGS")
	require.NoError(t, err)
	require.Equal(t, "[[Warning 1292 Truncated incorrect max_allowed_packet value: '5000']]", fmt.Sprint(res[0].Rows))
	require.Equal(t, 64<<20, s.MaxAllowedPacket(), "the session keeps its value")
	later := s.engine.NewSession("root")
	require.Equal(t, 4096, later.MaxAllowedPacket())
	require.Equal(t, "4096", value(t, later, "@@max_allowed_packet"))
	require.Equal(t, "4096", value(t, s, "@@global.max_allowed_packet"))
	require.Equal(t, fmt.Sprint(64<<20), value(t, s, "@@max_allowed_packet"))
}

// TestConnTimeouts: wait_timeout, net_read_timeout and net_write_timeout
// are what the session's connection waits for (the server asks after
// every command), whole seconds from 1 to a year; an interactive client
// starts with the global interactive_timeout as its wait_timeout.
func TestConnTimeouts(t *testing.T) {
	s := newTestSession(t)
	idle, read, write := s.ConnTimeouts()
	require.Equal(t, [3]time.Duration{8 * time.Hour, 30 * time.Second, time.Minute}, [3]time.Duration{idle, read, write})
	mustExec(t, s, "SET wait_timeout = 5, net_read_timeout = 7, SESSION net_write_timeout = 9")
	idle, read, write = s.ConnTimeouts()
	require.Equal(t, [3]time.Duration{5 * time.Second, 7 * time.Second, 9 * time.Second}, [3]time.Duration{idle, read, write})
	mustExec(t, s, "SET wait_timeout = DEFAULT")
	idle, _, _ = s.ConnTimeouts()
	require.Equal(t, 8*time.Hour, idle)
	for _, tc := range []struct {
		set  string
		code Code
		msg  string
	}{
		{"SET wait_timeout = 0", CodeWrongVariableValue, "Variable 'wait_timeout' can't be set to the value of '0' (it takes 1 to 31536000)"},
		{"SET net_read_timeout = 31536001", CodeWrongVariableValue, "Variable 'net_read_timeout' can't be set to the value of '31536001' (it takes 1 to 31536000)"},
		{"SET wait_timeout = 1.5", CodeWrongVariableType, "Incorrect argument type to variable 'wait_timeout'"},
		{"SET wait_timeout = 'soon'", CodeWrongVariableType, "Incorrect argument type to variable 'wait_timeout'"},
		{"SET wait_timeout = NULL", CodeWrongVariableValue, "Variable 'wait_timeout' can't be set to the value of 'NULL'"},
	} {
		requireCode(t, s, tc.set, tc.code, tc.msg)
	}
	_, read, _ = s.ConnTimeouts()
	require.Equal(t, 7*time.Second, read, "a refused SET sets nothing")

	mustExec(t, s, "SET GLOBAL interactive_timeout = 77")
	cli := s.engine.NewSession("root")
	cli.Interactive()
	idle, _, _ = cli.ConnTimeouts()
	require.Equal(t, 77*time.Second, idle)
	require.Equal(t, "77", value(t, cli, "@@wait_timeout"))
	idle, _, _ = s.engine.NewSession("root").ConnTimeouts()
	require.Equal(t, 8*time.Hour, idle, "a client that is not interactive")
}

// TestSQLSelectLimit: @@sql_select_limit is the rows of a SELECT without
// LIMIT (20 unless set); a LIMIT still says its own.
func TestSQLSelectLimit(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text)")
	var values []string
	for i := 1; i <= 30; i++ {
		values = append(values, fmt.Sprintf("(%d, 'word')", i))
	}
	mustExec(t, s, "INSERT INTO t (id, title) VALUES "+strings.Join(values, ", "))
	rows := func(q string) int {
		res, err := s.Exec(context.Background(), q)
		require.NoError(t, err, q)
		return len(res[0].Rows)
	}
	require.Equal(t, "20", value(t, s, "@@sql_select_limit"))
	require.Equal(t, 20, rows("SELECT id FROM t WHERE MATCH('word')"))
	mustExec(t, s, "SET sql_select_limit = 3")
	require.Equal(t, 3, rows("SELECT id FROM t WHERE MATCH('word')"))
	require.Equal(t, 3, rows("SELECT id FROM t"))
	require.Equal(t, 25, rows("SELECT id FROM t LIMIT 25"))
	mustExec(t, s, "SET SQL_SELECT_LIMIT = DEFAULT")
	require.Equal(t, 20, rows("SELECT id FROM t"))
	requireCode(t, s, "SET sql_select_limit = -1", CodeWrongVariableValue,
		"Variable 'sql_select_limit' can't be set to the value of '-1' (it takes 0 to 2147483647)")
}

// TestTimeZone: @@time_zone is the zone NOW(), FROM_UNIXTIME() and the
// like show times in and UNIX_TIMESTAMP() reads them in: SYSTEM (UTC), an
// offset from -13:59 to +14:00, or a name; anything else is MySQL's 1298.
func TestTimeZone(t *testing.T) {
	s := newTestSession(t)
	require.Equal(t, "1970-01-01 00:00:00", value(t, s, "FROM_UNIXTIME(0)"))
	for _, tc := range []struct{ zone, epoch string }{
		{"'+02:00'", "1970-01-01 02:00:00"},
		{"'Asia/Kolkata'", "1970-01-01 05:30:00"},
		{"'-13:59'", "1969-12-31 10:01:00"},
		{"SYSTEM", "1970-01-01 00:00:00"},
		{"'UTC'", "1970-01-01 00:00:00"},
	} {
		mustExec(t, s, "SET time_zone = "+tc.zone)
		require.Equal(t, tc.epoch, value(t, s, "FROM_UNIXTIME(0)"), tc.zone)
		require.Equal(t, "0", value(t, s, "UNIX_TIMESTAMP('"+tc.epoch+"')"), tc.zone)
		require.Equal(t, "1", value(t, s, "NOW() = FROM_UNIXTIME(UNIX_TIMESTAMP())"), tc.zone)
	}
	for _, z := range []string{"'Mars/Olympus'", "'+14:01'", "'-14:00'", "''", "NULL", "'Local'"} {
		_, err := s.Exec(context.Background(), "SET time_zone = "+z)
		var e *Error
		require.ErrorAs(t, err, &e, z)
		require.Equal(t, CodeUnknownTimeZone, e.Code, z)
		require.Contains(t, e.Msg, "Unknown or incorrect time zone: ", z)
	}
	require.Equal(t, "UTC", value(t, s, "@@time_zone"), "a refused SET sets nothing")
	mustExec(t, s, "SET GLOBAL time_zone = '+01:00'")
	require.Equal(t, "1970-01-01 00:00:00", value(t, s, "FROM_UNIXTIME(0)"))
	require.Equal(t, "1970-01-01 01:00:00", value(t, s.engine.NewSession("root"), "FROM_UNIXTIME(0)"))
}

// TestReadOnlySession: a session whose @@transaction_read_only is 1 (SET
// SESSION TRANSACTION READ ONLY, a JDBC tool's read-only connection) reads
// and does not write, in SQL or through the JSON API's calls, as in MySQL.
func TestReadOnlySession(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text, n int)")
	mustExec(t, s, "INSERT INTO t (id, title, n) VALUES (1, 'one', 1)")
	mustExec(t, s, "SET SESSION TRANSACTION READ ONLY")
	require.Equal(t, "1", value(t, s, "@@transaction_read_only"))
	require.Equal(t, "1", value(t, s, "@@tx_read_only"))
	const msg = "Cannot execute statement in a READ ONLY transaction (this session's @@transaction_read_only is 1)"
	for _, stmt := range []string{
		"INSERT INTO t (id, title, n) VALUES (2, 'two', 2)",
		"REPLACE INTO t (id, title, n) VALUES (1, 'uno', 1)",
		"UPDATE t SET n = 5 WHERE id = 1",
		"DELETE FROM t WHERE id = 1",
		"CREATE TABLE u (title text)",
		"DROP TABLE t",
		"TRUNCATE TABLE t",
		"ALTER TABLE t ADD COLUMN m int",
		"CREATE CLUSTER c",
		"JOIN CLUSTER c AT '127.0.0.1:9312'",
		"ALTER CLUSTER c ADD t",
		"ALTER CLUSTER c DROP t",
		"DELETE CLUSTER c",
	} {
		requireCode(t, s, stmt, CodeReadOnlyTransaction, msg)
	}
	_, err := s.InsertDocs(context.Background(), "t", []Doc{{ID: 3}}, false)
	require.ErrorContains(t, err, msg)
	require.Equal(t, "one", value(t, s, "title FROM t WHERE id = 1"))
	number, state := CodeReadOnlyTransaction.MySQL()
	require.Equal(t, [2]any{uint16(1792), "25006"}, [2]any{number, state})

	mustExec(t, s, "SET SESSION TRANSACTION READ WRITE")
	mustExec(t, s, "UPDATE t SET n = 5 WHERE id = 1")
	mustExec(t, s, "SET tx_read_only = 1")
	require.Equal(t, "1", value(t, s, "@@transaction_read_only"))
	requireCode(t, s, "DELETE FROM t WHERE id = 1", CodeReadOnlyTransaction, msg)
	mustExec(t, s, "SET transaction_read_only = 0")

	// Without a scope, for the next transaction only.
	mustExec(t, s, "SET TRANSACTION READ ONLY")
	requireCode(t, s, "INSERT INTO t (id, title, n) VALUES (2, 'two', 2)", CodeReadOnlyTransaction, msg)
	mustExec(t, s, "INSERT INTO t (id, title, n) VALUES (2, 'two', 2)")
	mustExec(t, s, "START TRANSACTION READ ONLY")
	require.Equal(t, "2", value(t, s, "COUNT(*) FROM t"))
	requireCode(t, s, "DELETE FROM t WHERE id = 2", CodeReadOnlyTransaction, msg)
	requireCode(t, s, "DELETE FROM t WHERE id = 1", CodeReadOnlyTransaction, msg)
	mustExec(t, s, "COMMIT")
	mustExec(t, s, "DELETE FROM t WHERE id = 2")
	// The isolation level is kept and read back (each statement sees what
	// was written before it, whatever it says).
	mustExec(t, s, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
	mustExec(t, s, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	require.Equal(t, "SERIALIZABLE", value(t, s, "@@transaction_isolation"))
	require.Equal(t, "SERIALIZABLE", value(t, s, "@@tx_isolation"))

	// SET GLOBAL: the sessions after it, the JSON API's included.
	mustExec(t, s, "SET GLOBAL TRANSACTION READ ONLY")
	mustExec(t, s, "INSERT INTO t (id, title, n) VALUES (4, 'four', 4)")
	later := s.engine.NewSession("root")
	requireCode(t, later, "INSERT INTO t (id, title, n) VALUES (5, 'five', 5)", CodeReadOnlyTransaction, msg)
	_, err = later.DeleteDocs(context.Background(), "t", &TextCond{Query: "one"})
	require.ErrorContains(t, err, msg)
}

// TestSafeUpdates: under @@sql_safe_updates an UPDATE or DELETE must name
// the id in its WHERE (MySQL's error 1175 otherwise).
func TestSafeUpdates(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text, n int)")
	mustExec(t, s, "INSERT INTO t (id, title, n) VALUES (1, 'one', 1), (2, 'two', 2)")
	mustExec(t, s, "SET sql_safe_updates = 1")
	const msg = "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column (the id). To disable safe mode, SET sql_safe_updates = 0"
	for _, stmt := range []string{
		"DELETE FROM t",
		"DELETE FROM t WHERE MATCH('one')",
		"UPDATE t SET n = 3",
		"UPDATE t SET n = 3 WHERE n = 1",
	} {
		requireCode(t, s, stmt, CodeSafeUpdates, msg)
	}
	require.Equal(t, "2", value(t, s, "COUNT(*) FROM t"))
	mustExec(t, s, "UPDATE t SET n = 3 WHERE id = 1")
	mustExec(t, s, "DELETE FROM t WHERE id IN (2) AND n = 2")
	require.Equal(t, "1", value(t, s, "COUNT(*) FROM t"))
	mustExec(t, s, "SET sql_safe_updates = 0")
	mustExec(t, s, "DELETE FROM t WHERE MATCH('one')")
}

// TestQuoteShowCreate: with @@sql_quote_show_create 0, SHOW CREATE writes
// names bare, as MySQL does.
func TestQuoteShowCreate(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text)")
	show := func(stmt string) string {
		res, err := s.Exec(context.Background(), stmt)
		require.NoError(t, err)
		return fmt.Sprint(res[0].Rows[0][1])
	}
	require.Equal(t, "CREATE TABLE `t` (\n  `id` bigint NOT NULL,\n  `title` text,\n  PRIMARY KEY (`id`)\n)", show("SHOW CREATE TABLE t"))
	mustExec(t, s, "SET sql_quote_show_create = 0")
	require.Equal(t, "CREATE TABLE t (\n  id bigint NOT NULL,\n  title text,\n  PRIMARY KEY (id)\n)", show("SHOW CREATE TABLE t"))
	require.Equal(t, "CREATE DATABASE glint /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */", show("SHOW CREATE DATABASE glint"))
}

// @@warning_count and @@error_count tell of the statement before (as SHOW
// COUNT(*) WARNINGS does), and are read-only.
func TestWarningAndErrorCount(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE t (title text)")
	require.Equal(t, "0", value(t, s, "@@warning_count"))
	mustExec(t, s, "SELECT id FROM t WHERE MATCH('qu*')") // (a wildcard the table cannot expand: a warning)
	require.Equal(t, "1", value(t, s, "@@session.warning_count"))
	require.Equal(t, "0", value(t, s, "@@warning_count"), "the SELECT before had none")
	_, err := s.Exec(context.Background(), "SELECT nosuch FROM t")
	require.Error(t, err)
	require.Equal(t, "1", value(t, s, "@@error_count"))
	require.Equal(t, "0", value(t, s, "@@error_count"))
	requireCode(t, s, "SET warning_count = 5", CodeReadOnlyVariable, "Variable 'warning_count' is a read only variable")
	// @@last_insert_id and @@identity are LAST_INSERT_ID().
	mustExec(t, s, "INSERT INTO t (id, title) VALUES (42, 'x')")
	require.Equal(t, "42", value(t, s, "@@last_insert_id"))
	require.Equal(t, "42", value(t, s, "@@identity"))
	require.Equal(t, "42", value(t, s, "LAST_INSERT_ID()"))
}

// SHOW ERRORS tells the error of the statement before (none after one that
// did not fail); SHOW COUNT(*) ERRORS is @@error_count.
func TestShowErrors(t *testing.T) {
	s := newTestSession(t)
	exec := func(q string) string { return render(s.Exec(context.Background(), q)) }
	mustExec(t, s, "CREATE TABLE t (title text)")
	require.Equal(t, "Level:str | Code:int | Message:str\n", exec("SHOW ERRORS"))
	_, err := s.Exec(context.Background(), "SELECT nosuch FROM t")
	require.Error(t, err)
	require.Equal(t, "Level:str | Code:int | Message:str\nError | 1054 | unknown column 'nosuch' in table 't'\n", exec("SHOW ERRORS"))
	require.Equal(t, "@@session.error_count:int\n1\n", exec("SHOW COUNT(*) ERRORS"), "SHOW ERRORS left it as it was")
	mustExec(t, s, "SELECT 1")
	require.Equal(t, "Level:str | Code:int | Message:str\n", exec("SHOW ERRORS"))
}
