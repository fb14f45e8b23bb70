package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeAcknowledged creates table d and runs writes one statement at a time;
// each statement has returned OK (been acknowledged) when it returns. It leaves
// ids 1..200 minus 7 (deleted), id 5 replaced (text "phoenix"), id 9 with n=99.
func writeAcknowledged(t *testing.T, s *Server) {
	t.Helper()
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE d (body text, n int) min_word_len='2'")
	for batch := range 20 {
		var values []string
		for i := batch*10 + 1; i <= batch*10+10; i++ {
			values = append(values, fmt.Sprintf("(%d, 'durable row%d', %d)", i, i, i))
		}
		MustExec(t, db, "INSERT INTO d (id, body, n) VALUES "+strings.Join(values, ","))
	}
	MustExec(t, db, "DELETE FROM d WHERE id = 7")
	MustExec(t, db, "REPLACE INTO d (id, body, n) VALUES (5, 'phoenix', 5)")
	MustExec(t, db, "UPDATE d SET n = 99 WHERE id = 9")
}

// requireAcknowledged checks every write of writeAcknowledged is there.
func requireAcknowledged(t *testing.T, s *Server) {
	t.Helper()
	db := s.DB(t)
	assert.Equal(t, [][]string{{"199"}}, MustQuery(t, db, "SELECT COUNT(*) FROM d").Values)
	assert.Equal(t, [][]string{{"198"}}, MustQuery(t, db, "SELECT COUNT(*) FROM d WHERE MATCH('durable')").Values)
	assert.Empty(t, MustQuery(t, db, "SELECT id FROM d WHERE id = 7").Values)
	assert.Equal(t, [][]string{{"5"}}, MustQuery(t, db, "SELECT id FROM d WHERE MATCH('phoenix')").Values)
	assert.Equal(t, [][]string{{"200"}}, MustQuery(t, db, "SELECT id FROM d WHERE MATCH('row200')").Values, "the last insert")
	assert.Equal(t, [][]string{{"99"}}, MustQuery(t, db, "SELECT n FROM d WHERE id = 9").Values)
	create := MustQuery(t, db, "SHOW CREATE TABLE d")
	require.Len(t, create.Values, 1)
	assert.Contains(t, create.Values[0][1], "min_word_len")
}

func TestKill9KeepsEveryAcknowledgedWrite(t *testing.T) {
	s := StartServer(t)
	writeAcknowledged(t, s)
	s.Kill(t)
	s.Restart(t)
	requireAcknowledged(t, s)

	// and the restarted server takes writes again
	MustExec(t, s.DB(t), "INSERT INTO d (id, body) VALUES (1000, 'after the crash')")
	assert.Equal(t, [][]string{{"1000"}}, MustQuery(t, s.DB(t), "SELECT id FROM d WHERE MATCH('crash')").Values)
}

func TestCleanRestart(t *testing.T) {
	s := StartServer(t)
	writeAcknowledged(t, s)
	before := MustQuery(t, s.DB(t), "SHOW CREATE TABLE d")
	s.Stop(t) // fails unless glintd exits 0 on SIGTERM
	s.Restart(t)
	requireAcknowledged(t, s)
	assert.Equal(t, before, MustQuery(t, s.DB(t), "SHOW CREATE TABLE d"))
	s.Restart(t) // twice in a row
	requireAcknowledged(t, s)
}

// TestMerges: the 20 inserts of writeAcknowledged are merged in the
// background (merge_factor 8) while the writes after them go on; the
// merged table answers the same, across a kill -9, and OPTIMIZE TABLE
// leaves one segment that answers the same again.
func TestMerges(t *testing.T) {
	s := StartServer(t)
	writeAcknowledged(t, s)
	db := s.DB(t)
	status := func(name string) string {
		t.Helper()
		rows := MustQuery(t, db, "SHOW STATUS LIKE '"+name+"'").Values
		require.Len(t, rows, 1)
		return rows[0][1]
	}
	for deadline := time.Now().Add(time.Minute); status("merges_pending") != "0"; time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the merges did not end")
	}
	assert.NotEqual(t, "0", status("merges"), "20 segments of one level are merged")
	requireAcknowledged(t, s)
	s.Kill(t)
	s.Restart(t)
	requireAcknowledged(t, s)

	db = s.DB(t)
	MustExec(t, db, "OPTIMIZE TABLE d")
	requireAcknowledged(t, s)
	_, err := db.Exec("OPTIMIZE TABLE d, nosuch")
	assert.ErrorContains(t, err, "unknown table 'nosuch'")
	s.Stop(t)
	s.Restart(t)
	requireAcknowledged(t, s)
}
