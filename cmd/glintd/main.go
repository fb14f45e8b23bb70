package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/glint-search/glint/agent"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/server"
	"github.com/glint-search/glint/sql"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is glintd from its arguments to its exit status: 0 after a clean
// shutdown, 1 when it cannot start or serve, 2 for bad flags or config.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "glintd:", err)
		return 2
	}
	if o.version {
		fmt.Fprintf(stdout, "glintd %s (MySQL protocol 8.0.36-glint-%s)\n", sql.Version, sql.Version)
		return 0
	}
	tlsCfg, requireTLS, err := o.tlsConfig()
	if err != nil {
		fmt.Fprintln(stderr, "glintd:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// The Go runtime's soft limit makes the collector work harder as the
	// heap nears memory_limit instead of letting it double; an owner's
	// GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(o.memoryLimit))
	}
	db, err := index.Open(index.DefaultOptions(o.data).
		WithMemoryLimit(int64(o.memoryLimit)).
		WithSyncWrites(o.syncWrites).
		WithMergeFactor(o.mergeFactor.indexFactor()).
		WithLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn)))
	if err != nil {
		fmt.Fprintf(stderr, "glintd: opening %s: %v\n", o.data, err)
		return 1
	}
	eng := sql.NewEngine(db)
	if err := eng.SetSnippetsFilePrefix(o.snippetsFilePrefix); err != nil {
		fmt.Fprintln(stderr, "glintd:", err)
		db.Close()
		return 2
	}
	if err := eng.SetParseCache(int(o.parseCache)); err != nil {
		fmt.Fprintln(stderr, "glintd:", err) // the flag's check let through what the engine refuses
		db.Close()
		return 2
	}
	eng.SetMaxQueryTime(o.maxQueryTime)
	eng.SetHighlightWorkBudget(int(o.highlightBudget.byteSize))
	eng.SetListener(sql.Listener{MaxAllowedPacket: int(o.maxAllowedPacket), TLS: tlsCfg != nil, IdleTimeout: o.idleTimeout,
		ReadTimeout: o.readTimeout, WriteTimeout: o.writeTimeout})
	eng.SetMaxPreparedStatements(o.maxPreparedStmts)
	agentName, agentPassword, _ := strings.Cut(o.agentUser, ":")
	agents := agent.New(agent.Options{User: agentName, Password: agentPassword})
	defer agents.Close()
	eng.SetRemote(agents)
	if o.replicationListen != "" {
		if err := startReplication(eng, o, tlsCfg, stdout, log); err != nil {
			fmt.Fprintln(stderr, "glintd:", err)
			db.Close()
			return 1
		}
		defer eng.StopReplication()
	} else if names := clusterDirs(filepath.Join(o.data, "clusters")); len(names) > 0 {
		// Their tables are not served: say so, rather than have them
		// vanish (and a table of the server's own take one's name).
		log.Warn("replication_listen is not set, so the clusters in the data directory are not served, nor their tables; start with replication_listen to serve them",
			"clusters", strings.Join(names, ","))
	}
	srv := server.New(server.SessionFunc(func(user string) server.Session {
		return eng.NewSession(user)
	}), server.Config{
		Version:           sql.Version,
		Users:             o.users,
		TLS:               tlsCfg,
		RequireTLS:        requireTLS,
		MaxAllowedPacket:  int(o.maxAllowedPacket),
		MaxPreparedStmts:  o.maxPreparedStmts,
		HandshakeTimeout:  o.handshakeTimeout,
		IdleTimeout:       o.idleTimeout,
		ReadTimeout:       o.readTimeout,
		WriteTimeout:      o.writeTimeout,
		MaxConnections:    o.maxConnections,
		MaxHTTPBody:       int64(o.maxHTTPBody),
		HTTPHeaderTimeout: o.httpHeaderTimeout,
		HTTPReadTimeout:   o.httpReadTimeout,
		HTTPIdleTimeout:   o.httpIdleTimeout,
		Logger:            log,
	})
	eng.SetProcesses(srv)

	status := serve(ctx, srv, o, stdout, log)
	if err := db.Close(); err != nil {
		log.Error("glintd: closing storage", "err", err)
		return 1
	}
	log.Info("glintd: stopped")
	return status
}

