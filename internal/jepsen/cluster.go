package jepsen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Net is the fault proxies between the nodes of a cluster: node i reaches
// node j's peer listener through Link(i, j), so every ordered pair of nodes
// has a path of its own to cut.
type Net struct {
	links [][]*Proxy // links[i][j], nil on the diagonal
}

// NewNet starts one proxy for every ordered pair of peer addresses.
func NewNet(peers []string, seed int64) (*Net, error) {
	n := &Net{links: make([][]*Proxy, len(peers))}
	for i := range peers {
		n.links[i] = make([]*Proxy, len(peers))
		for j, target := range peers {
			if i == j {
				continue
			}
			p, err := NewProxy("127.0.0.1:0", target, seed+int64(i*len(peers)+j))
			if err != nil {
				n.Close()
				return nil, err
			}
			n.links[i][j] = p
		}
	}
	return n, nil
}

// Link is the proxy node from dials to reach node to.
func (n *Net) Link(from, to int) *Proxy { return n.links[from][to] }

// Addrs are the addresses node self dials to reach each peer ("" for self).
func (n *Net) Addrs(self int) []string {
	addrs := make([]string, len(n.links))
	for j, p := range n.links[self] {
		if p != nil {
			addrs[j] = p.Addr()
		}
	}
	return addrs
}

// Cut blocks the bytes node from sends to node to, on both the connections
// from dials and those to dials; to's bytes still reach from.
func (n *Net) Cut(from, to int) {
	n.links[from][to].Block(Up)
	n.links[to][from].Block(Down)
}

// Partition cuts, both ways, every pair of nodes in different groups. A node
// in no group is cut from everyone.
func (n *Net) Partition(groups ...[]int) {
	group := make([]int, len(n.links))
	for i := range group {
		group[i] = -1 - i // alone
	}
	for g, members := range groups {
		for _, i := range members {
			group[i] = g
		}
	}
	for i := range n.links {
		for j, p := range n.links[i] {
			if p != nil && group[i] != group[j] {
				p.Partition()
			}
		}
	}
}

