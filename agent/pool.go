package agent

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/glint-search/glint/sql"
	"github.com/go-sql-driver/mysql"
)

// Options say how a Pool connects to agents.
type Options struct {
	// User and Password log in to every agent (default: root, no
	// password, which a glintd without users accepts).
	User, Password string
	// IdlePerAgent is how many idle connections are kept per agent
	// address (default 8).
	IdlePerAgent int
	// IdleTimeout: a connection idle this long is not used again but
	// closed, when the pool next calls its agent (default 1 minute).
	IdleTimeout time.Duration
}

// Pool keeps connections to agents. It is safe for concurrent use.
//
// It keeps the driver's connections itself rather than through
// database/sql: a call is one text of statements and the reading of its
// result sets, and database/sql's pool, its goroutine per result set
// watching the context and its conversion of every value back to text
// were a sixth of a coordinator's CPU under the race's four-agent load.
//
// A call is bounded by its context through the deadline of the
// connection's socket, not through the driver: given a context that can
// end, the driver hands it to a goroutine of the connection's at the start
// of every call and takes it back at the end, two wake-ups of another
// goroutine per call, which were about a tenth of the coordinator's CPU
// under that load.
type Pool struct {
	o      Options
	mu     sync.Mutex
	agents map[poolKey]*conns
	closed bool
}

type poolKey struct {
	addr    string
	connect time.Duration
}

// conns are the connections to one agent address.
type conns struct {
	connector driver.Connector
	idle      []idleConn // the most recently used last
}

type idleConn struct {
	c     *conn
	since time.Time
}

// conn is a driver connection and its socket.
type conn struct {
	d  driver.Conn
	nc net.Conn
}

func (c *conn) Close() error { return c.d.Close() }

// dialedKey is the context key under which Pool.take has the socket of a
// new connection put (a *net.Conn), by dial.
type dialedKey struct{}

// dial is the driver's DialFunc: it also gives Pool.take the socket.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if slot, ok := ctx.Value(dialedKey{}).(*net.Conn); ok && err == nil {
		*slot = nc
	}
	return nc, err
}

// driverLog prints what the driver logs, except the errors of a socket
// whose deadline passed: those are calls that ran out of time or were
// cancelled (see run), which the caller is told of.
type driverLog struct{ l *log.Logger }

var quietDriverLog = driverLog{log.New(os.Stderr, "[mysql] ", log.LstdFlags)}

func (d driverLog) Print(v ...any) {
	for _, x := range v {
		if err, ok := x.(error); ok && errors.Is(err, os.ErrDeadlineExceeded) {
			return
		}
	}
	d.l.Print(v...)
}

// New returns a Pool with no connection open yet.
func New(o Options) *Pool {
	if o.User == "" {
		o.User = "root"
	}
	if o.IdlePerAgent <= 0 {
		o.IdlePerAgent = 8
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = time.Minute
	}
	return &Pool{o: o, agents: map[poolKey]*conns{}}
}

var _ sql.Remote = (*Pool)(nil)

var errClosed = errors.New("agent: the pool is closed")

