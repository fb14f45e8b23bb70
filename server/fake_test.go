package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/glint-search/glint/sql"
)

// fakeEngine is an Engine with a handful of canned statements, so the server is
// tested without storage. Statements (separated by ';'):
//
//	select 1                 one BIGINT row
//	select empty             zero rows, one column of each type
//	select types             one row with a value of each type and a NULL
//	select rows N            N rows (id, text)
//	echo TEXT                one row holding TEXT
//	show meta                two string rows
//	insert                   OK, 1 affected, insert id 7
//	error CODE               an *sql.Error with that sql.Code
//	plain error              a plain Go error
//	panic                    panics
//	sleep DURATION           waits, or returns CodeCancelled when ctx ends
//	bad prepare              Prepare fails (CodeSyntax)
//
// "-- ..." starts a comment.
type fakeEngine struct {
	mu        sync.Mutex
	users     []string
	cancelled chan struct{} // receives when a sleep sees its context cancelled
}

func newFakeEngine() *fakeEngine { return &fakeEngine{cancelled: make(chan struct{}, 16)} }

func (e *fakeEngine) NewSession(user string) Session {
	e.mu.Lock()
	e.users = append(e.users, user)
	e.mu.Unlock()
	return &fakeSession{e: e, user: user, db: "glint", prepared: map[*sql.Prepared]string{}}
}

type fakeSession struct {
	e        *fakeEngine
	user, db string
	prepared map[*sql.Prepared]string
}

func (s *fakeSession) Exec(ctx context.Context, query string) ([]*sql.Result, error) {
	var stmts []string
	for _, p := range strings.Split(query, ";") {
		p, _, _ = strings.Cut(p, "--") // comments, used to add a ? to any statement
		if p = strings.TrimSpace(p); p != "" {
			stmts = append(stmts, p)
		}
	}
	if len(stmts) == 0 {
		return nil, sql.Errorf(sql.CodeEmptyQuery, "Query was empty")
	}
	var out []*sql.Result
	for _, st := range stmts {
		r, err := s.execOne(ctx, st)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *fakeSession) execOne(ctx context.Context, st string) (*sql.Result, error) {
	word, rest, _ := strings.Cut(st, " ")
	switch strings.ToLower(word) {
	case "select":
		return s.selectStmt(rest)
	case "echo":
		return &sql.Result{Columns: []sql.Column{{Name: "text", Type: sql.ColString}}, Rows: [][]any{{rest}}}, nil
	case "show":
		return &sql.Result{
			Columns: []sql.Column{{Name: "Variable_name", Type: sql.ColString}, {Name: "Value", Type: sql.ColString}},
			Rows:    [][]any{{"total", "1"}, {"time", "0.000"}},
		}, nil
	case "insert":
		return &sql.Result{AffectedRows: 1, InsertID: 7}, nil
	case "error":
		n, _ := strconv.Atoi(rest)
		return nil, sql.Errorf(sql.Code(n), "fake error %d", n)
	case "plain":
		return nil, fmt.Errorf("a plain error")
	case "panic":
		panic("boom")
	case "sleep":
		d, err := time.ParseDuration(rest)
		if err != nil {
			return nil, sql.Errorf(sql.CodeSyntax, "bad duration")
		}
		select {
		case <-time.After(d):
			return &sql.Result{Columns: []sql.Column{{Name: "slept", Type: sql.ColString}}, Rows: [][]any{{rest}}}, nil
		case <-ctx.Done():
			s.e.cancelled <- struct{}{}
			return nil, sql.Errorf(sql.CodeCancelled, "query interrupted: %v", ctx.Err())
		}
	}
	return nil, sql.Errorf(sql.CodeSyntax, "syntax error near '%s'", st)
}

func (s *fakeSession) selectStmt(rest string) (*sql.Result, error) {
	switch {
	case rest == "1":
		return &sql.Result{Columns: []sql.Column{{Name: "1", Type: sql.ColInt}}, Rows: [][]any{{int64(1)}}}, nil
	case rest == "empty":
		return &sql.Result{Columns: typedColumns(), Rows: [][]any{}}, nil
	case rest == "types":
		return &sql.Result{Columns: typedColumns(), Rows: [][]any{
			{uint64(18446744073709551615), int64(-5), 2.5, "héllo <b>"},
			{uint64(2), nil, nil, nil},
		}}, nil
	case strings.HasPrefix(rest, "rows "):
		n, _ := strconv.Atoi(strings.TrimPrefix(rest, "rows "))
		r := &sql.Result{Columns: []sql.Column{{Name: "id", Type: sql.ColUint}, {Name: "text", Type: sql.ColString}}}
		for i := range n {
			r.Rows = append(r.Rows, []any{uint64(i + 1), fmt.Sprintf("row %d", i+1)})
		}
		return r, nil
	}
	return nil, sql.Errorf(sql.CodeSyntax, "syntax error near '%s'", rest)
}

func typedColumns() []sql.Column {
	return []sql.Column{
		{Name: "id", Type: sql.ColUint},
		{Name: "n", Type: sql.ColInt},
		{Name: "price", Type: sql.ColFloat},
		{Name: "title", Type: sql.ColString},
	}
}

func (s *fakeSession) Prepare(query string) (*sql.Prepared, error) {
	if strings.Contains(strings.TrimRight(strings.TrimSpace(query), ";"), ";") {
		return nil, sql.Errorf(sql.CodeNotPreparable, "a prepared statement must hold exactly one statement")
	}
	if strings.HasPrefix(query, "bad prepare") {
		return nil, sql.Errorf(sql.CodeSyntax, "syntax error")
	}
	p := &sql.Prepared{NumParams: strings.Count(query, "?")}
	s.prepared[p] = query
	return p, nil
}

// ExecPrepared answers "select ?, ..." with one row echoing the arguments, each
// column named after the Go type the server passed; anything else runs as text.
func (s *fakeSession) ExecPrepared(ctx context.Context, p *sql.Prepared, args []any) (*sql.Result, error) {
	q, ok := s.prepared[p]
	if !ok {
		return nil, fmt.Errorf("unknown prepared statement")
	}
	if len(args) != p.NumParams {
		return nil, sql.Errorf(sql.CodeWrongCount, "got %d args for %d placeholders", len(args), p.NumParams)
	}
	if !strings.HasPrefix(q, "select ?") {
		rs, err := s.Exec(ctx, q)
		if err != nil {
			return nil, err
		}
		return rs[0], nil
	}
	r := &sql.Result{Rows: [][]any{make([]any, len(args))}}
	for i, a := range args {
		col := sql.Column{Name: fmt.Sprintf("%T", a), Type: sql.ColString}
		switch a.(type) {
		case int64:
			col.Type = sql.ColInt
		case uint64:
			col.Type = sql.ColUint
		case float64:
			col.Type = sql.ColFloat
		}
		r.Columns = append(r.Columns, col)
		r.Rows[0][i] = a
	}
	return r, nil
}

func (s *fakeSession) UseDB(name string) error {
	if name != "glint" {
		return sql.Errorf(sql.CodeNoSuchDB, "unknown database '%s'", name)
	}
	s.db = name
	return nil
}

func (s *fakeSession) FieldList(table string) ([]sql.Column, error) {
	if table != "books" {
		return nil, sql.Errorf(sql.CodeNoSuchTable, "no such table '%s'", table)
	}
	return []sql.Column{{Name: "id", Type: sql.ColUint}, {Name: "title", Type: sql.ColString}, {Name: "year", Type: sql.ColInt}}, nil
}
