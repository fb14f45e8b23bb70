package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateTableAndDescribe(t *testing.T) {
	s := StartServer(t)
	db := s.DB(t)
	MustExec(t, db, booksTable+` morphology='stem_en' min_word_len='2' html_strip='1'`)
	MustExec(t, db, `CREATE TABLE notes (body text)`)

	desc := MustQuery(t, db, "DESC books")
	assert.Equal(t, []string{"id", "title", "content", "price", "year", "published", "author", "tags", "meta", "in_print", "isbn"}, desc.Column(0))
	assert.Equal(t, []string{"bigint", "text", "text", "float"}, desc.Column(1)[:4])

	tests := []struct {
		name, query string
		want        []string
	}{
		{"all", "SHOW TABLES", []string{"books", "notes"}},
		{"like prefix", "SHOW TABLES LIKE 'bo%'", []string{"books"}},
		{"like exact", "SHOW TABLES LIKE 'notes'", []string{"notes"}},
		{"like none", "SHOW TABLES LIKE 'zz%'", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustQuery(t, db, tt.query)
			assert.ElementsMatch(t, tt.want, got.Column(0))
		})
	}
}

func TestShowCreateTableRecreatesTheTable(t *testing.T) {
	tests := []struct{ name, table, create string }{
		{"every column type", "books", booksTable},
		{"settings", "t", `CREATE TABLE t (title text, body text) morphology='stem_en' min_word_len='3' stopwords='a an the' html_strip='1' index_sp='1'`},
		{"text narrowed", "t", `CREATE TABLE t (title text indexed, body text stored, n uint)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := StartServer(t)
			db := s.DB(t)
			MustExec(t, db, tt.create)
			first := MustQuery(t, db, "SHOW CREATE TABLE "+tt.table)
			require.Len(t, first.Values, 1)
			require.Equal(t, []string{"Table", "Create Table"}, first.Columns)
			descBefore := MustQuery(t, db, "DESC "+tt.table)

			MustExec(t, db, "DROP TABLE "+tt.table)
			MustExec(t, db, first.Values[0][1])

			again := MustQuery(t, db, "SHOW CREATE TABLE "+tt.table)
			assert.Equal(t, first, again)
			assert.Equal(t, descBefore, MustQuery(t, db, "DESC "+tt.table))
		})
	}
}

func TestDropAndTruncate(t *testing.T) {
	s := startWithBooks(t)
	db := s.DB(t)

	MustExec(t, db, "TRUNCATE TABLE books")
	assert.Equal(t, [][]string{{"0"}}, MustQuery(t, db, "SELECT COUNT(*) FROM books").Values)
	assert.Empty(t, MustQuery(t, db, "SELECT id FROM books WHERE MATCH('fox')").Values)
	MustExec(t, db, booksRows) // the table still works after TRUNCATE
	assert.Equal(t, [][]string{{"4"}}, MustQuery(t, db, "SELECT COUNT(*) FROM books").Values)

	MustExec(t, db, "CREATE TABLE IF NOT EXISTS books (x text)")
	_, err := db.Exec("CREATE TABLE books (x text)")
	RequireMySQLError(t, err, 1050, "books")

	MustExec(t, db, "DROP TABLE books")
	_, err = Query(db, "SELECT id FROM books")
	RequireMySQLError(t, err, 1146, "books")
	assert.Empty(t, MustQuery(t, db, "SHOW TABLES").Values)
	MustExec(t, db, "DROP TABLE IF EXISTS books")
	_, err = db.Exec("DROP TABLE books")
	RequireMySQLError(t, err, 1146, "books")
}
