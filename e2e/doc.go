// Package e2e is glint's end-to-end suite: it builds glintd once per test binary
// run (on the first StartServer; Main, called from TestMain, removes the build;
// GLINT_E2E_GLINTD names a binary to start instead, to compare builds),
// starts it on free loopback ports with a temporary
// data directory, and drives it the way users do: with the real mariadb/mysql
// command-line client and with go-sql-driver/mysql (plain queries and
// server-side prepared statements), with HTTP clients and curl, and with the
// BI tools' drivers (SQLAlchemy, ODBC, JDBC, mysqldump).
//
//	s := e2e.StartServer(t)
//	e2e.MustExec(t, s.DB(t), "CREATE TABLE books (title text, year int)")
//	res := s.CLI(t, "", "--table", "-e", "SHOW TABLES") // stdin, then the client's arguments
//	// res.Stdout, res.Stderr, res.ExitCode
//
// Golden files in testdata/ (the format of package internal/golden) hold
// statements, HTTP requests and the statements BI tools send, each with the
// exact answer (see RunGolden); go test ./e2e -rewrite writes them anew.
package e2e