// serve listens, prints one ready line per listener, serves until ctx is done
// (a signal) or a listener fails, and shuts the server down.
func serve(ctx context.Context, srv *server.Server, o *options, stdout io.Writer, log *slog.Logger) int {
	ml, err := net.Listen("tcp", o.mysqlListen)
	if err != nil {
		log.Error("glintd: mysql listener", "err", err)
		return 1
	}
	hl, err := net.Listen("tcp", o.httpListen)
	if err != nil {
		ml.Close()
		log.Error("glintd: http listener", "err", err)
		return 1
	}
	var dl net.Listener
	if o.debugListen != "" {
		if dl, err = net.Listen("tcp", o.debugListen); err != nil {
			ml.Close()
			hl.Close()
			log.Error("glintd: debug listener", "err", err)
			return 1
		}
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.ServeMySQL(ml) }()
	go func() { errc <- srv.ServeHTTPAPI(hl) }()
	fmt.Fprintf(stdout, "glintd: mysql listening on %s\n", ml.Addr())
	fmt.Fprintf(stdout, "glintd: http listening on %s\n", hl.Addr())
	if dl != nil {
		defer dl.Close()
		go func() { _ = http.Serve(dl, debugHandler()) }()
		fmt.Fprintf(stdout, "glintd: debug listening on %s\n", dl.Addr())
	}

	status := 0
	select {
	case <-ctx.Done():
		log.Info("glintd: shutting down", "grace", o.shutdownTimeout)
	case err := <-errc:
		log.Error("glintd: serving", "err", err)
		status = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("glintd: statements still running at the end of the grace period were cancelled", "err", err)
	}
	log.Info("glintd: connections closed; closing storage")
	return status
}

// debugHandler serves Go's profiles (net/http/pprof) and nothing else: heap,
// goroutine, CPU profiles and execution traces of the running server, for an
// owner who wants to see where memory or time goes.
func debugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// clusterDirs lists the clusters kept under dir (the data directory's
// clusters/), none when there is no such directory.
func clusterDirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, de := range entries {
		if de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
			names = append(names, de.Name())
		}
	}
	return names
}

// startReplication serves the members of this server's clusters on
// replication_listen, under TLS when ssl_cert is set (the members trust the
// certificates of ssl_cert: give every member the same one, or one signed by
// a CA it holds).
func startReplication(eng *sql.Engine, o *options, tlsCfg *tls.Config, stdout io.Writer, log *slog.Logger) error {
	l, err := net.Listen("tcp", o.replicationListen)
	if err != nil {
		return fmt.Errorf("replication listener: %w", err)
	}
	r := sql.Replication{
		Dir:       filepath.Join(o.data, "clusters"),
		Listener:  l,
		Advertise: o.replicationAddr,
		Index: index.Options{}.
			WithMemoryLimit(int64(o.memoryLimit) / 4).
			WithMergeFactor(o.mergeFactor.indexFactor()).
			WithLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn)),
		Logger:          log,
		SnapshotRate:    o.replicationRate.bytes(),
		SnapshotEntries: uint64(o.snapshotEntries),
	}
	if o.replicationVia != "" {
		r.Via = map[string]string{}
		for pair := range strings.SplitSeq(o.replicationVia, ",") {
			member, via, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok || member == "" || via == "" {
				l.Close()
				return fmt.Errorf("replication_via: %q is not member=address", pair)
			}
			r.Via[member] = via
		}
	}
	if tlsCfg != nil {
		pem, err := os.ReadFile(o.sslCert)
		if err != nil {
			l.Close()
			return err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		r.ServerTLS = tlsCfg
		r.ClientTLS = &tls.Config{RootCAs: pool, Certificates: tlsCfg.Certificates, MinVersion: tls.VersionTLS12}
	}
	if err := eng.StartReplication(r); err != nil {
		l.Close()
		return err
	}
	fmt.Fprintf(stdout, "glintd: replication listening on %s\n", l.Addr())
	return nil
}
