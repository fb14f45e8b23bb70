package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql"
)

// POST /sql runs SQL and answers JSON. The shapes real clients send:
//
//   - form body "query=<urlencoded>" (also with mode=raw and raw_response in the
//     body). The body's start decides, not its Content-Type: the official
//     clients label forms text/plain, and curl -d labels raw statements as
//     forms;
//   - the raw statement as the body, with ?mode=raw and/or ?raw_response=;
//   - an empty body with ?query= in the URL.
//
// The answer is "raw" (an array with one object per statement, Manticore's
// shape) when mode=raw or raw_response=true, or when the body is a raw statement
// and raw_response is not false. Otherwise (a form without mode=raw, or
// raw_response=false) a single SELECT is answered in /search's shape:
// {"took":ms,"timed_out":false,"hits":{"total":n,"total_relation":"eq",
// "hits":[{"_id":..,"_score":..,"_source":{..}}]}}, with _id from the column
// "id", else the row's document (null for a row that is not one: a group
// of no match), and _score from "weight()" (1 without it); anything else falls back to
// the raw shape. An error is {"error":"..."} with a 4xx status (bad request or
// statement) or 5xx (server fault), and no partial results.

// sqlRequest is a decoded /sql request.
type sqlRequest struct {
	query string
	raw   bool // answer in the raw shape
}

// sqlKeys are the names a /sql request takes, in its URL and in a form
// body; a form body starts with one of them.
var sqlKeys = []string{"query", "mode", "raw_response"}

// checkSQLKeys refuses a name of where (the URL's parameters or the form
// body) that /sql does not read, or one given twice, in where or in both:
// either would be dropped without a word.
func checkSQLKeys(where string, v url.Values, other url.Values) error {
	for k, vs := range v {
		switch {
		case !slices.Contains(sqlKeys, k):
			return fmt.Errorf("unknown %s %q (expected query, mode or raw_response)", where, k)
		case len(vs) > 1:
			return fmt.Errorf("%s %q is given %d times", where, k, len(vs))
		case other.Has(k):
			return fmt.Errorf("%q is given both in the URL and in the form body", k)
		}
	}
	return nil
}

// parseForm decodes URL parameters or a form body: name=value pairs cut at
// '&' only. (url.ParseQuery also refuses a ';', and Request.URL.Query drops
// the pair that holds one, where a statement written as is in a form has
// its ';': the reference cuts at '&' only, too.)
func parseForm(text string) (url.Values, error) {
	v := url.Values{}
	for pair := range strings.SplitSeq(text, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(name)
		if err != nil {
			return nil, err
		}
		if value, err = url.QueryUnescape(value); err != nil {
			return nil, err
		}
		v[name] = append(v[name], value)
	}
	return v, nil
}