// take returns an idle connection to addr (reused: true) or a new one.
func (p *Pool) take(ctx context.Context, addr string, connect time.Duration) (c *conn, reused bool, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errClosed
	}
	k := poolKey{addr, connect}
	a, ok := p.agents[k]
	if !ok {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd = p.o.User, p.o.Password
		cfg.Net, cfg.Addr = "tcp", addr
		cfg.Timeout = connect
		cfg.AllowNativePasswords = true
		cfg.MultiStatements = true // a Query's statements go in one round trip
		cfg.DialFunc = dial
		cfg.Logger = quietDriverLog
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			p.mu.Unlock()
			return nil, false, err
		}
		a = &conns{connector: connector}
		p.agents[k] = a
	}
	var stale []*conn
	now := time.Now()
	for len(a.idle) > 0 {
		last := a.idle[len(a.idle)-1]
		a.idle = a.idle[:len(a.idle)-1]
		if now.Sub(last.since) >= p.o.IdleTimeout {
			stale = append(stale, last.c)
			continue
		}
		c = last.c
		break
	}
	connector := a.connector
	p.mu.Unlock()
	for _, s := range stale {
		s.Close()
	}
	if c != nil {
		// The driver checks that the agent has not closed the connection
		// meanwhile (a restarted agent): then a new one is opened.
		if r, ok := c.d.(driver.SessionResetter); !ok || r.ResetSession(ctx) == nil {
			return c, true, nil
		}
		c.Close()
	}
	var nc net.Conn
	// Connecting is the dial and the MySQL handshake: both within the
	// connect timeout (a listener that takes the connection and says
	// nothing, an HTTP port, would otherwise hold it until the query's).
	cctx, cancel := context.WithTimeout(ctx, connect)
	d, err := connector.Connect(context.WithValue(cctx, dialedKey{}, &nc))
	var ne net.Error
	timedOut := ctx.Err() == nil && (cctx.Err() != nil || errors.As(err, &ne) && ne.Timeout())
	cancel()
	if err != nil {
		var me *mysql.MySQLError
		if timedOut {
			if nc != nil {
				return nil, false, fmt.Errorf("%s took the connection but sent no MySQL handshake within the connect timeout (%v, %w): it is stopped or too busy to answer, or it is not a glintd MySQL listener (an HTTP port, say)", addr, connect, sql.ErrConnectTimeout)
			}
			return nil, false, fmt.Errorf("no connection to %s within the connect timeout (%v, %w)", addr, connect, sql.ErrConnectTimeout)
		}
		if nc != nil && !errors.As(err, &me) && ctx.Err() == nil {
			// Connected, and no MySQL handshake came (the driver says
			// only "invalid connection").
			return nil, false, fmt.Errorf("%s took the connection but answered without a MySQL handshake: an agent is a glintd MySQL listener (not its HTTP port): %w", addr, err)
		}
		return nil, false, err
	}
	if nc == nil {
		d.Close()
		return nil, false, errors.New("agent: the MySQL driver connected without dialing")
	}
	return &conn{d: d, nc: nc}, false, nil
}

// give keeps c for the next call to addr, or closes it (a broken one, or
// one more than IdlePerAgent).
func (p *Pool) give(addr string, connect time.Duration, c *conn) {
	if v, ok := c.d.(driver.Validator); ok && !v.IsValid() {
		c.Close()
		return
	}
	p.mu.Lock()
	a := p.agents[poolKey{addr, connect}]
	if p.closed || a == nil || len(a.idle) >= p.o.IdlePerAgent {
		p.mu.Unlock()
		c.Close()
		return
	}
	a.idle = append(a.idle, idleConn{c, time.Now()})
	p.mu.Unlock()
}

// Query runs stmts in order on one connection to addr (sql.Remote).
func (p *Pool) Query(ctx context.Context, addr string, connect time.Duration, stmts ...string) ([]*sql.Result, error) {
	text := strings.Join(stmts, ";\n")
	out, err := p.query(ctx, addr, connect, text)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return nil, &sql.AgentError{Number: me.Number, Message: me.Message}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if len(out) != len(stmts) {
		return nil, fmt.Errorf("agent: %d result sets for %d statements", len(out), len(stmts))
	}
	return out, nil
}

// query sends text on a connection to addr and reads its result sets. A
// connection that turns out broken before the text was sent
// (driver.ErrBadConn) is dropped and the text sent on another: a kept one
// as often as kept ones fail (the agent restarted), a new one up to twice
// more, as database/sql retries.
func (p *Pool) query(ctx context.Context, addr string, connect time.Duration, text string) ([]*sql.Result, error) {
	for fresh := 0; ; {
		c, reused, err := p.take(ctx, addr, connect)
		if err != nil {
			return nil, err
		}
		out, err := run(ctx, c, text)
		if errors.Is(err, driver.ErrBadConn) && ctx.Err() == nil && (reused || fresh < 2) {
			if !reused {
				fresh++
			}
			c.Close()
			continue
		}
		p.give(addr, connect, c)
		return out, err
	}
}

// aLongTimeAgo is a deadline in the past: it wakes a blocked read or
// write at once.
var aLongTimeAgo = time.Unix(1, 0)

