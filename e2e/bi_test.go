package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// The BI tools and client libraries of issue 22, driven for real against
// glintd: replays of what Grafana, Metabase and DBeaver send, SQLAlchemy and
// pandas reflection, ODBC catalog calls, JDBC's DatabaseMetaData, and a
// mysqldump round trip. MySQL's own Connector/J is not among them: it comes
// only from Maven, which this project's test machines cannot reach; the
// MariaDB driver Debian ships (libmariadb-java) runs the same
// DatabaseMetaData calls against information_schema.

// startWithBIData starts a server with the tables of testdata/bi/setup.sql.
func startWithBIData(t *testing.T) *Server {
	t.Helper()
	s := StartServer(t)
	setup, err := os.ReadFile("testdata/bi/setup.sql")
	require.NoError(t, err)
	out, code := s.CLICombined(t, string(setup), "glint")
	require.Equal(t, 0, code, "%s", out)
	return s
}

func TestBIReplays(t *testing.T) {
	s := startWithBIData(t)
	for _, name := range []string{"grafana", "metabase", "dbeaver", "mysqlclient"} {
		t.Run(name, func(t *testing.T) {
			RunGolden(t, filepath.Join("testdata/bi", name+".txt"), s)
		})
	}
}

func hostPort(t *testing.T, s *Server) (string, string) {
	host, port, ok := strings.Cut(s.MySQLAddr, ":")
	require.True(t, ok)
	return host, port
}

// TestBISQLAlchemy reflects the tables with SQLAlchemy's inspector (SHOW
// FULL TABLES, SHOW CREATE TABLE) and reads them with pandas.
func TestBISQLAlchemy(t *testing.T) {
	python := pythonWith(t, "sqlalchemy, pandas, pymysql")
	s := startWithBIData(t)
	host, port := hostPort(t, s)
	out, err := exec.Command(python, "testdata/bi/reflect_sqlalchemy.py", host, port, "glint").CombinedOutput()
	require.NoError(t, err, "%s", out)
	golden.File(t, "testdata/bi/sqlalchemy.out", out)
}

// TestBIODBC runs ODBC's catalog functions (SQLTables, SQLColumns,
// SQLPrimaryKeys, SQLStatistics, SQLForeignKeys, SQLGetTypeInfo) through
// the MariaDB ODBC driver, which sends them as server-side prepared
// statements.
func TestBIODBC(t *testing.T) {
	python, driver := odbcTools(t)
	s := startWithBIData(t)
	host, port := hostPort(t, s)
	out, err := exec.Command(python, "testdata/bi/odbc.py", host, port, driver, "glint").CombinedOutput()
	require.NoError(t, err, "%s", out)
	golden.File(t, "testdata/bi/odbc.out", out)
}

// odbcTools returns a python3 with pyodbc and the MariaDB ODBC driver.
func odbcTools(t *testing.T) (python, driver string) {
	python = pythonWith(t, "pyodbc")
	drivers, _ := filepath.Glob("/usr/lib/*/odbc/libmaodbc.so")
	if len(drivers) == 0 {
		requireTool(t, "the MariaDB ODBC driver (odbc-mariadb)")
	}
	return python, drivers[0]
}

