package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"time"
	"unsafe"

	"github.com/glint-search/glint/sql"
	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// Commands go-mysql hands to HandleOtherCommand.
const (
	comSetOption       = 0x1b
	comResetConnection = 0x1f
)

// maxParams is the most placeholders a prepared statement may have: the
// prepare response carries the count in 16 bits.
const maxParams = 65535

// mysqlConn is one MySQL client connection: it implements go-mysql's Handler
// (and, through connAuth, its AuthenticationHandler) over a Session. Its methods
// run on the connection's goroutine, one command at a time.
type mysqlConn struct {
	srv    *Server
	wire   *wireConn
	ctx    context.Context // cancelled when the connection ends or the server gives up waiting
	cancel context.CancelFunc

	conn      *gms.Conn   // set once authenticated
	sess      Session     // set once authenticated
	cs        ConnSession // sess, when it is one
	pendingDB string      // the handshake's database, applied once authenticated
	// prepared are the connection's prepared statements by id (stmt.go);
	// lastStmtID is the id given last.
	prepared   map[uint32]*stmt
	lastStmtID uint32
	broken     bool // a panic happened: close after this command's answer

	// What SHOW PROCESSLIST shows of the connection (Server.List), under
	// srv.mu: its handshake's id, user and address, the session's
	// database after the last command, since when it runs its statement
	// (info), or is idle; stop cancels the statement running (nil: none).
	id         uint32
	user, host string
	db, info   string
	since      time.Time
	stop       func()

	busy bool // a command is being handled (and c is in srv.busy); guarded by srv.mu
}

// newConn registers a new connection; it returns nil when the server is
// closing, and full when max_connections are open.
func (s *Server) newConn(nc net.Conn) (c *mysqlConn, full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, false
	}
	if len(s.conns) >= s.cfg.MaxConnections {
		return nil, true
	}
	ctx, cancel := context.WithCancel(s.baseCtx)
	c = &mysqlConn{srv: s, wire: newWireConn(nc, &s.cfg), ctx: ctx, cancel: cancel}
	s.conns[c] = struct{}{}
	select {
	case s.wakeWatch <- struct{}{}:
	default:
	}
	return c, false
}

// serve runs the handshake and then answers commands until the client quits,
// the connection fails, or the server shuts down.
func (c *mysqlConn) serve() {
	defer func() {
		c.srv.mu.Lock()
		delete(c.srv.conns, c)
		delete(c.srv.busy, c)
		c.srv.mu.Unlock()
	}()
	defer c.wire.Close() // the raw connection; never gms.Conn.Close, which can panic
	defer c.cancel()
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("mysql: panic; closing the connection", "remote", c.wire.RemoteAddr().String(),
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	defer func() {
		if cl, ok := c.sess.(io.Closer); ok {
			_ = cl.Close()
		}
	}()

	c.wire.handshakeDeadline = time.Now().Add(c.srv.cfg.HandshakeTimeout)
	conn, err := c.srv.wire.NewCustomizedConn(c.wire, connAuth{c}, c)
	if err != nil {
		c.srv.log.Debug("mysql: handshake failed", "remote", c.wire.RemoteAddr().String(), "err", err)
		return
	}
	c.wire.handshakeDeadline = time.Time{}
	for {
		err := c.handleCommand(conn)
		c.srv.mu.Lock()
		c.busy = false
		delete(c.srv.busy, c)
		closing := c.srv.closing
		c.srv.mu.Unlock()
		if err == nil && c.cs != nil {
			c.wire.idleTimeout, c.wire.readTimeout, c.wire.writeTimeout = c.cs.ConnTimeouts()
		}
		if err != nil {
			if !errors.Is(err, errPacketTooLarge) && !isDisconnect(err) {
				c.srv.log.Debug("mysql: connection ended", "remote", c.wire.RemoteAddr().String(), "err", err)
			}
			return
		}
		if conn.Closed() || c.broken || closing {
			return
		}
	}
}

// handleCommand reads and answers one command, as go-mysql's
// Conn.HandleCommand does but for the prepared-statement commands, which
// are glint's own (stmt.go); the answers are written by go-mysql. A panic
// of go-mysql's own while reading or writing is answered as the
// handler's are (recoverPanic), and the connection is then closed.
func (c *mysqlConn) handleCommand(conn *gms.Conn) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		c.srv.log.Error("mysql: panic while reading a command; closing the connection",
			"remote", c.wire.RemoteAddr().String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		c.broken = true
		err = conn.WriteValue(&mysql.MyError{Code: mysql.ER_UNKNOWN_ERROR, State: "HY000",
			Message: fmt.Sprintf("internal error: %v (the connection will be closed)", p)})
	}()
	data, err := conn.ReadPacket()
	if err != nil {
		return err
	}
	v := c.dispatch(data)
	switch v {
	case quit:
		return io.EOF
	case noAnswer:
		err = nil
	case eof:
		err = c.writeEOF(conn)
	default:
		err = conn.WriteValue(v)
	}
	conn.ResetSequence()
	return err
}

