// Package e2e is glint's end-to-end suite: it builds glintd once per test binary
// run (on the first StartServer; Main, called from TestMain, removes the build),
// starts it on free loopback ports with a temporary
// data directory, and drives it the way users do: with the real mariadb/mysql
// command-line client and with go-sql-driver/mysql, both plain queries and
// server-side prepared statements.
//
//	s := e2e.StartServer(t)
//	s.MustExec(t, "CREATE TABLE books (title text, year int)")
//	out := s.CLI(t, "--table", "-e", "SHOW TABLES")
//
// Golden files in testdata/ (the format of package internal/golden) hold
// statements, HTTP requests and the statements BI tools send, each with the
// exact answer (see RunGolden); go test ./e2e -rewrite writes them anew.
package e2e
