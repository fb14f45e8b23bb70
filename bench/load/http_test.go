package load

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/stretchr/testify/require"
)

// TestHTTPWorkload drives the raw HTTP client of json-search+highlight
// against a test server: one kept-alive connection per worker, bodies as
// encoded, answers of any framing read whole, failures reported.
func TestHTTPWorkload(t *testing.T) {
	var conns atomic.Int32
	var got []string
	status := http.StatusOK
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		var req map[string]any
		require.NoError(t, json.Unmarshal(body, &req))
		got = append(got, r.Method+" "+r.URL.Path+" "+req["query"].(map[string]any)["query_string"].(string))
		w.WriteHeader(status)
		io.WriteString(w, strings.Repeat("x", 10000)) // chunked: no length given
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	cfg := &Config{Concurrency: 1, HTTPAddr: strings.TrimPrefix(srv.URL, "http://"),
		Queries: []corpus.Query{{Text: "alpha"}, {Text: `"b c"`}}}
	w, err := newHTTPWorkload(cfg)
	require.NoError(t, err)
	for seq := range int64(4) {
		_, err := w.op(context.Background(), 0, nil, seq)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"POST /search alpha", `POST /search "b c"`, "POST /search alpha", `POST /search "b c"`}, got)
	require.EqualValues(t, 1, conns.Load(), "one connection, kept alive")

	status = http.StatusBadRequest
	_, err = w.op(context.Background(), 0, nil, 0)
	require.ErrorContains(t, err, "400 Bad Request")
	status = http.StatusOK
	_, err = w.op(context.Background(), 0, nil, 1)
	require.NoError(t, err, "a new connection after a failure")
	require.EqualValues(t, 2, conns.Load())
}
