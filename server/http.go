package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"
)

// HTTPHandler returns the HTTP API. Every endpoint is listed here; the answer
// is always JSON, errors included ({"error": "..."}).
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/sql", s.handleSQL)
	// Later: /search, /insert, /replace, /update, /delete, /bulk.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "unknown endpoint "+r.URL.Path)
	})
	return s.httpMiddleware(mux)
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
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       5 * time.Minute,
			BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
			ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		}
	}
	hs := s.http
	s.mu.Unlock()
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

// writeJSON writes an encoded JSON answer.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
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