// run sends text (statements, each ending with ';') in one packet and
// reads their result sets as the SQL layer's values. ctx bounds it through
// the socket's deadline: its deadline, and one in the past once it is
// cancelled (the driver is given a context that never ends).
func run(ctx context.Context, c *conn, text string) (out []*sql.Result, err error) {
	q, ok := c.d.(driver.QueryerContext)
	if !ok {
		return nil, errors.New("agent: the MySQL driver cannot query without a prepared statement")
	}
	deadline, _ := ctx.Deadline() // zero: none
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, driver.ErrBadConn // closed: nothing was sent
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	defer func() {
		if !stop() {
			// ctx ended during the call: the socket's deadline is past,
			// so the connection is not used again.
			c.Close()
		}
		if err != nil && !deadline.IsZero() && !time.Now().Before(deadline) {
			// The socket's deadline can pass a moment before ctx's timer
			// fires: the caller sees ctx ended, as it is.
			<-ctx.Done()
		}
	}()
	rows, err := q.QueryContext(context.Background(), text, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}()
	more, _ := rows.(driver.RowsNextResultSet)
	for {
		r, err := resultSet(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		if more == nil || !more.HasNextResultSet() {
			return out, nil
		}
		if err := more.NextResultSet(); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
	}
}

// rowsPerAlloc is how many rows' values resultSet allocates at once: a
// phase's answer is a few dozen rows (a page's ids, SHOW META).
const rowsPerAlloc = 16

// resultSet reads the rows of the current result set.
func resultSet(rows driver.Rows) (*sql.Result, error) {
	names := rows.Columns()
	typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	r := &sql.Result{Columns: make([]sql.Column, len(names)), Rows: [][]any{}}
	for i, name := range names {
		t := sql.ColString
		if typed != nil {
			t = columnType(typed.ColumnTypeDatabaseTypeName(i))
		}
		r.Columns[i] = sql.Column{Name: name, Type: t}
	}
	dest := make([]driver.Value, len(names))
	var cells []any // the values of the rows to come, allocated rowsPerAlloc rows at a time
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		if len(cells) < len(names) {
			cells = make([]any, rowsPerAlloc*len(names))
		}
		row := cells[:len(names):len(names)]
		cells = cells[len(names):]
		for i, v := range dest {
			if v == nil {
				continue
			}
			if row[i], err = value(r.Columns[i], v); err != nil {
				return nil, err
			}
		}
		if cap(r.Rows) == 0 {
			r.Rows = make([][]any, 0, rowsPerAlloc) // grown once for a page of 20, not five times
		}
		r.Rows = append(r.Rows, row)
	}
}

// columnType maps a MySQL column type to the SQL layer's.
func columnType(name string) sql.ColumnType {
	switch {
	case strings.Contains(name, "INT"):
		if strings.HasPrefix(name, "UNSIGNED") {
			return sql.ColUint
		}
		return sql.ColInt
	case name == "FLOAT" || name == "DOUBLE" || name == "DECIMAL":
		return sql.ColFloat
	}
	return sql.ColString
}

// value is a value the driver read (int64, uint64 or float64 for the
// numbers a glintd sends, bytes for the rest, which the driver reuses) as
// the SQL layer's value of column c.
func value(c sql.Column, v driver.Value) (any, error) {
	switch x := v.(type) {
	case int64:
		switch c.Type {
		case sql.ColUint:
			if x < 0 {
				return nil, fmt.Errorf("agent: column %q: %d is not unsigned", c.Name, x)
			}
			return uint64(x), nil
		case sql.ColFloat:
			return float64(x), nil
		case sql.ColString:
			return strconv.FormatInt(x, 10), nil
		}
		return x, nil
	case uint64:
		switch c.Type {
		case sql.ColUint:
			return x, nil
		case sql.ColString:
			return strconv.FormatUint(x, 10), nil
		}
		return text(c, strconv.FormatUint(x, 10))
	case float64:
		if c.Type == sql.ColFloat {
			return x, nil
		}
		return text(c, strconv.FormatFloat(x, 'g', -1, 64))
	case float32:
		// A FLOAT column (glintd sends none): its shortest text as a
		// float32, read as the SQL layer's float64.
		return text(c, strconv.FormatFloat(float64(x), 'g', -1, 32))
	case []byte:
		return text(c, string(x))
	case string:
		return text(c, x)
	}
	return nil, fmt.Errorf("agent: column %q: unexpected value %T", c.Name, v)
}

// text reads the text of a value of column c.
func text(c sql.Column, s string) (any, error) {
	var v any
	var err error
	switch c.Type {
	case sql.ColInt:
		v, err = strconv.ParseInt(s, 10, 64)
	case sql.ColUint:
		v, err = strconv.ParseUint(s, 10, 64)
	case sql.ColFloat:
		v, err = strconv.ParseFloat(s, 64)
	default:
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: column %q: %w", c.Name, err)
	}
	return v, nil
}

// Close closes every idle connection; those in use are closed when their
// call ends.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	for k, a := range p.agents {
		for _, c := range a.idle {
			errs = append(errs, c.c.Close())
		}
		delete(p.agents, k)
	}
	return errors.Join(errs...)
}
