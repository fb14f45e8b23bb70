package jepsen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/glint-search/glint/e2e/daemon"
)

// Node is one glintd the harness runs. Its addresses are fixed when it is
// made and kept across restarts, so clients and peers reconnect to the same
// place after a kill.
type Node struct {
	ID        int
	MySQLAddr string // the MySQL listener, fixed across restarts
	HTTPAddr  string
	PeerAddr  string // a port kept for the node's peer listener (replication); unused until glintd has one
	DataDir   string

	opts daemon.Options

	mu     sync.Mutex
	proc   *daemon.Process
	paused bool
	procs  []*daemon.Process // every incarnation, for the output
}

// NodeSpec says how to run one node.
type NodeSpec struct {
	Glintd  string   // the binary
	Host    string   // the loopback address it listens on; "" is 127.0.0.1
	DataDir string   // its data directory
	Args    []string // more glintd flags
}

// freePorts returns n distinct host:port addresses nobody listens on now:
// each is held until all are picked (closed at once, a port could come
// back for the next pick: a node's MySQL and replication listeners once
// got the same one). The ports are kept for the node's life: glintd
// listens with SO_REUSEADDR, so a restart takes them again even while old
// connections linger in TIME_WAIT.
func freePorts(host string, n int) ([]string, error) {
	addrs := make([]string, 0, n)
	for range n {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("jepsen: no free port on %s: %w", host, err)
		}
		defer ln.Close()
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs, nil
}

// NewNode picks the node's ports; Start starts it.
func NewNode(id int, spec NodeSpec) (*Node, error) {
	if spec.Glintd == "" || spec.DataDir == "" {
		return nil, errors.New("jepsen: NodeSpec.Glintd and NodeSpec.DataDir are required")
	}
	host := spec.Host
	if host == "" {
		host = "127.0.0.1"
	}
	n := &Node{ID: id, DataDir: spec.DataDir}
	addrs, err := freePorts(host, 3)
	if err != nil {
		return nil, err
	}
	n.MySQLAddr, n.HTTPAddr, n.PeerAddr = addrs[0], addrs[1], addrs[2]
	n.opts = daemon.Options{Binary: spec.Glintd, DataDir: spec.DataDir, MySQLListen: n.MySQLAddr, HTTPListen: n.HTTPAddr,
		Args: spec.Args, StartTimeout: 60 * time.Second}
	return n, nil
}

// Start starts the node (again); it is an error if it is running.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil && !n.proc.Exited() {
		return fmt.Errorf("jepsen: node %d is already running", n.ID)
	}
	if err := os.MkdirAll(n.DataDir, 0o755); err != nil {
		return err
	}
	p, err := daemon.Start(ctx, n.opts)
	if err != nil {
		return fmt.Errorf("jepsen: node %d: %w", n.ID, err)
	}
	n.proc, n.paused = p, false
	n.procs = append(n.procs, p)
	return nil
}

// Running reports whether the node's process is alive (paused counts).
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc != nil && !n.proc.Exited()
}

// Kill sends SIGKILL (a crash: nothing is flushed) and waits for the process
// to be gone.
func (n *Node) Kill() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || n.proc.Exited() {
		return fmt.Errorf("jepsen: node %d is not running", n.ID)
	}
	err := n.proc.Kill()
	n.paused = false
	return err
}

// Pause sends SIGSTOP: the process holds its sockets and answers nothing.
func (n *Node) Pause() error { return n.signal(syscall.SIGSTOP, true) }

// Resume sends SIGCONT.
func (n *Node) Resume() error { return n.signal(syscall.SIGCONT, false) }

func (n *Node) signal(sig syscall.Signal, paused bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || n.proc.Exited() {
		return fmt.Errorf("jepsen: node %d is not running (%v)", n.ID, sig)
	}
	if err := syscall.Kill(n.proc.Pid(), sig); err != nil {
		return fmt.Errorf("jepsen: node %d: %v: %w", n.ID, sig, err)
	}
	n.paused = paused
	return nil
}

// DumpGoroutines ends a running node with SIGQUIT (resumed first if it is
// paused), on which the Go runtime prints every goroutine's stack to the
// node's output: what a node that stopped answering was waiting for. It
// waits up to 5 s for the process to exit.
func (n *Node) DumpGoroutines() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningResumed() {
		return nil
	}
	if err := n.proc.Quit(5 * time.Second); err != nil {
		return fmt.Errorf("jepsen: node %d: %w", n.ID, err)
	}
	return nil
}

// runningResumed reports whether the node's process is alive, and resumes
// it if it is paused, for a signal that ends it. n.mu is held.
func (n *Node) runningResumed() bool {
	if n.proc == nil || n.proc.Exited() {
		return false
	}
	if n.paused {
		_ = syscall.Kill(n.proc.Pid(), syscall.SIGCONT)
		n.paused = false
	}
	return true
}

// Wipe removes everything in the node's data directory; the node must not
// be running.
func (n *Node) Wipe() error {
	if n.Running() {
		return fmt.Errorf("jepsen: node %d: wiping the data of a running node", n.ID)
	}
	entries, err := os.ReadDir(n.DataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(n.DataDir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Stop resumes a paused node and stops it with SIGTERM; it must exit 0.
// Stopping a node that is not running does nothing.
func (n *Node) Stop(timeout time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningResumed() {
		return nil
	}
	if err := n.proc.Stop(timeout); err != nil {
		return fmt.Errorf("jepsen: node %d: %w", n.ID, err)
	}
	return nil
}

// Output is what every incarnation of the node printed, oldest first.
func (n *Node) Output() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var outs []string
	for _, p := range n.procs {
		outs = append(outs, p.Output())
	}
	return strings.Join(outs, "---- restarted ----\n")
}
