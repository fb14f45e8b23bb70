package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// MariaDB is a MariaDB server a test started, to run the same clients
// against as glintd: where both answer, the tools' outputs show what glint
// answers differently. scripts/install-test-deps.sh installs mariadb-server;
// StartMariaDB skips the test when it is missing, unless
// GLINT_REQUIRE_CLIENTS=1 (make test) requires it.
type MariaDB struct {
	Addr string
	cmd  *exec.Cmd
}

// StartMariaDB starts mariadbd on a new data directory and a free loopback
// port, without grant tables (any user connects), and stops it at the end
// of the test.
func StartMariaDB(t *testing.T) *MariaDB {
	t.Helper()
	server, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		server, err1 = exec.LookPath("/usr/sbin/mariadbd")
	}
	install, err2 := exec.LookPath("mariadb-install-db")
	if err1 != nil || err2 != nil {
		const why = "mariadb-server (mariadbd and mariadb-install-db) is not installed (scripts/install-test-deps.sh installs it)"
		if os.Getenv("GLINT_REQUIRE_CLIENTS") == "1" {
			t.Fatalf("%s (GLINT_REQUIRE_CLIENTS=1)", why)
		}
		t.Skipf("%s (GLINT_REQUIRE_CLIENTS=1 makes this a failure)", why)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	u, err := user.Current()
	require.NoError(t, err)
	out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user="+u.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput()
	require.NoError(t, err, "mariadb-install-db: %s", out)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	m := &MariaDB{Addr: "127.0.0.1:" + strconv.Itoa(port)}
	m.cmd = exec.Command(server, "--no-defaults", "--datadir="+data, "--user="+u.Username,
		"--socket="+filepath.Join(dir, "sock"), "--pid-file="+filepath.Join(dir, "pid"),
		"--bind-address=127.0.0.1", "--port="+strconv.Itoa(port), "--skip-grant-tables",
		"--skip-log-bin", "--innodb-buffer-pool-size=16M", "--log-error="+filepath.Join(dir, "error.log"))
	require.NoError(t, m.cmd.Start())
	t.Cleanup(func() {
		_ = m.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = m.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = m.cmd.Process.Kill()
			<-done
		}
	})
	db := m.DB(t, "")
	deadline := time.Now().Add(60 * time.Second)
	for db.PingContext(context.Background()) != nil {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("mariadbd did not start in 60 s:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return m
}

// DB returns a connection pool to database (none when "") that may send
// several statements in one query.
func (m *MariaDB) DB(t *testing.T, database string) *sql.DB {
	return m.open(t, database, true)
}

// PreparedDB returns a pool to database whose statements with ? arguments
// are server-side prepared statements.
func (m *MariaDB) PreparedDB(t *testing.T, database string) *sql.DB {
	return m.open(t, database, false)
}

func (m *MariaDB) open(t *testing.T, database string, interpolate bool) *sql.DB {
	t.Helper()
	c := mysql.NewConfig()
	c.User, c.Net, c.Addr, c.DBName = "root", "tcp", m.Addr, database
	c.MultiStatements = interpolate
	c.InterpolateParams = interpolate
	connector, err := mysql.NewConnector(c)
	require.NoError(t, err)
	db := sql.OpenDB(connector)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Exec runs statements (several, separated by ';') in database.
func (m *MariaDB) Exec(t *testing.T, database, stmts string) {
	t.Helper()
	_, err := m.DB(t, database).Exec(stmts)
	require.NoError(t, err, "%s", stmts)
}

// HostPort is the server's address as the tools take it.
func (m *MariaDB) HostPort() (string, string) {
	host, port, _ := net.SplitHostPort(m.Addr)
	return host, port
}

func (m *MariaDB) String() string { return fmt.Sprintf("MariaDB at %s", m.Addr) }
