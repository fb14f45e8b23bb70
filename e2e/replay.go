package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A replay file holds the statements a tool sends, each with the answer it
// gets. Cases are separated by lines "====". A case is comment lines ("#"),
// an optional line "# args: a | b" of the ? arguments (strings; NULL is
// NULL), the statement (one or more lines), a line "----" and the answer:
// the column names and then each row, tab-separated, or "error NNNN: msg".
//
// Each query (SELECT, SHOW, ...) runs twice on one connection: as text
// (arguments interpolated by the driver, COM_QUERY) and as a server-side
// prepared statement (COM_STMT_PREPARE, COM_STMT_EXECUTE), as ODBC drivers
// and Connector/J with useServerPrepStmts send it; both must give the answer.
// Writes (CREATE, INSERT, ALTER, ...) run once, as text; other statements
// (USE, SET, PREPARE, EXECUTE) as text on both connections.
type replayCase struct {
	head     []string // comment lines, kept on rewrite
	args     []any
	stmt     string
	expected string
}

// RunReplay runs the replay file at path against s; with -rewrite it writes
// the answers got into the file instead of comparing.
func RunReplay(t *testing.T, s *Server, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cases := parseReplay(string(raw))
	ctx := context.Background()
	text, err := s.DB(t).Conn(ctx)
	require.NoError(t, err)
	defer text.Close()
	binary, err := s.PreparedDB(t).Conn(ctx)
	require.NoError(t, err)
	defer binary.Close()
	for i := range cases {
		c := &cases[i]
		got := replayText(ctx, text, c, false)
		switch {
		case isQuery(c.stmt) && !isExecute(c.stmt):
			prepared := replayText(ctx, binary, c, true)
			assert.Equal(t, got, prepared, "%s: case %d: the prepared statement answers otherwise than the text one:\n%s", path, i+1, c.stmt)
		case !isWrite(c.stmt):
			// USE, SET, PREPARE ...: the second connection follows.
			assert.Equal(t, got, replayText(ctx, binary, c, false), "%s: case %d on the second connection:\n%s", path, i+1, c.stmt)
		}
		if *rewrite {
			c.expected = got
			continue
		}
		assert.Equal(t, c.expected, got, "%s: case %d:\n%s", path, i+1, c.stmt)
	}
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(formatReplay(cases)), 0o644))
	}
}

// isQuery: the statement answers rows (EXECUTE of a SELECT among them).
func isQuery(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stmt))
	return len(f) > 0 && (f[0] == "SELECT" || f[0] == "SHOW" || f[0] == "(SELECT") || isExecute(stmt)
}

// isWrite: the statement changes tables, and so runs on one connection.
func isWrite(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stmt))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "CREATE", "DROP", "INSERT", "REPLACE", "UPDATE", "DELETE", "TRUNCATE", "ALTER", "OPTIMIZE":
		return true
	}
	return false
}

// isExecute: SQL-level EXECUTE, which MySQL does not prepare.
func isExecute(stmt string) bool {
	f := strings.Fields(strings.ToUpper(stmt))
	return len(f) > 0 && f[0] == "EXECUTE"
}

// replayText runs one case on conn and renders its answer.
func replayText(ctx context.Context, conn *sql.Conn, c *replayCase, prepare bool) string {
	if !isQuery(c.stmt) {
		if _, err := conn.ExecContext(ctx, c.stmt, c.args...); err != nil {
			return errorText(err)
		}
		return "ok"
	}
	var rows *sql.Rows
	var err error
	if prepare {
		var st *sql.Stmt
		if st, err = conn.PrepareContext(ctx, c.stmt); err != nil {
			return errorText(err)
		}
		defer st.Close()
		rows, err = st.QueryContext(ctx, c.args...)
	} else {
		rows, err = conn.QueryContext(ctx, c.stmt, c.args...)
	}
	if err != nil {
		return errorText(err)
	}
	r, err := readRows(rows)
	if err != nil {
		return errorText(err)
	}
	lines := []string{strings.Join(r.Columns, "\t")}
	for _, v := range r.Values {
		lines = append(lines, strings.Join(v, "\t"))
	}
	return strings.Join(lines, "\n")
}

func errorText(err error) string {
	if me, ok := err.(*mysql.MySQLError); ok {
		return fmt.Sprintf("error %d: %s", me.Number, me.Message)
	}
	return "error: " + err.Error()
}

func parseReplay(text string) []replayCase {
	var cases []replayCase
	for _, block := range strings.Split(strings.TrimSuffix(text, "\n"), "\n====\n") {
		var c replayCase
		head, expected, found := strings.Cut(block, "\n----\n")
		if !found {
			head, _ = strings.CutSuffix(block, "\n----")
		}
		c.expected = strings.TrimRight(expected, "\n")
		var stmt []string
		for _, line := range strings.Split(head, "\n") {
			switch {
			case strings.HasPrefix(line, "# args:"):
				c.head = append(c.head, line)
				for _, a := range strings.Split(strings.TrimPrefix(line, "# args:"), "|") {
					if a = strings.TrimSpace(a); a == "NULL" {
						c.args = append(c.args, nil)
					} else {
						c.args = append(c.args, a)
					}
				}
			case strings.HasPrefix(line, "#"):
				c.head = append(c.head, line)
			case strings.TrimSpace(line) != "":
				stmt = append(stmt, line)
			}
		}
		c.stmt = strings.Join(stmt, "\n")
		cases = append(cases, c)
	}
	return cases
}

func formatReplay(cases []replayCase) string {
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("====\n")
		}
		for _, l := range c.head {
			b.WriteString(l + "\n")
		}
		b.WriteString(c.stmt + "\n----\n")
		if c.expected != "" {
			b.WriteString(c.expected + "\n")
		}
	}
	return b.String()
}

// RequireGoldenFile compares got with the file at path, or with -rewrite
// writes got into it.
func RequireGoldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "%s (go test ./e2e -rewrite writes it)", path)
}