// What dispatch returns for a command that is not answered with a value
// go-mysql writes.
type answer int

const (
	noAnswer answer = iota // COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA
	eof                    // COM_SET_OPTION
	quit                   // COM_QUIT: the connection ends
)

// dispatch runs one command and returns its answer: an error, nil (OK), a
// *mysql.Result, the fields of COM_FIELD_LIST, a prepared statement, or an
// answer.
func (c *mysqlConn) dispatch(data []byte) any {
	if len(data) == 0 {
		return &mysql.MyError{Code: mysql.ER_MALFORMED_PACKET, State: "HY000",
			Message: "malformed packet: a command packet without its command byte"}
	}
	cmd, data := data[0], data[1:]
	switch cmd {
	case mysql.COM_QUIT:
		return quit
	case mysql.COM_QUERY:
		return orError(c.HandleQuery(text(data)))
	case mysql.COM_PING:
		return nil
	case mysql.COM_INIT_DB:
		return orNil(c.UseDB(string(data)))
	case mysql.COM_FIELD_LIST:
		table, wildcard, _ := bytes.Cut(data, []byte{0})
		fields, err := c.HandleFieldList(string(table), string(wildcard))
		if err != nil {
			return err
		}
		return fields
	case mysql.COM_STMT_PREPARE:
		return c.stmtPrepare(text(data))
	case mysql.COM_STMT_EXECUTE:
		return c.stmtExecute(data)
	case mysql.COM_STMT_SEND_LONG_DATA:
		c.stmtLongData(data)
		return noAnswer
	case mysql.COM_STMT_CLOSE:
		c.stmtClose(data)
		return noAnswer
	case mysql.COM_STMT_RESET:
		return c.stmtReset(data)
	case comSetOption:
		if err := c.HandleOtherCommand(cmd, data); err != nil {
			return err
		}
		return eof
	}
	return orNil(c.HandleOtherCommand(cmd, data))
}

// text is b as a string without a copy: a packet's payload is read into
// memory of its own, which nothing writes again (as go-mysql takes it).
func text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// orError is r, or err when there is one.
func orError(r *mysql.Result, err error) any {
	if err != nil {
		return err
	}
	return r
}

// orNil is err, or an untyped nil (the OK answer) when there is none.
func orNil(err error) any {
	if err != nil {
		return err
	}
	return nil
}

// writeEOF writes an EOF packet with the connection's status flags.
func (c *mysqlConn) writeEOF(conn *gms.Conn) error {
	var status uint16
	for bit := uint16(1); bit != 0; bit <<= 1 {
		if conn.HasStatus(bit) {
			status |= bit
		}
	}
	data := []byte{0, 0, 0, 0, mysql.EOF_HEADER}
	if conn.Capability()&mysql.CLIENT_PROTOCOL_41 != 0 {
		data = append(data, 0, 0, byte(status), byte(status>>8))
	}
	return conn.WritePacket(data)
}

// isDisconnect reports whether err only says that the client went away.
func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, mysql.ErrBadConn) || errors.Is(err, context.Canceled)
}

// begin marks the connection busy: Shutdown waits for it instead of closing it.
func (c *mysqlConn) begin() {
	c.srv.mu.Lock()
	c.busy = true
	c.srv.busy[c] = struct{}{}
	c.srv.mu.Unlock()
}

// start is called once the client is authenticated, before the handshake's OK:
// it creates the session and applies the handshake's database. An error is sent
// to the client instead of the OK.
func (c *mysqlConn) start(conn *gms.Conn) error {
	c.conn = conn
	c.setSession(c.srv.engine.NewSession(conn.GetUser()))
	if c.pendingDB != "" {
		if err := c.sess.UseDB(c.pendingDB); err != nil {
			return mysqlError(err)
		}
		c.noteDB()
	}
	conn.SetStatus(mysql.SERVER_STATUS_AUTOCOMMIT)
	return nil
}

