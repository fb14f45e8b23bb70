package e2e

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each bad statement gets its MySQL error, with a message that names the
// offending thing, and the connection stays usable with nothing half-applied.
func TestErrorsKeepTheConnectionUsable(t *testing.T) {
	s := startWithBooks(t)
	conn := s.Conn(t)
	tests := []struct {
		name     string
		stmt     string
		code     uint16
		mentions []string
	}{
		{"syntax", "SELEC id FROM books", 1064, []string{"SELEC"}},
		{"syntax at the end", "SELECT id FROM books WHERE", 1064, nil},
		{"syntax in the middle", "SELECT id FROM books WHERE year > > 3", 1064, nil},
		{"empty statement", ";", 1065, nil},
		{"unknown table in SELECT", "SELECT * FROM nosuchtable", 1146, []string{"nosuchtable"}},
		{"unknown table in INSERT", "INSERT INTO nosuchtable (id, title) VALUES (1, 'x')", 1146, []string{"nosuchtable"}},
		{"unknown table in DESC", "DESC nosuchtable", 1146, []string{"nosuchtable"}},
		{"unknown column in select list", "SELECT nosuchcol FROM books", 1054, []string{"nosuchcol"}},
		{"unknown column in WHERE", "SELECT id FROM books WHERE nosuchcol = 1", 1054, []string{"nosuchcol"}},
		{"unknown column in ORDER BY", "SELECT id FROM books ORDER BY nosuchcol", 1054, []string{"nosuchcol"}},
		{"unknown column in INSERT", "INSERT INTO books (id, nosuchcol) VALUES (100, 1)", 1054, []string{"nosuchcol"}},
		{"duplicate id", "INSERT INTO books (id, title) VALUES (100, 'new'), (2, 'again')", 1062, []string{"2"}},
		{"wrong value type", "INSERT INTO books (id, title, year) VALUES (100, 'new', 'not a number')", 1366, []string{"year"}},
		{"wrong value type in UPDATE", "UPDATE books SET year = 'soon' WHERE id = 1", 1366, []string{"year"}},
		{"unknown table setting", "CREATE TABLE other (title text) nosuchsetting='1'", 1210, []string{"nosuchsetting"}},
		{"unknown system variable", "SELECT @@nosuchvariable", 1193, []string{"nosuchvariable"}},
		{"column count", "INSERT INTO books (id, title) VALUES (100)", 1136, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Query(conn, tt.stmt)
			me := RequireMySQLError(t, err, tt.code, tt.mentions...)
			if tt.code == 1064 {
				assert.Regexp(t, regexp.MustCompile(`(?i)line|column|position|near|at `), me.Message, "a syntax error says where")
			}
			// the same connection still works, and the bad statement left nothing
			assert.Equal(t, [][]string{{"4"}}, MustQuery(t, conn, "SELECT COUNT(*) FROM books").Values)
			assert.Equal(t, [][]string{{"2001"}}, MustQuery(t, conn, "SELECT year FROM books WHERE id = 1").Values)
		})
	}
	tables := MustQuery(t, conn, "SHOW TABLES").Column(0)
	require.Equal(t, []string{"books"}, tables, "no failed CREATE left a table")
}
