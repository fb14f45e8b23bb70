package sql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/glint-search/glint/cluster"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/durable"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// proposeTimeout bounds how long a write to a cluster waits for a leader
// and for its entry to be committed and applied here.
const proposeTimeout = 30 * time.Second

// joinTimeout bounds JOIN CLUSTER: asking a member, then catching up until
// this node votes.
const joinTimeout = 10 * time.Minute

// cluster returns the cluster name of this server.
func (rp *replication) cluster(name string) (*replCluster, bool) {
	if rp == nil {
		return nil, false
	}
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	c, ok := rp.clusters[clusterKey(name)]
	return c, ok
}

// names are the clusters of this server, sorted.
func (rp *replication) names() []string {
	if rp == nil {
		return nil
	}
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	var out []string
	for n := range rp.clusters {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// clusterOf is the cluster holding table name, "" for a table of this
// server alone.
func (rp *replication) clusterOf(name string) string {
	if rp == nil || hiddenTable(name) {
		return "" // (a cluster's own tables are not reached by a plain name: each cluster has its __glint_members)
	}
	for _, cn := range rp.names() {
		c, _ := rp.cluster(cn)
		if _, err := c.currentDB().Table(name); err == nil {
			return cn
		}
	}
	return ""
}

// dbFor finds the database holding table name: c:t is table t of cluster
// c; a plain name is this server's table, or a cluster's table (reads
// reach them by their plain names).
func (e *Engine) dbFor(name string) (*index.DB, string, error) {
	if cn, t, ok := dialect.SplitClusterTable(name); ok {
		c, ok := e.repl.cluster(cn)
		if !ok {
			return nil, "", Errorf(CodeCluster, "unknown cluster '%s' (in '%s')", cn, name)
		}
		return c.currentDB(), t, nil
	}
	if e.repl != nil {
		if _, err := e.db.Table(name); errors.Is(err, index.ErrNoSuchTable) {
			if cn := e.repl.clusterOf(name); cn != "" {
				c, _ := e.repl.cluster(cn)
				return c.currentDB(), name, nil
			}
		}
	}
	return e.db, name, nil
}

// tableNames are this server's tables and its clusters' (but for their
// members tables), sorted.
func (e *Engine) tableNames() []string {
	names := slices.DeleteFunc(e.db.TableNames(), hiddenTable)
	for _, cn := range e.repl.names() {
		c, _ := e.repl.cluster(cn)
		for _, t := range c.currentDB().TableNames() {
			if !hiddenTable(t) {
				names = append(names, t)
			}
		}
	}
	sort.Strings(names)
	return names
}

// writeTarget is the table a write statement changes, and whether st is one.
func writeTarget(n ast.StmtNode) (string, bool) {
	switch n := n.(type) {
	case *ast.InsertStmt:
		name, err := tableOf(n.Table)
		return name, err == nil
	case *ast.DeleteStmt:
		name, err := tableOf(n.TableRefs)
		return name, err == nil
	case *ast.UpdateStmt:
		name, err := tableOf(n.TableRefs)
		return name, err == nil
	case *ast.TruncateTableStmt:
		return n.Table.Name.O, true
	case *ast.CreateTableStmt:
		return n.Table.Name.O, true
	case *ast.DropTableStmt:
		if len(n.Tables) == 1 {
			return n.Tables[0].Name.O, true
		}
		for _, t := range n.Tables {
			if strings.Contains(t.Name.O, dialect.ClusterTableSep) {
				return t.Name.O, true
			}
		}
	case *ast.AlterTableStmt:
		if !keysOnly(n) {
			return "", false // refused as on any table (execAlterTable)
		}
		return n.Table.Name.O, true
	case *ast.OptimizeTableStmt:
		for _, t := range n.Tables {
			if strings.Contains(t.Name.O, dialect.ClusterTableSep) {
				return t.Name.O, true
			}
		}
	}
	return "", false
}

// routeWrite sends a write on a table of a cluster through the cluster's
// log; handled is false for a write this server makes alone.
func (s *Session) routeWrite(ctx context.Context, st *dialect.Statement) (r *Result, handled bool, err error) {
	name, isWrite := writeTarget(st.Node)
	if !isWrite || s.applying != nil {
		return nil, false, nil
	}
	cn, table, isCluster := dialect.SplitClusterTable(name)
	if !isCluster {
		if _, create := st.Node.(*ast.CreateTableStmt); !create && s.engine.repl != nil && !s.engine.db.HasTable(name) {
			// (A table of this server's own with the name of a cluster's,
			// which a CREATE TABLE c:t sent to another member can make,
			// is the one a name without the cluster's reaches, as reads
			// do.)
			if cn := s.engine.repl.clusterOf(name); cn != "" {
				return nil, true, Errorf(CodeCluster, "table '%s' is in cluster '%s': write to it as %s:%s", name, cn, cn, name)
			}
			if cn := s.engine.repl.addingTo(name); cn != "" {
				return nil, true, errBeingAdded(name, cn)
			}
		}
		if create, ok := st.Node.(*ast.CreateTableStmt); ok && s.engine.repl != nil {
			if cn := s.engine.repl.clusterOf(name); cn != "" {
				if create.IfNotExists {
					return &Result{}, true, nil // it exists: nothing to do, as for any table
				}
				return nil, true, Errorf(CodeTableExists, "table '%s' already exists, in cluster '%s'", name, cn)
			}
		}
		return nil, false, nil
	}
	if s.engine.repl == nil {
		return nil, true, errNoReplication
	}
	c, ok := s.engine.repl.cluster(cn)
	if !ok {
		return nil, true, Errorf(CodeCluster, "unknown cluster '%s' (in '%s')", cn, name)
	}
	switch n := st.Node.(type) {
	case *ast.DropTableStmt:
		if len(n.Tables) > 1 {
			return nil, true, Errorf(CodeUnsupported, "DROP TABLE of a cluster's table names that table alone")
		}
	case *ast.OptimizeTableStmt:
		return nil, true, Errorf(CodeUnsupported, "OPTIMIZE TABLE %s: optimize a cluster's table by its own name, %s, on each member", name, table)
	case *ast.DeleteStmt, *ast.UpdateStmt:
		if err := missingWhere(n, name); err != nil { // (refused before it reaches the log)
			return nil, true, err
		}
	case *ast.CreateTableStmt:
		if hiddenTable(table) {
			break // (refused below, as the cluster's own)
		}
		if _, err := s.engine.db.Table(table); err == nil {
			return nil, true, Errorf(CodeTableExists, "table '%s' already exists on this server, outside the cluster", table)
		}
		for _, other := range s.engine.repl.names() {
			if oc, _ := s.engine.repl.cluster(other); other != cn && oc != nil && oc.currentDB().HasTable(table) {
				// Two clusters' tables of one name: reads by the plain
				// name would reach one of them.
				return nil, true, Errorf(CodeTableExists, "table '%s' already exists on this server, in cluster '%s'", table, other)
			}
		}
	}
	if fn := nondeterministicCall(st.Node); fn != "" {
		return nil, true, Errorf(CodeUnsupported, "%s() in a write to a cluster's table: each member would compute another value; use NOW() (the time the statement began, carried to every member) or a literal", strings.ToUpper(fn))
	}
	if table == membersTable {
		return nil, true, Errorf(CodeCluster, "'%s' is the cluster's own table of its members", table)
	}
	if hiddenTable(table) {
		return nil, true, Errorf(CodeCluster, "'%s' is a table of the cluster's own (a table being copied in)", table)
	}
	out, err := s.propose(ctx, c, replEntry{Op: opSQL, SQL: st.Text})
	if err != nil {
		return nil, true, err
	}
	s.pending = append(s.pending, out.warnings...)
	if out.err != nil {
		return nil, true, out.err
	}
	if out.res != nil && out.res.InsertID != 0 {
		s.lastInsertID = out.res.InsertID
	}
	return out.res, true, nil
}

// propose sends ent through c's log with the session's determinism
// (time, user, connection, user variables) and waits for it to be applied
// here.
func (s *Session) propose(ctx context.Context, c *replCluster, ent replEntry) (*applyOutcome, error) {
	ent.Now, ent.User, ent.Conn = s.began.UnixNano(), s.user, s.id
	ent.Zone, _ = s.vars["time_zone"].(string)
	ent.Coll, _ = s.vars["collation_connection"].(string)
	if ent.Op == opSQL && len(s.userVars) > 0 {
		ent.Vars = map[string][2]string{}
		for name, v := range s.userVars {
			ent.Vars[name] = encodeVar(v)
		}
	}
	return c.propose(ctx, ent)
}

func (c *replCluster) propose(ctx context.Context, ent replEntry) (*applyOutcome, error) {
	data, err := json.Marshal(ent)
	if err != nil {
		return nil, Errorf(CodeInternal, "cluster %s: encoding an entry: %v", c.name, err)
	}
	if c.removed() {
		return nil, c.errRemoved()
	}
	ctx, cancel := context.WithTimeout(ctx, proposeTimeout)
	defer cancel()
	res, err := c.node.Propose(ctx, data)
	switch {
	case errors.Is(err, cluster.ErrNoLeader):
		return nil, Errorf(CodeClusterUnavailable, "cluster '%s' has no leader (a majority of its members is not reachable): nothing was written", c.name)
	case errors.Is(err, cluster.ErrOutcomeUnknown):
		why := ""
		if c.node.Status().Leader == 0 {
			// (The likely cause: say it.)
			why = " (this member hears no leader now: a majority of the members is not reachable)"
		}
		return nil, Errorf(CodeClusterUnavailable, "cluster '%s': the write was sent but not confirmed within %s%s; it may or may not be applied", c.name, proposeTimeout, why)
	case errors.Is(err, cluster.ErrRemoved):
		return nil, c.errRemoved()
	case errors.Is(err, cluster.ErrStopped):
		return nil, Errorf(CodeClusterUnavailable, "cluster '%s' is stopped on this server: %v", c.name, c.node.Err())
	case err != nil:
		return nil, Errorf(CodeClusterUnavailable, "cluster '%s': %v", c.name, err)
	}
	out, _ := res.Result.(*applyOutcome)
	if out == nil {
		out = &applyOutcome{}
	}
	return out, nil
}

// execCluster runs a statement that manages a cluster.
func (s *Session) execCluster(ctx context.Context, cs *dialect.ClusterStmt) (*Result, error) {
	rp := s.engine.repl
	if rp == nil {
		return nil, errNoReplication
	}
	c, exists := rp.cluster(cs.Name)
	if !exists && cs.Action != dialect.ClusterCreate && cs.Action != dialect.ClusterJoin {
		return nil, Errorf(CodeCluster, "unknown cluster '%s'", cs.Name)
	}
	if cs.Action == dialect.ClusterCreate || cs.Action == dialect.ClusterJoin {
		if err := checkClusterName(cs.Name); err != nil {
			return nil, err
		}
		done, err := rp.start(cs)
		if err != nil {
			return nil, err
		}
		defer done()
	}
	if cs.Path != "" {
		return nil, Errorf(CodeUnsupported, "%s: path is not taken: glint keeps each cluster under its data directory, in clusters/%s", cs.Action, cs.Name)
	}
	switch cs.Action {
	case dialect.ClusterCreate:
		if cs.Nodes != nil {
			return nil, Errorf(CodeUnsupported, "CREATE CLUSTER: nodes is not taken: a cluster starts with this server alone, and the others JOIN CLUSTER %s AT '%s'", cs.Name, rp.cfg.Advertise)
		}
		return &Result{}, rp.create(ctx, cs.Name)
	case dialect.ClusterJoin:
		addrs := cs.Nodes
		if cs.At != "" {
			addrs = []string{cs.At}
		}
		return &Result{}, rp.join(ctx, cs.Name, addrs)
	case dialect.ClusterAddTable:
		return s.addTable(ctx, c, cs.Table)
	case dialect.ClusterDropTable:
		return s.detachTable(ctx, c, cs.Table)
	case dialect.ClusterUpdateNodes:
		return nil, Errorf(CodeUnsupported, "ALTER CLUSTER %s UPDATE nodes: glint keeps the member list in the cluster's own log, always current; there is nothing to update", cs.Name)
	case dialect.ClusterDelete:
		return &Result{}, rp.leave(ctx, c)
	case dialect.ClusterBootstrap:
		return &Result{}, rp.bootstrap(c)
	}
	return nil, Errorf(CodeInternal, "cluster statement %s", cs.Action)
}

// start marks cluster cs.Name as being made by cs (CREATE or JOIN) until
// done is called; an error when it exists or another statement is making it.
func (rp *replication) start(cs *dialect.ClusterStmt) (done func(), err error) {
	key := clusterKey(cs.Name)
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if c, ok := rp.clusters[key]; ok {
		if c.removed() {
			return nil, Errorf(CodeCluster, "cluster '%s' already exists on this server, which the other members took out of it: DELETE CLUSTER %s drops its copy first", cs.Name, cs.Name)
		}
		return nil, Errorf(CodeCluster, "cluster '%s' already exists on this server", cs.Name)
	}
	if other, ok := rp.starting[key]; ok {
		return nil, Errorf(CodeCluster, "%s %s: a %s %s of this server is running; wait for it to end", cs.Action, cs.Name, other, key)
	}
	if rp.starting == nil {
		rp.starting = map[string]string{}
	}
	rp.starting[key] = cs.Action.String()
	return func() {
		rp.mu.Lock()
		delete(rp.starting, key)
		rp.mu.Unlock()
	}, nil
}

// maxClusterName is the longest cluster name, in bytes: MySQL's longest
// identifier, and well within a file name (a cluster is a directory).
const maxClusterName = 64

// checkClusterName says what is wrong with name as a new cluster's name.
func checkClusterName(name string) error {
	if !validClusterName(name) {
		return Errorf(CodeCluster, "'%s' is not a valid cluster name: ASCII letters, digits and _, starting with a letter or _", name)
	}
	if len(name) > maxClusterName {
		return Errorf(CodeCluster, "cluster name '%s...' is %d characters long: at most %d", name[:16], len(name), maxClusterName)
	}
	return nil
}

// create makes cluster name with this server its only member.
func (rp *replication) create(ctx context.Context, name string) error {
	name = clusterKey(name)
	c, err := rp.open(name, nil, true)
	if err != nil {
		return Errorf(CodeCluster, "CREATE CLUSTER %s: %v", name, err)
	}
	for _, ent := range []replEntry{{Op: opInit}, {Op: opMember, ID: c.node.ID(), Addr: rp.cfg.Advertise}} {
		out, err := c.propose(ctx, ent)
		if err == nil {
			err = out.err
		}
		if err != nil {
			rp.remove(c)
			return err
		}
	}
	if err := os.Remove(filepath.Join(c.dir, creatingFile)); err != nil {
		rp.remove(c)
		return Errorf(CodeCluster, "CREATE CLUSTER %s: %v", name, err)
	}
	if err := durable.SyncDir(c.dir); err != nil {
		rp.remove(c)
		return Errorf(CodeCluster, "CREATE CLUSTER %s: %v", name, err)
	}
	rp.cfg.Logger.Info("cluster created", "cluster", name, "node", c.node.ID(), "addr", rp.cfg.Advertise)
	return nil
}

func validClusterName(name string) bool {
	for i, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return name != ""
}

// remove closes c and deletes this server's copy of it.
func (rp *replication) remove(c *replCluster) {
	rp.mu.Lock()
	delete(rp.clusters, c.name)
	rp.mu.Unlock()
	c.close()
	if err := os.RemoveAll(c.dir); err != nil {
		rp.cfg.Logger.Error("cluster: removing its directory", "cluster", c.name, "err", err)
	}
}

// joinRequest is what a node that joins asks a member, and joinAnswer the
// member's answer.
type joinRequest struct {
	Op   string `json:"op"` // "join", or "leave" (a server that joined and has no image yet)
	ID   uint64 `json:"id"`
	Addr string `json:"addr"`
	// Tables are the joining server's own tables: the member refuses the
	// join when the cluster has a table of one of their names.
	Tables []string `json:"tables,omitempty"`
	// Clustered are the tables of the joining server's other clusters,
	// by cluster: the member refuses those names too (two clusters'
	// tables of one name on one server: reads by the plain name would
	// reach one of them).
	Clustered map[string][]string `json:"clustered,omitempty"`
}

type joinAnswer struct {
	Members map[uint64]string `json:"members"`
}

// join makes this server a member of cluster name through one of the
// members at addrs: it asks to be added as a learner, then waits until it
// has caught up and votes.
func (rp *replication) join(ctx context.Context, name string, addrs []string) error {
	name = clusterKey(name)
	c, err := rp.open(name, []uint64{}, true)
	if err != nil {
		return Errorf(CodeCluster, "JOIN CLUSTER %s: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, joinTimeout)
	defer cancel()
	jr := joinRequest{Op: "join", ID: c.node.ID(), Addr: rp.cfg.Advertise, Tables: rp.engine.db.TableNames()}
	for _, other := range rp.names() {
		if oc, ok := rp.cluster(other); ok && other != name {
			if names := oc.currentDB().TableNames(); len(names) > 0 {
				if jr.Clustered == nil {
					jr.Clustered = map[string][]string{}
				}
				jr.Clustered[other] = names
			}
		}
	}
	req, _ := json.Marshal(jr)
	var errs []string
	var answer joinAnswer
	asked := false
	for _, addr := range addrs {
		b, err := cluster.Request(ctx, rp.tcp, addr, name, req)
		if err == nil {
			err = json.Unmarshal(b, &answer)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", addr, err))
			continue
		}
		asked = true
		break
	}
	if !asked {
		rp.remove(c)
		return Errorf(CodeCluster, "JOIN CLUSTER %s: no member took this server: %s", name, strings.Join(errs, "; "))
	}
	// The members' addresses come with the first image; until it is
	// installed they are only in the answer. Kept on disk first, so that a
	// server stopped or killed before then still reaches the members when
	// it starts again (it could not answer the leader's snapshot else).
	if err := saveJoinMembers(c.dir, answer.Members); err != nil {
		return Errorf(CodeCluster, "JOIN CLUSTER %s: added as a learner, but the members' addresses could not be kept: %v", name, err)
	}
	if err := os.Remove(filepath.Join(c.dir, askingFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Errorf(CodeCluster, "JOIN CLUSTER %s: added as a learner: %v", name, err)
	}
	c.mu.Lock()
	for id, addr := range answer.Members {
		c.addrs[id] = addr
		c.tr.SetPeer(id, addr)
	}
	c.mu.Unlock()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		st := c.node.Status()
		if slices.Contains(st.Voters, st.ID) {
			rp.cfg.Logger.Info("cluster joined", "cluster", name, "node", st.ID, "applied", st.Applied)
			return nil
		}
		select {
		case <-ctx.Done():
			return Errorf(CodeClusterUnavailable, "JOIN CLUSTER %s: added as a learner, still catching up after %s (applied %d of %d); it goes on in the background, and SHOW STATUS LIKE 'cluster_%s_%%' tells its state", name, joinTimeout, st.Applied, st.Commit, name)
		case <-c.node.Done():
			if cur, ok := rp.cluster(name); !ok || cur != c {
				return Errorf(CodeCluster, "JOIN CLUSTER %s: cancelled: DELETE CLUSTER %s ran on this server meanwhile", name, name)
			}
			return Errorf(CodeClusterUnavailable, "JOIN CLUSTER %s: the node stopped: %v", name, c.node.Err())
		case <-tick.C:
		}
	}
}

// handleRequest answers the requests of other servers: a join.
func (rp *replication) handleRequest(ctx context.Context, name string, b []byte) ([]byte, error) {
	var req joinRequest
	if err := json.Unmarshal(b, &req); err != nil || req.Op != "join" && req.Op != "leave" {
		return nil, fmt.Errorf("a request this server does not know")
	}
	c, ok := rp.cluster(name)
	if !ok {
		return nil, fmt.Errorf("cluster '%s' is not on %s", name, rp.cfg.Advertise)
	}
	if req.ID == 0 || req.Addr == "" {
		return nil, fmt.Errorf("a %s without the node's ID and address", req.Op)
	}
	if req.Op == "leave" {
		return nil, rp.handleLeave(ctx, c, req)
	}
	if req.ID == c.id {
		// JOIN CLUSTER at this server's own address: the cluster it
		// found is the one the join is making, which has no member to
		// take it.
		return nil, fmt.Errorf("that is the joining server's own address: join at the address of another member of cluster '%s' (CREATE CLUSTER %s starts one here)", name, name)
	}
	// A table of the joining server's own with the name of one of the
	// cluster's would stand beside it there: statements without the
	// cluster's name would reach one of the two, writes neither.
	db := c.currentDB()
	for _, t := range req.Tables {
		if !hiddenTable(t) && db.HasTable(t) {
			return nil, fmt.Errorf("the joining server (%s) has a table '%s' of its own, and cluster '%s' has a table '%s': drop or rename the joining server's first (or join, then ALTER CLUSTER %s ADD a table of another name)", req.Addr, t, name, t, name)
		}
	}
	for _, other := range slices.Sorted(maps.Keys(req.Clustered)) {
		for _, t := range req.Clustered[other] {
			if !hiddenTable(t) && db.HasTable(t) {
				return nil, fmt.Errorf("the joining server (%s) has a table '%s' in its cluster '%s', and cluster '%s' has a table '%s': a server holds one table of a name, so drop or rename one of them first", req.Addr, t, other, name, t)
			}
		}
	}
	if err := rp.replaceStale(ctx, c, req.ID, req.Addr); err != nil {
		return nil, err
	}
	out, err := c.propose(ctx, replEntry{Op: opMember, ID: req.ID, Addr: req.Addr})
	if err == nil {
		err = out.err
	}
	if err == nil {
		err = c.node.AddLearner(ctx, req.ID, []byte(req.Addr))
	}
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	members := map[uint64]string{}
	for id, addr := range c.addrs {
		members[id] = addr
	}
	c.mu.RUnlock()
	rp.cfg.Logger.Info("cluster: a node joins", "cluster", name, "node", req.ID, "addr", req.Addr)
	return json.Marshal(joinAnswer{Members: members})
}

// handleLeave takes out of c the node that asks (DELETE CLUSTER on a
// server that joined and has no image yet: see askToLeave). A node is
// taken out only at the address it joined from, which is what a join
// takes too.
func (rp *replication) handleLeave(ctx context.Context, c *replCluster, req joinRequest) error {
	c.mu.RLock()
	addr, known := c.addrs[req.ID]
	c.mu.RUnlock()
	if !known || addr != req.Addr {
		return fmt.Errorf("node %d at %s is not a member of cluster '%s'", req.ID, req.Addr, c.name)
	}
	err := c.node.RemoveNode(ctx, req.ID)
	if err != nil && !errors.Is(err, cluster.ErrNotMember) {
		return err
	}
	rp.cfg.Logger.Info("cluster: a node that was joining leaves", "cluster", c.name, "node", req.ID, "addr", req.Addr)
	return nil
}

// replaceStale takes out of c the members other than id whose address is
// addr: a server that joins from the address of a member it is not has
// lost that member's state (its data directory was wiped or replaced), and
// the old member can never answer again. Left in, it would keep counting
// toward every quorum while it cannot vote, so a three-node cluster with one
// wiped and rejoined node would stop at the next single failure.
func (rp *replication) replaceStale(ctx context.Context, c *replCluster, id uint64, addr string) error {
	c.mu.RLock()
	var stale []uint64
	for mid, a := range c.addrs {
		if a == addr && mid != id {
			stale = append(stale, mid)
		}
	}
	c.mu.RUnlock()
	slices.Sort(stale)
	st := c.node.Status()
	for _, old := range stale {
		// (Applying the removal forgets its address on every member.)
		if slices.Contains(st.Voters, old) || slices.Contains(st.Learners, old) {
			if err := c.node.RemoveNode(ctx, old); err != nil && !errors.Is(err, cluster.ErrNotMember) {
				return fmt.Errorf("node %d was at %s before: taking it out first: %w", old, addr, err)
			}
		} else if _, err := c.propose(ctx, replEntry{Op: opForget, ID: old}); err != nil {
			return fmt.Errorf("node %d was at %s before: forgetting its address: %w", old, addr, err)
		}
		rp.cfg.Logger.Warn("cluster: a node joins from the address of an old member, which is taken out (its data is gone)",
			"cluster", c.name, "old", old, "new", id, "addr", addr)
	}
	return nil
}

// leave takes this server out of cluster c (DELETE CLUSTER): the other
// members go on without it; its copy of the cluster's tables is deleted
// here. The last member deletes the cluster. A server that was removed
// already (and knows it) only deletes its copy.
func (rp *replication) leave(ctx context.Context, c *replCluster) error {
	st := c.node.Status()
	if !c.removed() && !slices.Contains(st.Voters, st.ID) && !slices.Contains(st.Learners, st.ID) {
		// Joined, with no image yet: its log names no member, so it
		// cannot propose its removal; it asks the members its join named.
		if err := rp.askToLeave(ctx, c, st.ID); err != nil {
			return err
		}
	} else if !c.removed() && len(st.Voters)+len(st.Learners) > 1 {
		ctx, cancel := context.WithTimeout(ctx, proposeTimeout)
		defer cancel()
		// (Every member forgets this server's address as it applies the
		// removal.) The removal may commit while this server does not hear
		// it (cut off, or too slow for ctx): it then learns it from a
		// member, and stops (c.removed), which is as good as an answer.
		err := c.node.RemoveNode(ctx, st.ID)
		if errors.Is(err, cluster.ErrLastVoter) {
			// The others left meanwhile (DELETE CLUSTER on each at once):
			// this server is the last member, and deletes the cluster, or
			// it still has learners, which cannot go on without it.
			if now := c.node.Status(); len(now.Learners) > 0 {
				return Errorf(CodeCluster, "DELETE CLUSTER %s: the other voters left meanwhile, and this server is the cluster's last; the joining servers (node ids %v) cannot go on without it: run DELETE CLUSTER %s on them first", c.name, now.Learners, c.name)
			}
			err = nil
		}
		if err != nil && !c.removed() {
			why, lost := waitError(err), ""
			if c.node.Status().Leader == 0 {
				why = "this server sees no leader (it cannot reach a majority of the members)"
				lost = fmt.Sprintf("; if the others are gone for good, SET CLUSTER %s GLOBAL 'pc.bootstrap' = 1 makes this server the cluster alone, and DELETE CLUSTER %s then deletes it", c.name, c.name)
			}
			return Errorf(CodeClusterUnavailable, "DELETE CLUSTER %s: the other members did not take this server out: %s; if they did after all, this server learns so from them within seconds once it reaches one (SHOW STATUS LIKE 'cluster_%s_node_state' says removed), and DELETE CLUSTER %s then drops its copy at once%s", c.name, why, c.name, c.name, lost)
		}
	}
	rp.cfg.Logger.Info("cluster left", "cluster", c.name, "node", st.ID)
	rp.remove(c)
	return nil
}

// askToLeave asks the members a join named to take node id, this
// server's, out of c. With no member known (nothing was answered to the
// join) there is nothing to ask.
func (rp *replication) askToLeave(ctx context.Context, c *replCluster, id uint64) error {
	c.mu.RLock()
	var addrs []string
	for mid, addr := range c.addrs {
		if mid != id {
			addrs = append(addrs, addr)
		}
	}
	c.mu.RUnlock()
	if len(addrs) == 0 {
		return nil
	}
	slices.Sort(addrs)
	ctx, cancel := context.WithTimeout(ctx, proposeTimeout)
	defer cancel()
	req, _ := json.Marshal(joinRequest{Op: "leave", ID: id, Addr: rp.cfg.Advertise})
	var errs []string
	for _, addr := range addrs {
		if _, err := cluster.Request(ctx, rp.tcp, addr, c.name, req); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", addr, err))
			continue
		}
		return nil
	}
	return Errorf(CodeClusterUnavailable, "DELETE CLUSTER %s: this server joined and has no copy yet, and no member took it out: %s", c.name, strings.Join(errs, "; "))
}

// removed reports whether this server's node learned that it was removed
// from c (it stopped for good; see cluster.ErrRemoved).
func (c *replCluster) removed() bool { return errors.Is(c.node.Err(), cluster.ErrRemoved) }

// errRemoved refuses what needs c's log on a server removed from c.
func (c *replCluster) errRemoved() error {
	return Errorf(CodeCluster, "cluster '%s': this server was removed from the cluster (taken out by another member, or by a DELETE CLUSTER %s here whose answer did not arrive); its copy of the cluster's tables is no longer kept up to date and takes no writes: DELETE CLUSTER %s drops it here, then JOIN CLUSTER %s AT '<member address>' takes part again", c.name, c.name, c.name, c.name)
}

// bootstrap restarts this server's member of c as the only member of a new
// group with the log it has (SET CLUSTER c GLOBAL 'pc.bootstrap' = 1): the
// way out of a lost quorum, never taken by itself.
func (rp *replication) bootstrap(c *replCluster) error {
	if c.removed() {
		return c.errRemoved()
	}
	// Only for a lost quorum: a member that hears a leader would throw away
	// what the cluster goes on committing without it (acknowledged writes
	// it has not applied), and the members it hears would be removed. One
	// that never became a voting member has nothing of the cluster to
	// restart from.
	switch st := c.node.Status(); {
	case st.Leader != 0:
		return Errorf(CodeCluster, "SET CLUSTER %s GLOBAL 'pc.bootstrap': this member hears a leader (node %d): the cluster has its quorum, and pc.bootstrap is only the way out of a lost one (SHOW STATUS says status non-primary then); nothing was changed", c.name, st.Leader)
	case st.State == cluster.StateLearner || st.State == cluster.StateNone:
		return Errorf(CodeCluster, "SET CLUSTER %s GLOBAL 'pc.bootstrap': this server is still joining (node_state joining, role %s): it holds nothing of the cluster to restart from; DELETE CLUSTER %s, then JOIN it again", c.name, st.State, c.name)
	}
	rp.cfg.Logger.Error("cluster: forcing a new cluster of this node alone (pc.bootstrap): writes only the lost members held are gone, and they must not come back with their old data",
		"cluster", c.name, "node", c.node.ID())
	rp.mu.Lock()
	delete(rp.clusters, c.name)
	rp.mu.Unlock()
	c.un()
	c.node.Close()
	raft := rp.cfg.Raft
	rp.cfg.Raft = func(o *cluster.Options) {
		if raft != nil {
			raft(o)
		}
		o.ForceNewCluster = true
	}
	c.tr.Close()
	c.mu.Lock()
	c.db.Close()
	c.mu.Unlock()
	_, err := rp.open(c.name, nil, false)
	rp.cfg.Raft = raft
	if err != nil {
		// Open it again as it was, so that it does not vanish from the
		// running server.
		if _, again := rp.open(c.name, nil, false); again != nil {
			return Errorf(CodeCluster, "pc.bootstrap of cluster %s: %v (and opening it again as it was: %v; restart the server)", c.name, err, again)
		}
		return Errorf(CodeCluster, "pc.bootstrap of cluster %s: %v; the cluster is as it was", c.name, err)
	}
	return nil
}

// addTable puts this server's table t into cluster c (ALTER CLUSTER c ADD
// t): its keys are copied to every member through the cluster's log, into
// a staging table, which then becomes t (see copyTableIn); then this
// server drops its own.
func (s *Session) addTable(ctx context.Context, c *replCluster, name string) (*Result, error) {
	if hiddenTable(name) {
		return nil, Errorf(CodeCluster, "ALTER CLUSTER %s ADD %s: '%s' names a table of glint's own", c.name, name, name)
	}
	if t, err := s.engine.db.Table(name); err == nil {
		name = t.Schema().Name // (the table keeps its name as created, whatever the case written here)
	} else {
		if cn := c.r.clusterOf(name); cn != "" {
			return nil, Errorf(CodeCluster, "ALTER CLUSTER %s ADD %s: table '%s' is already in cluster '%s'", c.name, name, name, cn)
		}
		if _, dist := s.engine.db.DistributedTable(name); dist {
			return nil, Errorf(CodeCluster, "ALTER CLUSTER %s ADD %s: '%s' is a distributed table; only tables of documents join a cluster", c.name, name, name)
		}
		return nil, s.tableError(name, err)
	}
	if c.currentDB().HasTable(name) {
		return nil, Errorf(CodeTableExists, "ALTER CLUSTER %s ADD %s: the cluster has a table '%s' already", c.name, name, name)
	}
	if err := c.r.startAdding(c.name, name); err != nil {
		return nil, err
	}
	defer c.r.doneAdding(name)
	// A plain write that got past routeWrite's refusal before the copy
	// began commits before Freeze returns (and is copied) or is refused.
	t, err := s.engine.db.Table(name)
	if err != nil {
		return nil, s.tableError(name, err)
	}
	t.Freeze(errBeingAdded(name, c.name))
	if err := s.copyTableIn(ctx, c, name); err != nil {
		t.Thaw()
		if e := (*Error)(nil); errors.As(err, &e) && (e.Code == CodeTableExists || e.Code == CodeNoSuchTable) && strings.Contains(e.Msg, copyPrefix) {
			// The staging table was another's: a member adding a
			// table of this name at the same time.
			return nil, Errorf(CodeCluster, "ALTER CLUSTER %s ADD %s: another member added a table '%s' to the cluster at the same time, and its copy stands; this server's table is as it was", c.name, name, name)
		}
		return nil, err
	}
	if err := s.engine.db.DropTable(name); err != nil {
		return nil, asError(err)
	}
	return &Result{}, nil
}

// copyWindow is how many entries of a table copy's keys are in flight at
// once.
const copyWindow = 4

// copyTableIn copies this server's table name into cluster c: an entry
// creates a staging table on every member, entries of about copyBatch
// bytes carry its keys, and a last one gives the staging table its name.
// The entries are applied in the log like any (a member that joins
// meanwhile gets them, or a snapshot holding them). A copy that fails
// midway drops its staging table (or the next ADD of the table does).
func (s *Session) copyTableIn(ctx context.Context, c *replCluster, name string) error {
	stage := copyPrefix + name
	send := func(ent replEntry) error {
		out, err := s.propose(ctx, c, ent)
		if err == nil {
			err = out.err
		}
		return err
	}
	if c.currentDB().HasTable(stage) {
		if err := send(replEntry{Op: opCopyDrop, Table: stage}); err != nil {
			return err
		}
	}
	t, err := s.engine.db.Table(name)
	if err != nil {
		return s.tableError(name, err)
	}
	schema := *t.Schema()
	if err := send(replEntry{Op: opCopyBegin, Table: stage, Schema: &schema}); err != nil {
		return err
	}
	// The entries of keys go copyWindow at a time: they are independent
	// (puts of distinct keys into the staging table, in any order), and
	// several in flight share the log's fsyncs and overlap replicating
	// one with applying another, where one at a time waited for each.
	var (
		inflight = make(chan struct{}, copyWindow)
		wg       sync.WaitGroup
		mu       sync.Mutex
		sendErr  error
	)
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return sendErr
	}
	_, nextID, err := s.engine.db.ExportTable(ctx, name, copyBatch, func(kvs []index.KV) error {
		inflight <- struct{}{}
		if err := failed(); err != nil {
			<-inflight
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-inflight }()
			if err := send(replEntry{Op: opCopyKeys, Table: stage, KVs: kvs}); err != nil {
				mu.Lock()
				if sendErr == nil {
					sendErr = err
				}
				mu.Unlock()
			}
		}()
		return nil
	})
	wg.Wait()
	if err == nil {
		err = failed()
	}
	if err == nil {
		err = send(replEntry{Op: opCopyEnd, Table: stage, Name: name, NextID: nextID})
	}
	if err != nil {
		if derr := send(replEntry{Op: opCopyDrop, Table: stage}); derr != nil {
			c.r.cfg.Logger.Warn("ALTER CLUSTER ADD: the staging table stays until the next ADD of the table", "cluster", c.name, "table", name, "err", derr)
		}
		return asError(err)
	}
	return nil
}

// detachTable takes table name out of cluster c (ALTER CLUSTER c DROP t):
// every member keeps a copy as a table of its own, and the cluster drops it.
func (s *Session) detachTable(ctx context.Context, c *replCluster, name string) (*Result, error) {
	if hiddenTable(name) {
		return nil, Errorf(CodeCluster, "ALTER CLUSTER %s DROP %s: '%s' names a table of glint's own", c.name, name, name)
	}
	if !c.currentDB().HasTable(name) {
		if cn := c.r.clusterOf(name); cn != "" {
			return nil, Errorf(CodeCluster, "ALTER CLUSTER %s DROP %s: table '%s' is in cluster '%s', not '%s'", c.name, name, name, cn, c.name)
		}
		if s.engine.db.HasTable(name) {
			return nil, Errorf(CodeCluster, "ALTER CLUSTER %s DROP %s: table '%s' is not in a cluster (it is this server's own)", c.name, name, name)
		}
		return nil, Errorf(CodeNoSuchTable, "ALTER CLUSTER %s DROP %s: unknown table '%s'", c.name, name, name)
	}
	if s.engine.db.HasTable(name) {
		return nil, Errorf(CodeTableExists, "ALTER CLUSTER %s DROP %s: this server has a table '%s' of its own, which the cluster's would replace", c.name, name, name)
	}
	if t, err := c.currentDB().Table(name); err == nil {
		name = t.Schema().Name // (as the cluster has it, whatever the case written here)
	}
	out, err := s.propose(ctx, c, replEntry{Op: opDetach, Table: name})
	if err == nil {
		err = out.err
	}
	if err != nil {
		return nil, err
	}
	return &Result{}, nil
}

// errBeingAdded refuses a plain write to table name while ALTER CLUSTER
// cn ADD copies it.
func errBeingAdded(name, cn string) error {
	return Errorf(CodeCluster, "table '%s' is being added to cluster '%s' (ALTER CLUSTER %s ADD %s): write to it as %s:%s once that is done", name, cn, cn, name, cn, name)
}

// startAdding notes that table name is being added to cluster cn: plain
// writes to it are refused meanwhile (they would not be copied).
func (rp *replication) startAdding(cn, name string) error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	lower := strings.ToLower(name)
	if other, busy := rp.adding[lower]; busy {
		return Errorf(CodeCluster, "ALTER CLUSTER %s ADD %s: the table is being added to cluster '%s' already", cn, name, other)
	}
	if rp.adding == nil {
		rp.adding = map[string]string{}
	}
	rp.adding[lower] = cn
	return nil
}