// setSession makes sess the connection's session and, when its variables
// say what the connection waits for and takes (ConnSession), applies them.
func (c *mysqlConn) setSession(sess Session) {
	c.sess = sess
	if ps, ok := sess.(ProcessSession); ok {
		ps.SetConnectionID(c.conn.ConnectionID())
	}
	db := c.currentDB()
	c.srv.mu.Lock()
	c.id, c.user, c.host, c.since, c.db = c.conn.ConnectionID(), c.conn.GetUser(), c.wire.RemoteAddr().String(), time.Now(), db
	c.srv.mu.Unlock()
	c.cs, _ = sess.(ConnSession)
	if c.cs == nil {
		return
	}
	if c.conn.Capability()&mysql.CLIENT_INTERACTIVE != 0 {
		c.cs.Interactive()
	}
	c.wire.guard.limit = int64(c.cs.MaxAllowedPacket())
	c.wire.idleTimeout, c.wire.readTimeout, c.wire.writeTimeout = c.cs.ConnTimeouts()
}

// recoverPanic turns a panic of the handler into error 1105 for the client and
// marks the connection to be closed after that answer.
func (c *mysqlConn) recoverPanic(err *error) {
	p := recover()
	if p == nil {
		return
	}
	c.srv.log.Error("mysql: panic while handling a command; closing the connection",
		"remote", c.wire.RemoteAddr().String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	c.broken = true
	if c.conn != nil {
		c.conn.UnsetStatus(mysql.SERVER_MORE_RESULTS_EXISTS)
	}
	*err = &mysql.MyError{Code: mysql.ER_UNKNOWN_ERROR, State: "HY000",
		Message: fmt.Sprintf("internal error: %v (the connection will be closed)", p)}
}

// statementContext returns the context of one statement: cancelled when the
// client goes away while it runs, or with the connection. done must be called
// before anything is written or read; calling it again does nothing.
// info is the statement, for SHOW PROCESSLIST; KILL QUERY cancels ctx.
func (c *mysqlConn) statementContext(info string) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.wire.beginWatch(cancel)
	c.srv.mu.Lock()
	c.info, c.since, c.stop = info, time.Now(), cancel
	c.srv.mu.Unlock()
	finished := false
	return ctx, func() {
		if !finished {
			finished = true
			c.wire.endWatch()
			cancel()
			db := c.currentDB()
			c.srv.mu.Lock()
			c.info, c.since, c.stop, c.db = "", time.Now(), nil, db
			c.srv.mu.Unlock()
		}
	}
}

// noteDB keeps the session's current database for SHOW PROCESSLIST after
// a command that may change it outside a statement (COM_INIT_DB, the
// handshake's database).
func (c *mysqlConn) noteDB() {
	db := c.currentDB()
	c.srv.mu.Lock()
	c.db = db
	c.srv.mu.Unlock()
}

// currentDB is the session's current database, for SHOW PROCESSLIST.
func (c *mysqlConn) currentDB() string {
	if ps, ok := c.sess.(ProcessSession); ok {
		return ps.CurrentDB()
	}
	return ""
}

// UseDB answers COM_INIT_DB, and takes the handshake's database.
func (c *mysqlConn) UseDB(name string) (err error) {
	if c.sess == nil { // during the handshake
		c.pendingDB = name
		return nil
	}
	c.begin()
	defer c.recoverPanic(&err)
	if err := c.sess.UseDB(name); err != nil {
		return mysqlError(err)
	}
	c.noteDB()
	return nil
}

// HandleQuery answers COM_QUERY. Every result but the last is written here with
// SERVER_MORE_RESULTS_EXISTS; so is the last one when it is a result set.
func (c *mysqlConn) HandleQuery(query string) (res *mysql.Result, err error) {
	c.begin()
	defer c.recoverPanic(&err)
	if limit := c.wire.guard.limit; c.wire.guard.tls && int64(len(query)+1) > limit {
		// Under TLS the guard cannot see packets as they come: the
		// statement was read, and is refused now.
		return nil, &mysql.MyError{Code: mysql.ER_NET_PACKET_TOO_LARGE, State: "08S01",
			Message: packetTooLarge(int64(len(query)+1), limit)}
	}
	ctx, done := c.statementContext(query)
	defer done()
	results, execErr := c.sess.Exec(ctx, query)
	done()
	return c.reply(results, execErr, false)
}

