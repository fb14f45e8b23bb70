package sql

import (
	"os"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/index"
)

// Version is glint's version, reported in the handshake and @@version.
const Version = "0.1.0"

// Engine runs SQL statements against a database. It is safe for concurrent use;
// each connection gets its own Session.
type Engine struct {
	db      *index.DB
	files   *os.Root // snippets_file_prefix, or nil
	started time.Time
	nextID  atomic.Uint32
	stats   Stats
	helpers helpers
}

// Stats are the server-wide counters SHOW STATUS reports.
type Stats struct {
	Queries        atomic.Uint64 // statements run
	Selects        atomic.Uint64
	Inserts        atomic.Uint64 // INSERT and REPLACE statements
	Deletes        atomic.Uint64
	Updates        atomic.Uint64
	StoredDocReads atomic.Uint64 // documents read from the document store
	Highlights     atomic.Uint64 // HIGHLIGHT() evaluations (one per row and call)
	// HighlightsFromIndex counts the documents whose highlighted words and
	// marks came from the index (postings and stored layouts) without
	// tokenizing their text.
	HighlightsFromIndex atomic.Uint64
}

// NewEngine returns an Engine over db.
func NewEngine(db *index.DB) *Engine {
	return &Engine{db: db, started: time.Now(), helpers: newHelpers()}
}

// Stats returns the engine's live counters.
func (e *Engine) Stats() *Stats { return &e.stats }

func (e *Engine) version() string { return "8.0.36-glint-" + Version }

// NewSession starts the state of one connection for the given user.
func (e *Engine) NewSession(user string) *Session {
	return newSession(e, user, e.nextID.Add(1))
}
