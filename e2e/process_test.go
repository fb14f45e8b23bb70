package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKill: SHOW PROCESSLIST lists the connections with the statement each
// runs, KILL QUERY stops a statement and leaves its connection, KILL
// stops both; the id is CONNECTION_ID() and the handshake's, so the mysql
// client's Ctrl-C stops its statement. A write waiting for another
// connection's read lock is the long statement.
func TestKill(t *testing.T) {
	s := StartServer(t)
	holder, waiter, admin := s.Conn(t), s.Conn(t), s.Conn(t)
	MustQuery(t, admin, "CREATE TABLE t (title text)")
	waiterID := MustQuery(t, waiter, "SELECT CONNECTION_ID()").Values[0][0]

	// waitFor runs query on waiter, which waits for holder's lock.
	waitFor := func(query string) chan error {
		MustQuery(t, holder, "FLUSH TABLES WITH READ LOCK")
		done := make(chan error, 1)
		go func() {
			_, err := Query(waiter, query)
			done <- err
		}()
		require.Eventually(t, func() bool {
			for _, row := range MustQuery(t, admin, "SHOW PROCESSLIST").Values {
				if row[0] == waiterID && row[4] == "Query" && row[7] == query {
					return true
				}
			}
			return false
		}, hangGuard, 10*time.Millisecond, "the waiting write is listed")
		return done
	}

	done := waitFor("INSERT INTO t (id, title) VALUES (1, 'one')")
	MustQuery(t, admin, "KILL QUERY "+waiterID)
	RequireMySQLError(t, <-done, 1317, "Query execution was interrupted")
	MustQuery(t, holder, "UNLOCK TABLES")
	require.Equal(t, [][]string{{"0"}}, MustQuery(t, waiter, "SELECT COUNT(*) FROM t").Values, "the connection goes on")

	done = waitFor("INSERT INTO t (id, title) VALUES (2, 'two')")
	MustQuery(t, admin, "KILL CONNECTION "+waiterID)
	require.Error(t, <-done)
	MustQuery(t, holder, "UNLOCK TABLES")
	require.Eventually(t, func() bool {
		n := MustQuery(t, admin, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "+waiterID).Values[0][0]
		return n == "0"
	}, hangGuard, 10*time.Millisecond, "the killed connection is gone")
	_, err := Query(admin, "KILL 4000000000")
	RequireMySQLError(t, err, 1094, "Unknown thread id: 4000000000")

	// The mysql client: its handshake's id is CONNECTION_ID(), and Ctrl-C
	// sends KILL QUERY with it.
	out, code := s.CLICombined(t, "SELECT CONNECTION_ID();\nstatus\n", "glint")
	require.Equal(t, 0, code, out)
	lines := strings.Split(out, "\n")
	require.Contains(t, out, "Connection id:\t\t"+lines[1]+"\n")

	MustQuery(t, holder, "FLUSH TABLES WITH READ LOCK")
	cmd := s.cliCommand(t, "", "glint", "-e", "INSERT INTO t (id, title) VALUES (3, 'three')")
	var cliOut strings.Builder
	cmd.Stdout, cmd.Stderr = &cliOut, &cliOut
	require.NoError(t, cmd.Start())
	stop := time.AfterFunc(hangGuard, func() { _ = cmd.Process.Kill() })
	defer stop.Stop()
	require.Eventually(t, func() bool {
		return strings.Contains(strings.Join(MustQuery(t, admin, "SELECT INFO FROM information_schema.PROCESSLIST").Column(0), "\n"), "'three'")
	}, hangGuard, 10*time.Millisecond, "the client's write is listed")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.Error(t, cmd.Wait())
	require.Contains(t, cliOut.String(), "ERROR 1317")
	MustQuery(t, holder, "UNLOCK TABLES")
	require.Equal(t, [][]string{{"0"}}, MustQuery(t, admin, "SELECT COUNT(*) FROM t").Values)
}
