package sql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
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
	// maxQueryTime bounds each SELECT, CALL SNIPPETS and JSON search; 0: no bound.
	maxQueryTime time.Duration
	maxPrepared  int // SQL-level prepared statements per session
	// workBudget is the highlighting work budget of a request that sets
	// none (SetHighlightWorkBudget); 0: none.
	workBudget int
	// listener is what @@variables tell clients of the MySQL listener
	// (SetListener).
	listener Listener
	// globals are the values SET GLOBAL gave system variables.
	globals globalVars

	parsed *parseCache     // statements parsed lately, by text; nil: none (SetParseCache)
	shapes *dialect.Shapes // CALLs parsed lately, by shape; nil: none (SetParseCache)

	repl   *replication  // the replication clusters (StartReplication); nil: none
	remote Remote        // asks the agents of distributed tables; nil: none
	health mirrorHealth  // the agents' mirrors that failed lately
	held   heldSnapshots // snapshots held for a coordinator's phase two
	locks  readLocks     // FLUSH TABLES ... WITH READ LOCK
	// processes are the client connections SHOW PROCESSLIST lists and
	// KILL stops (SetProcesses); nil: none.
	processes Processes
}

// Listener is what the server's MySQL listener does that @@variables
// report: @@max_allowed_packet, @@have_ssl, @@wait_timeout and
// @@interactive_timeout (IdleTimeout), @@net_read_timeout and
// @@net_write_timeout. They are the values sessions start with; a SET
// changes a session's (Session.ConnTimeouts, Session.MaxAllowedPacket).
type Listener struct {
	MaxAllowedPacket          int
	TLS                       bool
	IdleTimeout               time.Duration
	ReadTimeout, WriteTimeout time.Duration
}

// SetListener sets what @@variables report of the MySQL listener (unless
// set: 64 MB packets, no TLS, 8 hours idle, 30 s to read, 60 s to write).
func (e *Engine) SetListener(l Listener) { e.listener = l }

// SetMaxQueryTime bounds the time of each reading statement (SELECT, CALL
// SNIPPETS, a JSON search): one that runs past it is stopped with a
// CodeQueryTimeout error. Writes are not bounded (they are all-or-nothing,
// and OPTIMIZE TABLE may take long by design). 0 (the default) is no bound.
// OPTION max_query_time, shorter, returns the matches found by then instead.
func (e *Engine) SetMaxQueryTime(d time.Duration) { e.maxQueryTime = max(d, 0) }

// SetParseCache sets how many statements the parse caches keep each
// (unless set: DefaultParseCache), the least recently used dropped first:
// SELECT and UNION statements of up to 4 KB by their exact text, and CALL
// statements whose long texts the dialect cuts out by their shape (see
// dialect.Shapes), and at most 256 bytes of text per statement on average.
// 0 turns them off. It is for setting up the engine,
// before any session runs.
func (e *Engine) SetParseCache(size int) error {
	if size < 0 || size > MaxParseCache {
		return fmt.Errorf("sql: parse cache of %d statements: want 0 (off) to %d", size, MaxParseCache)
	}
	e.parsed = newParseCache(size)
	e.shapes = dialect.NewShapes(size)
	return nil
}

// errStatementTime is the cause of a statement's context when the server's
// max_query_time ends it.
var errStatementTime = errors.New("max_query_time is up")

// statementTime bounds a reading statement by the server's max_query_time.
func (s *Session) statementTime(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.engine.maxQueryTime <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, s.engine.maxQueryTime, errStatementTime)
}

// statementTimeError is err, or the CodeQueryTimeout error when the
// server's max_query_time ended the statement of ctx (a statementTime).
func (s *Session) statementTimeError(ctx context.Context, err error) error {
	if err != nil && context.Cause(ctx) == errStatementTime {
		return Errorf(CodeQueryTimeout, "the statement ran past max_query_time (%s) and was stopped", s.engine.maxQueryTime)
	}
	return err
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
	// HighlightDocs counts the documents (rows) highlighted: each row of a
	// page whose select list highlights, once whatever the number of calls.
	HighlightDocs atomic.Uint64
	// HighlightsFromIndex counts the documents whose highlighted words and
	// marks came from the index (postings and stored layouts) without
	// tokenizing their text.
	HighlightsFromIndex atomic.Uint64
	// HighlightBytes counts the bytes of text handed to the highlighter:
	// what the work budget bounds (a row past it hands over a prefix).
	HighlightBytes atomic.Uint64
	// DistRowsDropped counts the rows of distributed pages left out because
	// their shard no longer had them (deleted, or changed so that they no
	// longer match) when they were fetched, after the query found them.
	DistRowsDropped atomic.Uint64
}

// countHighlight adds the texts of req to HighlightBytes.
func (st *Stats) countHighlight(req *highlight.Request) {
	n := 0
	for i := range req.Fields {
		n += len(req.Fields[i].Text)
	}
	st.HighlightBytes.Add(uint64(n))
}

// NewEngine returns an Engine over db.
func NewEngine(db *index.DB) *Engine {
	return &Engine{db: db, started: time.Now(), helpers: newHelpers(), maxPrepared: defaultMaxPrepared,
		parsed: newParseCache(DefaultParseCache), shapes: dialect.NewShapes(DefaultParseCache),
		listener: Listener{MaxAllowedPacket: 64 << 20, IdleTimeout: 8 * time.Hour,
			ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}}
}

// Stats returns the engine's live counters.
func (e *Engine) Stats() *Stats { return &e.stats }

func (e *Engine) version() string { return dialect.ServerVersion + "-glint-" + Version }

// NewSession starts the state of one connection for the given user.
func (e *Engine) NewSession(user string) *Session {
	return newSession(e, user, e.nextID.Add(1))
}
