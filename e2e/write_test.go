package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInsertManyRowsAndAutoID(t *testing.T) {
	s := StartServer(t)
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE docs (title text, n int)")

	var values []string
	for i := 1; i <= 500; i++ {
		values = append(values, fmt.Sprintf("(%d, 'word%d shared', %d)", i, i, i))
	}
	res := MustExec(t, db, "INSERT INTO docs (id, title, n) VALUES "+strings.Join(values, ","))
	affected, err := res.RowsAffected()
	require.NoError(t, err)
	assert.EqualValues(t, 500, affected)
	assert.Equal(t, [][]string{{"500"}}, MustQuery(t, db, "SELECT COUNT(*) FROM docs WHERE MATCH('shared')").Values)
	assert.Equal(t, [][]string{{"377"}}, MustQuery(t, db, "SELECT id FROM docs WHERE MATCH('word377')").Values)

	MustExec(t, db, "INSERT INTO docs (title, n) VALUES ('auto one', 1), ('auto two', 2), ('auto three', 3)")
	ids := MustQuery(t, db, "SELECT id FROM docs WHERE MATCH('auto')").Column(0)
	require.Len(t, ids, 3)
	seen := map[string]bool{}
	for _, id := range ids {
		assert.NotEqual(t, "0", id)
		assert.False(t, seen[id], "id %s given twice", id)
		seen[id] = true
	}
	assert.Equal(t, [][]string{{"503"}}, MustQuery(t, db, "SELECT COUNT(*) FROM docs").Values)
}

func TestDuplicateIDRejectsTheWholeStatement(t *testing.T) {
	tests := []struct{ name, insert, dupID string }{
		{"clashes with a stored row", "INSERT INTO books (id, title) VALUES (50, 'new row'), (1, 'clash')", "1"},
		{"repeated in the statement", "INSERT INTO books (id, title) VALUES (60, 'new row'), (60, 'again')", "60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startWithBooks(t)
			db := s.DB(t)
			_, err := db.Exec(tt.insert)
			RequireMySQLError(t, err, 1062, tt.dupID)
			assert.Equal(t, [][]string{{"4"}}, MustQuery(t, db, "SELECT COUNT(*) FROM books").Values, "nothing of the statement is kept")
			assert.Empty(t, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('new')").Values)
			assert.Equal(t, [][]string{{"1", "The quick brown fox"}}, MustQuery(t, db, "SELECT id, title FROM books WHERE id = 1").Values)
		})
	}
}

