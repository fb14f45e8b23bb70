package load

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/bench/corpus"
)

// workload is one kind of operation. op runs the seq-th operation of a run (seq
// counts from 0 across all workers) on worker number worker, whose MySQL
// connection is conn, and says what it handled. Its throughput is counted in
// UnitOf(the workload).
type workload interface {
	op(ctx context.Context, worker int, conn *sql.Conn, seq int64) (Done, error)
}

func newWorkload(cfg *Config) (workload, error) {
	switch cfg.Workload {
	case Insert:
		return &insertWorkload{cfg: cfg, docs: quoteDocs(cfg.Docs), table: DefaultTable}, nil
	case Search:
		return &queryWorkload{cfg: cfg, stmt: "SELECT id FROM t WHERE MATCH(?) LIMIT 20", args: 1}, nil
	case SearchHL:
		if cfg.Target == Sphinx {
			return &queryWorkload{cfg: cfg, stmt: "SELECT id, SNIPPET(content, ?) FROM t_stored WHERE MATCH(?) LIMIT 20", args: 2}, nil
		}
		return &queryWorkload{cfg: cfg, stmt: "SELECT id, HIGHLIGHT() FROM t WHERE MATCH(?) LIMIT 20", args: 1}, nil
	case GroupBy:
		// Matches grouped by an attribute, the biggest groups first: the
		// same statement on both targets.
		return &queryWorkload{cfg: cfg, stmt: "SELECT gid, COUNT(*) FROM t WHERE MATCH(?) GROUP BY gid ORDER BY COUNT(*) DESC LIMIT 20", args: 1}, nil
	case Facet:
		// The page of a search and two facets of its matches. Sphinx 2.2 has
		// no FACET: it gets the same three result sets from three statements
		// sent as one query (a multi-statement COM_QUERY).
		if cfg.Target == Sphinx {
			return &queryWorkload{cfg: cfg, args: 3, stmt: "SELECT id FROM t WHERE MATCH(?) LIMIT 20; " +
				"SELECT gid, COUNT(*) FROM t WHERE MATCH(?) GROUP BY gid ORDER BY COUNT(*) DESC LIMIT 20; " +
				"SELECT gid, COUNT(*) FROM t WHERE MATCH(?) GROUP BY gid ORDER BY gid ASC LIMIT 5"}, nil
		}
		return &queryWorkload{cfg: cfg, args: 1, stmt: "SELECT id FROM t WHERE MATCH(?) LIMIT 20 FACET gid FACET gid ORDER BY FACET() ASC LIMIT 5"}, nil
	case DistLocal, DistRemote, DistAgents:
		if !IsGlint(cfg.Target) {
			return nil, fmt.Errorf("load: %s needs glint's distributed tables", cfg.Workload)
		}
		return &queryWorkload{cfg: cfg, stmt: "SELECT id, HIGHLIGHT() FROM " + DistTables[cfg.Workload] + " WHERE MATCH(?) LIMIT 20", args: 1}, nil
	case Distributed:
		return nil, fmt.Errorf("load: %s is a stage of the race (its workloads: %s)", Distributed, strings.Join(DistWorkloads, ", "))
	case Snippets:
		return newSnippetsWorkload(cfg, cfg.SnippetDocs, 256), nil
	case SnippetsNoLimit:
		return newSnippetsWorkload(cfg, cfg.SnippetDocs, 0), nil
	case Ladder:
		return newSnippetsWorkload(cfg, 1, 256), nil
	case JSONSearchHL:
		if cfg.Target == Sphinx {
			return nil, fmt.Errorf("load: %s needs glint's HTTP API; Sphinx 2.2 has none", JSONSearchHL)
		}
		if cfg.HTTPAddr == "" {
			return nil, fmt.Errorf("load: %s needs the HTTP address", JSONSearchHL)
		}
		return newHTTPWorkload(cfg)
	}
	return nil, fmt.Errorf("load: unknown workload %q (want one of %s)", cfg.Workload, strings.Join(Workloads, ", "))
}

// insertWorkload inserts batches of documents, cycling through the corpus. The
// seq-th batch holds ids seq*BatchSize+1 onwards, so ids never repeat in a run.
type insertWorkload struct {
	cfg   *Config
	docs  []quotedDoc
	table string
}