// parseSQLRequest decodes a /sql request from its URL parameters and body.
func parseSQLRequest(params url.Values, body []byte) (sqlRequest, error) {
	text := string(body)
	trimmed := strings.TrimLeft(text, " \t\r\n")
	isForm := false
	for _, k := range sqlKeys {
		isForm = isForm || strings.HasPrefix(trimmed, k+"=")
	}
	var req sqlRequest
	switch {
	case !isForm && strings.HasPrefix(trimmed, "{"):
		// No statement starts with a brace: a JSON body sent here.
		return req, errors.New(`the body is JSON: /sql takes the statement as a form (query=<urlencoded>) or as the body itself (raw, with ?mode=raw); JSON searches go to /search`)
	case !isForm && strings.HasPrefix(trimmed, "--") && strings.Contains(text, "Content-Disposition: form-data"):
		return req, errors.New(`the body is a multipart form: /sql takes the statement as a urlencoded form (query=<urlencoded>) or as the body itself (raw, with ?mode=raw)`)
	}
	form := url.Values{}
	if isForm {
		var err error
		if form, err = parseForm(strings.TrimSpace(text)); err != nil {
			return req, fmt.Errorf("bad form body: %v", err)
		}
		if err := checkSQLKeys("form key", form, params); err != nil {
			return req, err
		}
	}
	if err := checkSQLKeys("URL parameter", params, form); err != nil {
		return req, err
	}
	mode, rawResponse := params.Get("mode"), params.Get("raw_response")
	rawBody := false
	switch {
	case isForm:
		if !form.Has("query") {
			return req, errors.New(`the form body has no "query"`)
		}
		req.query = form.Get("query")
		if form.Has("mode") {
			mode = form.Get("mode")
		}
		if form.Has("raw_response") {
			rawResponse = form.Get("raw_response")
		}
	case strings.TrimSpace(text) == "":
		if !params.Has("query") {
			return req, errors.New("no statement: send it as the body (raw, with ?mode=raw) or as query=<urlencoded>")
		}
		req.query = params.Get("query")
	case params.Has("query"):
		return req, errors.New(`the statement is both in the URL ("query") and in the body`)
	default:
		req.query, rawBody = text, true
	}
	switch mode {
	case "", "raw":
	default:
		return req, fmt.Errorf("unknown mode %q (expected raw)", mode)
	}
	if r := strings.ToLower(rawResponse); mode == "raw" && (r == "false" || r == "0") {
		return req, fmt.Errorf("mode=raw and raw_response=%s contradict each other: give one of them", rawResponse)
	}
	switch strings.ToLower(rawResponse) {
	case "true", "1":
		req.raw = true
	case "false", "0":
		req.raw = false
	case "":
		req.raw = mode == "raw" || rawBody
	default:
		return req, fmt.Errorf("bad raw_response %q (expected true or false)", rawResponse)
	}
	return req, nil
}

func (s *Server) handleSQL(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	params, err := parseForm(r.URL.RawQuery)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "bad URL parameters: "+err.Error())
		return
	}
	req, err := parseSQLRequest(params, body)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	start := time.Now()
	sess := s.engine.NewSession(httpUser(r))
	defer closeSession(sess)
	results, err := sess.Exec(r.Context(), req.query)
	if err != nil && len(results) > 0 {
		// The statements before the failed one ran (and their writes
		// stay): a bare error would read as if nothing had.
		status, msg := httpError(err)
		b := appendRawShape(nil, results)
		b = append(b[:len(b)-1], `,{"total":0,"error":`...)
		b = appendJSONString(b, msg)
		writeJSON(w, status, append(b, `,"warning":""}]`...))
		return
	}
	if err != nil {
		writeHTTPError(w, err)
		return
	}
	if !req.raw && len(results) == 1 && isResultSet(results[0]) {
		took := time.Since(start)
		writeJSON(w, http.StatusOK, appendSearchShape(nil, results[0], totalFound(r.Context(), sess, results[0]), took))
		return
	}
	writeJSON(w, http.StatusOK, appendRawShape(nil, results))
}

// appendRawShape appends the raw answer: per statement
// {"columns":[{"name":{"type":"..."}}],"data":[{"name":value}],"total":n,"error":"","warning":""},
// or {"total":affected,"error":"","warning":""} for a statement without a
// result set.
func appendRawShape(b []byte, results []*sql.Result) []byte {
	b = append(b, '[')
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		total := r.AffectedRows
		if isResultSet(r) {
			b = append(b, `"columns":[`...)
			for j, col := range r.Columns {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '{')
				b = appendJSONString(b, col.Name)
				b = append(b, `:{"type":`...)
				b = appendJSONString(b, httpTypeName(col.Type))
				b = append(b, "}}"...)
			}
			b = append(b, `],"data":[`...)
			for j, row := range r.Rows {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendRowObject(b, r.Columns, nil, row, nil)
			}
			b = append(b, "],"...)
			total = uint64(len(r.Rows))
		}
		b = append(b, `"total":`...)
		b = appendJSONValue(b, total)
		b = append(b, `,"error":"","warning":`...)
		b = appendJSONString(b, strings.Join(r.WarningTexts, "; "))
		b = append(b, '}')
	}
	return append(b, ']')
}