func TestReplace(t *testing.T) {
	s := startWithBooks(t)
	db := s.DB(t)
	MustExec(t, db, "REPLACE INTO books (id, title, content, year) VALUES (1, 'A slow green turtle', 'walks', 2020), (9, 'Brand new', 'entry', 2021)")

	assert.Equal(t, [][]string{{"5"}}, MustQuery(t, db, "SELECT COUNT(*) FROM books").Values)
	assert.ElementsMatch(t, []string{"2"}, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('fox')").Column(0), "the old text of 1 is gone from the index")
	assert.Equal(t, [][]string{{"1", "A slow green turtle", "2020"}}, MustQuery(t, db, "SELECT id, title, year FROM books WHERE MATCH('turtle')").Values)
	assert.Equal(t, []string{"9"}, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('brand')").Column(0))
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name, stmt string
		affected   int64
		left       []string
	}{
		{"by id", "DELETE FROM books WHERE id = 1", 1, []string{"2", "3", "4"}},
		{"by id list", "DELETE FROM books WHERE id IN (1, 3, 99)", 2, []string{"2", "4"}},
		{"by attribute", "DELETE FROM books WHERE year < 2005", 2, []string{"2", "4"}},
		{"missing id", "DELETE FROM books WHERE id = 99", 0, []string{"1", "2", "3", "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startWithBooks(t)
			db := s.DB(t)
			res := MustExec(t, db, tt.stmt)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			assert.Equal(t, tt.affected, n)
			assert.ElementsMatch(t, tt.left, MustQuery(t, db, "SELECT id FROM books").Column(0))
			// every row has one of these words: the full-text index must agree with the rows
			var matched []string
			for _, word := range []string{"fox", "dog", "bread"} {
				matched = append(matched, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('"+word+"')").Column(0)...)
			}
			assert.ElementsMatch(t, tt.left, dedupe(matched))
		})
	}
}

func TestUpdateAttributes(t *testing.T) {
	s := startWithBooks(t)
	db := s.DB(t)
	res := MustExec(t, db, "UPDATE books SET price = 3.5, year = 1990 WHERE id = 1")
	n, err := res.RowsAffected()
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	assert.Equal(t, [][]string{{"3.5", "1990", "The quick brown fox"}}, MustQuery(t, db, "SELECT price, year, title FROM books WHERE id = 1").Values)
	assert.Equal(t, []string{"1"}, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('fox') AND year < 2000").Column(0))

	MustExec(t, db, "UPDATE books SET author = 'zed' WHERE year > 2005")
	assert.ElementsMatch(t, []string{"2", "4"}, MustQuery(t, db, "SELECT id FROM books WHERE author = 'zed'").Column(0))

	_, err = db.Exec("UPDATE books SET title = 'changed' WHERE id = 1")
	require.Error(t, err, "full-text fields cannot be updated (attributes only)")
	assert.Contains(t, err.Error(), "title")
}

// TestEmptyMulti: () is the empty set of a multi column, as the reference
// reads it, in the values of INSERT and REPLACE and in UPDATE's SET.
func TestEmptyMulti(t *testing.T) {
	s := StartServer(t)
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE m (title text, tags multi, big multi64, n int)")
	MustExec(t, db, "INSERT INTO m (id, title, tags, big) VALUES (1, 'one', (), ()), (2, 'two', (5, 6), (7))")
	MustExec(t, db, "REPLACE INTO m (id, title, tags, big) VALUES (3, 'three', ( ), (8))")
	res := MustExec(t, db, "UPDATE m SET tags = (), big = () WHERE id = 2")
	n, err := res.RowsAffected()
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	assert.Equal(t, [][]string{{"1", "", ""}, {"2", "", ""}, {"3", "", "8"}},
		MustQuery(t, db, "SELECT id, tags, big FROM m ORDER BY id ASC").Values)

	_, err = db.Exec("INSERT INTO m (id, n) VALUES (4, ())")
	RequireMySQLError(t, err, 1366, "column 'n' (uint): expects an integer, got a list of values")
	_, err = db.Exec("UPDATE m SET n = () WHERE id = 1")
	RequireMySQLError(t, err, 1366, "column 'n' (uint): expects an integer, got a list of values")
	// A whole row () keeps MySQL's meaning: no values.
	_, err = db.Exec("INSERT INTO m VALUES ()")
	RequireMySQLError(t, err, 1136, "row 1 has 0 value(s)")
}

func TestPreparedStatements(t *testing.T) {
	s := StartServer(t)
	db := s.PreparedDB(t)
	MustExec(t, db, booksTable)
	for _, r := range []struct {
		id            uint64
		title, author string
		price         float64
		year          int64
	}{
		{1, "The quick brown fox", "alice", 10.5, 2001},
		{2, "Quick start guide with a fox", "bob", 5, 2010},
		{3, "It's a dog's life", "o'brien", 7.25, 1999},
	} {
		MustExec(t, db, "INSERT INTO books (id, title, author, price, year) VALUES (?, ?, ?, ?, ?)", r.id, r.title, r.author, r.price, r.year)
	}

	got := MustQuery(t, db, "SELECT id, title FROM books WHERE MATCH(?) AND year > ? ORDER BY year DESC", "fox", 2000)
	assert.Equal(t, [][]string{{"2", "Quick start guide with a fox"}, {"1", "The quick brown fox"}}, got.Values)
	got = MustQuery(t, db, "SELECT id, author FROM books WHERE id = ?", uint64(3))
	assert.Equal(t, [][]string{{"3", "o'brien"}}, got.Values)

	MustExec(t, db, "UPDATE books SET price = ? WHERE id = ?", 1.25, 2)
	MustExec(t, db, "DELETE FROM books WHERE id = ?", 1)
	got = MustQuery(t, db, "SELECT id, price FROM books WHERE MATCH(?)", "fox")
	assert.Equal(t, [][]string{{"2", "1.25"}}, got.Values)
}

// dedupe returns the distinct strings of ss, in first-seen order.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
