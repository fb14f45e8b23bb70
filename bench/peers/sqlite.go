package peers

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// SQLite is SQLite's FTS5, in-process through mattn/go-sqlite3 (cgo: the
// SQLite C library itself, built with FTS5 by the build tag sqlite_fts5).
// The database is one file in WAL mode with synchronous=NORMAL (a commit
// survives the process's crash, not a power loss: glintd's default); each
// worker has its own connection and its own prepared statements. Table t is
// an FTS5 table of title and content (and gid, not indexed) with the porter
// stemmer over unicode61 words, keyed by rowid = id; a search is MATCH,
// ordered by rank (bm25).
type SQLite struct {
	path string
	db   *sql.DB // for Reset and Fill
}

// sqliteDriver registers the driver under a name of our own (the package's
// init registers "sqlite3" too; this one asks every connection for the WAL
// settings).
const sqliteDriver = "sqlite3_glint_peer"

func init() {
	sql.Register(sqliteDriver, &sqlite3.SQLiteDriver{})
}

// NewSQLite opens (creating it) the database file fts.db in dir. It fails
// when the SQLite library was built without FTS5.
func NewSQLite(dir string) (*SQLite, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &SQLite{path: filepath.Join(dir, "fts.db")}
	db, err := s.open()
	if err != nil {
		return nil, err
	}
	var fts5 bool
	if err := db.QueryRow("SELECT sqlite_compileoption_used('ENABLE_FTS5')").Scan(&fts5); err != nil || !fts5 {
		db.Close()
		return nil, fmt.Errorf("peers: SQLite was built without FTS5 (build with -tags sqlite_fts5): %v", err)
	}
	s.db = db
	return s, nil
}

func (s *SQLite) open() (*sql.DB, error) {
	return sql.Open(sqliteDriver, "file:"+s.path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000")
}

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

func (s *SQLite) Target() load.Target { return load.SQLite }

// PID is this process: the library runs in it.
func (s *SQLite) PID() int { return os.Getpid() }

func (s *SQLite) Translate(q string) (string, error) { return FTS5(q) }

const sqliteCreate = `CREATE VIRTUAL TABLE t USING fts5(title, content, gid UNINDEXED, tokenize = 'porter unicode61')`

// Reset drops table t and makes it again.
func (s *SQLite) Reset(ctx context.Context) error {
	for _, stmt := range []string{"DROP TABLE IF EXISTS t", sqliteCreate} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("peers: %s: %w", stmt, err)
		}
	}
	return nil
}

// Fill loads docs in transactions of 1,000 and merges FTS5's segments into
// one ('optimize'), as the race waits for glintd's merges.
func (s *SQLite) Fill(ctx context.Context, docs []corpus.Doc) error {
	if err := s.Reset(ctx); err != nil {
		return err
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	ins, err := c.PrepareContext(ctx, sqliteInsert)
	if err != nil {
		return err
	}
	defer ins.Close()
	for first := 0; first < len(docs); first += load.DefaultBatch {
		n := min(load.DefaultBatch, len(docs)-first)
		if _, err := sqliteBatch(ctx, c, ins, docs, int64(first), n); err != nil {
			return fmt.Errorf("peers: filling t: %w", err)
		}
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t(t) VALUES ('optimize')"); err != nil {
		return fmt.Errorf("peers: optimizing t: %w", err)
	}
	return nil
}

// DiskBytes is the pages of the database in use once its write-ahead log is
// checkpointed into it: the FTS5 index and the text it keeps. The pages
// that the tables of earlier runs left free are not counted: SQLite keeps
// them in the file for reuse, and glint's figure comes from a fresh server.
func (s *SQLite) DiskBytes(ctx context.Context) (int64, error) {
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return 0, err
	}
	var pages, free, size int64
	for _, p := range []struct {
		name string
		v    *int64
	}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(p.v); err != nil {
			return 0, fmt.Errorf("peers: PRAGMA %s: %w", p.name, err)
		}
	}
	return (pages - free) * size, nil
}

const sqliteInsert = "INSERT INTO t (rowid, title, content, gid) VALUES (?, ?, ?, ?)"

// sqliteBatch inserts n documents from the first-th on (cycling through
// docs), ids first+1 onwards, in one transaction, and says how many bytes of
// text they held.
func sqliteBatch(ctx context.Context, c *sql.Conn, ins *sql.Stmt, docs []corpus.Doc, first int64, n int) (int64, error) {
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return 0, err
	}
	var size int64
	for k := range n {
		i := first + int64(k)
		d := docs[i%int64(len(docs))]
		if _, err := ins.ExecContext(ctx, i+1, d.Title, d.Content, i%10); err != nil {
			c.ExecContext(context.Background(), "ROLLBACK")
			return 0, err
		}
		size += int64(len(d.Title) + len(d.Content))
	}
	_, err := c.ExecContext(ctx, "COMMIT")
	return size, err
}

