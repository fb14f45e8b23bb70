// Package daemon builds, starts and stops glintd processes. It learns the
// addresses a process listens on from its ready lines ("glintd: mysql listening
// on ADDR", "glintd: http listening on ADDR"), so port 0 works. The end-to-end
// tests (package e2e) and the benchmark race (bench/cmd/race) both use it; it has
// no testing dependency.
//
// Example:
//
//	bin, err := daemon.Build(ctx, repoRoot, tmpDir, false)
//	p, err := daemon.Start(ctx, daemon.Options{Binary: bin, DataDir: dir})
//	defer p.Stop(10 * time.Second)
//	db, err := sql.Open("mysql", "root@tcp("+p.MySQLAddr+")/")
package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The ready lines' markers; the address follows each on the same line.
const (
	mysqlReady = "glintd: mysql listening on "
	httpReady  = "glintd: http listening on "
)

// FindRepoRoot returns the nearest directory at or above dir holding go.mod.
func FindRepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("daemon: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Build compiles ./cmd/glintd of the module at repoRoot into outDir and returns
// the binary's path; race builds it with the race detector.
func Build(ctx context.Context, repoRoot, outDir string, race bool) (string, error) {
	bin := filepath.Join(outDir, "glintd")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/glintd")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("daemon: go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// Options say how to start glintd.
type Options struct {
	Binary       string        // path of the glintd binary; required
	DataDir      string        // --data; required
	MySQLListen  string        // --mysql-listen; default 127.0.0.1:0
	HTTPListen   string        // --http-listen; default 127.0.0.1:0
	Args         []string      // more flags
	StartTimeout time.Duration // how long to wait for both ready lines; default 60 s
}

// Process is a running (or finished) glintd.
type Process struct {
	MySQLAddr string // host:port of the MySQL protocol listener
	HTTPAddr  string // host:port of the HTTP listener

	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, set before done is closed
}

// Start starts glintd and returns once it has printed both ready lines. The
// process's output (stdout and stderr together) is kept; see Output.
func Start(ctx context.Context, o Options) (*Process, error) {
	if o.Binary == "" || o.DataDir == "" {
		return nil, errors.New("daemon: Options.Binary and Options.DataDir are required")
	}
	if o.MySQLListen == "" {
		o.MySQLListen = "127.0.0.1:0"
	}
	if o.HTTPListen == "" {
		o.HTTPListen = "127.0.0.1:0"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := append([]string{"--data", o.DataDir, "--mysql-listen", o.MySQLListen, "--http-listen", o.HTTPListen}, o.Args...)
	p := &Process{cmd: exec.Command(o.Binary, args...), out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("daemon: starting %s: %w", o.Binary, err)
	}
	w.Close() // the child holds its own copy

	type ready struct{ mysql, http string }
	readyc := make(chan ready, 1)
	drained := make(chan struct{})
	go func() { // read the output to its end, reporting the addresses once
		defer close(drained)
		defer r.Close()
		var rd ready
		sent := false
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.out.writeLine(line)
			if i := strings.Index(line, mysqlReady); i >= 0 {
				rd.mysql = strings.TrimSpace(line[i+len(mysqlReady):])
			}
			if i := strings.Index(line, httpReady); i >= 0 {
				rd.http = strings.TrimSpace(line[i+len(httpReady):])
			}
			if !sent && rd.mysql != "" && rd.http != "" {
				readyc <- rd
				sent = true
			}
		}
	}()
	go func() {
		p.err = p.cmd.Wait()
		// The process has exited, but its last lines (why it stopped) may
		// still be in the pipe: Output must hold them once done is closed.
		// A descendant holding the pipe open is not waited for long.
		select {
		case <-drained:
		case <-time.After(5 * time.Second):
		}
		close(p.done)
	}()

	timer := time.NewTimer(o.StartTimeout)
	defer timer.Stop()
	select {
	case rd := <-readyc:
		p.MySQLAddr, p.HTTPAddr = rd.mysql, rd.http
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("daemon: glintd exited before it was ready (%v); output:\n%s", p.err, p.Output())
	case <-timer.C:
		err = fmt.Errorf("daemon: glintd printed no ready lines within %v; output:\n%s", o.StartTimeout, p.Output())
	case <-ctx.Done():
		err = ctx.Err()
	}
	_ = p.Kill()
	return nil, err
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Output is everything the process has printed so far.
func (p *Process) Output() string { return p.out.String() }

// Stop sends SIGTERM and waits up to timeout for the process to exit; it is an
// error if it does not (it is then killed) or if it exits with a status other
// than 0. Stopping a process that has exited reports how it exited.
func (p *Process) Stop(timeout time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.Kill()
		return fmt.Errorf("daemon: glintd did not exit within %v of SIGTERM; killed", timeout)
	}
	if p.err != nil {
		return fmt.Errorf("daemon: glintd exited after SIGTERM: %w", p.err)
	}
	return nil
}

// Quit sends SIGQUIT, on which the Go runtime prints every goroutine's
// stack to the output and exits, and waits up to timeout for the process
// to exit; it is an error if it does not (it is then killed).
func (p *Process) Quit(timeout time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		_ = p.Kill()
		return fmt.Errorf("daemon: glintd did not exit within %v of SIGQUIT; killed", timeout)
	}
}

// Kill sends SIGKILL and waits for the process to be gone: it can leave no
// graceful trace (a durability test's crash).
func (p *Process) Kill() error {
	err := p.cmd.Process.Kill()
	<-p.done
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// lockedBuffer keeps lines written by one goroutine and read by others.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) writeLine(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
	b.buf.WriteByte('\n')
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
