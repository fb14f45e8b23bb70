package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// ErrServerClosed is returned by ServeMySQL and ServeHTTP after Shutdown.
var ErrServerClosed = errors.New("server: closed")

// handshakeCollation is utf8mb4_general_ci: every client of the last decade knows
// it (unlike MySQL 8's 255, which older MariaDB clients do not).
const handshakeCollation = 45

// Server serves one Engine over the MySQL protocol and HTTP. Create it with New,
// start ServeMySQL and ServeHTTP on listeners (each blocks until Shutdown), and
// stop it with Shutdown.
type Server struct {
	engine Engine
	cfg    Config
	log    *slog.Logger
	wire   *gms.Server // go-mysql's protocol settings
	auth   *authProvider

	baseCtx    context.Context // cancelled when Shutdown gives up waiting
	cancelBase context.CancelFunc

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*mysqlConn]struct{}
	// busy are the connections of conns that run a command: the watch
	// loop ticks these only, so that idle pooled connections (a
	// coordinator keeps several per agent) cost it nothing.
	busy     map[*mysqlConn]struct{}
	inflight int // HTTP requests being handled
	http     *http.Server

	watchOnce sync.Once
	wakeWatch chan struct{} // wakes the watch loop when a connection arrives
}

// New returns a Server for engine with cfg (zero fields take their defaults).
func New(engine Engine, cfg Config) *Server {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		engine:     engine,
		cfg:        cfg,
		log:        cfg.Logger,
		auth:       &authProvider{users: cfg.Users, tls: cfg.TLS != nil, requireTLS: cfg.RequireTLS},
		baseCtx:    ctx,
		cancelBase: cancel,
		listeners:  map[net.Listener]struct{}{},
		conns:      map[*mysqlConn]struct{}{},
		busy:       map[*mysqlConn]struct{}{},
		wakeWatch:  make(chan struct{}, 1),
	}
	// Without TLS, CLIENT_SSL is not offered, so the mysql CLI stays on plain
	// TCP. With it, users authenticate with caching_sha2_password, whose
	// full authentication sends the password in clear inside TLS, or
	// encrypted with the server's RSA key on a plain connection (when
	// allowed): the certificate's key if it is RSA, else one made at start.
	// The capabilities NewServerWithAuth sets do not include
	// CLIENT_QUERY_ATTRIBUTES.
	method := mysql.AUTH_NATIVE_PASSWORD
	var rsaKey *rsa.PrivateKey
	if cfg.TLS != nil {
		method = mysql.AUTH_CACHING_SHA2_PASSWORD
		if len(cfg.TLS.Certificates) > 0 {
			rsaKey, _ = cfg.TLS.Certificates[0].PrivateKey.(*rsa.PrivateKey)
		}
		if rsaKey == nil {
			var err error
			if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
				panic(fmt.Sprintf("server: an RSA key for caching_sha2_password: %v", err))
			}
		}
	}
	s.wire = gms.NewServerWithAuth(cfg.mysqlVersion(), handshakeCollation, method, rsaKey, cfg.TLS, s.auth)
	return s
}

// ServeMySQL accepts MySQL connections on ln until Shutdown, serving each on its
// own goroutine. It returns ErrServerClosed after Shutdown, or the listener's
// error. ln is closed on return.
func (s *Server) ServeMySQL(ln net.Listener) error {
	if !s.addListener(ln) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.removeListener(ln)
	s.watchOnce.Do(func() { go s.watchLoop() })
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			if retryAccept(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("mysql: accept", "err", err, "retry_in", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c, full := s.newConn(nc)
		if full {
			s.refuse(nc) // a few bytes on a new socket: the write does not wait
			continue
		}
		if c == nil {
			nc.Close()
			continue
		}
		go c.serve()
	}
}

// tooManyConnections is the packet a connection past max_connections gets
// instead of the handshake, as MySQL sends it: error 1040 in the form of a
// client that has not said yet that it speaks protocol 4.1 (no SQLSTATE).
var tooManyConnections = func() []byte {
	code := uint16(mysql.ER_CON_COUNT_ERROR)
	body := append([]byte{0xff, byte(code), byte(code >> 8)}, "Too many connections"...)
	return append([]byte{byte(len(body)), 0, 0, 0}, body...)
}()

// refuse answers a connection past max_connections and closes it.
func (s *Server) refuse(nc net.Conn) {
	defer nc.Close()
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(tooManyConnections)
	s.log.Debug("mysql: refused a connection past max_connections", "remote", nc.RemoteAddr().String(),
		"max_connections", s.cfg.MaxConnections)
}

// retryAccept reports whether an accept error is worth retrying after a pause
// (too many open files and the like).
func retryAccept(err error) bool {
	var t interface{ Temporary() bool }
	var ne net.Error
	return errors.As(err, &t) && t.Temporary() || errors.As(err, &ne) && ne.Timeout()
}

// forcedExitWait bounds how long Shutdown waits, after cancelling, for the
// connections and requests it cancelled to end.
const forcedExitWait = 5 * time.Second

// Shutdown stops accepting, closes idle MySQL connections at once, lets running
// statements and HTTP requests finish until ctx is done, then cancels what still
// runs (their contexts), closes every connection and waits a little for them to
// end. It returns ctx's error if it had to cancel work. Storage is the caller's
// to close afterwards.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	hs := s.http
	s.mu.Unlock()
	if hs != nil {
		// Stops the HTTP listeners and idle keep-alive connections; requests
		// in flight are waited for below.
		go hs.Shutdown(ctx) //nolint:errcheck // waited for through s.inflight
	}

	err := s.waitIdle(ctx, true)
	s.cancelBase() // interrupts statements and requests still running
	if err != nil {
		s.mu.Lock()
		for c := range s.conns {
			c.wire.Conn.Close() // the raw conn: its goroutine may be writing
		}
		s.mu.Unlock()
		if hs != nil {
			hs.Close()
		}
		wctx, cancel := context.WithTimeout(context.Background(), forcedExitWait)
		defer cancel()
		_ = s.waitIdle(wctx, false)
	}
	return err
}

// waitIdle waits until no MySQL connection and no HTTP request remains, or ctx
// is done. With closeIdle it closes the connections that wait for a command.
func (s *Server) waitIdle(ctx context.Context, closeIdle bool) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		if closeIdle {
			for c := range s.conns {
				if !c.busy {
					c.wire.Conn.Close()
				}
			}
		}
		n := len(s.conns) + s.inflight
		s.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// watchLoop ticks the statements that run, so that long ones get their socket
// watched (see wireConn.tick). It sleeps while there is no connection and ends
// with the server.
func (s *Server) watchLoop() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	for {
		select {
		case <-s.baseCtx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		n := len(s.conns)
		for c := range s.busy {
			c.wire.tick()
		}
		s.mu.Unlock()
		if n == 0 {
			t.Stop()
			select {
			case <-s.baseCtx.Done():
				return
			case <-s.wakeWatch:
			}
			t.Reset(watchTick)
		}
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *Server) addListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) removeListener(ln net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, ln)
	ln.Close()
}
