package e2e

import (
	"context"
	"database/sql"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// Querier is what *sql.DB and *sql.Conn have in common.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Rows is a result set as text: Columns, then each row's values, NULL as "NULL".
type Rows struct {
	Columns []string
	Values  [][]string
}

// Column returns column i of every row.
func (r Rows) Column(i int) []string {
	out := make([]string, len(r.Values))
	for j, row := range r.Values {
		out[j] = row[i]
	}
	return out
}

// Map returns the rows of a two-column result (SHOW META, SHOW VARIABLES,
// SHOW STATUS) as name -> value.
func (r Rows) Map() map[string]string {
	m := map[string]string{}
	for _, row := range r.Values {
		if len(row) >= 2 {
			m[row[0]] = row[1]
		}
	}
	return m
}

// MustExec runs a statement on q and fails the test if it fails.
func MustExec(t testing.TB, q Querier, stmt string, args ...any) sql.Result {
	t.Helper()
	res, err := q.ExecContext(context.Background(), stmt, args...)
	require.NoError(t, err, "statement: %s", stmt)
	return res
}

// MustQuery runs a query on q and returns its rows as text.
func MustQuery(t testing.TB, q Querier, query string, args ...any) Rows {
	t.Helper()
	r, err := Query(q, query, args...)
	require.NoError(t, err, "query: %s", query)
	return r
}

// Query runs a query on q and returns its first result set as text.
func Query(q Querier, query string, args ...any) (Rows, error) {
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		return Rows{}, err
	}
	defer rows.Close()
	return readRows(rows)
}

// QueryAll runs a query that may return several result sets (statements
// separated by ';', on a DB with multiStatements) and returns them all.
func QueryAll(q Querier, query string, args ...any) ([]Rows, error) {
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []Rows
	for {
		r, err := readRows(rows)
		if err != nil {
			return all, err
		}
		all = append(all, r)
		if !rows.NextResultSet() {
			return all, rows.Err()
		}
	}
}

func readRows(rows *sql.Rows) (Rows, error) {
	cols, err := rows.Columns()
	if err != nil {
		return Rows{}, err
	}
	r := Rows{Columns: cols}
	for rows.Next() {
		raw := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range raw {
			dest[i] = &raw[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return r, err
		}
		row := make([]string, len(cols))
		for i, v := range raw {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		r.Values = append(r.Values, row)
	}
	return r, rows.Err()
}

// RequireMySQLError checks that err is a MySQL error with the given number and
// that its message names each of mentions (case-insensitively), and returns it.
func RequireMySQLError(t testing.TB, err error, number uint16, mentions ...string) *mysql.MySQLError {
	t.Helper()
	require.Error(t, err)
	var me *mysql.MySQLError
	require.True(t, errors.As(err, &me), "want MySQL error %d, got %T: %v", number, err, err)
	require.Equal(t, number, me.Number, "error number; message: %s", me.Message)
	for _, m := range mentions {
		require.Contains(t, strings.ToLower(me.Message), strings.ToLower(m), "the message should name %q", m)
	}
	return me
}

// CLIResult is what one run of the command-line client did.
type CLIResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// CLIBinary returns the MySQL command-line client: mariadb, or else mysql.
// scripts/install-test-deps.sh installs it.
func CLIBinary(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"mariadb", "mysql"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("e2e: no mariadb or mysql client; run scripts/install-test-deps.sh")
	return ""
}

// CLI runs the command-line client against the server, as root with no
// option files, with stdin as its standard input (no terminal), and the given
// arguments after the connection ones (e.g. "--batch", "-e", "SHOW TABLES").
func (s *Server) CLI(t testing.TB, stdin string, args ...string) CLIResult {
	t.Helper()
	cmd := s.cliCommand(t, stdin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := runExit(t, cmd) // run before reading the buffers
	return CLIResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: code}
}

// CLICombined is CLI with standard output and error in one stream, in the
// order the client wrote them (it runs with --unbuffered), as golden files
// hold them.
func (s *Server) CLICombined(t testing.TB, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := s.cliCommand(t, stdin, append([]string{"--unbuffered"}, args...)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	code := runExit(t, cmd)
	return out.String(), code
}

func (s *Server) cliCommand(t testing.TB, stdin string, args ...string) *exec.Cmd {
	host, port, ok := strings.Cut(s.MySQLAddr, ":")
	require.True(t, ok, "bad address %q", s.MySQLAddr)
	full := append([]string{"--no-defaults", "-h", host, "-P", port, "-u", "root", "--connect-timeout=10"}, args...)
	cmd := exec.Command(CLIBinary(t), full...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	return cmd
}

// runExit runs cmd and returns its exit code; only a failure to run it at all
// fails the test.
func runExit(t testing.TB, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running %s: %v", cmd, err)
	return -1
}
