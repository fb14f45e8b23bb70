package jepsen

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"time"
)

// The nemeses, as Config.Nemeses names them.
const (
	NemesisKill      = "kill"      // kill -9 a node (the leader when known), start it again after a while
	NemesisPause     = "stop"      // SIGSTOP a node for 5-15 s (scaled), then SIGCONT
	NemesisPartition = "partition" // cut the nodes into a majority and a minority; one node: cut it from the clients
	NemesisCut       = "cut"       // a one-way cut: node A's bytes do not reach B (one node: client to node, or back)
	NemesisWipe      = "wipe"      // kill -9 a node, remove its data directory, start it again (clusters only)
	NemesisDelay     = "delay"     // every link slow: 50 ms plus up to 100 ms of jitter each way (one node: the clients' links)
	NemesisLoss      = "loss"      // every link lossy: 2% of chunks reset their connection (one node: the clients' links)
	NemesisMember    = "member"    // a node (the leader when known) leaves the cluster and joins it again 2-5 s later (clusters only)
)

// AllNemeses lists every nemesis.
var AllNemeses = []string{NemesisKill, NemesisPause, NemesisPartition, NemesisCut, NemesisWipe, NemesisDelay, NemesisLoss, NemesisMember}

// The faults of the delay and loss nemeses.
var (
	delayFaults = Faults{Delay: 50 * time.Millisecond, Jitter: 100 * time.Millisecond}
	lossFaults  = Faults{Loss: 0.02}
)

