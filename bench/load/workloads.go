package load

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/glint-search/glint/bench/corpus"
)

// workload is one kind of operation. op runs the seq-th operation of a run (seq
// counts from 0 across all workers) and says how many documents and bytes of
// text it handled. Its throughput is counted in UnitOf(the workload).
type workload interface {
	op(ctx context.Context, conn *sql.Conn, seq int64) (docs int, bytes int64, err error)
}

func newWorkload(cfg *Config) (workload, error) {
	switch cfg.Workload {
	case Insert:
		return &insertWorkload{cfg: cfg, table: DefaultTable}, nil
	case Search:
		return &queryWorkload{cfg: cfg, stmt: "SELECT id FROM t WHERE MATCH(?) LIMIT 20", args: 1}, nil
	case SearchHL:
		if cfg.Target == Sphinx {
			return &queryWorkload{cfg: cfg, stmt: "SELECT id, SNIPPET(content, ?) FROM t_stored WHERE MATCH(?) LIMIT 20", args: 2}, nil
		}
		return &queryWorkload{cfg: cfg, stmt: "SELECT id, HIGHLIGHT() FROM t WHERE MATCH(?) LIMIT 20", args: 1}, nil
	case Snippets:
		return &snippetsWorkload{cfg: cfg, n: cfg.SnippetDocs, limit: 256}, nil
	case SnippetsNoLimit:
		return &snippetsWorkload{cfg: cfg, n: cfg.SnippetDocs}, nil
	case Ladder:
		return &snippetsWorkload{cfg: cfg, n: 1, limit: 256}, nil
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
	table string
}

func (w *insertWorkload) op(ctx context.Context, conn *sql.Conn, seq int64) (int, int64, error) {
	n := w.cfg.BatchSize
	first := seq * int64(n)
	stmt, size := insertStatement(w.table, w.cfg.Docs, first, n)
	_, err := conn.ExecContext(ctx, stmt)
	return n, size, err
}

// insertStatement builds one INSERT of n documents, the k-th being
// docs[(first+k) % len(docs)] with id first+k+1. Both targets take the same
// statement: Sphinx needs explicit ids and its gid attribute.
func insertStatement(table string, docs []corpus.Doc, first int64, n int) (string, int64) {
	var b strings.Builder
	var size int64
	b.WriteString("INSERT INTO " + table + " (id, title, content, gid) VALUES ")
	for k := range n {
		i := first + int64(k)
		d := docs[i%int64(len(docs))]
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,", i+1)
		quote(&b, d.Title)
		b.WriteByte(',')
		quote(&b, d.Content)
		fmt.Fprintf(&b, ",%d)", i%10)
		size += d.Bytes()
	}
	return b.String(), size
}

// quote writes s as a single-quoted SQL string literal with backslash escapes,
// which both glint and Sphinx read.
func quote(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
}

// queryWorkload runs one SELECT per query of the query set, in turn; every
// placeholder gets the query text. Rows are read to the end.
type queryWorkload struct {
	cfg  *Config
	stmt string
	args int
}

func (w *queryWorkload) op(ctx context.Context, conn *sql.Conn, seq int64) (int, int64, error) {
	q := w.cfg.Queries[seq%int64(len(w.cfg.Queries))].Text
	args := make([]any, w.args)
	for i := range args {
		args[i] = q
	}
	rows, err := conn.QueryContext(ctx, w.stmt, args...)
	if err != nil {
		return 0, 0, err
	}
	return 0, 0, drain(rows)
}

// drain reads every row (as raw bytes) and closes rows.
func drain(rows *sql.Rows) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(sql.RawBytes)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// snippetsWorkload runs CALL SNIPPETS over n documents of the corpus (the next
// ones in turn) with one query of the set and the given limit. The ladder
// workload is the same with n = 1 over a corpus of one document.
type snippetsWorkload struct {
	cfg   *Config
	n     int
	limit int
}

func (w *snippetsWorkload) op(ctx context.Context, conn *sql.Conn, seq int64) (int, int64, error) {
	n := w.n
	var b strings.Builder
	var size int64
	b.WriteString("CALL SNIPPETS((")
	for k := range n {
		d := w.cfg.Docs[(seq*int64(n)+int64(k))%int64(len(w.cfg.Docs))]
		if k > 0 {
			b.WriteByte(',')
		}
		quote(&b, d.Content)
		size += int64(len(d.Content))
	}
	b.WriteString("), 't', ")
	quote(&b, w.cfg.Queries[seq%int64(len(w.cfg.Queries))].Text)
	fmt.Fprintf(&b, ", %d AS limit, 1 AS query_mode)", w.limit)
	rows, err := conn.QueryContext(ctx, b.String())
	if err != nil {
		return 0, 0, err
	}
	return n, size, drain(rows)
}

// httpWorkload posts JSON searches with highlighting to glint's /search.
// The bodies are encoded once, and answers are read without decoding, so
// that the generator spends as little of the shared CPUs as the SQL
// workloads' driver does.
type httpWorkload struct {
	cfg    *Config
	client *http.Client
	url    string
	bodies [][]byte
}

func newHTTPWorkload(cfg *Config) (*httpWorkload, error) {
	w := &httpWorkload{cfg: cfg, url: "http://" + cfg.HTTPAddr + "/search",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency}}}
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
		w.bodies = append(w.bodies, body)
	}
	if len(w.bodies) == 0 {
		return nil, fmt.Errorf("load: %s needs queries", JSONSearchHL)
	}
	return w, nil
}

func (w *httpWorkload) op(ctx context.Context, _ *sql.Conn, seq int64) (int, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(w.bodies[seq%int64(len(w.bodies))]))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return 0, 0, fmt.Errorf("POST /search: %s: %s", resp.Status, b)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, err
	}
	return 0, 0, nil
}
