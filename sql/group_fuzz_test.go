package sql

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// FuzzGroupedSelect runs SELECTs (seeded with those of the grouping,
// derived-table and function cases) over a small table: whatever the
// statement, the answer is a result or an *Error, never a panic, and a
// result's rows have one value per column, of the column's type.
func FuzzGroupedSelect(f *testing.F) {
	for _, name := range []string{"grouping.txt", "derived.txt", "functions.txt"} {
		for _, c := range golden.Cases(f, filepath.Join("testdata", name)) {
			if strings.HasPrefix(c.Input, "SELECT") {
				f.Add(c.Input)
			}
		}
	}
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true).WithMergeFactor(-1))
	require.NoError(f, err)
	f.Cleanup(func() { _ = db.Close() })
	s := NewEngine(db).NewSession("root")
	ctx := context.Background()
	for _, stmt := range []string{
		"CREATE TABLE books (title text, content text, price float, year int, author string, tags multi, meta json)",
		"CREATE TABLE events (title text, price float, year int, author string, ts timestamp, tags multi)",
		"INSERT INTO books (id, title, content, price, year, author, tags) VALUES (1, 'The Hobbit', 'a hobbit in a hole', 9.5, 1937, 'Tolkien', (1,2)), (2, 'Dune', 'sand and a hobbit', 12.25, 1965, 'Herbert', (3)), (3, 'Emma', 'manners', 4, 1815, 'Austen', (1))",
		"INSERT INTO events (id, title, price, year, author, ts, tags) VALUES (1, 'The Hobbit', 9.5, 1937, 'Tolkien', 1700000000, (1,2))",
	} {
		_, err := s.Exec(ctx, stmt)
		require.NoError(f, err, stmt)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(text)), "SELECT") || strings.Contains(text, ";") {
			return // reads only: the table stays as it is for every input
		}
		results, err := s.Exec(ctx, text)
		var e *Error
		if err != nil {
			require.True(t, errors.As(err, &e), "%T: %v", err, err)
			require.NotEmpty(t, e.Msg)
		}
		for _, r := range results {
			for _, row := range r.Rows {
				require.Len(t, row, len(r.Columns))
				for i, v := range row {
					if v == nil {
						continue
					}
					switch r.Columns[i].Type {
					case ColString:
						require.IsType(t, "", v, "column %s", r.Columns[i].Name)
					case ColInt:
						require.IsType(t, int64(0), v, "column %s", r.Columns[i].Name)
					case ColUint:
						require.IsType(t, uint64(0), v, "column %s", r.Columns[i].Name)
					case ColFloat:
						require.IsType(t, float64(0), v, "column %s", r.Columns[i].Name)
					}
				}
			}
		}
	})
}
