package sql

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/glint-search/glint/cluster"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/durable"
)

// Replication is how this server takes part in replication clusters (see
// docs/replication.md): where their data lives and how their members reach
// each other.
type Replication struct {
	// Dir holds one directory per cluster: its raft log, its tables and
	// this node's ID in it.
	Dir string
	// Listener takes the connections of the other members.
	Listener net.Listener
	// Advertise is the address the other members reach this server at
	// (default: the Listener's address).
	Advertise string
	// ServerTLS and ClientTLS, when set, put the members' connections
	// under TLS.
	ServerTLS, ClientTLS *tls.Config
	// Index are the options of the clusters' databases (Dir and
	// Replicated are set per cluster).
	Index index.Options
	// Logger gets the clusters' messages (default slog.Default()).
	Logger *slog.Logger
	// Raft adjusts the raft options of every cluster (tests shorten the
	// ticks); nil keeps cluster.DefaultOptions.
	Raft func(*cluster.Options)
	// Via maps members' addresses to the addresses this server dials
	// them at (cluster.TCPConfig.Via).
	Via map[string]string
	// SnapshotRate bounds the bytes a second of each snapshot this server
	// sends to a member (cluster.TCPConfig.SnapshotRate; 0: no bound).
	SnapshotRate int64
	// SnapshotEntries is how many entries a cluster applies between two
	// snapshots (cluster.Options.SnapshotEntries; 0:
	// DefaultSnapshotEntries).
	SnapshotEntries uint64
}

// DefaultSnapshotEntries is the snapshot cadence of Replication.
const DefaultSnapshotEntries = 10000

// replication is the clusters of this server.
type replication struct {
	cfg    Replication
	engine *Engine
	srv    *cluster.TCPServer
	tcp    cluster.TCPConfig
	served chan error

	mu       sync.RWMutex
	clusters map[string]*replCluster
	adding   map[string]string // table (lower case) -> the cluster ALTER CLUSTER ADD is copying it to
	// starting are the clusters a CREATE CLUSTER or JOIN CLUSTER of this
	// server is making, until it is open or has failed: a second one of
	// the same name is refused while the first runs.
	starting map[string]string // cluster -> its statement

	// dbHold is held for reading by a SELECT while it runs, and for
	// writing while a snapshot install closes a cluster's database and
	// opens the one that replaces it: a read on a closed database would
	// fail, or fault on its unmapped files. It is taken before a
	// cluster's mu, never after.
	dbHold sync.RWMutex
}

// holdDBs holds the clusters' databases for a SELECT of s, unless s holds
// them already (a subquery): held is false then, and without replication.
func (rp *replication) holdDBs(s *Session) (unlock func(), held bool) {
	if rp == nil || s.holdsDBs {
		return nil, false
	}
	rp.dbHold.RLock()
	s.holdsDBs = true
	return func() {
		s.holdsDBs = false
		rp.dbHold.RUnlock()
	}, true
}

// replCluster is one cluster this server is a member of.
type replCluster struct {
	name string
	dir  string
	id   uint64 // this server's node ID (c.node's, known before c.node is)
	r    *replication
	node *cluster.Node
	tr   *cluster.TCPTransport
	un   func()

	mu     sync.RWMutex // db is replaced when a snapshot is restored
	db     *index.DB
	addrs  map[uint64]string // the members' addresses, from member entries
	prepMu sync.Mutex        // held while the images of snapshots received are swapped in, removed or completed
}

// ErrNoReplication is the error of a cluster statement on a server
// started without a replication listener.
var errNoReplication = Errorf(CodeUnsupported, "replication is off on this server: start glintd with replication_listen set to use clusters")

