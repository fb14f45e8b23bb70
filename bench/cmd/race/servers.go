package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/e2e/daemon"
)

// server is a running glintd or searchd. A GlintStem server is a glintd whose
// table the load package makes with morphology='stem_en'.
type server struct {
	target load.Target
	mysql  string
	http   string
	pid    int
	dir    string // the data directory
	stop   func() error
}

func startServer(ctx context.Context, o options, target load.Target, tmp string, glintArgs ...string) (*server, error) {
	if load.IsGlint(target) {
		return startGlintd(ctx, o, target, tmp, "127.0.0.1", "glintd.log", glintArgs...)
	}
	dir, err := os.MkdirTemp("", "glint-race-"+string(target)+"-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	switch target {
	case load.Sphinx:
		port, err := freePort()
		if err != nil {
			cleanup()
			return nil, err
		}
		out, err := exec.CommandContext(ctx, o.sphinxSrc, "start", dir, strconv.Itoa(port)).Output()
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s start: %w", o.sphinxSrc, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s start printed %q, not a pid", o.sphinxSrc, out)
		}
		return &server{target: target, mysql: fmt.Sprintf("127.0.0.1:%d", port), pid: pid, dir: dir, stop: func() error {
			defer cleanup()
			return exec.Command(o.sphinxSrc, "stop", dir).Run()
		}}, nil
	}
	cleanup()
	return nil, fmt.Errorf("unknown target %q", target)
}

// startGlintd starts a glintd listening on free ports of the loopback
// address ip, with a temporary data directory, and keeps its output in
// tmp/logName when it stops.
func startGlintd(ctx context.Context, o options, target load.Target, tmp, ip, logName string, args ...string) (*server, error) {
	if _, err := os.Stat(o.glintd); err != nil {
		return nil, fmt.Errorf("no glintd binary at %s (make build)", o.glintd)
	}
	dir, err := os.MkdirTemp("", "glint-race-"+string(target)+"-")
	if err != nil {
		return nil, err
	}
	p, err := daemon.Start(ctx, daemon.Options{Binary: o.glintd, DataDir: dir, Args: args,
		MySQLListen: ip + ":0", HTTPListen: ip + ":0"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &server{target: target, mysql: p.MySQLAddr, http: p.HTTPAddr, pid: p.Pid(), dir: dir, stop: func() error {
		defer os.RemoveAll(dir)
		err := p.Stop(60 * time.Second)
		_ = os.WriteFile(filepath.Join(tmp, logName), []byte(p.Output()), 0o644)
		return err
	}}, nil
}

// freePort asks the kernel for a free loopback port. searchd takes its port from
// a config file, so the port is closed again before searchd binds it.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