// totalFound is hits.total of a search-shaped answer: the statement's
// total_found (SHOW META), as /search gives it, past LIMIT; the rows
// shown when the statement was not a search (SHOW TABLES).
func totalFound(ctx context.Context, sess Session, r *sql.Result) int64 {
	meta, err := sess.Exec(ctx, "SHOW META")
	if err == nil && len(meta) == 1 {
		for _, row := range meta[0].Rows {
			if len(row) == 2 && row[0] == "total_found" {
				if s, ok := row[1].(string); ok {
					if n, err := strconv.ParseInt(s, 10, 64); err == nil {
						return n
					}
				}
			}
		}
	}
	return int64(len(r.Rows))
}

// appendSearchShape appends a result set in /search's answer shape, with
// total as hits.total.
func appendSearchShape(b []byte, r *sql.Result, total int64, took time.Duration) []byte {
	idCol, scoreCol := -1, -1
	for j, col := range r.Columns {
		switch strings.ToLower(col.Name) {
		case "id":
			if idCol < 0 {
				idCol = j
			}
		case "weight()", "_score":
			if scoreCol < 0 {
				scoreCol = j
			}
		}
	}
	b = append(b, `{"took":`...)
	b = appendJSONValue(b, took.Milliseconds())
	b = append(b, `,"timed_out":false,"hits":{"total":`...)
	b = appendJSONValue(b, total)
	b = append(b, `,"total_relation":"eq","hits":[`...)
	for i, row := range r.Rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"_id":`...)
		switch {
		case idCol >= 0:
			b = appendJSONValue(b, row[idCol])
		case len(r.IDs) == len(r.Rows):
			b = appendJSONValue(b, r.IDs[i]) // (the document's, though the select list does not show it)
		default:
			b = appendJSONValue(b, nil)
		}
		b = append(b, `,"_score":`...)
		if scoreCol >= 0 {
			b = appendJSONValue(b, row[scoreCol])
		} else {
			b = append(b, '1')
		}
		b = append(b, `,"_source":`...)
		b = appendRowObject(b, r.Columns, r.Attrs, row, func(j int) bool { return j != idCol && j != scoreCol })
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	if len(r.WarningTexts) > 0 {
		b = append(b, `,"warning":`...)
		b = appendJSONString(b, strings.Join(r.WarningTexts, "; "))
	}
	return append(b, '}')
}

// appendMultiArray appends a multi attribute's text ("1,5,7", as SELECT
// shows it) as a JSON array of its numbers.
func appendMultiArray(b []byte, text string) []byte {
	b = append(b, '[')
	if text != "" {
		for i, part := range strings.Split(text, ",") {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, strings.TrimSpace(part)...)
		}
	}
	return append(b, ']')
}

// appendRowObject appends a row as a JSON object with the columns in order;
// keep, when set, selects the columns. attrs, when set (Result.Attrs),
// gives multi attributes as arrays of numbers and json attributes as
// their documents, as /search gives them.
func appendRowObject(b []byte, cols []sql.Column, attrs []index.ColumnType, row []any, keep func(int) bool) []byte {
	b = append(b, '{')
	first := true
	for j, col := range cols {
		if keep != nil && !keep(j) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, col.Name)
		b = append(b, ':')
		var v any
		if j < len(row) {
			v = row[j]
		}
		text, isText := v.(string)
		switch {
		case attrs == nil || !isText:
			b = appendJSONValue(b, v)
		case attrs[j] == index.TypeMulti || attrs[j] == index.TypeMulti64:
			b = appendMultiArray(b, text)
		case attrs[j] == index.TypeJSON && text == "":
			b = append(b, "null"...) // (no document, as /search says)
		case attrs[j] == index.TypeJSON && json.Valid([]byte(text)):
			b = append(b, text...)
		default:
			b = appendJSONValue(b, v)
		}
	}
	return append(b, '}')
}

// httpTypeName is the type name of a column in the raw answer (Manticore's).
func httpTypeName(t sql.ColumnType) string {
	switch t {
	case sql.ColInt, sql.ColUint:
		return "long long"
	case sql.ColFloat:
		return "float"
	}
	return "string"
}

func closeSession(sess Session) {
	if cl, ok := sess.(io.Closer); ok {
		_ = cl.Close()
	}
}