// StartReplication opens the clusters under r.Dir and serves their members'
// connections on r.Listener until Close.
func (e *Engine) StartReplication(r Replication) error {
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if r.Advertise == "" {
		r.Advertise = r.Listener.Addr().String()
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("replication: %w", err)
	}
	rp := &replication{cfg: r, engine: e, clusters: map[string]*replCluster{}, served: make(chan error, 1)}
	if r.SnapshotRate < 0 {
		return fmt.Errorf("replication: snapshot rate %d bytes/s is negative (0: no bound)", r.SnapshotRate)
	}
	rp.tcp = cluster.TCPConfig{ServerTLS: r.ServerTLS, ClientTLS: r.ClientTLS, Via: r.Via, SnapshotRate: r.SnapshotRate,
		Logf: func(f string, a ...any) { r.Logger.Debug(fmt.Sprintf(f, a...)) }}
	rp.srv = cluster.NewTCPServer(rp.tcp)
	rp.srv.HandleRequests(rp.handleRequest)
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return fmt.Errorf("replication: %w", err)
	}
	for _, de := range entries {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if err := rp.lowerDir(de.Name()); err != nil {
			rp.close()
			return fmt.Errorf("replication: cluster %s: %w", de.Name(), err)
		}
		if stmt, warn := unfinished(filepath.Join(r.Dir, clusterKey(de.Name()))); stmt != "" {
			// It never answered, and no member knows of this server there.
			r.Logger.Warn(warn, "cluster", clusterKey(de.Name()))
			if err := os.RemoveAll(filepath.Join(r.Dir, clusterKey(de.Name()))); err != nil {
				rp.close()
				return fmt.Errorf("replication: cluster %s: removing an unfinished %s: %w", de.Name(), stmt, err)
			}
			continue
		}
		c, err := rp.open(clusterKey(de.Name()), nil, false)
		if err != nil {
			rp.close()
			return fmt.Errorf("replication: cluster %s: %w", de.Name(), err)
		}
		c.mu.Lock()
		known := c.addrs[c.id]
		c.mu.Unlock()
		if known != "" && known != r.Advertise {
			// The members reach this member where it was: they will not
			// hear it here.
			r.Logger.Warn("cluster: the members know this member at another address than it is reached at now; they will not reach it (start it at the address they know, or DELETE CLUSTER here and JOIN again)",
				"cluster", c.name, "known", known, "now", r.Advertise)
		}
	}
	e.repl = rp
	go func() { rp.served <- rp.srv.Serve(r.Listener) }()
	return nil
}

// close stops every cluster and the listener.
func (rp *replication) close() {
	rp.srv.Close()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for _, c := range rp.clusters {
		c.close()
	}
	rp.clusters = map[string]*replCluster{}
}

func (c *replCluster) close() {
	c.un()
	c.node.Close()
	c.tr.Close()
	c.mu.Lock()
	c.db.Close()
	c.mu.Unlock()
}