func (w *insertWorkload) op(ctx context.Context, _ int, conn *sql.Conn, seq int64) (Done, error) {
	n := w.cfg.BatchSize
	first := seq * int64(n)
	stmt, size := insertStatement(w.table, w.docs, first, n)
	_, err := conn.ExecContext(ctx, stmt)
	return Done{Docs: n, Bytes: size}, err
}

// quotedDoc is a document with its title and content written as SQL string
// literals. The workloads quote the corpus once, before a run, so that
// building a statement is copying: the generator shares the CPUs with the
// server it measures and should spend as little of them as it can.
type quotedDoc struct {
	title, content           string
	titleBytes, contentBytes int64 // their sizes unquoted
}

func quoteDocs(docs []corpus.Doc) []quotedDoc {
	out := make([]quotedDoc, len(docs))
	for i, d := range docs {
		out[i] = quotedDoc{title: string(AppendQuoted(nil, d.Title)), content: string(AppendQuoted(nil, d.Content)),
			titleBytes: int64(len(d.Title)), contentBytes: int64(len(d.Content))}
	}
	return out
}

// insertStatement builds one INSERT of n documents, the k-th being
// docs[(first+k) % len(docs)] with id first+k+1. Both targets take the same
// statement: Sphinx needs explicit ids and its gid attribute.
func insertStatement(table string, docs []quotedDoc, first int64, n int) (string, int64) {
	room := len(table) + 64
	for k := range n {
		d := docs[(first+int64(k))%int64(len(docs))]
		room += len(d.title) + len(d.content) + 32
	}
	b := make([]byte, 0, room)
	b = append(b, "INSERT INTO "+table+" (id, title, content, gid) VALUES "...)
	var size int64
	for k := range n {
		i := first + int64(k)
		d := docs[i%int64(len(docs))]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '(')
		b = strconv.AppendInt(b, i+1, 10)
		b = append(b, ',')
		b = append(b, d.title...)
		b = append(b, ',')
		b = append(b, d.content...)
		b = append(b, ',')
		b = strconv.AppendInt(b, i%10, 10)
		b = append(b, ')')
		size += d.titleBytes + d.contentBytes
	}
	return string(b), size
}

// AppendQuoted appends s as a single-quoted SQL string literal with
// backslash escapes, which both glint and Sphinx read. Runs of bytes that
// need no escape are copied at once.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '\'')
	for {
		i := strings.IndexFunc(s, func(r rune) bool { return r == '\'' || r == '\\' || r == 0 || r == '\n' || r == '\r' })
		if i < 0 {
			break
		}
		b = append(b, s[:i]...)
		switch s[i] {
		case 0:
			b = append(b, `\0`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, '\\', s[i])
		}
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '\'')
}

// queryWorkload runs one SELECT per query of the query set, in turn; every
// placeholder gets the query text. Rows are read to the end.
type queryWorkload struct {
	cfg  *Config
	stmt string
	args int
}

func (w *queryWorkload) op(ctx context.Context, _ int, conn *sql.Conn, seq int64) (Done, error) {
	q := w.cfg.Queries[seq%int64(len(w.cfg.Queries))].Text
	args := make([]any, w.args)
	for i := range args {
		args[i] = q
	}
	rows, err := conn.QueryContext(ctx, w.stmt, args...)
	if err != nil {
		return Done{}, err
	}
	n, err := drain(rows)
	return Done{Rows: n}, err
}

// drain reads every row of every result set (as raw bytes), closes rows and
// says how many rows there were.
func drain(rows *sql.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for {
		cols, err := rows.Columns()
		if err != nil {
			return n, err
		}
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(sql.RawBytes)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return n, err
			}
			n++
		}
		if err := rows.Err(); err != nil || !rows.NextResultSet() {
			return n, err
		}
	}
}

// snippetsWorkload runs CALL SNIPPETS over n documents of the corpus (the next
// ones in turn) with one query of the set and the given limit. The ladder
// workload is the same with n = 1 over a corpus of one document.
type snippetsWorkload struct {
	docs    []quotedDoc
	queries []string // quoted
	n       int
	limit   int
}

