package peers

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// DefaultPGConfig is the text search configuration the PostgreSQL peer
// indexes and queries with: a copy of 'english' whose words go to the same
// Snowball English stemmer without its stop list. glint keeps stop words
// unless told otherwise, and a quarter of the race's queries are one
// frequent word, mostly a stop word: with 'english' itself they would match
// nothing at all, and PostgreSQL would win by doing no work. "english" (or
// any other installed configuration) can be asked for instead.
const DefaultPGConfig = "glint_english"

// Postgres is PostgreSQL's full-text search: table t holds the documents and
// a stored generated tsvector of title and content with a GIN index; a
// search is websearch_to_tsquery, ranked by ts_rank (glint orders matches by
// weight); highlighting is ts_headline on the content of the 20 hits.
type Postgres struct {
	dsn, cfg string
	pid      int
}

// NewPostgres returns the peer on the database of dsn (a pgx connection
// string), which must let its user create a text search configuration and
// table t. pid is the postmaster's (0 for none): the CPU time of the server
// is its and its children's, the backends (one per connection), the
// background writers and the autovacuum.
func NewPostgres(dsn, tsConfig string, pid int) *Postgres {
	if tsConfig == "" {
		tsConfig = DefaultPGConfig
	}
	return &Postgres{dsn: dsn, cfg: tsConfig, pid: pid}
}

func (p *Postgres) Target() load.Target { return load.Postgres }

func (p *Postgres) PID() int { return p.pid }

func (p *Postgres) Translate(q string) (string, error) { return Websearch(q) }

func (p *Postgres) connect(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		return nil, fmt.Errorf("peers: connecting to postgres: %w", err)
	}
	return c, nil
}

// Reset drops table t and makes it again, with the text search
// configuration if it is ours and missing.
func (p *Postgres) Reset(ctx context.Context) error {
	c, err := p.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	stmts := []string{"DROP TABLE IF EXISTS t"}
	if p.cfg == DefaultPGConfig {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_ts_config WHERE cfgname = $1", p.cfg).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			stmts = append(stmts,
				"CREATE TEXT SEARCH DICTIONARY glint_english_stem (TEMPLATE = snowball, Language = english)",
				"CREATE TEXT SEARCH CONFIGURATION "+p.cfg+" (COPY = english)",
				"ALTER TEXT SEARCH CONFIGURATION "+p.cfg+" ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH glint_english_stem")
		}
	}
	stmts = append(stmts,
		fmt.Sprintf(`CREATE TABLE t (id bigint PRIMARY KEY, title text, content text, gid int,
			tsv tsvector GENERATED ALWAYS AS (to_tsvector('%s', coalesce(title, '') || ' ' || coalesce(content, ''))) STORED)`, p.cfg),
		"CREATE INDEX t_tsv ON t USING gin (tsv)")
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("peers: %s: %w", s, err)
		}
	}
	return nil
}

// Fill loads docs and runs VACUUM ANALYZE, which moves the GIN index's
// pending list into the index and gathers the planner's statistics.
func (p *Postgres) Fill(ctx context.Context, docs []corpus.Doc) error {
	if err := p.Reset(ctx); err != nil {
		return err
	}
	c, err := p.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	for first := 0; first < len(docs); first += load.DefaultBatch {
		n := min(load.DefaultBatch, len(docs)-first)
		if _, err := c.Exec(ctx, pgInsert, pgBatch(docs, int64(first), n)...); err != nil {
			return fmt.Errorf("peers: filling t: %w", err)
		}
	}
	if _, err := c.Exec(ctx, "VACUUM ANALYZE t"); err != nil {
		return fmt.Errorf("peers: VACUUM ANALYZE t: %w", err)
	}
	return nil
}

// DiskBytes is pg_total_relation_size of t: its heap, its TOAST table (the
// long texts, compressed) and its indexes (the GIN index and the primary
// key). The write-ahead log is not counted.
func (p *Postgres) DiskBytes(ctx context.Context) (int64, error) {
	c, err := p.connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close(context.Background())
	var n int64
	err = c.QueryRow(ctx, "SELECT pg_total_relation_size('t')").Scan(&n)
	return n, err
}

// pgInsert inserts a batch in one statement from four arrays.
const pgInsert = "INSERT INTO t (id, title, content, gid) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[])"

// pgBatch is the arguments of pgInsert for n documents from the first-th on
// (cycling through docs), ids first+1 onwards, gid the id's last digit, as
// the servers' INSERT workload has it.
func pgBatch(docs []corpus.Doc, first int64, n int) []any {
	ids, titles, contents, gids := make([]int64, n), make([]string, n), make([]string, n), make([]int32, n)
	for k := range n {
		i := first + int64(k)
		d := docs[i%int64(len(docs))]
		ids[k], titles[k], contents[k], gids[k] = i+1, d.Title, d.Content, int32(i%10)
	}
	return []any{ids, titles, contents, gids}
}

