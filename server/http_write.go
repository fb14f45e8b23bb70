package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/glint-search/glint/sql"
)

// The JSON writes. Single documents:
//
//	POST /insert   {"table": "t", "id": 1, "doc": {"title": "...", "price": 1.5}}   (id optional)
//	POST /replace  {"table": "t", "id": 1, "doc": {...}}
//	POST /update   {"table": "t", "id": 1 | "query": {...}, "doc": {"price": 2}}   (attributes only)
//	POST /delete   {"table": "t", "id": 1 | "query": {...}}
//
// ("index" is accepted for "table".) Answers, as the family's clients read
// them: insert and replace {"table","_id","id","created","result","status"};
// update and delete by id {"table","_id","id","result","status"} (result
// "updated"/"deleted", or "not found" with found=false); by query
// {"table","updated"|"deleted"}.
//
// POST /bulk takes newline-delimited JSON, one action per line:
// {"insert": {...}}, {"replace": {...}}, {"update": {...}}, {"delete": {...}}
// with the bodies above. Every line is read and checked first: if any is
// malformed, nothing is applied and the answer (400) lists each bad line.
// Then the lines are applied in order, runs of inserts (or replaces) into
// one table in one transaction each; a line that fails (a duplicate id)
// fails alone, and the rest go on. The answer lists every line's outcome in
// "items", with "errors" telling whether any failed, "applied" and
// "failed" counts, and the status is 200 only when every line was applied.

// writeKind is what a write request does.
type writeKind string

const (
	writeInsert  writeKind = "insert"
	writeReplace writeKind = "replace"
	writeUpdate  writeKind = "update"
	writeDelete  writeKind = "delete"
)

// writeRequest is one decoded write.
type writeRequest struct {
	kind  writeKind
	table string
	id    uint64
	hasID bool
	cond  sql.Cond
	doc   sql.Doc
}

// writeOutcome is what one write did, rendered as its answer object.
type writeOutcome struct {
	status int
	body   []byte // the JSON object
}

// readWrite reads the body of a single write.
func readWrite(kind writeKind, v *jval) (*writeRequest, error) {
	members := []string{"table", "index", "cluster", "id", "doc"}
	if kind == writeUpdate || kind == writeDelete {
		members = append(members, "query")
	}
	if kind == writeDelete {
		members = []string{"table", "index", "cluster", "id", "query"}
	}
	m, err := v.object(members...)
	if err != nil {
		return nil, err
	}
	w := &writeRequest{kind: kind}
	if w.table, _, err = tableName(v, m); err != nil {
		return nil, err
	}
	if c := m["cluster"]; c != nil {
		// The reference's way to write to a cluster's table in JSON.
		cn, err := c.text()
		if err != nil {
			return nil, err
		}
		return nil, requestError("%s: \"cluster\": JSON writes do not reach a cluster's tables; write in SQL as %s:%s (POST /sql takes it too)", v.where(), cn, w.table)
	}
	if x := m["id"]; x != nil {
		if w.id, err = x.docID(); err != nil {
			return nil, err
		}
		w.hasID = true
	}
	if x := m["query"]; x != nil {
		if w.hasID {
			return nil, requestError("%s: give \"id\" or \"query\", not both", v.where())
		}
		if w.cond, err = condition(x); err != nil {
			return nil, err
		}
		if kind == writeUpdate || kind == writeDelete {
			if b := emptyBool(w.cond); b != nil {
				return nil, requestError("%s: a bool without conditions matches every document; to %s every document say so with \"query\": {\"match_all\": {}}", b.Path, kind)
			}
		}
	}
	switch kind {
	case writeReplace:
		if !w.hasID {
			return nil, requestError("%s: replace needs \"id\"", v.where())
		}
	case writeUpdate, writeDelete:
		if !w.hasID && w.cond == nil {
			return nil, requestError("%s: %s needs \"id\" or \"query\" (\"query\": {\"match_all\": {}} for every document)", v.where(), kind)
		}
		if w.hasID {
			w.cond = &sql.AttrCond{Path: v.path + ".id", Column: "id", Op: sql.AttrEquals, Values: []any{w.id}}
		}
	}
	doc := m["doc"]
	if kind != writeDelete {
		if doc == nil {
			return nil, requestError("%s: \"doc\" is missing", v.where())
		}
		if doc.kind != jObject {
			return nil, doc.typeError("an object of column values")
		}
		w.doc = sql.Doc{Path: doc.path, ID: w.id}
		for _, mem := range doc.obj {
			x, err := docScalar(mem.val)
			if err != nil {
				return nil, err
			}
			w.doc.Values = append(w.doc.Values, sql.DocValue{Path: mem.val.path, Name: mem.key, Value: x, Raw: string(mem.val.raw)})
		}
	}
	return w, nil
}

