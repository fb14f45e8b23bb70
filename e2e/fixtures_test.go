package e2e

import "testing"

// booksTable has a column of each kind the dialect lists.
const booksTable = `CREATE TABLE books (title text, content text, price float, year int,
	published timestamp, author string, tags multi, meta json, in_print bool, isbn bigint)`

// booksRows: "fox" is in 1 and 2; "brown fox" only in 1; "lazy dog" in 1 and 3.
const booksRows = `INSERT INTO books (id, title, content, price, year, author) VALUES
	(1, 'The quick brown fox', 'jumps over the lazy dog', 10.5, 2001, 'alice'),
	(2, 'Quick start guide', 'how to start quickly with the fox', 5, 2010, 'bob'),
	(3, 'Lazy afternoons', 'a dog sleeps all day', 7.25, 1999, 'carol'),
	(4, 'Brown bread', 'baking bread at home', 3, 2015, 'dave')`

// startWithBooks starts a server holding the books table and its four rows.
func startWithBooks(t *testing.T) *Server {
	t.Helper()
	s := StartServer(t)
	db := s.DB(t)
	MustExec(t, db, booksTable)
	MustExec(t, db, booksRows)
	return s
}