// The search statements; %[1]s is the text search configuration, $1 the
// translated query. Matches are ranked by ts_rank, then id, as glint orders
// them by weight, then id; ts_headline runs on the 20 hits only (the
// subquery's LIMIT), as HIGHLIGHT() does.
const (
	pgSearch    = `SELECT id FROM t, websearch_to_tsquery('%[1]s', $1) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC, id LIMIT 20`
	pgSearchHL  = `SELECT id, ts_headline('%[1]s', content, q, '%[2]s') FROM (SELECT id, content, q FROM t, websearch_to_tsquery('%[1]s', $1) q WHERE tsv @@ q ORDER BY ts_rank(tsv, q) DESC, id LIMIT 20) hits`
	pgGroupBy   = `SELECT gid, count(*) FROM t WHERE tsv @@ websearch_to_tsquery('%[1]s', $1) GROUP BY gid ORDER BY count(*) DESC LIMIT 20`
	pgFacetGid  = `SELECT gid, count(*) FROM t WHERE tsv @@ websearch_to_tsquery('%[1]s', $1) GROUP BY gid ORDER BY gid ASC LIMIT 5`
	pgHeadlines = `SELECT ts_headline('%[1]s', d, websearch_to_tsquery('%[1]s', $1), '%[2]s') FROM unnest($2::text[]) d`
)

// Op returns the workload's operation on workers connections.
//
//   - load: one INSERT of 1,000 documents from arrays (unnest).
//   - search, search+highlight, groupby: one statement.
//   - facet: the page and two facets as three statements in one round trip
//     (a pgx batch), as Sphinx gets them in one multi-statement query.
//   - snippets, snippets-limit0, ladder: ts_headline over the given texts,
//     passed as an array: the texts are parsed and marked as CALL SNIPPETS
//     does, without any table.
func (p *Postgres) Op(ctx context.Context, workload string, w *Work, workers int) (load.Op, func(), error) {
	var stmt string
	switch workload {
	case load.Insert:
		stmt = pgInsert
	case load.Search:
		stmt = fmt.Sprintf(pgSearch, p.cfg)
	case load.SearchHL:
		stmt = fmt.Sprintf(pgSearchHL, p.cfg, pgHeadline)
	case load.GroupBy, load.Facet:
		stmt = fmt.Sprintf(pgGroupBy, p.cfg)
	case load.Snippets, load.Ladder:
		stmt = fmt.Sprintf(pgHeadlines, p.cfg, pgHeadline)
	case load.SnippetsNoLimit:
		stmt = fmt.Sprintf(pgHeadlines, p.cfg, pgHeadlineAll)
	default:
		return nil, nil, ErrNoCounterpart
	}
	conns := make([]*pgx.Conn, workers)
	closeAll := func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}
	for i := range conns {
		c, err := p.connect(ctx)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns[i] = c
	}
	query := func(seq int64) string { return w.Queries[seq%int64(len(w.Queries))] }
	var op load.Op
	switch workload {
	case load.Insert:
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			n := w.BatchSize
			args := pgBatch(w.Docs, seq*int64(n), n)
			var size int64
			for _, s := range args[1].([]string) {
				size += int64(len(s))
			}
			for _, s := range args[2].([]string) {
				size += int64(len(s))
			}
			_, err := conns[worker].Exec(ctx, stmt, args...)
			return load.Done{Docs: n, Bytes: size}, err
		}
	case load.Search, load.SearchHL, load.GroupBy:
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			n, err := pgRows(ctx, conns[worker], stmt, query(seq))
			return load.Done{Rows: n}, err
		}
	case load.Facet:
		page, byGid := fmt.Sprintf(pgSearch, p.cfg), fmt.Sprintf(pgFacetGid, p.cfg)
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			q := query(seq)
			b := &pgx.Batch{}
			b.Queue(page, q)
			b.Queue(stmt, q)
			b.Queue(byGid, q)
			res := conns[worker].SendBatch(ctx, b)
			total := 0
			for range 3 {
				rows, err := res.Query()
				if err != nil {
					res.Close()
					return load.Done{}, err
				}
				n, err := drainPG(rows)
				total += n
				if err != nil {
					res.Close()
					return load.Done{}, err
				}
			}
			return load.Done{Rows: total}, res.Close()
		}
	default: // the snippets workloads and the ladder
		op = func(ctx context.Context, worker int, seq int64) (load.Done, error) {
			texts := make([]string, w.SnippetDocs)
			var size int64
			for k := range texts {
				texts[k] = w.Docs[(seq*int64(w.SnippetDocs)+int64(k))%int64(len(w.Docs))].Content
				size += int64(len(texts[k]))
			}
			n, err := pgRows(ctx, conns[worker], stmt, query(seq), texts)
			return load.Done{Docs: len(texts), Bytes: size, Rows: n}, err
		}
	}
	return op, closeAll, nil
}

// pgRows runs a query and reads its rows to the end, as raw bytes.
func pgRows(ctx context.Context, c *pgx.Conn, stmt string, args ...any) (int, error) {
	rows, err := c.Query(ctx, stmt, args...)
	if err != nil {
		return 0, err
	}
	return drainPG(rows)
}

func drainPG(rows pgx.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		_ = rows.RawValues()
		n++
	}
	return n, rows.Err()
}