// javaTools returns java and the MariaDB JDBC driver's jar.
func javaTools(t *testing.T) (java, jar string) {
	jar = "/usr/share/java/mariadb-java-client.jar"
	if _, err := os.Stat(jar); err != nil {
		requireTool(t, "the JDBC driver "+jar+" (libmariadb-java)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		requireTool(t, "java (default-jre-headless)")
	}
	return java, jar
}

// mysqldumpTool returns mysqldump (or mariadb-dump).
func mysqldumpTool(t *testing.T) string {
	for _, name := range []string{"mysqldump", "mariadb-dump"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	requireTool(t, "mysqldump (mariadb-client)")
	return ""
}

// TestBIJDBC runs DatabaseMetaData's catalog calls through the MariaDB JDBC
// driver, with client-side and with server-side prepared statements.
func TestBIJDBC(t *testing.T) {
	java, jar := javaTools(t)
	s := startWithBIData(t)
	host, port := hostPort(t, s)
	for _, mode := range []string{"", "&useServerPrepStmts=true"} {
		out, err := exec.Command(java, "-cp", jar, "testdata/bi/Meta.java", host, port, "glint", mode).CombinedOutput()
		require.NoError(t, err, "%s", out)
		golden.File(t, "testdata/bi/jdbc.out", out)
	}
}

// TestJDBCStreamedParameters writes through the MariaDB JDBC driver's
// server-side prepared statements what connectors stream ahead or send
// without their types (Streamed.java), and reads it back; client-side
// statements give the same.
func TestJDBCStreamedParameters(t *testing.T) {
	java, jar := javaTools(t)
	for _, mode := range []string{"&useServerPrepStmts=true", ""} {
		s := StartServer(t)
		host, port := hostPort(t, s)
		out, err := exec.Command(java, "-cp", jar, "testdata/bi/Streamed.java", host, port, "glint", mode).CombinedOutput()
		require.NoError(t, err, "%s", out)
		golden.File(t, "testdata/bi/streamed.out", out)
	}
}

// TestMysqldumpRoundTrip dumps a table with mysqldump and restores it with
// the mysql client into a fresh glintd: the same rows, the same table, the
// same full-text matches.
func TestMysqldumpRoundTrip(t *testing.T) {
	dump := mysqldumpTool(t)
	src := startWithBIData(t)
	// More rows than a SELECT without LIMIT returns: the dump holds them all.
	var more []string
	for id := 100; id < 140; id++ {
		more = append(more, fmt.Sprintf("(%d, 'Volume %d', 'more text, a hole and a hobbit', %d)", id, id, id))
	}
	MustExec(t, src.DB(t), "INSERT INTO books (id, title, content, year) VALUES "+strings.Join(more, ", "))
	// Floats the reference's six or eight decimals would not give back.
	MustExec(t, src.DB(t), "INSERT INTO books (id, title, price) VALUES (200, 'tiny', 0.000012345), (201, 'tinier', 1e-38), (202, 'huge', 3.4e38)")
	host, port := hostPort(t, src)
	cmd := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "glint", "books")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	file, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())

	dst := StartServer(t)
	out, code := dst.CLICombined(t, string(file), "glint")
	require.Equal(t, 0, code, "restoring the dump:\n%s\n%s", out, file)

	for _, q := range []string{
		"SHOW CREATE TABLE books",
		"SELECT * FROM books ORDER BY id",
		"SELECT COUNT(*) FROM books",
		"SELECT * FROM books ORDER BY id DESC LIMIT 5",
		"SELECT id, price * 1000000, price * 1e38 FROM books WHERE id >= 200",
		"SELECT id, WEIGHT() FROM books WHERE MATCH('holes | beginnings')",
		"SELECT id, HIGHLIGHT() FROM books WHERE MATCH('clever')",
	} {
		want := MustQuery(t, src.DB(t), q)
		got := MustQuery(t, dst.DB(t), q)
		require.Equal(t, want, got, "%s", q)
		require.NotEmpty(t, got.Values, "%s", q)
	}

	// --insert-ignore without the table's re-creation, into the table that
	// holds the rows already: every row is passed over, the restore ends well.
	again := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "--insert-ignore", "--no-create-info", "glint", "books")
	again.Stderr = &stderr
	file, err = again.Output()
	require.NoError(t, err, "%s", stderr.String())
	require.Contains(t, string(file), "INSERT IGNORE INTO")
	out, code = dst.CLICombined(t, string(file), "glint")
	require.Equal(t, 0, code, "restoring the dump again:\n%s", out)
	require.Equal(t, MustQuery(t, src.DB(t), "SELECT COUNT(*) FROM books"), MustQuery(t, dst.DB(t), "SELECT COUNT(*) FROM books"))

	// A part read with LIMIT (--where='... LIMIT n', which the refusal of a
	// table too big to read at once suggests) keeps its floats exact too.
	part := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "--where=id >= 200 LIMIT 10", "glint", "books")
	part.Stderr = &stderr
	file, err = part.Output()
	require.NoError(t, err, "%s", stderr.String())
	dst2 := StartServer(t)
	out, code = dst2.CLICombined(t, string(file), "glint")
	require.Equal(t, 0, code, "restoring the dump:\n%s\n%s", out, file)
	q := "SELECT id, price * 1000000, price * 1e38 FROM books WHERE id >= 200"
	require.Equal(t, MustQuery(t, src.DB(t), q), MustQuery(t, dst2.DB(t), q))

	// A table with text that is indexed but not stored cannot be dumped:
	// mysqldump stops with the error that says so.
	out2, err := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "glint", "notes").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out2), "indexed but not stored")
}

