package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestListenerVariables: the @@variables that describe the MySQL listener
// tell clients what it was started with (drivers size their packets by
// @@max_allowed_packet; pools read @@wait_timeout).
func TestListenerVariables(t *testing.T) {
	ask := "SELECT @@max_allowed_packet, @@wait_timeout, @@interactive_timeout, @@have_ssl"
	s := StartServer(t, WithArgs("--max-allowed-packet", "16M", "--idle-timeout", "90s"))
	res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", ask)
	require.Zero(t, res.ExitCode, res.Stderr)
	require.Equal(t, "16777216\t90\t90\tDISABLED\n", res.Stdout)

	s = StartServer(t)
	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e", ask)
	require.Equal(t, "67108864\t28800\t28800\tDISABLED\n", res.Stdout)
}

// TestSetAutocommitSpellings: every spelling MySQL takes for a boolean
// variable sets it (read back as 1 or 0), and a value MySQL refuses is its error 1231 or 1232, with the
// variable as it was.
func TestSetAutocommitSpellings(t *testing.T) {
	s := StartServer(t)
	for _, tc := range []struct{ set, want string }{
		{"SET autocommit=ON", "1"},
		{"SET autocommit=0", "0"},
		{"SET autocommit = 'ON'", "1"},
		{"SET SESSION autocommit=OFF", "0"},
		{"SET @@autocommit=on", "1"},
		{"SET @@session.autocommit='off'", "0"},
		{"SET autocommit=TRUE", "1"},
		{"SET autocommit=FALSE", "0"},
		{"SET autocommit=1", "1"},
		{"SET foreign_key_checks=OFF", "0"},
	} {
		name := "@@autocommit"
		if strings.Contains(tc.set, "foreign_key_checks") {
			name = "@@foreign_key_checks"
		}
		res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", "SET autocommit=1; "+tc.set+"; SELECT "+name)
		require.Zero(t, res.ExitCode, tc.set+": "+res.Stderr)
		require.Equal(t, tc.want+"\n", res.Stdout, tc.set)
	}
	for _, tc := range []struct{ set, err string }{
		{"SET autocommit=2", "ERROR 1231 (42000) at line 1: Variable 'autocommit' can't be set to the value of '2'"},
		{"SET autocommit='maybe'", "ERROR 1231 (42000) at line 1: Variable 'autocommit' can't be set to the value of 'maybe'"},
		{"SET @@autocommit=NULL", "ERROR 1231 (42000) at line 1: Variable 'autocommit' can't be set to the value of 'NULL'"},
		{"SET autocommit=0.5", "ERROR 1232 (42000) at line 1: Incorrect argument type to variable 'autocommit'"},
	} {
		res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", tc.set+"; SELECT @@autocommit")
		require.NotZero(t, res.ExitCode, tc.set)
		require.True(t, strings.HasSuffix(res.Stderr, "\n"+tc.err+"\n"), "%s: %q", tc.set, res.Stderr)
		require.Empty(t, res.Stdout, tc.set)
	}
	res := s.CLI(t, "SET autocommit=0;\nSET autocommit=2;\nSELECT @@autocommit;\n", "--batch", "--skip-column-names", "--force")
	require.Equal(t, "0\n", res.Stdout, "a refused SET leaves the variable as it was")
}

// TestSetConnectionVariables: the variables that say what a connection
// waits for and takes act on it: a session's wait_timeout closes its
// connection when it idles that long (and no other), SET GLOBAL
// max_allowed_packet bounds the packets of the connections made after it
// (the mysql client's included), and an unknown variable is MySQL's error.
func TestSetConnectionVariables(t *testing.T) {
	s := StartServer(t)
	ctx := context.Background()
	short, long := s.Conn(t), s.Conn(t)
	_, err := short.ExecContext(ctx, "SET wait_timeout = 1")
	require.NoError(t, err)
	var v int
	require.NoError(t, short.QueryRowContext(ctx, "SELECT @@wait_timeout").Scan(&v))
	require.Equal(t, 1, v)
	time.Sleep(2500 * time.Millisecond)
	require.Error(t, short.QueryRowContext(ctx, "SELECT 1").Scan(&v), "idle past its wait_timeout: closed")
	require.NoError(t, long.QueryRowContext(ctx, "SELECT 1").Scan(&v))

	res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", "SET GLOBAL max_allowed_packet = 4096")
	require.Zero(t, res.ExitCode, res.Stderr)
	big := "SELECT '" + strings.Repeat("x", 5000) + "'"
	require.NoError(t, long.QueryRowContext(ctx, big).Scan(new(string)), "a connection made before keeps its limit")
	res = s.CLI(t, "", "--batch", "--skip-column-names", "--max-allowed-packet=16M", "-e", "SELECT @@max_allowed_packet; "+big)
	require.NotZero(t, res.ExitCode)
	require.Equal(t, "4096\n", res.Stdout)
	require.Contains(t, res.Stderr, "ERROR 1153 (08S01)")

	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e", "SET nonsense_var = 5")
	require.NotZero(t, res.ExitCode)
	require.Contains(t, res.Stderr, "ERROR 1193 (HY000) at line 1: Unknown system variable 'nonsense_var'")

	// A read-only session reads and does not write; safe updates want
	// the id.
	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e",
		"CREATE TABLE t (title text); SET SESSION TRANSACTION READ ONLY; SELECT COUNT(*) FROM t; INSERT INTO t (id, title) VALUES (1, 'x')")
	require.NotZero(t, res.ExitCode)
	require.Equal(t, "0\n", res.Stdout)
	require.Contains(t, res.Stderr, "ERROR 1792 (25006) at line 1: Cannot execute statement in a READ ONLY transaction")
	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e",
		"INSERT INTO t (id, title) VALUES (1, 'x'); SET sql_safe_updates = 1; DELETE FROM t WHERE MATCH('x')")
	require.NotZero(t, res.ExitCode)
	require.Contains(t, res.Stderr, "ERROR 1175 (HY000) at line 1: You are using safe update mode")
}