func (rp *replication) doneAdding(name string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	delete(rp.adding, strings.ToLower(name))
}

// addingTo is the cluster table name is being added to, or "".
func (rp *replication) addingTo(name string) string {
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	return rp.adding[strings.ToLower(name)]
}

// A member that has applied less than its leader has committed is
// catching up (node_state joining) once it is catchUpEntries behind, or
// behind for longer than catchUpGrace: a member that keeps up lags by a
// batch or two for a moment at each write.
const (
	catchUpEntries = 1000
	catchUpGrace   = time.Second
)

// clusterCounters are SHOW STATUS's rows of the clusters.
func (rp *replication) counters() []counter {
	var out []counter
	for _, cn := range rp.names() {
		c, _ := rp.cluster(cn)
		st := c.node.Status()
		p := "cluster_" + cn + "_"
		status := "primary"
		if st.Leader == 0 {
			status = "non-primary"
		}
		node := "synced"
		switch {
		case st.State == cluster.StateRemoved:
			node = "removed"
		case st.State == cluster.StateLearner || st.State == cluster.StateNone:
			node = "joining"
		case st.Leader == 0:
			node = "disconnected"
		case st.State != cluster.StateLeader && (st.Behind > catchUpGrace || st.LeaderCommit > st.Applied+catchUpEntries):
			node = "joining" // catching up, after a restart or a partition
		}
		c.mu.RLock()
		var nodes []string
		for _, id := range append(slices.Clone(st.Voters), st.Learners...) {
			if a := c.addrs[id]; a != "" {
				nodes = append(nodes, a)
			}
		}
		c.mu.RUnlock()
		var tables []string
		for _, t := range c.currentDB().TableNames() {
			if !hiddenTable(t) {
				tables = append(tables, t)
			}
		}
		u := func(v uint64) string { return strconv.FormatUint(v, 10) }
		out = append(out,
			counter{"cluster_name", cn},
			counter{p + "status", status},
			counter{p + "node_state", node},
			counter{p + "node_id", u(st.ID)},
			counter{p + "role", string(st.State)},
			counter{p + "leader", u(st.Leader)},
			counter{p + "term", u(st.Term)},
			counter{p + "size", strconv.Itoa(len(st.Voters) + len(st.Learners))},
			counter{p + "voters", strconv.Itoa(len(st.Voters))},
			counter{p + "nodes_view", strings.Join(nodes, ",")},
			counter{p + "last_committed", u(st.Commit)},
			counter{p + "last_applied", u(st.Applied)},
			counter{p + "indexes_count", strconv.Itoa(len(tables))},
			counter{p + "indexes", strings.Join(tables, ",")},
		)
	}
	return out
}

