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
	case load.Glint, load.GlintStem:
		if _, err := os.Stat(o.glintd); err != nil {
			cleanup()
			return nil, fmt.Errorf("no glintd binary at %s (make build)", o.glintd)
		}
		p, err := daemon.Start(ctx, daemon.Options{Binary: o.glintd, DataDir: dir, Args: glintArgs})
		if err != nil {
			cleanup()
			return nil, err
		}
		return &server{target: target, mysql: p.MySQLAddr, http: p.HTTPAddr, pid: p.Pid(), dir: dir, stop: func() error {
			defer cleanup()
			err := p.Stop(60 * time.Second)
			_ = os.WriteFile(filepath.Join(tmp, "glintd.log"), []byte(p.Output()), 0o644)
			return err
		}}, nil
	}
	cleanup()
	return nil, fmt.Errorf("unknown target %q", target)
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
