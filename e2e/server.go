package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/glint-search/glint/e2e/daemon"
	"github.com/go-sql-driver/mysql"
)

// The glintd binary, built once per test binary run by the first StartServer
// (so that go test -list or -bench runs that start no server build nothing).
var (
	buildOnce sync.Once
	buildDir  string
	binary    string
	buildErr  error
)

// Main runs the tests and then removes the glintd build. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// glintd builds glintd (with -race when the tests run with -race) on first use,
// or returns the binary GLINT_E2E_GLINTD names (an older build to compare a
// benchmark with).
func glintd(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binary = os.Getenv("GLINT_E2E_GLINTD"); binary != "" {
			if _, buildErr = os.Stat(binary); buildErr != nil {
				buildErr = fmt.Errorf("GLINT_E2E_GLINTD: %w", buildErr)
			}
			return
		}
		var root string
		if buildDir, buildErr = os.MkdirTemp("", "glint-e2e-"); buildErr != nil {
			return
		}
		if root, buildErr = daemon.FindRepoRoot("."); buildErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		binary, buildErr = daemon.Build(ctx, root, buildDir, raceEnabled)
	})
	if buildErr != nil {
		t.Fatalf("e2e: cannot build glintd: %v", buildErr)
	}
	return binary
}

// Server is a glintd started for one test. It is stopped (and must exit 0 on
// SIGTERM) when the test ends.
type Server struct {
	MySQLAddr string // host:port of the MySQL listener
	HTTPAddr  string // host:port of the HTTP listener
	DataDir   string

	proc *daemon.Process
	opts daemon.Options
	mu   sync.Mutex // guards dbs: tests open pools from several goroutines
	dbs  []*sql.DB
}

// Option changes how StartServer starts glintd.
type Option func(*daemon.Options)

// WithArgs passes more command-line flags to glintd.
func WithArgs(args ...string) Option {
	return func(o *daemon.Options) { o.Args = append(o.Args, args...) }
}

// WithDataDir uses dir as the data directory instead of a new t.TempDir().
func WithDataDir(dir string) Option {
	return func(o *daemon.Options) { o.DataDir = dir }
}

// StartServer starts glintd on 127.0.0.1:0 (both listeners) with a new data
// directory and stops it at the end of the test.
func StartServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := daemon.Options{Binary: glintd(t)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	s := &Server{DataDir: o.DataDir}
	s.start(t, o)
	t.Cleanup(func() {
		s.closeDBs()
		if s.proc != nil && !s.proc.Exited() {
			if err := s.proc.Stop(30 * time.Second); err != nil {
				t.Errorf("%v\noutput:\n%s", err, s.proc.Output())
			}
		}
	})
	return s
}

func (s *Server) start(t testing.TB, o daemon.Options) {
	t.Helper()
	p, err := daemon.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	s.proc, s.MySQLAddr, s.HTTPAddr = p, p.MySQLAddr, p.HTTPAddr
	s.opts = o
}

// Pid is the server process's id.
func (s *Server) Pid() int { return s.proc.Pid() }

// Output is everything the server has printed.
func (s *Server) Output() string { return s.proc.Output() }

// Stop sends SIGTERM and fails the test unless glintd exits 0 within 30 s.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.closeDBs()
	if err := s.proc.Stop(30 * time.Second); err != nil {
		t.Fatalf("%v\noutput:\n%s", err, s.proc.Output())
	}
}

// Kill kills glintd with SIGKILL, as a crash would.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.closeDBs()
	if err := s.proc.Kill(); err != nil {
		t.Fatal(err)
	}
}

// Restart starts glintd again on the same data directory (after Stop or Kill;
// a running server is stopped first). The listeners get new ports: read
// MySQLAddr and HTTPAddr again, and get new *sql.DBs.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if !s.proc.Exited() {
		s.Stop(t)
	}
	s.start(t, s.opts)
}

// DB returns a connection pool to the server whose statements with ? arguments
// are interpolated by the client (plain COM_QUERY text), and which may send
// several statements in one query. It is closed at Stop, Kill or the test's end.
func (s *Server) DB(t testing.TB) *sql.DB {
	return s.open(t, func(c *mysql.Config) {
		c.InterpolateParams = true
		c.MultiStatements = true
	})
}

// PreparedDB returns a pool whose statements with ? arguments are server-side
// prepared statements (COM_STMT_PREPARE and COM_STMT_EXECUTE).
func (s *Server) PreparedDB(t testing.TB) *sql.DB {
	return s.open(t, func(c *mysql.Config) { c.InterpolateParams = false })
}

// Conn returns one connection of DB: statements that read session state (SHOW
// META, SHOW WARNINGS) must run on the connection of the statement before.
func (s *Server) Conn(t testing.TB) *sql.Conn {
	t.Helper()
	c, err := s.DB(t).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (s *Server) open(t testing.TB, configure func(*mysql.Config)) *sql.DB {
	t.Helper()
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "tcp"
	c.Addr = s.MySQLAddr
	c.Timeout = 10 * time.Second
	c.ReadTimeout = 60 * time.Second
	c.WriteTimeout = 60 * time.Second
	c.MaxAllowedPacket = 16 << 20
	configure(c)
	connector, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	s.mu.Lock()
	s.dbs = append(s.dbs, db)
	s.mu.Unlock()
	return db
}

func (s *Server) closeDBs() {
	s.mu.Lock()
	dbs := s.dbs
	s.dbs = nil
	s.mu.Unlock()
	for _, db := range dbs {
		_ = db.Close()
	}
}
