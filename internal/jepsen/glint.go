package jepsen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Replicated makes cfg run its nodes as one glintd cluster named name:
// each node listens for its peers and dials each of them through the Net
// proxy of that pair (--replication-via); node 0 creates the cluster and
// the others join it; the workloads write name:table and read the
// register linearizably; a server error (1105: no leader, or a write
// whose outcome the server could not confirm) leaves a write unknown.
func Replicated(cfg *Config, name string) {
	cc := &cfg.Cluster
	cc.PeerArgs = func(self int, listen string, real, via []string) []string {
		var pairs []string
		for j := range real {
			if j != self {
				pairs = append(pairs, real[j]+"="+via[j])
			}
		}
		return []string{"--replication-listen", listen, "--replication-via", strings.Join(pairs, ",")}
	}
	cc.Setup = func(ctx context.Context, c *Cluster) error {
		if err := execOn(ctx, c.Nodes[0].MySQLAddr, "CREATE CLUSTER "+name, 30*time.Second); err != nil {
			return err
		}
		for _, n := range c.Nodes[1:] {
			if err := execOn(ctx, n.MySQLAddr, fmt.Sprintf("JOIN CLUSTER %s AT '%s'", name, c.Nodes[0].PeerAddr), 60*time.Second); err != nil {
				return err
			}
		}
		return nil
	}
	cc.Leave = func(ctx context.Context, c *Cluster, node int) error {
		// The server waits up to 30 s for the others to take the member
		// out (a quorum may be missing for a while): each try waits
		// longer than that, so that a try is not given up while the
		// server still works on it, and a try after a broken connection
		// that finds the cluster gone was preceded by one that took the
		// member out.
		addr := c.Nodes[node].MySQLAddr
		return retry(ctx, 90*time.Second, func(ctx context.Context) error {
			db, err := openDB(addr, 20*time.Second) // statements may take 40 s
			if err != nil {
				return err
			}
			defer func() { _ = db.Close() }()
			_, err = db.ExecContext(ctx, "DELETE CLUSTER "+name)
			if err != nil && strings.Contains(err.Error(), "unknown cluster '"+name+"'") {
				return nil
			}
			return err
		})
	}
	cc.Rejoin = func(ctx context.Context, c *Cluster, node int) error {
		// through the next node (any member takes a join), retried while
		// the cluster elects a leader or the node comes up
		other := c.Nodes[(node+1)%len(c.Nodes)]
		join := fmt.Sprintf("JOIN CLUSTER %s AT '%s'", name, other.PeerAddr)
		return retry(ctx, 60*time.Second, func(ctx context.Context) error {
			err := execOn(ctx, c.Nodes[node].MySQLAddr, join, 5*time.Second)
			if err != nil && strings.Contains(err.Error(), "already exists") {
				// an earlier try got it in as a learner, still catching up
				// when it timed out: it goes on by itself
				return nil
			}
			return err
		})
	}
	cc.Leader = func(ctx context.Context, c *Cluster) (int, error) {
		for i, n := range c.Nodes {
			if role, err := statusOf(ctx, n.MySQLAddr, "cluster_"+name+"_role"); err == nil && role == "leader" {
				return i, nil
			}
		}
		return 0, errors.New("no node says it leads")
	}
	if cfg.RegisterTable == "" {
		cfg.RegisterTable = "jepsen_register"
	}
	if cfg.SetTable == "" {
		cfg.SetTable = "jepsen_set"
	}
	cfg.RegisterTable = name + ":" + cfg.RegisterTable
	cfg.SetTable = name + ":" + cfg.SetTable
	cfg.ReadOption = " OPTION consistency='linearizable'"
	cfg.Indeterminate = func(code uint16) bool { return code == 1105 }
}

// statusOf reads one SHOW STATUS counter of the server at addr.
func statusOf(ctx context.Context, addr, name string) (string, error) {
	db, err := openDB(addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var k, v string
	err = db.QueryRowContext(ctx, "SHOW STATUS LIKE '"+name+"'").Scan(&k, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no counter %s", name)
	}
	return v, err
}