// SetFaults sets the same faults (delay, jitter, loss) on every link.
func (n *Net) SetFaults(f Faults) error {
	for _, row := range n.links {
		for _, p := range row {
			if p != nil {
				if err := p.SetFaults(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Heal clears every link's faults.
func (n *Net) Heal() {
	for _, row := range n.links {
		for _, p := range row {
			if p != nil {
				p.Heal()
			}
		}
	}
}

// Close stops every proxy.
func (n *Net) Close() {
	for _, row := range n.links {
		for _, p := range row {
			if p != nil {
				_ = p.Close()
			}
		}
	}
}

// ClusterConfig says how to run the nodes of one run.
type ClusterConfig struct {
	Glintd  string
	Nodes   int    // 1, or 3 or 5 with PeerArgs (Replicated)
	DataDir string // each node's data directory is DataDir/node<i>
	Args    []string
	// Hosts are the loopback addresses the nodes listen on, one per node
	// (127.0.0.1 to 127.0.0.5, as the design has them); empty: all on
	// 127.0.0.1.
	Hosts []string
	// PeerArgs is the extension point for replication: the glintd flags that
	// give node self its peer listener (listen), and the addresses it dials
	// its peers at (via[j], a Net proxy, for the peer whose own listener is
	// real[j]; "" for self). It is required for more than one node: nodes
	// that do not replicate would diverge, and the checkers would report it
	// as lost writes. Replicated sets it for glintd's clusters.
	PeerArgs func(self int, listen string, real, via []string) []string
	// ClientProxies puts a fault proxy between the clients and each node
	// (the partition and cut nemeses of a single node need it).
	ClientProxies bool
	// Leader is the extension point for finding the leader (say, by SHOW
	// STATUS LIKE 'cluster_%'); the kill nemesis aims at it when it answers.
	// nil, or an error: a node chosen by the seed. One node is its own.
	Leader func(ctx context.Context, c *Cluster) (int, error)
	// Setup runs once all nodes are up (CREATE CLUSTER, JOIN CLUSTER ...
	// later); nil does nothing.
	Setup func(ctx context.Context, c *Cluster) error
	// Leave takes a running node out of the cluster (DELETE CLUSTER on it),
	// and Rejoin brings a node that left, or whose data was wiped, back in
	// (JOIN CLUSTER through another node). The wipe nemesis of a cluster
	// rejoins the wiped node; the member nemesis needs both. Replicated sets
	// them.
	Leave, Rejoin func(ctx context.Context, c *Cluster, node int) error
	Seed          int64
}

// Cluster is the nodes of a run, the proxies between them, and those in
// front of them.
type Cluster struct {
	Config        ClusterConfig
	Nodes         []*Node
	Net           *Net     // nil for one node
	ClientProxies []*Proxy // nil unless Config.ClientProxies
}

// StartCluster starts every node and its proxies.
func StartCluster(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	switch {
	case cfg.Nodes < 1:
		return nil, fmt.Errorf("jepsen: a cluster of %d nodes", cfg.Nodes)
	case cfg.Nodes > 1 && cfg.PeerArgs == nil:
		return nil, fmt.Errorf("jepsen: %d nodes need ClusterConfig.PeerArgs, the flags that make glintd replicate; glintd has none yet, so run one node", cfg.Nodes)
	case cfg.Glintd == "" || cfg.DataDir == "":
		return nil, errors.New("jepsen: ClusterConfig.Glintd and ClusterConfig.DataDir are required")
	case len(cfg.Hosts) != 0 && len(cfg.Hosts) != cfg.Nodes:
		return nil, fmt.Errorf("jepsen: %d hosts for %d nodes", len(cfg.Hosts), cfg.Nodes)
	}
	c := &Cluster{Config: cfg}
	var peers []string
	for i := range cfg.Nodes {
		spec := NodeSpec{Glintd: cfg.Glintd, DataDir: filepath.Join(cfg.DataDir, "node"+strconv.Itoa(i)), Args: cfg.Args}
		if len(cfg.Hosts) > 0 {
			spec.Host = cfg.Hosts[i]
		}
		n, err := NewNode(i, spec)
		if err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
		peers = append(peers, n.PeerAddr)
	}
	if cfg.Nodes > 1 {
		var err error
		if c.Net, err = NewNet(peers, cfg.Seed); err != nil {
			return nil, err
		}
		for i, n := range c.Nodes {
			n.opts.Args = append(append([]string(nil), n.opts.Args...), cfg.PeerArgs(i, n.PeerAddr, peers, c.Net.Addrs(i))...)
		}
	}
	for _, n := range c.Nodes {
		if err := n.Start(ctx); err != nil {
			c.Close()
			return nil, err
		}
		if cfg.ClientProxies {
			p, err := NewProxy("127.0.0.1:0", n.MySQLAddr, cfg.Seed+1000+int64(n.ID))
			if err != nil {
				c.Close()
				return nil, err
			}
			c.ClientProxies = append(c.ClientProxies, p)
		}
	}
	if cfg.Setup != nil {
		if err := cfg.Setup(ctx, c); err != nil {
			c.Close()
			return nil, fmt.Errorf("jepsen: cluster setup: %w", err)
		}
	}
	return c, nil
}

// ClientAddr is where clients reach node i: its proxy's address, or its
// MySQL listener.
func (c *Cluster) ClientAddr(i int) string {
	if c.ClientProxies != nil {
		return c.ClientProxies[i].Addr()
	}
	return c.Nodes[i].MySQLAddr
}

// HealAll ends every fault: proxies healed, paused nodes resumed, dead nodes
// started again.
func (c *Cluster) HealAll(ctx context.Context) error {
	if c.Net != nil {
		c.Net.Heal()
	}
	for _, p := range c.ClientProxies {
		p.Heal()
	}
	var errs []error
	for _, n := range c.Nodes {
		n.mu.Lock()
		paused := n.paused
		n.mu.Unlock()
		if paused {
			errs = append(errs, n.Resume())
		}
		if !n.Running() {
			errs = append(errs, n.Start(ctx))
		}
	}
	return errors.Join(errs...)
}

// Close stops every node (each must exit 0 on SIGTERM) and proxy.
func (c *Cluster) Close() error {
	var errs []error
	for _, p := range c.ClientProxies {
		errs = append(errs, p.Close())
	}
	if c.Net != nil {
		c.Net.Close()
	}
	for _, n := range c.Nodes {
		errs = append(errs, n.Stop(30*time.Second))
	}
	return errors.Join(errs...)
}

// RemoveData removes the nodes' data directories (after Close).
func (c *Cluster) RemoveData() error { return os.RemoveAll(c.Config.DataDir) }
