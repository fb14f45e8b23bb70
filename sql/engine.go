package sql

import "github.com/glint-search/glint/index"

// Engine runs SQL statements against a database. It is safe for concurrent use;
// each connection gets its own Session.
type Engine struct {
	db *index.DB
}

// NewEngine returns an Engine over db.
func NewEngine(db *index.DB) *Engine { return &Engine{db: db} }

// NewSession starts the state of one connection for the given user.
func (e *Engine) NewSession(user string) *Session { panic("unimplemented") }
