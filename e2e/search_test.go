package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSearch(t *testing.T) {
	s := startWithBooks(t)
	db := s.DB(t)
	tests := []struct {
		name, query string
		want        []string
		ordered     bool
	}{
		{"one word", "SELECT id FROM books WHERE MATCH('fox')", []string{"1", "2"}, false},
		{"all words", "SELECT id FROM books WHERE MATCH('brown fox')", []string{"1"}, false},
		{"all words across fields", "SELECT id FROM books WHERE MATCH('lazy dog')", []string{"1", "3"}, false},
		{"case-insensitive", "SELECT id FROM books WHERE MATCH('QUICK')", []string{"1", "2"}, false},
		{"no match", "SELECT id FROM books WHERE MATCH('zebra')", nil, false},
		{"and filter", "SELECT id FROM books WHERE MATCH('fox') AND year > 2005", []string{"2"}, false},
		{"string filter", "SELECT id FROM books WHERE MATCH('lazy') AND author = 'carol'", []string{"3"}, false},
		{"float filter", "SELECT id FROM books WHERE price < 8", []string{"2", "3", "4"}, false},
		{"order by attribute", "SELECT id FROM books WHERE MATCH('lazy') ORDER BY year DESC", []string{"1", "3"}, true},
		{"order ascending", "SELECT id FROM books ORDER BY price ASC", []string{"4", "2", "3", "1"}, true},
		{"limit", "SELECT id FROM books ORDER BY id ASC LIMIT 2", []string{"1", "2"}, true},
		{"offset and limit", "SELECT id FROM books ORDER BY id ASC LIMIT 1, 2", []string{"2", "3"}, true},
		{"count", "SELECT COUNT(*) FROM books WHERE MATCH('fox')", []string{"2"}, true},
		{"count all", "SELECT COUNT(*) FROM books", []string{"4"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustQuery(t, db, tt.query).Column(0)
			if tt.ordered {
				assert.Equal(t, tt.want, got)
			} else {
				assert.ElementsMatch(t, tt.want, got)
			}
		})
	}
}

func TestSelectColumns(t *testing.T) {
	s := startWithBooks(t)
	got := MustQuery(t, s.DB(t), "SELECT id, title, content, price, year, author FROM books WHERE MATCH('brown fox')")
	assert.Equal(t, []string{"id", "title", "content", "price", "year", "author"}, got.Columns)
	assert.Equal(t, [][]string{{"1", "The quick brown fox", "jumps over the lazy dog", "10.5", "2001", "alice"}}, got.Values)
}

// startWithCommon starts a server with table many: 30 rows that all hold the
// word "common", ids 1..30, n = id.
func startWithCommon(t *testing.T) *Server {
	t.Helper()
	s := StartServer(t)
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE many (body text, n int)")
	var values []string
	for i := 1; i <= 30; i++ {
		values = append(values, fmt.Sprintf("(%d, 'common text number%d', %d)", i, i, i))
	}
	MustExec(t, db, "INSERT INTO many (id, body, n) VALUES "+strings.Join(values, ", "))
	return s
}

func TestDefaultLimitIs20(t *testing.T) {
	s := startWithCommon(t)
	db := s.DB(t)
	tests := []struct {
		query string
		rows  int
	}{
		{"SELECT id FROM many WHERE MATCH('common')", 20},
		{"SELECT id FROM many", 20},
		{"SELECT id FROM many WHERE MATCH('common') LIMIT 25", 25},
		{"SELECT id FROM many WHERE MATCH('common') LIMIT 25, 10", 5},
		{"SELECT id FROM many WHERE MATCH('common') LIMIT 0", 0},
		// The default page is cut to max_matches: no LIMIT asked for more.
		{"SELECT id FROM many OPTION max_matches=5", 5},
		{"SELECT id FROM many WHERE MATCH('common') OPTION max_matches=7", 7},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			assert.Len(t, MustQuery(t, db, tt.query).Values, tt.rows)
		})
	}
	assert.Equal(t, [][]string{{"30"}}, MustQuery(t, db, "SELECT COUNT(*) FROM many WHERE MATCH('common')").Values)
}

func TestShowMeta(t *testing.T) {
	s := startWithCommon(t)
	conn := s.Conn(t) // SHOW META reads the connection's last query
	require.Len(t, MustQuery(t, conn, "SELECT id FROM many WHERE MATCH('common') AND n > 5").Values, 20)
	meta := MustQuery(t, conn, "SHOW META")
	requireMeta(t, meta, 20, 25)
}

// requireMeta checks SHOW META after a query that returned `rows` rows of
// `found` matches: total_found is exact, total (the matches the server kept)
// lies between them, time is a number of seconds.
func requireMeta(t *testing.T, meta Rows, rows, found int) {
	t.Helper()
	m := meta.Map()
	require.Contains(t, m, "total")
	require.Contains(t, m, "total_found")
	require.Contains(t, m, "time")
	assert.Equal(t, strconv.Itoa(found), m["total_found"])
	total, err := strconv.Atoi(m["total"])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, total, rows)
	assert.LessOrEqual(t, total, found)
	secs, err := strconv.ParseFloat(m["time"], 64)
	require.NoError(t, err, "time is seconds, e.g. 0.001")
	assert.GreaterOrEqual(t, secs, 0.0)
}

func TestMultiStatementSelectAndShowMeta(t *testing.T) {
	s := startWithCommon(t)
	sets, err := QueryAll(s.DB(t), "SELECT id FROM many WHERE MATCH('common') LIMIT 3; SHOW META")
	require.NoError(t, err)
	require.Len(t, sets, 2)
	assert.Len(t, sets[0].Values, 3)
	requireMeta(t, sets[1], 3, 30)
}
