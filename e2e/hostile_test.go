package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangGuard bounds each hostile statement: a guard against a hang, not a
// claim about speed (benchmarks measure that).
const hangGuard = 10 * time.Second

// fillTable creates table name (title text, year int) with ids 1..n.
func fillTable(t *testing.T, db *sql.DB, name string, n int) {
	t.Helper()
	MustExec(t, db, "CREATE TABLE "+name+" (title text, year int)")
	for first := 1; first <= n; first += 5000 {
		var b strings.Builder
		fmt.Fprintf(&b, "INSERT INTO %s (id, title, year) VALUES ", name)
		for id := first; id < first+5000 && id <= n; id++ {
			if id > first {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d, 'word%d common', %d)", id, id%100, id%50)
		}
		MustExec(t, db, b.String())
	}
}

// Each hostile input gets its clear error (or its answer) quickly, and the
// same connection then runs SELECT 1.
func TestHostileInputs(t *testing.T) {
	snippets := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(snippets, "fifo"), 0o644))
	s := StartServer(t, WithArgs("--snippets-file-prefix", snippets))
	fillTable(t, s.DB(t), "t", 20_000)
	conn := s.Conn(t)

	var in strings.Builder
	in.WriteString("SELECT COUNT(*) FROM t WHERE id IN (")
	for i := range 100_000 {
		if i > 0 {
			in.WriteByte(',')
		}
		fmt.Fprint(&in, 1+2*i)
	}
	in.WriteString(")")
	digits := strings.Repeat("9", 90)
	// Nesting past the limits that keep the recursive compilers from
	// overflowing the stack (two million parentheses did, and killed
	// glintd): 100,000 parentheses, a chain of 100,000 additions,
	// subqueries 200 deep.
	parens := strings.Repeat("(", 100_000) + "1=1" + strings.Repeat(")", 100_000)
	chain := strings.Repeat("1+", 100_000) + "1"
	subqueries := strings.Repeat("(SELECT 1 FROM information_schema.TABLES WHERE 1 IN ", 200) + "(SELECT 1)" + strings.Repeat(")", 200)
	tooDeep := "expression nested deeper than 1000 levels (parentheses, operators or function calls)"

	tests := []struct {
		name   string
		stmt   string
		number uint16 // 0: no error
		msg    string // the exact message, or the one row's value
	}{
		{"id IN of 100,000 values", in.String(), 0, "10000"},
		{"load_files on a FIFO", "CALL SNIPPETS('fifo', 't', 'word', 1 AS load_files)", 1366,
			"CALL SNIPPETS: file 'fifo' is a named pipe (FIFO), not a regular file"},
		{"id beyond 64 bits", "INSERT INTO t (id) VALUES (100000000000000000000000)", 1366,
			"row 1: id 100000000000000000000000 is beyond 64 bits (the largest id is 18446744073709551615)"},
		{"attribute beyond 64 bits", "INSERT INTO t (id, year) VALUES (1000000, -100000000000000000000000)", 1366,
			"row 1, column 'year' (uint): value -100000000000000000000000 is beyond 64 bits"},
		{"highlight option beyond 64 bits", "SELECT HIGHLIGHT({start_snippet_id=99999999999999999999}) FROM t WHERE MATCH('word1')", 1210,
			"HIGHLIGHT(): highlight option 'start_snippet_id': must be from -1073741824 to 1073741824, not 99999999999999999999"},
		{"number literal of 90 digits", "SELECT id FROM t WHERE id = " + digits, 1064,
			"a number of 90 digits: a number literal has at most 65 (write a longer one with an exponent, like 1.5e80) at line 1 column 29 near '" + digits[:40] + "'"},
		{"parentheses 100,000 deep", "SELECT id FROM t WHERE " + parens, 1064, tooDeep},
		{"100,000 additions", "SELECT " + chain, 1064, tooDeep},
		{"catalog expression 100,000 deep", "SELECT TABLE_NAME FROM information_schema.TABLES WHERE " + parens, 1064, tooDeep},
		{"subqueries 200 deep", "SELECT 1 FROM information_schema.TABLES WHERE 1 IN " + subqueries, 1064,
			"subqueries nested deeper than 64 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			rows, err := conn.QueryContext(ctx, tt.stmt)
			if tt.number == 0 {
				require.NoError(t, err)
				got, err := readRows(rows)
				require.NoError(t, err)
				assert.Equal(t, [][]string{{tt.msg}}, got.Values)
			} else {
				if err == nil {
					rows.Close()
				}
				me := RequireMySQLError(t, err, tt.number)
				assert.Equal(t, tt.msg, me.Message)
			}
			assert.Equal(t, [][]string{{"1"}}, MustQuery(t, conn, "SELECT 1").Values, "the connection stays usable")
		})
	}

	t.Run("/bulk with an unknown action", func(t *testing.T) {
		body := `{"insert": {"table": "t", "id": 900001, "doc": {"title": "x"}}}` + "\n" + `{"frobnicate": {"table": "t", "id": 6}}` + "\n"
		resp, err := http.Post("http://"+s.HTTPAddr+"/bulk", "application/x-ndjson", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Equal(t, `{"error":"line 2: unknown action \"frobnicate\" (expected insert, replace, update or delete); nothing was applied",`+
			`"lines":["line 2: unknown action \"frobnicate\" (expected insert, replace, update or delete)"],"applied":0}`+"\n", string(b))
	})
}

