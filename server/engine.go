package server

import (
	"context"
	"time"

	"github.com/glint-search/glint/sql"
)

// Engine starts one Session per MySQL connection or HTTP request. It must be safe
// for concurrent use. *sql.Engine becomes an Engine through SessionFunc:
//
//	server.SessionFunc(func(user string) server.Session { return eng.NewSession(user) })
type Engine interface {
	NewSession(user string) Session
}

// SessionFunc adapts a function to the Engine interface, like http.HandlerFunc.
type SessionFunc func(user string) Session

// NewSession calls f(user).
func (f SessionFunc) NewSession(user string) Session { return f(user) }

// Session is the state of one client: *sql.Session satisfies it. The server uses
// a Session from one goroutine at a time. If a Session also implements io.Closer,
// the server closes it when its connection or request ends.
type Session interface {
	// Exec runs every statement of query in order and returns one Result each.
	// On an error it returns the results of the statements before the failing
	// one together with the error. ctx is cancelled when the client goes away or
	// the server shuts down.
	Exec(ctx context.Context, query string) ([]*sql.Result, error)
	// Prepare checks one statement with ? placeholders.
	Prepare(query string) (*sql.Prepared, error)
	// ExecPrepared runs p with args bound in order; each arg is nil, int64,
	// uint64, float64, string or []byte.
	ExecPrepared(ctx context.Context, p *sql.Prepared, args []any) (*sql.Result, error)
	// UseDB sets the current database (COM_INIT_DB and the handshake's database).
	UseDB(name string) error
	// FieldList lists the columns of a table (COM_FIELD_LIST).
	FieldList(table string) ([]sql.Column, error)
}

// Compile-time check that the SQL layer's session fits.
var _ Session = (*sql.Session)(nil)

// RequestSession is a Session that also runs the typed requests of the JSON
// API (POST /search and the writes). *sql.Session implements it; the HTTP
// API answers those endpoints with 501 for a session that does not.
type RequestSession interface {
	Session
	Search(ctx context.Context, req *sql.SearchRequest) (*sql.SearchResponse, error)
	InsertDocs(ctx context.Context, table string, docs []sql.Doc, replace bool) ([]sql.Written, error)
	UpdateDocs(ctx context.Context, table string, cond sql.Cond, values []sql.DocValue) (int, error)
	DeleteDocs(ctx context.Context, table string, cond sql.Cond) (int, error)
}

var _ RequestSession = (*sql.Session)(nil)

// ConnSession is a Session whose variables say what its MySQL connection
// waits for and takes: *sql.Session's @@wait_timeout, @@net_read_timeout,
// @@net_write_timeout (which SET changes) and @@max_allowed_packet (which
// SET GLOBAL changes for the sessions after it). The server asks once the
// client is in, after Interactive for a client that says it is one (the
// mysql client does), and asks the timeouts again after every command.
// For a Session that is not one, the Config's values hold.
type ConnSession interface {
	ConnTimeouts() (idle, read, write time.Duration)
	MaxAllowedPacket() int
	Interactive()
}

var _ ConnSession = (*sql.Session)(nil)

// ProcessSession is a Session that SHOW PROCESSLIST and KILL see: the
// server gives it the connection id of its MySQL handshake (which the
// mysql client sends in KILL QUERY on Ctrl-C) and reads its current
// database after each command. The server's Processes lists the
// connections of such sessions with their ids.
type ProcessSession interface {
	SetConnectionID(id uint32)
	CurrentDB() string
}

var _ ProcessSession = (*sql.Session)(nil)