// TestMysqldumpDistributed dumps a whole database that holds a distributed
// table named before its local shard, by name, with --single-transaction
// (its SAVEPOINTs), with --databases and --all-databases (CREATE DATABASE
// IF NOT EXISTS glint), with --lock-all-tables (FLUSH TABLES WITH READ
// LOCK), and restores it into a fresh glintd: the
// distributed table comes back as created, without rows of its own (its
// engine is FEDERATED), and answers as before.
func TestMysqldumpDistributed(t *testing.T) {
	dump := mysqldumpTool(t)
	src := StartServer(t)
	host, port := hostPort(t, src)
	_, code := src.CLICombined(t, `CREATE TABLE shard (title text, year int);
INSERT INTO shard (id, title, year) VALUES (1, 'the green door', 1990), (2, 'a red door', 2001), (3, 'windows', 2010);
CREATE TABLE all_books type='distributed' local='shard';`, "glint")
	require.Equal(t, 0, code)
	for _, flags := range [][]string{{"glint"}, {"--single-transaction", "glint"}, {"--databases", "glint"}, {"--all-databases"}, {"--lock-all-tables", "glint"}} {
		args := append([]string{"--no-defaults", "-h", host, "-P", port, "-u", "root"}, flags...)
		cmd := exec.Command(dump, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		file, err := cmd.Output()
		require.NoError(t, err, "%v: %s", flags, stderr.String())
		require.Empty(t, stderr.String(), "%v", flags)
		require.Contains(t, string(file), "CREATE TABLE `all_books` type='distributed' local='shard';", "%v", flags)
		require.NotContains(t, string(file), "INSERT INTO `all_books`", "%v", flags)

		dst := StartServer(t)
		out, code := dst.CLICombined(t, string(file), "glint")
		require.Equal(t, 0, code, "%v: restoring the dump:\n%s\n%s", flags, out, file)
		for _, q := range []string{
			"SHOW TABLES",
			"SHOW CREATE TABLE all_books",
			"SELECT id, title, year FROM all_books WHERE MATCH('door') ORDER BY id",
			"SELECT TABLE_NAME, ENGINE, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'glint'",
		} {
			require.Equal(t, MustQuery(t, src.DB(t), q), MustQuery(t, dst.DB(t), q), "%v: %s", flags, q)
		}
		got := MustQuery(t, dst.DB(t), "SELECT id FROM all_books WHERE MATCH('door') ORDER BY id")
		require.Len(t, got.Values, 2, "%v", flags)
	}

	// --xml reads each table's status with SHOW TABLE STATUS LIKE
	// 'all\_books' (the underscore escaped) and its keys with SHOW KEYS.
	cmd := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "--xml", "glint")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	file, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	require.Empty(t, stderr.String())
	require.Contains(t, string(file), `<table_structure name="all_books">`)
	require.Contains(t, string(file), `Engine="FEDERATED"`)
}

