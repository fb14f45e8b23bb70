package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
)

// HTTPHandler returns the HTTP API. Every endpoint is listed here; the answer
// is always JSON, errors included ({"error": "..."}).
func (s *Server) HTTPHandler() http.Handler {
	// Paths match exactly: http.ServeMux would answer //search or
	// /./search with a redirect to /search (a bodiless 307 that resends
	// a write elsewhere); here they are unknown endpoints, as any other.
	routes := map[string]http.HandlerFunc{
		"/sql":     s.handleSQL,
		"/search":  s.handleSearch,
		"/insert":  s.handleWrite(writeInsert),
		"/replace": s.handleWrite(writeReplace),
		"/update":  s.handleWrite(writeUpdate),
		"/delete":  s.handleWrite(writeDelete),
		"/bulk":    s.handleBulk,
	}
	return s.httpMiddleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		writeJSONError(w, http.StatusNotFound, "unknown endpoint "+r.URL.Path)
	}))
}

// ServeHTTPAPI serves the HTTP API on ln until Shutdown; it then returns
// ErrServerClosed.
func (s *Server) ServeHTTPAPI(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	if s.http == nil {
		s.http = &http.Server{
			Handler:           s.HTTPHandler(),
			ReadHeaderTimeout: s.cfg.HTTPHeaderTimeout,
			ReadTimeout:       s.cfg.HTTPReadTimeout,
			IdleTimeout:       s.cfg.HTTPIdleTimeout,
			BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
			ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		}
	}
	hs := s.http
	s.mu.Unlock()
	if s.cfg.TLS != nil {
		ln = tls.NewListener(ln, s.cfg.TLS)
	}
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return ErrServerClosed
	}
	return err
}

// userKey is the context key of the authenticated HTTP user.
type userKey struct{}

// httpUser is the user a request runs as: its Basic user, or "http".
func httpUser(r *http.Request) string {
	if u, ok := r.Context().Value(userKey{}).(string); ok && u != "" {
		return u
	}
	return "http"
}

// httpMiddleware authenticates requests (HTTP Basic, when users are configured)
// and turns a handler's panic into a logged 500.
func (s *Server) httpMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inflight++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}()
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("http: panic", "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				writeJSONError(w, http.StatusInternalServerError, fmt.Sprintf("internal error: %v", p))
			}
		}()
		user, password, ok := r.BasicAuth()
		if !s.auth.checkBasic(user, password, ok) {
			w.Header().Set("WWW-Authenticate", `Basic realm="glint"`)
			writeJSONError(w, http.StatusUnauthorized, "access denied: a configured user and password are required (HTTP Basic)")
			return
		}
		if ok {
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, user))
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads a POST body up to the configured limit; it answers the
// request itself (405, 413, 400) and returns false when it cannot.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSONError(w, http.StatusMethodNotAllowed, "use POST for "+r.URL.Path)
		return nil, false
	}
	// A compressed body would be read as it is, and refused as JSON that is
	// not UTF-8 or as a statement that is not SQL.
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		writeJSONError(w, http.StatusUnsupportedMediaType,
			fmt.Sprintf("Content-Encoding %q is not supported: send the body uncompressed", ce))
		return nil, false
	}
	if r.ContentLength > s.cfg.MaxHTTPBody {
		writeJSONError(w, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("request body of %d bytes is over %d bytes (max_http_body)", r.ContentLength, s.cfg.MaxHTTPBody))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxHTTPBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSONError(w, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("request body over %d bytes (max_http_body)", tooBig.Limit))
			return nil, false
		}
		writeJSONError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// requestSession starts the session of a JSON API request.
func (s *Server) requestSession(w http.ResponseWriter, r *http.Request) (RequestSession, bool) {
	sess := s.engine.NewSession(httpUser(r))
	rs, ok := sess.(RequestSession)
	if !ok {
		closeSession(sess)
		writeJSONError(w, http.StatusNotImplemented, r.URL.Path+" is not served by this engine")
		return nil, false
	}
	return rs, true
}

// jsonRequest reads a JSON API request: its body, decoded, and its session,
// which the caller closes. It answers the request itself and returns false
// when it cannot.
func (s *Server) jsonRequest(w http.ResponseWriter, r *http.Request) (RequestSession, *jval, bool) {
	body, ok := s.readBody(w, r)
	if !ok || !noURLParameters(w, r) {
		return nil, nil, false
	}
	v, err := decodeJSON(body)
	if err != nil {
		writeHTTPError(w, err)
		return nil, nil, false
	}
	rs, ok := s.requestSession(w, r)
	if !ok {
		return nil, nil, false
	}
	return rs, v, true
}

// noURLParameters refuses a JSON endpoint's request with URL parameters
// (?pretty, ?table=...), which it does not read: the request says all in
// its body. It answers the request itself and returns false.
func noURLParameters(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.RawQuery == "" {
		return true
	}
	name, _, _ := strings.Cut(r.URL.RawQuery, "&")
	name, _, _ = strings.Cut(name, "=")
	writeJSONError(w, http.StatusBadRequest,
		fmt.Sprintf("%s takes no URL parameters (got %q): every member goes in the JSON body", r.URL.Path, name))
	return false
}

// writeJSON writes an encoded JSON answer.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	// Known length: the answer goes out as it is, not in chunks (net/http
	// chunks an answer over 2 KB whose length is not given).
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeJSONError writes {"error": msg}.
func writeJSONError(w http.ResponseWriter, status int, msg string) {
	b := append([]byte(`{"error":`), appendJSONString(nil, msg)...)
	writeJSON(w, status, append(b, '}'))
}

// writeHTTPError writes err with the status its code maps to.
func writeHTTPError(w http.ResponseWriter, err error) {
	status, msg := httpError(err)
	writeJSONError(w, status, msg)
}
