// Package server puts glint on the network: the MySQL protocol (through
// go-mysql's server package) and JSON over HTTP, both in front of an Engine
// that runs the SQL (*sql.Engine in glintd, a fake in tests).
//
// On the MySQL side it owns the accept loop (one goroutine and one Session per
// connection), authentication (anyone when no users are configured, else
// mysql_native_password, or caching_sha2_password when TLS is on; unknown
// users get 1045), TLS, max_connections (error 1040), the command loop (go-mysql
// reads and writes the packets), several result sets for one COM_QUERY,
// prepared statements of its own with binary rows (parameters streamed
// ahead, executions without types: stmt.go), result columns typed from
// the statement rather than from the first row, max_allowed_packet (error 1153
// before anything is allocated for the packet), idle and read timeouts, a
// write buffer flushed before each read, a context per statement cancelled
// when the client goes away, and a recovered panic per connection. Errors of the
// SQL layer become MySQL errors and HTTP statuses in one table (errors.go).
//
// On the HTTP side, HTTPHandler lists the endpoints: POST /sql, /search,
// /insert, /replace, /update, /delete and /bulk (docs/http.md), over HTTPS
// when TLS is on.
//
// Example:
//
//	eng := sql.NewEngine(db)
//	srv := server.New(server.SessionFunc(func(user string) server.Session {
//		return eng.NewSession(user)
//	}), server.DefaultConfig())
//	ln, _ := net.Listen("tcp", "127.0.0.1:9306")
//	go srv.ServeMySQL(ln)
//	hl, _ := net.Listen("tcp", "127.0.0.1:9308")
//	go srv.ServeHTTPAPI(hl)
//	...
//	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
//	defer cancel()
//	srv.Shutdown(ctx) // then close db
package server