// TestAutocommitStatusFlag: the status flags of the greeting and of each
// answer say what @@autocommit says; PyMySQL's get_autocommit() reads them
// (autocommit=None: it sends no SET of its own at connect).
func TestAutocommitStatusFlag(t *testing.T) {
	python := pythonWith(t, "pymysql")
	s := StartServer(t)
	host, port := hostPort(t, s)
	script := `
import sys, pymysql
c = pymysql.connect(host=sys.argv[1], port=int(sys.argv[2]), user="root", autocommit=None)
print(c.get_autocommit())
c.autocommit(False)
print(c.get_autocommit())
cur = c.cursor(); cur.execute("SELECT @@autocommit"); print(cur.fetchone()[0])
c.autocommit(True)
print(c.get_autocommit())
`
	out, err := exec.Command(python, "-c", script, host, port).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "True\nFalse\n0\nTrue\n", string(out))
}

// TestBIMariaDB runs the same clients against a MariaDB holding the same
// tables in MySQL's types (testdata/bi/setup-mariadb.sql), where one is
// installed. Their answers are kept beside glint's (*.mariadb.out), so the
// two read side by side: they differ in what glint is (no MATCH() there,
// glint's column comments, MariaDB's varchar(255) and json as longtext).
func TestBIMariaDB(t *testing.T) {
	m := StartMariaDB(t)
	setup, err := os.ReadFile("testdata/bi/setup-mariadb.sql")
	require.NoError(t, err)
	m.Exec(t, "", "CREATE DATABASE glint")
	m.Exec(t, "glint", string(setup))
	host, port := m.HostPort()

	t.Run("SQLAlchemy", func(t *testing.T) {
		python := pythonWith(t, "sqlalchemy, pandas, pymysql")
		out, err := exec.Command(python, "testdata/bi/reflect_sqlalchemy.py", host, port, "mariadb").CombinedOutput()
		require.NoError(t, err, "%s", out)
		golden.File(t, "testdata/bi/sqlalchemy.mariadb.out", out)
	})
	t.Run("ODBC", func(t *testing.T) {
		python, driver := odbcTools(t)
		out, err := exec.Command(python, "testdata/bi/odbc.py", host, port, driver, "mariadb").CombinedOutput()
		require.NoError(t, err, "%s", out)
		golden.File(t, "testdata/bi/odbc.mariadb.out", out)
	})
	t.Run("JDBC", func(t *testing.T) {
		java, jar := javaTools(t)
		out, err := exec.Command(java, "-cp", jar, "testdata/bi/Meta.java", host, port, "glint", "").CombinedOutput()
		require.NoError(t, err, "%s", out)
		golden.File(t, "testdata/bi/jdbc.mariadb.out", out)
	})
	// The statements Grafana, Metabase, DBeaver and the mysql client send,
	// replayed as against glint; MariaDB's answers in *.mariadb.txt.
	for _, name := range []string{"grafana", "metabase", "dbeaver", "mysqlclient"} {
		t.Run("replay "+name, func(t *testing.T) {
			RunGoldenSQL(t, filepath.Join("testdata/bi", name+".mariadb.txt"), m.DB(t, "glint"), m.PreparedDB(t, "glint"))
		})
	}
	t.Run("mysqldump", func(t *testing.T) {
		dump := mysqldumpTool(t)
		file, err := exec.Command(dump, "--no-defaults", "-h", host, "-P", port, "-u", "root", "glint", "books").Output()
		require.NoError(t, err)
		m.Exec(t, "", "CREATE DATABASE restored")
		m.Exec(t, "restored", string(file))
		q := "SELECT * FROM books ORDER BY id"
		require.Equal(t, MustQuery(t, m.DB(t, "glint"), q), MustQuery(t, m.DB(t, "restored"), q))
	})
}