// HandleStmtPrepare answers COM_STMT_PREPARE. The result columns are not known
// before execution, so none are announced.
func (c *mysqlConn) HandleStmtPrepare(query string) (params, columns int, ctx any, err error) {
	c.begin()
	defer c.recoverPanic(&err)
	if len(c.prepared) >= c.srv.cfg.MaxPreparedStmts {
		return 0, 0, nil, errTooManyStatements(c.srv.cfg.MaxPreparedStmts)
	}
	p, err := c.sess.Prepare(query)
	if err != nil {
		return 0, 0, nil, mysqlError(err)
	}
	if p.NumParams > maxParams {
		return 0, 0, nil, &mysql.MyError{Code: mysql.ER_PS_MANY_PARAM, State: "HY000",
			Message: fmt.Sprintf("Prepared statement contains too many placeholders (%d > %d)", p.NumParams, maxParams)}
	}
	return p.NumParams, 0, p, nil
}

// HandleStmtExecute runs a prepared statement (a *sql.Prepared) with the
// parameters of a COM_STMT_EXECUTE, as go-mysql reads them (stmt.go), and
// answers with a binary result.
func (c *mysqlConn) HandleStmtExecute(stmt any, _ string, args []any) (res *mysql.Result, err error) {
	c.begin()
	defer c.recoverPanic(&err)
	p, ok := stmt.(*sql.Prepared)
	if !ok {
		return nil, fmt.Errorf("server: prepared statement of type %T", stmt)
	}
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := argValue(a)
		if err != nil {
			return nil, &mysql.MyError{Code: mysql.ER_WRONG_ARGUMENTS, State: "HY000",
				Message: fmt.Sprintf("argument %d: %v", i+1, err)}
		}
		vals[i] = v
	}
	ctx, done := c.statementContext(p.Text())
	defer done()
	r, execErr := c.sess.ExecPrepared(ctx, p, vals)
	done()
	var results []*sql.Result
	if r != nil {
		results = []*sql.Result{r}
	}
	return c.reply(results, execErr, true)
}

// HandleStmtClose forgets a prepared statement (COM_STMT_CLOSE), given as
// the *stmt.
func (c *mysqlConn) HandleStmtClose(s any) error {
	if s, ok := s.(*stmt); ok {
		delete(c.prepared, s.id)
	}
	return nil
}

// HandleFieldList answers COM_FIELD_LIST (the mysql CLI sends it per table
// when started with a database and auto-rehash).
func (c *mysqlConn) HandleFieldList(table, wildcard string) (fields []*mysql.Field, err error) {
	c.begin()
	defer c.recoverPanic(&err)
	cols, err := c.sess.FieldList(table)
	if err != nil {
		return nil, mysqlError(err)
	}
	for _, col := range cols {
		if wildcard != "" && !sql.LikeMatch(wildcard, col.Name) {
			continue
		}
		f := fieldOf(col)
		f.Table, f.OrgTable, f.OrgName = []byte(table), []byte(table), f.Name
		fields = append(fields, f)
	}
	return fields, nil
}

// HandleOtherCommand answers COM_SET_OPTION (accepted: multi-statements are
// always on) and COM_RESET_CONNECTION (a fresh session); others are error 1047.
func (c *mysqlConn) HandleOtherCommand(cmd byte, data []byte) (err error) {
	switch cmd {
	case comSetOption:
		// 0: multi-statements on, 1: off (taken, as they are always on);
		// MySQL answers any other with 1047.
		if len(data) != 2 || data[1] != 0 || data[0] > 1 {
			return &mysql.MyError{Code: mysql.ER_UNKNOWN_COM_ERROR, State: "08S01",
				Message: fmt.Sprintf("COM_SET_OPTION: unknown option %x (0 and 1 are multi-statements on and off)", data)}
		}
		return nil
	case comResetConnection:
		c.begin()
		defer c.recoverPanic(&err)
		if cl, ok := c.sess.(io.Closer); ok {
			_ = cl.Close()
		}
		c.setSession(c.srv.engine.NewSession(c.conn.GetUser()))
		clear(c.prepared) // (as MySQL closes them)
		return nil
	}
	return &mysql.MyError{Code: mysql.ER_UNKNOWN_COM_ERROR, State: "08S01",
		Message: fmt.Sprintf("Unknown command %d", cmd)}
}