// ParseNemeses reads a comma-separated list of nemeses ("" and "none": no
// faults); an unknown name is an error naming it.
func ParseNemeses(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	var out []string
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(AllNemeses, name) {
			return nil, fmt.Errorf("jepsen: unknown nemesis %q (known: %s)", name, strings.Join(AllNemeses, ", "))
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("jepsen: nemesis %q given twice", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// checkNemeses says which nemeses a cluster cannot run.
func checkNemeses(names []string, cfg ClusterConfig, allowDataLoss bool) error {
	for _, name := range names {
		switch {
		case name == NemesisWipe && cfg.Nodes == 1 && !allowDataLoss:
			return fmt.Errorf("jepsen: nemesis %q needs a cluster: wiping the only node's data loses it by design", name)
		case name == NemesisWipe && cfg.Nodes > 1 && cfg.Rejoin == nil:
			return fmt.Errorf("jepsen: nemesis %q needs ClusterConfig.Rejoin: a wiped node must join the cluster again", name)
		case name == NemesisMember && (cfg.Nodes == 1 || cfg.Leave == nil || cfg.Rejoin == nil):
			return fmt.Errorf("jepsen: nemesis %q needs a cluster with ClusterConfig.Leave and Rejoin", name)
		case (name == NemesisPartition || name == NemesisCut || name == NemesisDelay || name == NemesisLoss) && cfg.Nodes == 1 && !cfg.ClientProxies:
			return fmt.Errorf("jepsen: nemesis %q on one node needs ClientProxies (a proxy between the clients and the node)", name)
		}
	}
	return nil
}

// nemesis runs faults on a cluster on a seeded schedule, recording each in
// the history.
type nemesis struct {
	c     *Cluster
	hist  *History
	rng   *rand.Rand
	names []string
	scale float64
	// afterWipe runs on a wiped node once it is back (nil: nothing); the
	// runner recreates a lone node's tables with it, so that reads find
	// empty tables rather than none.
	afterWipe func(ctx context.Context, node int) error
}

// span is a duration drawn from [lo, hi] seconds, scaled.
func (n *nemesis) span(lo, hi float64) time.Duration {
	s := lo + n.rng.Float64()*(hi-lo)
	return time.Duration(s * n.scale * float64(time.Second))
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// run alternates quiet spells (2-5 s, scaled) and faults until ctx ends;
// each fault is healed before the next starts, and on the way out.
func (n *nemesis) run(ctx context.Context) error {
	if len(n.names) == 0 {
		return nil
	}
	for sleep(ctx, n.span(2, 5)) {
		name := n.names[n.rng.Intn(len(n.names))]
		if err := n.fault(ctx, name); err != nil {
			return fmt.Errorf("jepsen: nemesis %s: %w", name, err)
		}
	}
	return nil
}

// target picks the node to hit: the leader when the cluster can tell.
func (n *nemesis) target(ctx context.Context) int {
	if len(n.c.Nodes) == 1 {
		return 0
	}
	if n.c.Config.Leader != nil {
		if l, err := n.c.Config.Leader(ctx, n.c); err == nil && l >= 0 && l < len(n.c.Nodes) {
			return l
		}
	}
	return n.rng.Intn(len(n.c.Nodes))
}

// fault runs one fault to its end. Its faults end even when ctx has ended
// (a run's end heals), with a context of their own for restarts.
func (n *nemesis) fault(ctx context.Context, name string) error {
	bg := context.WithoutCancel(ctx)
	node := n.target(ctx)
	switch name {
	case NemesisKill, NemesisWipe:
		down := time.Duration(0) // one node: straight back up, so the failover time is its restart
		if len(n.c.Nodes) > 1 {
			down = n.span(1, 5)
		}
		if err := n.c.Nodes[node].Kill(); err != nil {
			return err
		}
		// noted once the process is gone: the failover time starts here
		n.hist.Note(NemesisStart, name, node, fmt.Sprintf("killed -9, down %v", down.Round(time.Millisecond)))
		if name == NemesisWipe {
			if err := n.c.Nodes[node].Wipe(); err != nil {
				return err
			}
		}
		sleep(ctx, down)
		if err := n.c.Nodes[node].Start(bg); err != nil {
			return err
		}
		if name == NemesisWipe && n.afterWipe != nil {
			if err := n.afterWipe(bg, node); err != nil {
				return err
			}
		}
		n.hist.Note(NemesisStop, name, node, "started")
	case NemesisMember:
		d := n.span(2, 5)
		if err := n.c.Config.Leave(bg, n.c, node); err != nil {
			return err
		}
		n.hist.Note(NemesisStart, name, node, fmt.Sprintf("left the cluster for %v", d.Round(time.Millisecond)))
		sleep(ctx, d)
		if err := n.c.Config.Rejoin(bg, n.c, node); err != nil {
			return err
		}
		n.hist.Note(NemesisStop, name, node, "joined again")
	case NemesisPause:
		d := n.span(5, 15)
		n.hist.Note(NemesisStart, name, node, fmt.Sprintf("SIGSTOP for %v", d.Round(time.Millisecond)))
		if err := n.c.Nodes[node].Pause(); err != nil {
			return err
		}
		sleep(ctx, d)
		if err := n.c.Nodes[node].Resume(); err != nil {
			return err
		}
		n.hist.Note(NemesisStop, name, node, "SIGCONT")
	case NemesisPartition, NemesisCut:
		d := n.span(5, 15)
		detail := n.cut(name, node)
		n.hist.Note(NemesisStart, name, node, fmt.Sprintf("%s for %v", detail, d.Round(time.Millisecond)))
		sleep(ctx, d)
		n.heal()
		n.hist.Note(NemesisStop, name, node, "healed")
	case NemesisDelay, NemesisLoss:
		d := n.span(5, 15)
		f := delayFaults
		if name == NemesisLoss {
			f = lossFaults
		}
		if err := n.setLinkFaults(f); err != nil {
			return err
		}
		n.hist.Note(NemesisStart, name, -1, fmt.Sprintf("%+v for %v", f, d.Round(time.Millisecond)))
		sleep(ctx, d)
		n.heal()
		n.hist.Note(NemesisStop, name, -1, "healed")
	default:
		return fmt.Errorf("unknown nemesis %q", name)
	}
	return nil
}

// setLinkFaults puts f on every link between nodes, or on one node on the
// clients' links.
func (n *nemesis) setLinkFaults(f Faults) error {
	if n.c.Net != nil {
		return n.c.Net.SetFaults(f)
	}
	for _, p := range n.c.ClientProxies {
		if err := p.SetFaults(f); err != nil {
			return err
		}
	}
	return nil
}

// heal clears every proxy's faults.
func (n *nemesis) heal() {
	if n.c.Net != nil {
		n.c.Net.Heal()
	}
	for _, p := range n.c.ClientProxies {
		p.Heal()
	}
}

// cut starts a partition or a one-way cut and says what it did.
func (n *nemesis) cut(name string, node int) string {
	if len(n.c.Nodes) == 1 {
		p := n.c.ClientProxies[0]
		if name == NemesisPartition {
			p.Partition()
			return "clients | node 0"
		}
		d := Direction(n.rng.Intn(2))
		p.Block(d)
		if d == Up {
			return "clients -> node 0 cut"
		}
		return "node 0 -> clients cut"
	}
	if name == NemesisCut {
		other := (node + 1 + n.rng.Intn(len(n.c.Nodes)-1)) % len(n.c.Nodes)
		n.c.Net.Cut(node, other)
		return fmt.Sprintf("node %d -> node %d cut", node, other)
	}
	// the target (the leader, when known) and as few others as make a
	// minority
	size := max(1, (len(n.c.Nodes)-1)/2)
	minority := []int{node}
	for _, i := range n.rng.Perm(len(n.c.Nodes)) {
		if len(minority) == size {
			break
		}
		if i != node {
			minority = append(minority, i)
		}
	}
	var majority []int
	for i := range n.c.Nodes {
		if !slices.Contains(minority, i) {
			majority = append(majority, i)
		}
	}
	n.c.Net.Partition(minority, majority)
	return fmt.Sprintf("%v | %v", minority, majority)
}
