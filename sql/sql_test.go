package sql

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs in testdata/ with the actual ones")

// newTestSession returns a session over a fresh in-memory database, without
// background merges (which would change SHOW META's hits of deleted
// documents at a moment of their own).
func newTestSession(t *testing.T) *Session {
	t.Helper()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true).WithMergeFactor(-1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return NewEngine(db).NewSession("root")
}

// render prints the outcome of Exec the way the testdata files show it.
func render(results []*Result, err error) string {
	var b strings.Builder
	for _, r := range results {
		if !r.IsResultSet() {
			fmt.Fprintf(&b, "ok %d\n", r.AffectedRows)
			continue
		}
		names := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			names[i] = fmt.Sprintf("%s:%s", c.Name, [...]string{"str", "int", "uint", "float"}[c.Type])
		}
		b.WriteString(strings.Join(names, " | ") + "\n")
		for _, row := range r.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = fmt.Sprint(v)
				}
			}
			if len(vals) == 1 && vals[0] == "" {
				vals[0] = "(empty string)" // a blank line would end the case
			}
			if len(vals) == 2 && vals[0] == "time" && names[0] == "Variable_name:str" {
				vals[1] = "(masked)" // SHOW META's elapsed time varies
			}
			b.WriteString(strings.Join(vals, " | ") + "\n")
		}
	}
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			fmt.Fprintf(&b, "error (not an *Error %T): %v\n", err, err)
		} else {
			fmt.Fprintf(&b, "error %s: %s\n", e.Code, e.Msg)
		}
	}
	return b.String()
}

// TestScripts runs every testdata/*.txt file: cases of SQL text, a line
// "----", and the expected output, separated by blank lines. Cases of one file
// share one session, so later cases see earlier writes.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			s := newTestSession(t)
			var out strings.Builder
			for _, c := range parseCases(string(data)) {
				got := render(s.Exec(context.Background(), c.input))
				fmt.Fprintf(&out, "%s\n----\n%s\n", c.input, got)
				if !*rewrite {
					require.Equal(t, c.want, got, "%s: %s", file, c.input)
				}
			}
			if *rewrite {
				require.NoError(t, os.WriteFile(file, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644))
			}
		})
	}
}

type testCase struct{ input, want string }

func parseCases(data string) []testCase {
	var cases []testCase
	for _, block := range strings.Split(strings.Trim(data, "\n"), "\n\n") {
		input, want, ok := strings.Cut(block, "\n----\n")
		if !ok {
			input, want = strings.TrimSuffix(block, "\n----"), ""
		}
		cases = append(cases, testCase{input: strings.TrimSpace(input), want: strings.Trim(want, "\n") + "\n"})
	}
	return cases
}

func TestOptimizeCounts(t *testing.T) {
	s := newTestSession(t)
	run := func(text string) string {
		t.Helper()
		return render(s.Exec(context.Background(), text))
	}
	require.Equal(t, "ok 0\n", run("CREATE TABLE t (body text)"))
	for i := range 3 {
		require.Equal(t, "ok 1\n", run(fmt.Sprintf("INSERT INTO t (id, body) VALUES (%d, 'word %d')", i+1, i)))
	}
	require.Equal(t, "ok 1\n", run("DELETE FROM t WHERE id = 2"))
	require.Equal(t, "Counter:str | Value:str\nmerges | 0\nmerges_pending | 0\n", run("SHOW STATUS LIKE 'merges%'"))
	require.Equal(t, "ok 0\n", run("OPTIMIZE TABLE t"))
	require.Equal(t, "Counter:str | Value:str\nmerges | 1\nmerges_pending | 0\n", run("SHOW STATUS LIKE 'merges%'"))
	require.Equal(t, "id:uint\n1\n3\n", run("SELECT id FROM t WHERE MATCH('word') ORDER BY id ASC"))
	require.Equal(t, "ok 0\n", run("OPTIMIZE TABLES t"))
	require.Equal(t, "Counter:str | Value:str\nmerges | 1\n", run("SHOW STATUS LIKE 'merges'"), "one segment without deletions stays")
}
