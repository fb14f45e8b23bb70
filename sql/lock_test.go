package sql

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadLocks: while one session holds FLUSH TABLES ... WITH READ LOCK,
// another's writes to the locked tables wait (in SQL and through the JSON
// API's calls) until UNLOCK TABLES or the holder's end, or fail with 1205
// past @@lock_wait_timeout; writes to other tables and reads go on.
func TestReadLocks(t *testing.T) {
	a := newTestSession(t)
	b := a.engine.NewSession("root")
	mustExec(t, a, "CREATE TABLE t (title text)")
	mustExec(t, a, "CREATE TABLE u (title text)")

	// A waiting write goes on when the lock is released.
	mustExec(t, a, "FLUSH TABLES t WITH READ LOCK")
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(context.Background(), "INSERT INTO t (id, title) VALUES (1, 'one')")
		done <- err
	}()
	mustExec(t, b.engine.NewSession("root"), "INSERT INTO u (id, title) VALUES (1, 'other table')")
	require.Equal(t, "0", value(t, a, "COUNT(*) FROM t"))
	select {
	case err := <-done:
		t.Fatalf("the write did not wait for the lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	mustExec(t, a, "UNLOCK TABLES")
	require.NoError(t, <-done)
	require.Equal(t, "1", value(t, a, "COUNT(*) FROM t"))

	// Past @@lock_wait_timeout, 1205; the JSON API's writes wait alike.
	mustExec(t, a, "FLUSH TABLES WITH READ LOCK")
	mustExec(t, b, "SET lock_wait_timeout = 1")
	requireCode(t, b, "DELETE FROM u WHERE id = 1", CodeLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	_, err := b.InsertDocs(context.Background(), "u", []Doc{{ID: 2}}, false)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, CodeLockWaitTimeout, e.Code)
	number, _ := CodeLockWaitTimeout.MySQL()
	require.Equal(t, uint16(1205), number)

	// A cancelled wait is the client's going away; the holder's end
	// releases its lock.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = b.Exec(ctx, "INSERT INTO u (id, title) VALUES (3, 'three')")
	require.ErrorAs(t, err, &e)
	require.Equal(t, CodeCancelled, e.Code)
	require.NoError(t, a.Close())
	mustExec(t, b, "INSERT INTO u (id, title) VALUES (3, 'three')")

	// A lock waits for the writes running on its tables.
	end, err := b.beginWriteTo(context.Background(), []string{"t"})
	require.NoError(t, err)
	locked := make(chan error, 1)
	go func() {
		_, err := a.Exec(context.Background(), "FLUSH TABLES t WITH READ LOCK")
		locked <- err
	}()
	select {
	case err := <-locked:
		t.Fatalf("the lock did not wait for the running write: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	end()
	require.NoError(t, <-locked)
	requireCode(t, b, "INSERT INTO t (id, title) VALUES (4, 'four')", CodeLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	mustExec(t, b, "INSERT INTO u (id, title) VALUES (4, 'four')")
	mustExec(t, a, "UNLOCK TABLES")
	mustExec(t, b, "INSERT INTO t (id, title) VALUES (4, 'four')")
}
