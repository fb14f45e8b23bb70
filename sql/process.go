package sql

import (
	"errors"
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// This file holds SHOW PROCESSLIST and KILL, over the client connections
// the server lists (Processes).

// Process is one client connection of the server's MySQL listener, as SHOW
// PROCESSLIST shows it.
type Process struct {
	ID      uint64 // its connection id, which CONNECTION_ID() returns in it
	User    string
	Host    string // the client's address, host:port
	DB      string // its current database
	Command string // "Query" while it runs a statement, else "Sleep"
	Time    int64  // seconds since it began that
	Info    string // the statement it runs, "" when none
}

// Processes lists and stops the server's client connections: the MySQL
// listener's (SetProcesses).
type Processes interface {
	// List returns the connections, in the order of their ids.
	List() []Process
	// Kill stops connection id's running statement (query) or the
	// connection itself, and its statement (!query); ErrNoSuchProcess
	// when id is none of List's.
	Kill(id uint64, query bool) error
}

// ErrNoSuchProcess is Processes.Kill's error for an id that is not a
// connection's.
var ErrNoSuchProcess = errors.New("no such connection")

// SetProcesses gives the engine what SHOW PROCESSLIST lists and KILL
// stops; without it, the list is empty and KILL finds no connection. It
// is for setting up the engine, before any session runs.
func (e *Engine) SetProcesses(p Processes) { e.processes = p }

// SetConnectionID sets the id of the session's connection, which
// CONNECTION_ID() returns and SHOW PROCESSLIST and KILL name: the server
// sets the id its MySQL handshake gave the client, which the mysql client
// sends in KILL QUERY when Ctrl-C interrupts a statement.
func (s *Session) SetConnectionID(id uint32) { s.id = id }

// CurrentDB is the session's current database (USE).
func (s *Session) CurrentDB() string { return s.db }

// processes lists the server's connections (none without SetProcesses).
func (s *Session) processes() []Process {
	if s.engine.processes == nil {
		return nil
	}
	return s.engine.processes.List()
}

// showProcessList answers SHOW [FULL] PROCESSLIST in MySQL's form: each
// statement's first 100 characters, all of it with FULL.
func (s *Session) showProcessList(full bool) *Result {
	r := &Result{Columns: []Column{{"Id", ColUint}, {"User", ColString}, {"Host", ColString}, {"db", ColString},
		{"Command", ColString}, {"Time", ColInt}, {"State", ColString}, {"Info", ColString}}, Rows: [][]any{}}
	for _, p := range s.processes() {
		db, state, info := any(nil), "", any(nil)
		if p.DB != "" {
			db = p.DB
		}
		if p.Command == "Query" {
			state, info = "executing", p.Info
			if r := []rune(p.Info); !full && len(r) > 100 {
				info = string(r[:100])
			}
		}
		r.Rows = append(r.Rows, []any{p.ID, p.User, p.Host, db, p.Command, p.Time, state, info})
	}
	return r
}

// execKill answers KILL [CONNECTION | QUERY] id.
func (s *Session) execKill(n *ast.KillStmt) (*Result, error) {
	if n.TiDBExtension {
		return nil, Errorf(CodeSyntax, "KILL takes [CONNECTION | QUERY] and a connection id")
	}
	id := n.ConnectionID
	if n.Expr != nil { // KILL CONNECTION_ID(), KILL QUERY @id
		e, err := (&scope{sess: s}).compile(n.Expr)
		if err != nil {
			return nil, err
		}
		v, err := e.eval(nil)
		if err != nil {
			return nil, err
		}
		n, ok := v.(int64)
		if u, isUint := v.(uint64); isUint {
			n, ok = int64(u), true
		}
		if !ok || n < 0 {
			return nil, Errorf(CodeWrongValue, "KILL takes a connection id, not %s", displayString(v))
		}
		id = uint64(n)
	}
	err := ErrNoSuchProcess
	if s.engine.processes != nil {
		err = s.engine.processes.Kill(id, n.Query)
	}
	if errors.Is(err, ErrNoSuchProcess) {
		return nil, Errorf(CodeNoSuchThread, "Unknown thread id: %d", id)
	}
	if err != nil {
		return nil, asError(fmt.Errorf("KILL %d: %w", id, err))
	}
	return &Result{}, nil
}