// linearize makes a read of the table of from linearizable: when the table
// is a cluster's, this member learns the cluster's commit index from the
// leader (raft's ReadIndex, shared by concurrent reads) and waits until it
// has applied it. A table of this server alone is read as is: no other
// server writes it.
func (s *Session) linearize(ctx context.Context, from *ast.TableRefsClause) error {
	name, err := tableOf(from)
	if err != nil {
		return err
	}
	return s.linearizeTable(ctx, name)
}

// linearizeTable is linearize of the table name (c:t or t). A plain name
// that no cluster holds on this member yet, and that is no table of this
// server's own, may be a cluster's table created elsewhere whose creation
// this member has not applied: the read waits on every cluster of this
// server, so that it finds the table as the leader would.
func (s *Session) linearizeTable(ctx context.Context, name string) error {
	cn, _, ok := dialect.SplitClusterTable(name)
	if !ok {
		cn = s.engine.repl.clusterOf(name)
		if cn == "" {
			if s.engine.db.HasTable(name) {
				return nil
			}
			for _, other := range s.engine.repl.names() {
				if c, found := s.engine.repl.cluster(other); found && !c.removed() {
					if err := s.linearizeCluster(ctx, c); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	c, found := s.engine.repl.cluster(cn)
	if !found {
		return nil
	}
	return s.linearizeCluster(ctx, c)
}

// linearizeCluster waits until this member has applied what cluster c
// committed before the call (raft's ReadIndex).
func (s *Session) linearizeCluster(ctx context.Context, c *replCluster) error {
	if c.removed() {
		return c.errRemoved()
	}
	ctx, cancel := context.WithTimeout(ctx, proposeTimeout)
	defer cancel()
	if _, err := c.node.ReadIndex(ctx); err != nil {
		if c.node.Status().Leader == 0 {
			return Errorf(CodeClusterUnavailable, "cluster '%s': this member sees no leader (it cannot reach a majority of the members), and a linearizable read needs one; a read without OPTION consistency='linearizable' answers from this member's copy", c.name)
		}
		return Errorf(CodeClusterUnavailable, "cluster '%s': a linearizable read needs its leader, which did not answer: %v", c.name, waitError(err))
	}
	return nil
}

// waitError words an error of a wait on the cluster for a user: a
// deadline is the time waited.
func waitError(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", proposeTimeout)
	}
	return err.Error()
}

// nondeterministic are the functions whose value differs from member to
// member for the same statement.
var nondeterministic = map[string]bool{"sysdate": true, "rand": true, "uuid": true, "uuid_short": true}

// nondeterministicCall names a call of n to one of them, "" when none.
func nondeterministicCall(n ast.Node) string { return firstCall(n, nondeterministic) }

// firstCall names the first call in n of a function of names (lower
// case), "" when there is none.
func firstCall(n ast.Node, names map[string]bool) string {
	v := &callFinder{names: names}
	n.Accept(v)
	return v.found
}

type callFinder struct {
	names map[string]bool
	found string
}

func (v *callFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && v.names[f.FnName.L] && v.found == "" {
		v.found = f.FnName.L
	}
	return n, v.found != ""
}

func (v *callFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