// The connection past max_connections gets error 1040 and is closed; the
// others keep working, and once one closes a new one gets in.
func TestMaxConnections(t *testing.T) {
	s := StartServer(t, WithArgs("--max-connections", "2"))
	db := s.DB(t)
	ctx := context.Background()
	c1, err := db.Conn(ctx)
	require.NoError(t, err)
	c2, err := db.Conn(ctx)
	require.NoError(t, err)
	defer c2.Close()

	_, err = s.DB(t).Conn(ctx)
	me := RequireMySQLError(t, err, 1040)
	assert.Equal(t, "Too many connections", me.Message)

	assert.Equal(t, [][]string{{"1"}}, MustQuery(t, c1, "SELECT 1").Values)
	assert.Equal(t, [][]string{{"1"}}, MustQuery(t, c2, "SELECT 1").Values)

	db.SetMaxIdleConns(0)
	require.NoError(t, c1.Close()) // not kept idle: its socket closes
	require.Eventually(t, func() bool {
		c3, err := s.DB(t).Conn(ctx)
		if err != nil {
			return false
		}
		defer c3.Close()
		_, err = Query(c3, "SELECT 1")
		return err == nil
	}, hangGuard, 20*time.Millisecond, "a place freed by a closed connection is taken again")
}

// max_query_time (the server's) stops a long SELECT with error 3024, and
// OPTION max_query_time (milliseconds) returns what was found by then,
// with a warning; either way the connection goes on.
func TestMaxQueryTime(t *testing.T) {
	s := StartServer(t, WithArgs("--max-query-time", "1ns"))
	fillTable(t, s.DB(t), "t", 20_000)
	conn := s.Conn(t)
	_, err := Query(conn, "SELECT id FROM t WHERE year = 3")
	me := RequireMySQLError(t, err, 3024)
	assert.Equal(t, "the statement ran past max_query_time (1ns) and was stopped", me.Message)
	assert.Equal(t, [][]string{{"1"}}, MustQuery(t, conn, "SELECT 1").Values)

	s2 := StartServer(t)
	fillTable(t, s2.DB(t), "t", 20_000)
	conn = s2.Conn(t)
	// A list of decimals is compared item by item: far slower than 1 ms.
	var in strings.Builder
	in.WriteString("SELECT id FROM t WHERE id IN (")
	for i := range 3000 {
		if i > 0 {
			in.WriteByte(',')
		}
		fmt.Fprintf(&in, "%d.5", i)
	}
	in.WriteString(") OPTION max_query_time=1")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	rows, err := conn.QueryContext(ctx, in.String())
	require.NoError(t, err)
	got, err := readRows(rows)
	require.NoError(t, err)
	assert.Empty(t, got.Values)
	warnings := MustQuery(t, conn, "SHOW WARNINGS").Values
	require.Len(t, warnings, 1)
	assert.Equal(t, "the search stopped at OPTION max_query_time (1 ms): the result holds the matches found by then", warnings[0][2])
	_, err = Query(conn, "SELECT id FROM t OPTION max_query_time=-1")
	me = RequireMySQLError(t, err, 1210)
	assert.Equal(t, "OPTION max_query_time takes milliseconds, an integer from 0 (no limit) to 2147483647", me.Message)
	assert.Equal(t, [][]string{{"1"}}, MustQuery(t, conn, "SELECT 1").Values)
}

// A client that sends its headers a byte at a time (slowloris) is cut off
// at http_header_timeout; other requests are served meanwhile.
func TestHTTPHeaderTimeout(t *testing.T) {
	s := StartServer(t, WithArgs("--http-header-timeout", "500ms"))
	nc, err := net.Dial("tcp", s.HTTPAddr)
	require.NoError(t, err)
	defer nc.Close()
	_, err = io.WriteString(nc, "POST /sql HTTP/1.1\r\nHost: glint\r\n")
	require.NoError(t, err)
	closed := make(chan error, 1)
	go func() {
		_, err := bufio.NewReader(nc).ReadString('\n') // the server's answer or its close
		closed <- err
	}()
	deadline := time.After(hangGuard)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-closed:
			done = true
		case <-tick.C:
			_, _ = io.WriteString(nc, "X") // one more byte of a header that never ends
		case <-deadline:
			t.Fatal("the server still holds a connection whose headers never end")
		}
	}
	resp, err := http.Post("http://"+s.HTTPAddr+"/sql?mode=raw", "text/plain", strings.NewReader("SELECT 1"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
