package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunGolden runs the golden file at path (the format of package
// internal/golden), its cases in order against one server: s, or when s is
// nil a new server started for the file. A case's command says how its input
// reaches the server:
//
//	server ARGS        glintd's flags, "{testdata}" standing for the file's
//	                   folder (absolute); only as the first case, when s is
//	                   nil. Output: none.
//	cli [ARGS]         the statements of the input through the command-line
//	                   client, in one run with --force (an error does not stop
//	                   the statements after it); ARGS replace its default
//	                   output arguments (--table). Output: its standard output
//	                   and error together.
//	sql [args=(a, b)]  one statement through Go's MySQL driver, with its ?
//	                   arguments (strings; NULL is NULL). Output: the column
//	                   names and then each row, tab-separated, "ok", or
//	                   "error NNNN: msg". See sqlCase for how it runs.
//	GET|POST|... /path an HTTP request with the input as its body. Output: the
//	                   status code, then the JSON answer indented (member
//	                   order kept), "took" masked as 0.
//
// go test ./e2e -rewrite writes the outputs got into the files.
func RunGolden(t *testing.T, path string, s *Server) {
	t.Helper()
	g := &goldenRun{file: t, s: s}
	golden.Run(t, path, func(t *testing.T, d *golden.TestData) string {
		if d.Cmd == "server" {
			require.Nil(t, g.s, "%s: server is the first case of a file, and the test has not started one", d.Pos)
			dir, err := filepath.Abs(filepath.Dir(path))
			require.NoError(t, err)
			var args []string
			for _, a := range d.CmdArgs {
				args = append(args, strings.ReplaceAll(a.String(), "{testdata}", dir))
			}
			g.s = StartServer(g.file, WithArgs(args...))
			return ""
		}
		if g.s == nil {
			g.s = StartServer(g.file)
		}
		switch d.Cmd {
		case "cli":
			args := []string{"--table"}
			if len(d.CmdArgs) > 0 {
				args = nil
				for _, a := range d.CmdArgs {
					args = append(args, a.String())
				}
			}
			out, _ := g.s.CLICombined(t, d.Input+"\n", append([]string{"--force"}, args...)...)
			return strings.TrimRight(out, "\n")
		case "sql":
			return g.sqlCase(t, d)
		case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodHead:
			return g.s.HTTPAnswer(t, d.FullCmd(), d.Input)
		}
		t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
		return ""
	})
}

// goldenRun is the state of one golden file: its test, which the server
// and the connections last as long as; its server; and, for sql cases, two
// connections.
type goldenRun struct {
	file         *testing.T
	s            *Server
	text, binary *sql.Conn
}

// sqlCase runs a case "sql" as the BI tools send their statements. A query
// (SELECT, SHOW, ...) runs twice, on two connections: as text (arguments
// interpolated by the driver, COM_QUERY) and as a server-side prepared
// statement (COM_STMT_PREPARE, COM_STMT_EXECUTE), as ODBC drivers and
// Connector/J with useServerPrepStmts send it; both must give the answer.
// A write (CREATE, INSERT, ALTER, ...) runs once, as text; any other
// statement (USE, SET, PREPARE, EXECUTE) as text on both connections.
func (g *goldenRun) sqlCase(t *testing.T, d *golden.TestData) string {
	ctx := context.Background()
	if g.text == nil {
		var err error
		g.text, err = g.s.DB(g.file).Conn(ctx)
		require.NoError(t, err)
		g.binary, err = g.s.PreparedDB(g.file).Conn(ctx)
		require.NoError(t, err)
		text, binary := g.text, g.binary
		g.file.Cleanup(func() { _, _ = text.Close(), binary.Close() })
	}
	var args []any
	if a, ok := d.Arg("args"); ok {
		for _, v := range a.Vals {
			if v == "NULL" {
				args = append(args, nil)
			} else {
				args = append(args, v)
			}
		}
	}
	stmt := d.Input
	got := runStatement(ctx, g.text, stmt, args, false)
	switch {
	case isQuery(stmt) && !isExecute(stmt):
		assert.Equal(t, got, runStatement(ctx, g.binary, stmt, args, true),
			"%s: the prepared statement answers otherwise than the text one", d.Pos)
	case !isWrite(stmt):
		// USE, SET, PREPARE ...: the second connection follows.
		assert.Equal(t, got, runStatement(ctx, g.binary, stmt, args, false), "%s: on the second connection", d.Pos)
	}
	return got
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

// runStatement runs stmt on conn and renders its answer.
func runStatement(ctx context.Context, conn *sql.Conn, stmt string, args []any, prepare bool) string {
	if !isQuery(stmt) {
		if _, err := conn.ExecContext(ctx, stmt, args...); err != nil {
			return errorText(err)
		}
		return "ok"
	}
	var rows *sql.Rows
	var err error
	if prepare {
		var st *sql.Stmt
		if st, err = conn.PrepareContext(ctx, stmt); err != nil {
			return errorText(err)
		}
		defer st.Close()
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = conn.QueryContext(ctx, stmt, args...)
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

var tookRE = regexp.MustCompile(`^\{"took":\d+,`)

// HTTPAnswer sends "METHOD /path" with body and returns the status and the
// indented JSON answer ("took" masked), as the golden files hold them.
func (s *Server) HTTPAnswer(t testing.TB, request, body string) string {
	t.Helper()
	method, path, ok := strings.Cut(request, " ")
	require.True(t, ok, "request line %q", request)
	req, err := http.NewRequest(method, "http://"+s.HTTPAddr+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	raw = tookRE.ReplaceAll(bytes.TrimSpace(raw), []byte(`{"took":0,`))
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return fmt.Sprintf("%d\nnot JSON: %s", resp.StatusCode, raw)
	}
	return fmt.Sprintf("%d\n%s", resp.StatusCode, out.String())
}