func newSnippetsWorkload(cfg *Config, n, limit int) *snippetsWorkload {
	w := &snippetsWorkload{docs: quoteDocs(cfg.Docs), n: n, limit: limit}
	for _, q := range cfg.Queries {
		w.queries = append(w.queries, string(AppendQuoted(nil, q.Text)))
	}
	return w
}

func (w *snippetsWorkload) op(ctx context.Context, _ int, conn *sql.Conn, seq int64) (Done, error) {
	stmt, size := w.statement(seq)
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return Done{}, err
	}
	n, err := drain(rows)
	return Done{Docs: w.n, Bytes: size, Rows: n}, err
}

// statement is the seq-th CALL SNIPPETS and the size of its texts.
func (w *snippetsWorkload) statement(seq int64) (string, int64) {
	batch := make([]quotedDoc, w.n)
	room := 0
	for k := range batch {
		batch[k] = w.docs[(seq*int64(w.n)+int64(k))%int64(len(w.docs))]
		room += len(batch[k].content) + 1
	}
	q := w.queries[seq%int64(len(w.queries))]
	// A Builder gives its string without a copy: the statement is copied
	// once here and once by the driver, on the CPUs the servers share.
	var b strings.Builder
	b.Grow(room + len(q) + 64)
	b.WriteString("CALL SNIPPETS((")
	var size int64
	for k, d := range batch {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.content)
		size += d.contentBytes
	}
	b.WriteString("), 't', ")
	b.WriteString(q)
	fmt.Fprintf(&b, ", %d AS limit, 1 AS query_mode)", w.limit)
	return b.String(), size
}

// httpWorkload posts JSON searches with highlighting to glint's /search.
// The requests are encoded once and written as they are on one kept-alive
// connection per worker, and answers are read without decoding (net/http's
// response parser, no Transport: its two goroutines per connection cost the
// shared CPUs more than the MySQL driver's one), so that the generator
// spends as little of the shared CPUs as the SQL workloads' driver does.
type httpWorkload struct {
	cfg   *Config
	reqs  [][]byte
	conns []*httpConn // per worker; nil until dialled, and after an error
}

type httpConn struct {
	c  net.Conn
	br *bufio.Reader
}

// httpTimeout bounds one request of the workload.
const httpTimeout = 30 * time.Second

func newHTTPWorkload(cfg *Config) (*httpWorkload, error) {
	w := &httpWorkload{cfg: cfg, conns: make([]*httpConn, cfg.Concurrency)}
	for _, q := range cfg.Queries {
		body, err := json.Marshal(map[string]any{
			"table":     DefaultTable,
			"query":     map[string]any{"query_string": q.Text},
			"highlight": map[string]any{},
			"limit":     20,
			"_source":   false, // ids and highlights: the SQL search+highlight workload's answer
		})
		if err != nil {
			return nil, err
		}
		req := fmt.Appendf(nil, "POST /search HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			cfg.HTTPAddr, len(body))
		w.reqs = append(w.reqs, append(req, body...))
	}
	if len(w.reqs) == 0 {
		return nil, fmt.Errorf("load: %s needs queries", JSONSearchHL)
	}
	return w, nil
}

func (w *httpWorkload) op(ctx context.Context, worker int, _ *sql.Conn, seq int64) (Done, error) {
	hc := w.conns[worker]
	if hc == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", w.cfg.HTTPAddr)
		if err != nil {
			return Done{}, err
		}
		hc = &httpConn{c: c, br: bufio.NewReaderSize(c, 64<<10)}
		w.conns[worker] = hc
	}
	err := w.post(hc, w.reqs[seq%int64(len(w.reqs))])
	if err != nil {
		hc.c.Close()
		w.conns[worker] = nil
	}
	return Done{}, err
}

// post sends one request on hc and reads its answer.
func (w *httpWorkload) post(hc *httpConn, req []byte) error {
	if err := hc.c.SetDeadline(time.Now().Add(httpTimeout)); err != nil {
		return err
	}
	if _, err := hc.c.Write(req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(hc.br, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Errorf("POST /search: %s: %s", resp.Status, b)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.Close {
		return errors.New("POST /search: the server closed the connection")
	}
	return nil
}