// The statements of the workloads; ? is the translated query. snippet() is
// of column 1, content (as the servers highlight content).
var (
	sqliteSearch    = `SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 20`
	sqliteSearchHL  = fmt.Sprintf(`SELECT rowid, snippet(t, 1, '<b>', '</b>', ' ... ', %d) FROM t WHERE t MATCH ? ORDER BY rank LIMIT 20`, fts5Tokens)
	sqliteGroupBy   = `SELECT gid, count(*) FROM t WHERE t MATCH ? GROUP BY gid ORDER BY count(*) DESC LIMIT 20`
	sqliteFacetGid  = `SELECT gid, count(*) FROM t WHERE t MATCH ? GROUP BY gid ORDER BY gid ASC LIMIT 5`
	sqliteScratch   = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.s USING fts5(content, tokenize = 'porter unicode61')`
	sqliteScratchIn = `INSERT INTO temp.s (content) VALUES (?)`
	sqliteSnippets  = fmt.Sprintf(`SELECT rowid, snippet(s, 0, '<b>', '</b>', ' ... ', %d) FROM temp.s WHERE s MATCH ?`, fts5Tokens)
	sqliteHighlight = `SELECT rowid, highlight(s, 0, '<b>', '</b>') FROM temp.s WHERE s MATCH ?`
)

// worker is one worker's connection and prepared statements.
type worker struct {
	conn  *sql.Conn
	stmts []*sql.Stmt
}

func (w *worker) close() {
	for _, st := range w.stmts {
		st.Close()
	}
	w.conn.Close()
}

// Op returns the workload's operation on workers connections.
//
//   - load: 1,000 prepared INSERTs in one transaction.
//   - search, search+highlight (snippet()), groupby: one statement.
//   - facet: the page and two facets, three statements in turn.
//   - snippets, snippets-limit0, ladder: FTS5 has no function that
//     highlights a given text, so the stand-in indexes the texts in a
//     temporary in-memory FTS5 table, asks snippet() (highlight() for
//     limit 0) of the texts that match, and rolls the inserts back: the texts
//     are tokenized twice (indexing, then highlighting), and a text that
//     does not match gives no row (CALL SNIPPETS returns one for every text).
func (s *SQLite) Op(ctx context.Context, workload string, w *Work, workers int) (load.Op, func(), error) {
	var texts []string
	switch workload {
	case load.Insert:
		texts = []string{sqliteInsert}
	case load.Search:
		texts = []string{sqliteSearch}
	case load.SearchHL:
		texts = []string{sqliteSearchHL}
	case load.GroupBy:
		texts = []string{sqliteGroupBy}
	case load.Facet:
		texts = []string{sqliteSearch, sqliteGroupBy, sqliteFacetGid}
	case load.Snippets, load.Ladder:
		texts = []string{sqliteScratchIn, sqliteSnippets}
	case load.SnippetsNoLimit:
		texts = []string{sqliteScratchIn, sqliteHighlight}
	default:
		return nil, nil, ErrNoCounterpart
	}
	s.db.SetMaxIdleConns(workers + 1)
	ws := make([]*worker, workers)
	closeAll := func() {
		for _, wk := range ws {
			if wk != nil {
				wk.close()
			}
		}
	}
	for i := range ws {
		c, err := s.db.Conn(ctx)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		wk := &worker{conn: c}
		ws[i] = wk
		if texts[0] == sqliteScratchIn {
			for _, st := range []string{"PRAGMA temp_store = MEMORY", sqliteScratch} {
				if _, err := c.ExecContext(ctx, st); err != nil {
					closeAll()
					return nil, nil, fmt.Errorf("peers: %s: %w", st, err)
				}
			}
		}
		for _, t := range texts {
			st, err := c.PrepareContext(ctx, t)
			if err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("peers: preparing %s: %w", t, err)
			}
			wk.stmts = append(wk.stmts, st)
		}
	}
	query := func(seq int64) string { return w.Queries[seq%int64(len(w.Queries))] }
	var op load.Op
	switch workload {
	case load.Insert:
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			wk := ws[worker]
			n := w.BatchSize
			size, err := sqliteBatch(ctx, wk.conn, wk.stmts[0], w.Docs, seq*int64(n), n)
			return load.Done{Docs: n, Bytes: size}, err
		}
	case load.Search, load.SearchHL, load.GroupBy, load.Facet:
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			q := query(seq)
			total := 0
			for _, st := range ws[worker].stmts {
				n, err := sqliteRows(ctx, st, q)
				total += n
				if err != nil {
					return load.Done{}, err
				}
			}
			return load.Done{Rows: total}, nil
		}
	default: // the snippets stand-in and the ladder
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			wk := ws[worker]
			if _, err := wk.conn.ExecContext(ctx, "BEGIN"); err != nil {
				return load.Done{}, err
			}
			defer wk.conn.ExecContext(context.Background(), "ROLLBACK")
			var size int64
			for k := range w.SnippetDocs {
				text := w.Docs[(seq*int64(w.SnippetDocs)+int64(k))%int64(len(w.Docs))].Content
				if _, err := wk.stmts[0].ExecContext(ctx, text); err != nil {
					return load.Done{}, err
				}
				size += int64(len(text))
			}
			n, err := sqliteRows(ctx, wk.stmts[1], query(seq))
			return load.Done{Docs: w.SnippetDocs, Bytes: size, Rows: n}, err
		}
	}
	return op, closeAll, nil
}

// sqliteRows runs a prepared query and reads its rows to the end, as raw
// bytes.
func sqliteRows(ctx context.Context, st *sql.Stmt, args ...any) (int, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(sql.RawBytes)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
