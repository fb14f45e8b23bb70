package e2e

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
)

// readAll reads every result set of rows as text.
func readAll(t *testing.T, rows *sql.Rows) [][][]string {
	t.Helper()
	defer rows.Close()
	var sets [][][]string
	for {
		cols, err := rows.Columns()
		require.NoError(t, err)
		set := [][]string{cols}
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			dest := make([]any, len(cols))
			for i := range vals {
				dest[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(dest...))
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = v.String
			}
			set = append(set, row)
		}
		require.NoError(t, rows.Err())
		sets = append(sets, set)
		if !rows.NextResultSet() {
			require.NoError(t, rows.Err())
			return sets
		}
	}
}

// TestFacetResultSets: a FACET statement's result sets through Go's
// driver, with its ? argument interpolated; a prepared FACET is refused
// with a message that says why.
func TestFacetResultSets(t *testing.T) {
	s := startWithBooks(t)
	rows, err := s.DB(t).QueryContext(context.Background(),
		"SELECT id FROM books WHERE MATCH(?) ORDER BY id ASC FACET author ORDER BY FACET() ASC FACET year > 2005 AS recent, COUNT(*) AS n", "fox | dog")
	require.NoError(t, err)
	require.Equal(t, [][][]string{
		{{"id"}, {"1"}, {"2"}, {"3"}},
		{{"author", "count(*)"}, {"alice", "1"}, {"bob", "1"}, {"carol", "1"}},
		{{"recent", "n"}, {"0", "2"}, {"1", "1"}},
	}, readAll(t, rows))

	_, err = s.PreparedDB(t).QueryContext(context.Background(), "SELECT id FROM books WHERE MATCH(?) FACET author", "fox")
	require.ErrorContains(t, err, "FACET returns several result sets")
}

// TestGroupByPrepared: a grouped search with a HAVING argument, as a
// server-side prepared statement.
func TestGroupByPrepared(t *testing.T) {
	s := startWithBooks(t)
	rows, err := s.PreparedDB(t).QueryContext(context.Background(),
		"SELECT year > 2005 AS recent, COUNT(*), MAX(price) FROM books GROUP BY recent HAVING COUNT(*) >= ? ORDER BY recent", 2)
	require.NoError(t, err)
	require.Equal(t, [][][]string{{{"recent", "count(*)", "max(price)"}, {"0", "2", "10.5"}, {"1", "2", "5"}}}, readAll(t, rows))
}