// docScalar reads a column value; an object or nested arrays become
// map[string]any, which only a json column takes (as its text).
func docScalar(v *jval) (any, error) {
	if v.kind == jObject {
		return map[string]any{}, nil
	}
	if v.kind == jArray {
		for _, e := range v.arr {
			if e.kind == jArray || e.kind == jObject {
				return map[string]any{}, nil
			}
		}
	}
	return v.scalar()
}

// apply runs one write (or, for inserts and replaces, several of one table).
func apply(ctx context.Context, rs RequestSession, ws []*writeRequest) ([]writeOutcome, error) {
	w := ws[0]
	switch w.kind {
	case writeInsert, writeReplace:
		docs := make([]sql.Doc, len(ws))
		for i, x := range ws {
			docs[i] = x.doc
		}
		written, err := rs.InsertDocs(ctx, w.table, docs, w.kind == writeReplace)
		if err != nil {
			return nil, err
		}
		out := make([]writeOutcome, len(written))
		for i, d := range written {
			result, status := "created", http.StatusCreated
			if !d.Created {
				result, status = "updated", http.StatusOK
			}
			b := append([]byte(`{"table":`), appendJSONString(nil, w.table)...)
			b = append(b, `,"_id":`...)
			b = strconv.AppendUint(b, d.ID, 10)
			b = append(b, `,"id":`...)
			b = strconv.AppendUint(b, d.ID, 10)
			b = append(b, `,"created":`...)
			b = strconv.AppendBool(b, d.Created)
			b = append(b, `,"result":"`+result+`","status":`...)
			b = strconv.AppendInt(b, int64(status), 10)
			out[i] = writeOutcome{status: status, body: append(b, '}')}
		}
		return out, nil
	}
	var n int
	var err error
	if w.kind == writeUpdate {
		n, err = rs.UpdateDocs(ctx, w.table, w.cond, w.doc.Values)
	} else {
		n, err = rs.DeleteDocs(ctx, w.table, w.cond)
	}
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"table":`), appendJSONString(nil, w.table)...)
	if w.hasID {
		result := string(w.kind) + "d"
		b = append(b, `,"_id":`...)
		b = strconv.AppendUint(b, w.id, 10)
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, w.id, 10)
		b = append(b, `,"found":`...)
		b = strconv.AppendBool(b, n > 0)
		if n == 0 {
			result = "not found"
		}
		b = append(b, `,"result":"`+result+`","status":200}`...)
	} else {
		b = append(b, `,"`+string(w.kind)+`d":`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, '}')
	}
	return []writeOutcome{{status: http.StatusOK, body: b}}, nil
}

// handleWrite serves /insert, /replace, /update and /delete.
func (s *Server) handleWrite(kind writeKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rs, v, ok := s.jsonRequest(w, r)
		if !ok {
			return
		}
		defer closeSession(rs)
		req, err := readWrite(kind, v)
		if err != nil {
			writeHTTPError(w, err)
			return
		}
		out, err := apply(r.Context(), rs, []*writeRequest{req})
		if err != nil {
			writeHTTPError(w, err)
			return
		}
		// The reference answers a write with HTTP 200 and its own status
		// (201 for a document created) in the body; the official clients
		// take any other HTTP status for a failure.
		writeJSON(w, http.StatusOK, out[0].body)
	}
}

// maxBadLinesListed bounds the bad lines a /bulk answer lists one by one
// (the summary counts them all).
const maxBadLinesListed = 100

// bulkLine is one line of a /bulk body.
type bulkLine struct {
	n   int // 1-based line number
	req *writeRequest
}

// handleBulk serves /bulk.
func (s *Server) handleBulk(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok || !noURLParameters(w, r) {
		return
	}
	rs, ok := s.requestSession(w, r)
	if !ok {
		return
	}
	defer closeSession(rs)

	// Read and check every line before applying any.
	var lines []bulkLine
	var bad [][]byte
	nBad, firstBad := 0, ""
	for i, text := range bytes.Split(body, []byte("\n")) {
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		req, err := bulkAction(text)
		if err != nil {
			_, msg := httpError(err)
			msg = fmt.Sprintf("line %d: %s", i+1, msg)
			if nBad++; nBad == 1 {
				firstBad = msg
			}
			if len(bad) < maxBadLinesListed {
				bad = append(bad, appendJSONString(nil, msg))
			}
			continue
		}
		lines = append(lines, bulkLine{n: i + 1, req: req})
	}
	if nBad > 0 {
		summary := firstBad + "; nothing was applied"
		if nBad > 1 {
			summary = fmt.Sprintf("%d bad lines, the first %s", nBad, summary)
		}
		if nBad > len(bad) {
			bad = append(bad, appendJSONString(nil, fmt.Sprintf("(and %d more bad lines)", nBad-len(bad))))
		}
		b := []byte(`{"error":`)
		b = appendJSONString(b, summary)
		b = append(b, `,"lines":[`...)
		b = append(b, bytes.Join(bad, []byte(","))...)
		b = append(b, `],"applied":0}`...)
		writeJSON(w, http.StatusBadRequest, b)
		return
	}
	if len(lines) == 0 {
		writeJSONError(w, http.StatusBadRequest, "the bulk body has no line: send one JSON action per line")
		return
	}

	items := make([][]byte, len(lines))
	failed := 0
	var firstErr string
	fail := func(i int, err error) {
		status, msg := httpError(err)
		if errors.Is(r.Context().Err(), context.Canceled) {
			status = http.StatusServiceUnavailable
		}
		msg = fmt.Sprintf("line %d: %s", lines[i].n, msg)
		b := append([]byte(`{"`+string(lines[i].req.kind)+`":{"error":`), appendJSONString(nil, msg)...)
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		items[i] = append(b, "}}"...)
		failed++
		if firstErr == "" {
			firstErr = msg
		}
	}
	done := func(i int, o writeOutcome) {
		items[i] = append(append([]byte(`{"`+string(lines[i].req.kind)+`":`), o.body...), '}')
	}
	for i := 0; i < len(lines); {
		// A run of inserts (or replaces) into one table goes in one
		// transaction; if it fails, its lines are tried one by one so
		// that each failure is reported where it is.
		j := i + 1
		k := lines[i].req
		if k.kind == writeInsert || k.kind == writeReplace {
			for j < len(lines) && j-i < 10000 && lines[j].req.kind == k.kind && lines[j].req.table == k.table {
				j++
			}
		}
		run := make([]*writeRequest, j-i)
		for x := range run {
			run[x] = lines[i+x].req
		}
		out, err := apply(r.Context(), rs, run)
		switch {
		case err == nil:
			for x, o := range out {
				done(i+x, o)
			}
		case len(run) == 1:
			fail(i, err)
		default:
			for x := range run {
				o, err := apply(r.Context(), rs, run[x:x+1])
				if err != nil {
					fail(i+x, err)
				} else {
					done(i+x, o[0])
				}
			}
		}
		i = j
	}
	b := []byte(`{"items":[`)
	b = append(b, bytes.Join(items, []byte(","))...)
	b = append(b, `],"errors":`...)
	b = strconv.AppendBool(b, failed > 0)
	b = append(b, `,"applied":`...)
	b = strconv.AppendInt(b, int64(len(lines)-failed), 10)
	b = append(b, `,"failed":`...)
	b = strconv.AppendInt(b, int64(failed), 10)
	status := http.StatusOK
	if failed > 0 {
		b = append(b, `,"error":`...)
		summary := fmt.Sprintf("%d of %d line(s) failed, the others were applied; first: %s", failed, len(lines), firstErr)
		if failed == len(lines) {
			summary = fmt.Sprintf("every line failed (%d), none was applied; first: %s", failed, firstErr)
		}
		b = appendJSONString(b, summary)
		status = http.StatusBadRequest
	}
	writeJSON(w, status, append(b, '}'))
}

// bulkAction reads one line of /bulk: {"insert"|"replace"|"update"|"delete": {...}}.
func bulkAction(text []byte) (*writeRequest, error) {
	v, err := decodeJSON(text)
	if err != nil {
		return nil, err
	}
	kind, body, err := v.single("action (insert, replace, update or delete)")
	if err != nil {
		return nil, err
	}
	switch writeKind(kind) {
	case writeInsert, writeReplace, writeUpdate, writeDelete:
		return readWrite(writeKind(kind), body)
	}
	return nil, requestError("unknown action %q (expected insert, replace, update or delete)", kind)
}

// emptyBool finds a bool of c, or c itself, that has no conditions: it
// matches every document, which a write that changes documents must ask
// for plainly (match_all) rather than get from an empty object.
func emptyBool(c sql.Cond) *sql.BoolCond {
	b, ok := c.(*sql.BoolCond)
	if !ok {
		return nil
	}
	if len(b.Must)+len(b.Should)+len(b.MustNot)+len(b.Filter) == 0 {
		return b
	}
	for _, list := range [][]sql.Cond{b.Must, b.Should, b.MustNot, b.Filter} {
		for _, sub := range list {
			if e := emptyBool(sub); e != nil {
				return e
			}
		}
	}
	return nil
}
