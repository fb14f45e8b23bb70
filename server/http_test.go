package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newHTTPTest(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	hs := httptest.NewServer(New(newFakeEngine(), cfg).HTTPHandler())
	t.Cleanup(hs.Close)
	return hs
}

// post sends a request and returns the status and the decoded JSON body.
func post(t *testing.T, hs *httptest.Server, method, path, contentType, body string) (int, any) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(raw, &v), "body: %s", raw)
	return resp.StatusCode, v
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

const select1Raw = `[{"columns":[{"1":{"type":"long long"}}],"data":[{"1":1}],"total":1,"error":"","warning":""}]`

func TestHTTPSQL(t *testing.T) {
	hs := newHTTPTest(t, Config{})
	form := "application/x-www-form-urlencoded"
	tests := []struct {
		name        string
		path        string
		contentType string
		body        string
		status      int
		want        string
	}{
		{"raw body with mode=raw", "/sql?mode=raw", "text/plain", "select 1", 200, select1Raw},
		{"raw body alone", "/sql", "", "select 1", 200, select1Raw},
		{"raw body, raw_response=true", "/sql?raw_response=true", "", "select 1", 200, select1Raw},
		{"form with mode=raw labelled text/plain", "/sql", "text/plain", "mode=raw&query=" + url.QueryEscape("select 1"), 200, select1Raw},
		{"form with mode=raw in the URL", "/sql?mode=raw", form, "query=" + url.QueryEscape("select 1"), 200, select1Raw},
		{"query in the URL", "/sql?mode=raw&query=select%201", "", "", 200, select1Raw},
		{"several statements", "/sql?mode=raw", "", "select 1; show meta", 200,
			`[{"columns":[{"1":{"type":"long long"}}],"data":[{"1":1}],"total":1,"error":"","warning":""},
			  {"columns":[{"Variable_name":{"type":"string"}},{"Value":{"type":"string"}}],
			   "data":[{"Variable_name":"total","Value":"1"},{"Variable_name":"time","Value":"0.000"}],"total":2,"error":"","warning":""}]`},
		{"types, NULL and no HTML escaping", "/sql?mode=raw", "", "select types", 200,
			`[{"columns":[{"id":{"type":"long long"}},{"n":{"type":"long long"}},{"price":{"type":"float"}},{"title":{"type":"string"}}],
			   "data":[{"id":18446744073709551615,"n":-5,"price":2.5,"title":"héllo <b>"},{"id":2,"n":null,"price":null,"title":null}],
			   "total":2,"error":"","warning":""}]`},
		{"zero rows keep their columns", "/sql?mode=raw", "", "select empty", 200,
			`[{"columns":[{"id":{"type":"long long"}},{"n":{"type":"long long"}},{"price":{"type":"float"}},{"title":{"type":"string"}}],
			   "data":[],"total":0,"error":"","warning":""}]`},
		{"OK statement", "/sql?mode=raw", "", "insert", 200, `[{"total":1,"error":"","warning":""}]`},
		{"form without mode: search shape", "/sql", form, "query=" + url.QueryEscape("select rows 2"), 200,
			`{"took":0,"timed_out":false,"hits":{"total":2,"total_relation":"eq","hits":[
			   {"_id":1,"_score":1,"_source":{"text":"row 1"}},{"_id":2,"_score":1,"_source":{"text":"row 2"}}]}}`},
		{"raw body, raw_response=false: search shape", "/sql?raw_response=false", "", "select rows 1", 200,
			`{"took":0,"timed_out":false,"hits":{"total":1,"total_relation":"eq","hits":[{"_id":1,"_score":1,"_source":{"text":"row 1"}}]}}`},
		{"search shape falls back to raw for a write", "/sql", form, "query=insert", 200, `[{"total":1,"error":"","warning":""}]`},
		{"SQL error is 400", "/sql?mode=raw", "", "nonsense", 400, `{"error":"syntax error near 'nonsense'"}`},
		{"no such table is 400", "/sql?mode=raw", "", "error 3", 400, `{"error":"fake error 3"}`},
		{"internal error is 500", "/sql?mode=raw", "", "plain error", 500, `{"error":"a plain error"}`},
		{"panic is 500", "/sql?mode=raw", "", "panic", 500, `{"error":"internal error: boom"}`},
		{"empty statement", "/sql?mode=raw", "", "", 400,
			`{"error":"no statement: send it as the body (raw, with ?mode=raw) or as query=<urlencoded>"}`},
		{"form without query", "/sql", form, "mode=raw", 400, `{"error":"the form body has no \"query\""}`},
		{"raw body labelled as a form (curl -d)", "/sql?mode=raw", form, "select 1", 200, select1Raw},
		// A form is cut at '&' only, as the reference cuts it: a ';' of a
		// statement written as is (curl -d 'query=...; ...') stays in it.
		{"form with an unescaped ';'", "/sql", form, "mode=raw&query=select 1; show meta", 200,
			`[{"columns":[{"1":{"type":"long long"}}],"data":[{"1":1}],"total":1,"error":"","warning":""},
			  {"columns":[{"Variable_name":{"type":"string"}},{"Value":{"type":"string"}}],
			   "data":[{"Variable_name":"total","Value":"1"},{"Variable_name":"time","Value":"0.000"}],"total":2,"error":"","warning":""}]`},
		{"URL query with an unescaped ';'", "/sql?mode=raw&query=select%201;show%20meta", "", "", 200,
			`[{"columns":[{"1":{"type":"long long"}}],"data":[{"1":1}],"total":1,"error":"","warning":""},
			  {"columns":[{"Variable_name":{"type":"string"}},{"Value":{"type":"string"}}],
			   "data":[{"Variable_name":"total","Value":"1"},{"Variable_name":"time","Value":"0.000"}],"total":2,"error":"","warning":""}]`},
		{"bad escape in the form", "/sql", form, "query=%ZZ", 400, `{"error":"bad form body: invalid URL escape \"%ZZ\""}`},
		{"bad escape in the URL", "/sql?mode=raw&query=%ZZ", "", "", 400, `{"error":"bad URL parameters: invalid URL escape \"%ZZ\""}`},
		{"bad mode", "/sql?mode=fancy", "", "select 1", 400, `{"error":"unknown mode \"fancy\" (expected raw)"}`},
		{"bad raw_response", "/sql?raw_response=maybe", "", "select 1", 400,
			`{"error":"bad raw_response \"maybe\" (expected true or false)"}`},
		{"a form key twice", "/sql", form, "query=select%201&query=select%202", 400,
			`{"error":"form key \"query\" is given 2 times"}`},
		{"an unknown form key", "/sql", form, "query=select%201&format=json", 400,
			`{"error":"unknown form key \"format\" (expected query, mode or raw_response)"}`},
		{"an unknown URL parameter", "/sql?mode=raw&pretty=1", "", "select 1", 400,
			`{"error":"unknown URL parameter \"pretty\" (expected query, mode or raw_response)"}`},
		{"a URL parameter twice", "/sql?mode=raw&mode=raw", "", "select 1", 400,
			`{"error":"URL parameter \"mode\" is given 2 times"}`},
		{"mode in the URL and the form", "/sql?mode=raw", form, "query=select%201&mode=raw", 400,
			`{"error":"\"mode\" is given both in the URL and in the form body"}`},
		{"a statement in the URL and the body", "/sql?mode=raw&query=select%201", "", "select 2", 400,
			`{"error":"the statement is both in the URL (\"query\") and in the body"}`},
		{"unknown endpoint", "/x", "", "", 404, `{"error":"unknown endpoint /x"}`},
		{"a path that is not the endpoint's own spelling", "//sql", "", "select 1", 404, `{"error":"unknown endpoint //sql"}`},
		{"a path with a dot segment", "/./sql", "", "select 1", 404, `{"error":"unknown endpoint /./sql"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := post(t, hs, http.MethodPost, tt.path, tt.contentType, tt.body)
			assert.Equal(t, tt.status, status)
			if m, ok := got.(map[string]any); ok && m["took"] != nil {
				m["took"] = float64(0)
			}
			assert.Equal(t, jsonOf(t, tt.want), got)
		})
	}
	t.Run("GET is 405", func(t *testing.T) {
		status, got := post(t, hs, http.MethodGet, "/sql?query=select%201", "", "")
		assert.Equal(t, http.StatusMethodNotAllowed, status)
		assert.Equal(t, jsonOf(t, `{"error":"use POST for /sql"}`), got)
	})
}

func TestHTTPBodyLimit(t *testing.T) {
	hs := newHTTPTest(t, Config{MaxHTTPBody: 1000})
	status, got := post(t, hs, http.MethodPost, "/sql?mode=raw", "", "echo "+strings.Repeat("x", 1000))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	assert.Equal(t, jsonOf(t, `{"error":"request body of 1005 bytes is over 1000 bytes (max_http_body)"}`), got)

	// Without a Content-Length (chunked), the limit stops the read.
	req, err := http.NewRequest(http.MethodPost, hs.URL+"/search", io.MultiReader(strings.NewReader(`{"table":"`+strings.Repeat("x", 2000)+`"}`)))
	require.NoError(t, err)
	resp, err := hs.Client().Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.JSONEq(t, `{"error":"request body over 1000 bytes (max_http_body)"}`, string(raw))

	status, _ = post(t, hs, http.MethodPost, "/sql?mode=raw", "", "echo "+strings.Repeat("x", 900))
	assert.Equal(t, http.StatusOK, status)
}

func TestHTTPContentEncoding(t *testing.T) {
	hs := newHTTPTest(t, Config{})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("select 1"))
	require.NoError(t, zw.Close())
	for _, tt := range []struct {
		encoding string
		body     []byte
		status   int
		want     string
	}{
		{"gzip", gz.Bytes(), 415, `{"error":"Content-Encoding \"gzip\" is not supported: send the body uncompressed"}`},
		{"identity", []byte("select 1"), 200, select1Raw},
	} {
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/sql?mode=raw", bytes.NewReader(tt.body))
		require.NoError(t, err)
		req.Header.Set("Content-Encoding", tt.encoding)
		resp, err := hs.Client().Do(req)
		require.NoError(t, err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, tt.status, resp.StatusCode, tt.encoding)
		assert.JSONEq(t, tt.want, string(raw), tt.encoding)
	}
}

func TestHTTPJSONEndpointsTakeNoURLParameters(t *testing.T) {
	hs := newHTTPTest(t, Config{})
	for _, path := range []string{"/search?pretty", "/insert?table=books&id=1", "/bulk?refresh=true"} {
		status, got := post(t, hs, http.MethodPost, path, "", `{"table": "books"}`)
		assert.Equal(t, http.StatusBadRequest, status, path)
		endpoint, params, _ := strings.Cut(path, "?")
		name, _, _ := strings.Cut(params, "=")
		assert.Equal(t, jsonOf(t, `{"error":"`+endpoint+` takes no URL parameters (got \"`+name+`\"): every member goes in the JSON body"}`), got, path)
	}
}

func TestHTTPBasicAuth(t *testing.T) {
	hs := newHTTPTest(t, Config{Users: map[string]string{"alice": "secret"}})
	tests := []struct {
		name       string
		user, pass string
		status     int
	}{
		{"right password", "alice", "secret", 200},
		{"wrong password", "alice", "nope", 401},
		{"unknown user", "bob", "secret", 401},
		{"no credentials", "", "", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/sql?mode=raw", strings.NewReader("select 1"))
			require.NoError(t, err)
			if tt.user != "" {
				req.SetBasicAuth(tt.user, tt.pass)
			}
			resp, err := hs.Client().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.status == 401 {
				assert.Equal(t, `Basic realm="glint"`, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// The real listener: ServeHTTPAPI and Shutdown.
func TestHTTPListener(t *testing.T) {
	ts := startServer(t, Config{})
	resp, err := http.Post("http://"+ts.httpAddr+"/sql?mode=raw", "text/plain", strings.NewReader("select 1"))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.JSONEq(t, select1Raw, string(body))
}

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"\n\t\r\x01", `"\n\t\r\u0001"`},
		{"<b>&</b>", `"<b>&</b>"`},
		{"bad \xff utf8", `"bad \ufffd utf8"`},
		{"line\u2028sep", `"line\u2028sep"`},
		{"日本", `"日本"`},
	}
	for _, tt := range tests {
		got := string(appendJSONString(nil, tt.in))
		assert.Equal(t, tt.want, got)
		var back string
		require.NoError(t, json.Unmarshal([]byte(got), &back))
	}
}

// TestHTTPRequestCancelledWhenClientGoesAway: a client that gives up on a
// request cancels the work it started (every endpoint runs under the
// request's context).
func TestHTTPRequestCancelledWhenClientGoesAway(t *testing.T) {
	eng := newFakeEngine()
	hs := httptest.NewServer(New(eng, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).HTTPHandler())
	t.Cleanup(hs.Close)
	client := hs.Client()
	client.Timeout = 200 * time.Millisecond // the client closes the connection when it gives up
	_, err := client.Post(hs.URL+"/sql?mode=raw", "text/plain", strings.NewReader("sleep 30s"))
	require.Error(t, err)
	select {
	case <-eng.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the request's context was not cancelled after the client went away")
	}
}
