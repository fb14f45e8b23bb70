package server

import (
	"slices"
	"time"

	"github.com/glint-search/glint/sql"
)

// The server's MySQL connections as SHOW PROCESSLIST lists them and KILL
// stops them: the Server is an sql.Processes (sql.Engine.SetProcesses).

var _ sql.Processes = (*Server)(nil)

// List implements sql.Processes: the authenticated connections.
func (s *Server) List() []sql.Process {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]sql.Process, 0, len(s.conns))
	for c := range s.conns {
		if c.id == 0 {
			continue // (still in its handshake)
		}
		p := sql.Process{ID: uint64(c.id), User: c.user, Host: c.host, DB: c.db, Command: "Sleep",
			Time: int64(now.Sub(c.since) / time.Second)}
		if c.stop != nil {
			p.Command, p.Info = "Query", c.info
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b sql.Process) int { return int(a.ID) - int(b.ID) })
	return out
}

// Kill implements sql.Processes: it cancels connection id's running
// statement (which ends with error 1317), and for !query closes the
// connection too.
func (s *Server) Kill(id uint64, query bool) error {
	var stop func()
	var conn *mysqlConn
	s.mu.Lock()
	for c := range s.conns {
		if c.id != 0 && uint64(c.id) == id {
			stop, conn = c.stop, c
			break
		}
	}
	s.mu.Unlock()
	if conn == nil {
		return sql.ErrNoSuchProcess
	}
	if stop != nil {
		stop()
	}
	if !query {
		// The raw socket: wireConn.Close flushes the connection's
		// buffer, which only its own goroutine may touch.
		_ = conn.wire.Conn.Close()
	}
	return nil
}
