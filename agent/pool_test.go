package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/server"
	"github.com/glint-search/glint/sql"
	"github.com/stretchr/testify/require"
)

func TestColumnValues(t *testing.T) {
	for _, c := range []struct {
		mysqlType string
		read      any // as the driver reads it
		want      any
	}{
		{"BIGINT", int64(-5), int64(-5)},
		{"UNSIGNED BIGINT", uint64(18446744073709551615), uint64(18446744073709551615)},
		{"UNSIGNED INT", int64(7), uint64(7)},
		{"INT", int64(7), int64(7)},
		{"DOUBLE", 9.25, 9.25},
		{"FLOAT", float32(0.1), 0.1},
		{"DECIMAL", []byte("1.5"), 1.5},
		{"VARCHAR", []byte("a,b"), "a,b"},
		{"JSON", []byte(`{"a":1}`), `{"a":1}`},
		{"VARCHAR", int64(3), "3"},
	} {
		col := sql.Column{Name: "c", Type: columnType(c.mysqlType)}
		got, err := value(col, c.read)
		require.NoError(t, err, c.mysqlType)
		require.Equal(t, c.want, got, c.mysqlType)
	}
	_, err := value(sql.Column{Name: "n", Type: sql.ColInt}, []byte("x"))
	require.ErrorContains(t, err, `agent: column "n"`)
	_, err = value(sql.Column{Name: "u", Type: sql.ColUint}, int64(-1))
	require.ErrorContains(t, err, `agent: column "u"`)
}

// TestUnreachable: a mirror that refuses connections is an error that is
// not an *sql.AgentError (so the coordinator tries another mirror), and
// one that never answers ends with the context.
func TestUnreachable(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = p.Query(context.Background(), addr, time.Second, "SELECT 1")
	require.Error(t, err)
	var ae *sql.AgentError
	require.False(t, errors.As(err, &ae))

	// Something that answers, but not as MySQL (an HTTP port).
	http := serveTCP(t, func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
		c.Close()
	})
	_, err = p.Query(context.Background(), http.Addr().String(), time.Second, "SELECT 1")
	require.ErrorContains(t, err, http.Addr().String()+" took the connection but answered without a MySQL handshake: an agent is a glintd MySQL listener (not its HTTP port)")

	hang := serveTCP(t, func(net.Conn) {}) // takes connections and says nothing
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Query(ctx, hang.Addr().String(), 5*time.Second, "SELECT 1")
	require.Error(t, err)
	require.Less(t, time.Since(start), 3*time.Second)

	// The handshake is part of connecting: the connect timeout bounds it,
	// not the query's.
	start = time.Now()
	_, err = p.Query(context.Background(), hang.Addr().String(), 300*time.Millisecond, "SELECT 1")
	require.ErrorContains(t, err, hang.Addr().String()+" took the connection but sent no MySQL handshake within the connect timeout (300ms, agent_connect_timeout): it is stopped or too busy")
	require.Less(t, time.Since(start), 3*time.Second)
}

// serveTCP listens on a loopback port and hands each connection to
// handle; the connections are closed with the listener at the test's end.
func serveTCP(t *testing.T, handle func(net.Conn)) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			handle(c)
		}
	}()
	return l
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// startAgent serves a glint engine's MySQL protocol on addr ("" for any
// port) and returns its listener and a function that stops it.
func startAgent(t testing.TB, addr string) (*countingListener, func()) {
	t.Helper()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	eng := sql.NewEngine(db)
	srv := server.New(server.SessionFunc(func(user string) server.Session { return eng.NewSession(user) }),
		server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	cl := &countingListener{Listener: ln}
	done := make(chan struct{})
	go func() { _ = srv.ServeMySQL(cl); close(done) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		<-done
		require.NoError(t, db.Close())
	}
	t.Cleanup(stop)
	return cl, stop
}

// TestPoolKeepsConnections: the calls to an agent reuse one connection;
// an error the agent answers leaves it usable; a kept connection the agent
// closed (it restarted) is replaced without failing the call.
func TestPoolKeepsConnections(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	ln, stop := startAgent(t, "")
	addr := ln.Addr().String()
	for i := range 3 {
		res, err := p.Query(context.Background(), addr, time.Second, "SELECT 1 AS a, 'x' AS b", "SELECT 2.5 AS c")
		require.NoError(t, err, i)
		require.Len(t, res, 2)
		require.Equal(t, [][]any{{int64(1), "x"}}, res[0].Rows)
		require.Equal(t, []sql.Column{{Name: "a", Type: sql.ColInt}, {Name: "b", Type: sql.ColString}}, res[0].Columns)
		require.Equal(t, [][]any{{2.5}}, res[1].Rows)
	}
	_, err := p.Query(context.Background(), addr, time.Second, "SELECT * FROM nosuch")
	var ae *sql.AgentError
	require.ErrorAs(t, err, &ae)
	_, err = p.Query(context.Background(), addr, time.Second, "SELECT 1")
	require.NoError(t, err)
	require.Equal(t, int32(1), ln.accepted.Load(), "one connection for every call")

	stop()
	again, _ := startAgent(t, addr)
	res, err := p.Query(context.Background(), addr, time.Second, "SELECT 3")
	require.NoError(t, err, "a connection to the stopped agent is not used")
	require.Equal(t, [][]any{{int64(3)}}, res[0].Rows)
	require.Equal(t, int32(1), again.accepted.Load())
}

// stallingProxy forwards connections to an agent until stall is set, then
// holds what either side sends.
type stallingProxy struct {
	net.Listener
	to    string
	stall atomic.Bool
}

func (p *stallingProxy) serve() {
	for {
		c, err := p.Accept()
		if err != nil {
			return
		}
		a, err := net.Dial("tcp", p.to)
		if err != nil {
			c.Close()
			continue
		}
		pipe := func(dst, src net.Conn) {
			defer dst.Close()
			defer src.Close()
			buf := make([]byte, 4096)
			for {
				n, err := src.Read(buf)
				for n > 0 && p.stall.Load() {
					time.Sleep(time.Millisecond)
				}
				if n > 0 {
					if _, werr := dst.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}
		go pipe(a, c)
		go pipe(c, a)
	}
}

// TestCallBounds: a call to an agent that stops answering ends at its
// context's deadline with context.DeadlineExceeded, or when its context is
// cancelled with context.Canceled; the connection is not used again, and
// the next call, once the agent answers, gets a new one.
func TestCallBounds(t *testing.T) {
	ln, _ := startAgent(t, "")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	proxy := &stallingProxy{Listener: l, to: ln.Addr().String()}
	defer proxy.Close()
	go proxy.serve()
	addr := proxy.Addr().String()
	p := New(Options{})
	defer p.Close()
	_, err = p.Query(context.Background(), addr, time.Second, "SELECT 1")
	require.NoError(t, err)

	proxy.stall.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Query(ctx, addr, time.Second, "SELECT 1")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 2*time.Second)

	again := func() {
		t.Helper()
		proxy.stall.Store(false)
		accepted := ln.accepted.Load()
		res, err := p.Query(context.Background(), addr, time.Second, "SELECT 2")
		require.NoError(t, err)
		require.Equal(t, [][]any{{int64(2)}}, res[0].Rows)
		require.Equal(t, accepted+1, ln.accepted.Load(), "a new connection after the stalled one")
	}
	again()

	proxy.stall.Store(true)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = p.Query(ctx, addr, time.Second, "SELECT 1")
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), 2*time.Second)
	again()
}