// reply writes the results of a COM_QUERY or COM_STMT_EXECUTE and returns what
// go-mysql should write last: nothing more (every result was written here), an
// OK packet, or the error that ends the answer.
func (c *mysqlConn) reply(results []*sql.Result, execErr error, binary bool) (*mysql.Result, error) {
	c.syncAutocommit()
	for i, r := range results {
		last := i == len(results)-1 && execErr == nil
		if last && !isResultSet(r) {
			return &mysql.Result{AffectedRows: r.AffectedRows, InsertId: r.InsertID, Warnings: r.Warnings}, nil
		}
		if err := c.writeResult(r, binary, !last); err != nil {
			return nil, err
		}
	}
	if execErr != nil {
		return nil, mysqlError(execErr)
	}
	if len(results) == 0 {
		return nil, nil
	}
	return written(), nil
}

// written is a result that makes go-mysql write nothing: the handler has
// written the answer itself.
func written() *mysql.Result {
	return &mysql.Result{Resultset: &mysql.Resultset{
		Fields:    []*mysql.Field{{}},
		Streaming: mysql.StreamingMultiple, StreamingDone: true,
	}}
}

// writeResult writes one result; more sets SERVER_MORE_RESULTS_EXISTS.
func (c *mysqlConn) writeResult(r *sql.Result, binary, more bool) error {
	if more {
		c.conn.SetStatus(mysql.SERVER_MORE_RESULTS_EXISTS)
		defer c.conn.UnsetStatus(mysql.SERVER_MORE_RESULTS_EXISTS)
	}
	if !isResultSet(r) {
		return c.conn.WriteValue(&mysql.Result{AffectedRows: r.AffectedRows, InsertId: r.InsertID, Warnings: r.Warnings})
	}
	status := uint16(0)
	if c.conn.HasStatus(mysql.SERVER_STATUS_AUTOCOMMIT) {
		status |= mysql.SERVER_STATUS_AUTOCOMMIT
	}
	if more {
		status |= mysql.SERVER_MORE_RESULTS_EXISTS
	}
	return writeResultSet(c.conn, r, binary, status)
}

// autocommitter is a Session that says whether @@autocommit is on.
type autocommitter interface{ Autocommit() bool }

// syncAutocommit makes the status flags' autocommit bit agree with the
// session's @@autocommit (connectors read it after SET autocommit=0);
// a session that does not say has it on.
func (c *mysqlConn) syncAutocommit() {
	if a, ok := c.sess.(autocommitter); ok && !a.Autocommit() {
		c.conn.UnsetStatus(mysql.SERVER_STATUS_AUTOCOMMIT)
		return
	}
	c.conn.SetStatus(mysql.SERVER_STATUS_AUTOCOMMIT)
}

func isResultSet(r *sql.Result) bool { return r.IsResultSet() && len(r.Columns) > 0 }

// connAuth is go-mysql's AuthenticationHandler for one connection.
type connAuth struct{ c *mysqlConn }

func (a connAuth) GetCredential(user string) (gms.Credential, bool, error) {
	return a.c.srv.auth.credential(user), true, nil
}

func (a connAuth) OnAuthSuccess(conn *gms.Conn) error { return a.c.start(conn) }

// OnAuthFailure logs a handshake that failed: a refused user or password
// as "access denied", anything else (a client that hung up or stopped
// answering mid-handshake, a malformed packet) with its error.
func (a connAuth) OnAuthFailure(conn *gms.Conn, err error) {
	remote := a.c.wire.RemoteAddr().String()
	if me, ok := errors.AsType[*mysql.MyError](err); ok && me.Code == mysql.ER_ACCESS_DENIED_ERROR {
		a.c.srv.log.Info("mysql: access denied", "user", conn.GetUser(), "remote", remote)
		return
	}
	// (The message only: go-mysql's errors carry a stack, which slog's
	// text handler would print whole.)
	a.c.srv.log.Info("mysql: handshake failed", "user", conn.GetUser(), "remote", remote, "err", err.Error())
}
