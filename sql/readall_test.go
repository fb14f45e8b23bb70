package sql

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadAllBudget: a read of every row (SQL_NO_CACHE without LIMIT, what
// mysqldump sends) that would hold more than a quarter of the memory limit
// fails naming the way out, rather than answering part of the table; under
// the budget it answers every row, in id order, chunk after chunk.
func TestReadAllBudget(t *testing.T) {
	s := newTestSession(t)
	mustExec(t, s, "CREATE TABLE big (body text)")
	text := strings.Repeat("lorem ipsum ", 700) // ~8 KB a row
	for i := range 3 {
		var vals []string
		for k := range 100 {
			vals = append(vals, fmt.Sprintf("(%d, '%s')", i*100+k+1, text))
		}
		mustExec(t, s, "INSERT INTO big (id, body) VALUES "+strings.Join(vals, ","))
	}
	ctx := context.Background()

	res, err := s.Exec(ctx, "SELECT /*!40001 SQL_NO_CACHE */ * FROM big")
	require.NoError(t, err)
	require.Len(t, res[0].Rows, 300, "more rows than one chunk holds come back whole")
	for i, row := range res[0].Rows {
		require.Equal(t, uint64(i+1), row[0])
	}

	old := debug.SetMemoryLimit(4 << 20) // a budget of 1 MB
	defer debug.SetMemoryLimit(old)
	_, err = s.Exec(ctx, "SELECT /*!40001 SQL_NO_CACHE */ * FROM big")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reading every row of table 'big' at once")
	assert.Contains(t, err.Error(), "more than 1 MB")
	assert.Contains(t, err.Error(), "--where")

	res, err = s.Exec(ctx, "SELECT /*!40001 SQL_NO_CACHE */ id FROM big WHERE id BETWEEN 1 AND 50")
	require.NoError(t, err, "a part within the budget")
	assert.Len(t, res[0].Rows, 50)
}
