// Package sql runs the statements of glint's SQL dialect: it parses them with the
// TiDB parser through the dialect bridge (package sql/dialect), plans them, and
// executes them against the storage engine (package index). It knows nothing of
// the wire: results are plain data (Result) and errors carry a Code that the
// server maps to MySQL error numbers in one place.
//
// A statement is a pipeline: parse (dialect.Parse), plan (planSelect compiles the
// WHERE clause, the select list and ORDER BY into expressions), execute (candidates
// from the full-text index or a scan go to a collector: a bounded heap for ORDER BY
// and LIMIT, or the groups of GROUP BY with their aggregates (group.go), one per
// FACET clause too (facet.go); only then is the stored text of the rows that are
// returned read). Functions this package does not compile itself (IF, CASE,
// SUBSTRING, the time functions) are the catalog's (scalar.go), and a derived
// table's outer SELECT runs in the catalog's row engine (derived.go). A SELECT or UNION
// that reads information_schema is not a search: it goes to the catalog's own
// row engine (package sql/catalog, wired in catalog.go), over tables built
// from the schemas of the moment. A SELECT of a distributed table (distributed.go,
// dist_select.go) is planned by its shards: the coordinator sends them plain
// dialect SQL in phases (query, then fetch of the page) and merges.
//
//	db, _ := index.Open(index.DefaultOptions("data"))
//	s := sql.NewEngine(db).NewSession("root")
//	s.Exec(ctx, "CREATE TABLE books (title text, price float)")
//	s.Exec(ctx, "INSERT INTO books (id, title, price) VALUES (1, 'The Hobbit', 9.5)")
//	res, _ := s.Exec(ctx, "SELECT id, title FROM books WHERE MATCH('hobbit')")
//	// res[0].Rows == [][]any{{uint64(1), "The Hobbit"}}
package sql
