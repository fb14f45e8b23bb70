package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

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
				vals[0] = "(empty string)" // a blank line would end the output
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

// TestScripts runs every testdata/*.txt file (see package internal/golden):
// cases "exec" with SQL text as input and the rendered outcome as output.
// Cases of one file share one session, so later cases see earlier writes.
func TestScripts(t *testing.T) {
	golden.Files(t, "testdata/*.txt", func(t *testing.T, path string) {
		s := newTestSession(t)
		golden.Run(t, path, func(t *testing.T, d *golden.TestData) string {
			require.Equal(t, "exec", d.Cmd, d.Pos)
			return render(s.Exec(context.Background(), d.Input))
		})
	})
}