// nodeID reads the ID of this node in the cluster of dir, or makes one: a
// random non-zero number, so that an ID is never given twice.
func nodeID(dir string) (uint64, error) {
	path := filepath.Join(dir, "node.id")
	b, err := os.ReadFile(path)
	if err == nil {
		id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || id == 0 {
			return 0, fmt.Errorf("%s: not a node ID", path)
		}
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	var buf [8]byte
	for {
		if _, err := rand.Read(buf[:]); err != nil {
			return 0, err
		}
		if id := binary.BigEndian.Uint64(buf[:]) >> 1; id != 0 {
			return id, durable.WriteFile(path, []byte(strconv.FormatUint(id, 10)+"\n"), 0o644)
		}
	}
}

// dbOptions are the options of a cluster's database in dir.
func (rp *replication) dbOptions(dir string) index.Options {
	o := rp.cfg.Index
	o.Dir, o.InMemory, o.Replicated = dir, false, true
	return o
}

// open opens the cluster name of this server's data; create makes it, with
// this node as its only voter (CREATE CLUSTER) or with none (JOIN CLUSTER,
// peers empty and not nil: it waits to be added).
func (rp *replication) open(name string, peers []uint64, create bool) (*replCluster, error) {
	name = clusterKey(name)
	dir := filepath.Join(rp.cfg.Dir, name)
	if create {
		if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("the data directory holds clusters/%s already, left by a cluster this server was a member of and could not remove: move it away (or remove it) and try again", name)
		} else if err != nil {
			return nil, err
		}
	}
	if create && peers == nil {
		// CREATE CLUSTER: marked as being made until its first entries
		// are committed (create removes the mark); a server stopped
		// before then removes the cluster at its next start.
		if err := durable.WriteFile(filepath.Join(dir, creatingFile), nil, 0o644); err != nil {
			return nil, err
		}
	}
	if create && peers != nil {
		// JOIN CLUSTER: marked as asking until a member took this server
		// (join keeps the members' addresses it answered, joinMembersFile);
		// a server stopped before then removes the cluster at its next
		// start, as no member knows of it.
		if err := durable.WriteFile(filepath.Join(dir, askingFile), nil, 0o644); err != nil {
			return nil, err
		}
	}
	id, err := nodeID(dir)
	if err != nil {
		return nil, err
	}
	db, err := index.Open(rp.dbOptions(filepath.Join(dir, "tables")))
	if err != nil {
		return nil, err
	}
	c := &replCluster{name: name, dir: dir, id: id, r: rp, db: db, addrs: map[uint64]string{}}
	if err := c.cleanPrepared(db.Applied()); err != nil {
		db.Close()
		return nil, err
	}
	if err := c.loadMembers(); err != nil {
		db.Close()
		return nil, err
	}
	c.tr = cluster.NewTCPTransport(name, rp.tcp)
	for mid, addr := range c.addrs {
		c.tr.SetPeer(mid, addr)
	}
	opts := cluster.DefaultOptions(id, filepath.Join(dir, "raft"))
	if create && peers == nil {
		opts.Peers = []uint64{id}
	}
	opts.Logger = rp.cfg.Logger.With("cluster", name)
	if rp.cfg.SnapshotEntries > 0 {
		// The log keeps no more entries behind a snapshot than the
		// cadence: a short cadence is asked for to keep the log short.
		opts.SnapshotEntries = rp.cfg.SnapshotEntries
		opts.CatchUpEntries = min(opts.CatchUpEntries, opts.SnapshotEntries)
	}
	if rp.cfg.Raft != nil {
		rp.cfg.Raft(&opts)
	}
	node, err := cluster.Open(opts, &clusterSM{c: c}, c.tr)
	if err != nil {
		c.tr.Close()
		db.Close()
		return nil, err
	}
	c.node = node
	if c.un, err = rp.srv.Register(name, node); err != nil {
		node.Close()
		c.tr.Close()
		db.Close()
		return nil, err
	}
	rp.mu.Lock()
	rp.clusters[name] = c
	rp.mu.Unlock()
	return c, nil
}

// creatingFile, in a cluster's directory, marks a CREATE CLUSTER that has
// not finished; askingFile a JOIN CLUSTER no member has answered yet.
const (
	creatingFile = "creating"
	askingFile   = "join-asking"
)

// unfinished tells of the cluster in dir whose statement never answered,
// which the start removes: a CREATE CLUSTER still marked as being made, or
// a JOIN CLUSTER marked as asking without the members' addresses an
// answer brings. It returns the statement and the warning to log, or ""
// when the cluster is whole.
func unfinished(dir string) (stmt, warn string) {
	if _, err := os.Stat(filepath.Join(dir, creatingFile)); err == nil {
		return "CREATE CLUSTER", "cluster: removing a cluster whose CREATE CLUSTER did not finish before the server stopped; create it again"
	}
	if _, err := os.Stat(filepath.Join(dir, askingFile)); err != nil {
		return "", ""
	}
	if _, err := os.Stat(filepath.Join(dir, joinMembersFile)); errors.Is(err, fs.ErrNotExist) {
		return "JOIN CLUSTER", "cluster: removing a cluster whose JOIN CLUSTER no member had answered before the server stopped; join it again"
	}
	return "", ""
}

// clusterKey is the form of a cluster's name that this server keeps it
// under: names are case-insensitive, as table names are.
func clusterKey(name string) string { return strings.ToLower(name) }

// lowerDir renames the directory of cluster name to its lower-case form
// when a server before names were case-insensitive made it.
func (rp *replication) lowerDir(name string) error {
	key := clusterKey(name)
	if key == name {
		return nil
	}
	to := filepath.Join(rp.cfg.Dir, key)
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("clusters/%s and clusters/%s differ only in case, and cluster names are case-insensitive: keep one", name, key)
	}
	if err := os.Rename(filepath.Join(rp.cfg.Dir, name), to); err != nil {
		return err
	}
	rp.cfg.Logger.Info("cluster: its directory renamed to the lower-case name that cluster names are kept under", "from", name, "to", key)
	return nil
}

// StopReplication stops the clusters of this server (before its storage
// closes).
func (e *Engine) StopReplication() {
	if e.repl != nil {
		e.repl.close()
	}
}
