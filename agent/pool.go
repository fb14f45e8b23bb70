package agent

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
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
	// IdleTimeout closes a connection idle this long (default 1 minute).
	IdleTimeout time.Duration
}

// Pool keeps connections to agents. It is safe for concurrent use.
type Pool struct {
	o   Options
	mu  sync.Mutex
	dbs map[poolKey]*dbsql.DB
}

type poolKey struct {
	addr    string
	connect time.Duration
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
	return &Pool{o: o, dbs: map[poolKey]*dbsql.DB{}}
}

var _ sql.Remote = (*Pool)(nil)

func (p *Pool) db(addr string, connect time.Duration) (*dbsql.DB, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := poolKey{addr, connect}
	if db, ok := p.dbs[k]; ok {
		return db, nil
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = p.o.User, p.o.Password
	cfg.Net, cfg.Addr = "tcp", addr
	cfg.Timeout = connect
	cfg.AllowNativePasswords = true
	cfg.MultiStatements = true // a Query's statements go in one round trip
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := dbsql.OpenDB(connector)
	db.SetMaxIdleConns(p.o.IdlePerAgent)
	db.SetConnMaxIdleTime(p.o.IdleTimeout)
	p.dbs[k] = db
	return db, nil
}

// Query runs stmts in order on one connection to addr (sql.Remote).
func (p *Pool) Query(ctx context.Context, addr string, connect time.Duration, stmts ...string) ([]*sql.Result, error) {
	db, err := p.db(addr, connect)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	out, err := query(ctx, conn, stmts)
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

// query sends the statements in one packet (each ends with ';') and reads
// their result sets as the SQL layer's values.
func query(ctx context.Context, conn *dbsql.Conn, stmts []string) ([]*sql.Result, error) {
	rows, err := conn.QueryContext(ctx, strings.Join(stmts, ";\n"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*sql.Result
	for {
		r, err := resultSet(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		if !rows.NextResultSet() {
			break
		}
	}
	return out, rows.Err()
}

// resultSet reads the rows of the current result set.
func resultSet(rows *dbsql.Rows) (*sql.Result, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	r := &sql.Result{Columns: make([]sql.Column, len(types)), Rows: [][]any{}}
	for i, t := range types {
		r.Columns[i] = sql.Column{Name: t.Name(), Type: columnType(t.DatabaseTypeName())}
	}
	raw := make([]dbsql.RawBytes, len(types))
	dest := make([]any, len(types))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]any, len(types))
		for i, b := range raw {
			if b == nil {
				continue
			}
			if row[i], err = value(r.Columns[i], string(b)); err != nil {
				return nil, err
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r, rows.Err()
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

func value(c sql.Column, s string) (any, error) {
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

// Close closes every connection.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for k, db := range p.dbs {
		errs = append(errs, db.Close())
		delete(p.dbs, k)
	}
	return errors.Join(errs...)
}
