package sql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/cluster"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/internal/durable"
)

// A cluster's raft log holds replEntry values as JSON. A write statement is
// made deterministic where it was sent: the entry carries, beside its
// text, what the statement may read of its session (the time it began and
// its time zone, its collation, the user, the connection ID, the user
// variables), and
// every member runs it with those, on the same state, in log order.
type replEntry struct {
	Op   string `json:"op"`
	SQL  string `json:"sql,omitempty"`
	Now  int64  `json:"now,omitempty"`  // when the statement began, Unix nanoseconds
	Zone string `json:"zone,omitempty"` // the session's @@time_zone, when set
	Coll string `json:"coll,omitempty"` // the session's @@collation_connection, when set (UPDATE ... WHERE tag = 'x')
	User string `json:"user,omitempty"`
	Conn uint32 `json:"conn,omitempty"`
	// Vars are the session's user variables, each as a type letter and
	// its value's text (nil: n, int64: i, uint64: u, float64: f, string: s).
	Vars map[string][2]string `json:"vars,omitempty"`
	ID   uint64               `json:"id,omitempty"` // opMember, opForget
	Addr string               `json:"addr,omitempty"`

	// A table copied in (opCopyBegin, opCopyKeys, opCopyEnd, opCopyDrop)
	// or out (opDetach): see copyTableIn.
	Table  string        `json:"table,omitempty"`   // the staging table; opDetach: the table
	Name   string        `json:"name,omitempty"`    // opCopyEnd: the table's name
	Schema *index.Schema `json:"schema,omitempty"`  // opCopyBegin
	KVs    []index.KV    `json:"kvs,omitempty"`     // opCopyKeys
	NextID uint64        `json:"next_id,omitempty"` // opCopyEnd
}

// The entries' kinds.
const (
	opInit   = "init"   // a new cluster: the members table
	opMember = "member" // member ID is at Addr
	opForget = "forget" // member ID left
	opSQL    = "sql"    // a write statement on a table of the cluster

	opCopyBegin = "copy-begin" // create staging table Table with Schema
	opCopyKeys  = "copy-keys"  // write KVs into staging table Table
	opCopyEnd   = "copy-end"   // staging table Table becomes table Name
	opCopyDrop  = "copy-drop"  // drop staging table Table (a copy given up)
	opDetach    = "detach"     // table Table leaves the cluster: each member keeps it as its own
)

// forgetGrace is how long the transport keeps a removed member's peer.
const forgetGrace = 5 * time.Second

// copyPrefix starts the names of staging tables: tables being copied in,
// hidden from SHOW TABLES and from statements.
const copyPrefix = "__glint_copy_"

// hiddenTable reports whether a cluster's table is its own (the members
// table, staging tables), not the users'.
func hiddenTable(name string) bool { return strings.HasPrefix(strings.ToLower(name), "__glint_") }

// membersTable keeps a cluster's members' addresses in its own database,
// so that they are replicated, snapshotted and restored with its tables.
const membersTable = "__glint_members"

// applyOutcome is what applying an entry gave: the statement's result or
// error, and its warnings. It goes back to the member the statement was
// sent to.
type applyOutcome struct {
	res      *Result
	err      error
	warnings []warning
}

// clusterSM is a cluster as raft's state machine: its database.
type clusterSM struct{ c *replCluster }

func (sm *clusterSM) Apply(e cluster.Entry) (any, error) {
	c := sm.c
	db := c.currentDB()
	ctx := context.Background() // an entry is applied whatever happens to the client
	if e.Change != nil && e.Change.Kind == cluster.Remove {
		// A member removed for good: every member forgets its address in
		// the same step (the removed node itself cannot propose anything
		// once it is out).
		ent := replEntry{Op: opForget, ID: e.Change.Node}
		err := db.Apply(ctx, e.Index, func(ctx context.Context) error { return c.writeMember(ctx, db, ent) })
		if err == nil {
			c.noteMember(ent)
		}
		return nil, notApplied(err)
	}
	if e.Data == nil {
		return nil, notApplied(db.Apply(ctx, e.Index, nil))
	}
	var ent replEntry
	if err := json.Unmarshal(e.Data, &ent); err != nil {
		err = Errorf(CodeInternal, "cluster %s: entry %d does not decode: %v", c.name, e.Index, err)
		return &applyOutcome{err: err}, notApplied(db.Apply(ctx, e.Index, nil))
	}
	out := &applyOutcome{}
	var err error
	switch ent.Op {
	case opInit:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error {
			return db.CreateTableContext(ctx, index.Schema{Name: membersTable, Columns: []index.Column{{Name: "addr", Type: index.TypeString}}})
		})
	case opMember, opForget:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error { return c.writeMember(ctx, db, ent) })
		if err == nil {
			c.noteMember(ent)
		}
	case opCopyBegin:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error {
			if ent.Schema == nil || !strings.HasPrefix(ent.Table, copyPrefix) {
				return Errorf(CodeInternal, "cluster %s: entry %d: a copy without its schema or staging table", c.name, e.Index)
			}
			schema := *ent.Schema
			schema.Name = ent.Table
			return asError(db.CreateTableContext(ctx, schema))
		})
	case opCopyKeys:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error { return asError(db.ImportKeysContext(ctx, ent.Table, ent.KVs)) })
	case opCopyEnd:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error {
			return asError(db.AttachTableContext(ctx, ent.Table, ent.Name, ent.NextID))
		})
		if err == nil && c.r.engine.db.HasTable(ent.Name) && c.r.addingTo(ent.Name) == "" {
			// (The server the ADD ran on dropped its own; another member
			// keeps its table of that name, which the plain name goes on
			// naming there: see docs/replication.md.)
			c.r.cfg.Logger.Warn("ALTER CLUSTER ADD: this server has a table of its own of the name the cluster's table now has; the plain name names its own here, the cluster's is written as cluster:table",
				"cluster", c.name, "table", ent.Name)
		}
	case opCopyDrop:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error { return asError(db.DropTableContext(ctx, ent.Table)) })
	case opDetach:
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error {
			if _, err := db.Table(ent.Table); err != nil {
				return asError(err)
			}
			if !c.memberAt(db) {
				// A server joining later, replaying the log from
				// before its join: it was not a member when the table
				// left, so it keeps no copy (as one that joins from a
				// snapshot taken after the entry keeps none).
				return asError(db.DropTableContext(ctx, ent.Table))
			}
			if err := copyTableOut(db, c.r.engine.db, ent.Table); err != nil {
				// The cluster's table goes on every member alike; this
				// member keeps no copy of it.
				c.r.cfg.Logger.Error("ALTER CLUSTER DROP: this member keeps no copy of the table", "cluster", c.name, "table", ent.Table, "err", err)
			}
			return asError(db.DropTableContext(ctx, ent.Table))
		})
	case opSQL:
		sess := c.r.engine.applySession(c, ent)
		err = db.Apply(ctx, e.Index, func(ctx context.Context) error {
			var err error
			out.res, err = sess.execOne(ctx, ent.SQL)
			return err
		})
		out.warnings = sess.warnings
	default:
		err = db.Apply(ctx, e.Index, func(context.Context) error {
			return Errorf(CodeInternal, "cluster %s: entry %d of unknown kind %q", c.name, e.Index, ent.Op)
		})
	}
	if na := notApplied(err); na != nil {
		return nil, na
	}
	out.err = err
	return out, nil
}

// notApplied is err when it says the entry was not applied here (the node
// must stop), nil otherwise.
func notApplied(err error) error {
	var na *index.NotAppliedError
	if errors.As(err, &na) {
		return err
	}
	return nil
}

func (sm *clusterSM) AppliedIndex() (uint64, error) { return sm.c.currentDB().Applied(), nil }

func (sm *clusterSM) Sync() error {
	_, err := sm.c.currentDB().Sync()
	return err
}

func (sm *clusterSM) Snapshot(w io.Writer) error {
	_, err := sm.c.currentDB().StreamTo(context.Background(), w)
	return err
}

// Restore builds the image in a directory beside the tables, swaps it in
// and opens it. (The node restores from a stream only images spooled
// by a build from before Prepare kept them.)
func (sm *clusterSM) Restore(r io.Reader) error {
	c := sm.c
	tables := filepath.Join(c.dir, "tables")
	tmp := tables + ".restore"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if _, err := index.Restore(context.Background(), c.r.dbOptions(tmp), r); err != nil {
		return err
	}
	c.prepMu.Lock()
	defer c.prepMu.Unlock()
	if err := sm.swapIn(tmp); err != nil {
		return err
	}
	return c.dropPrepared(c.currentDB().Applied())
}

// The images of snapshots received are built as they come, each in a
// directory of its own beside the tables: tables.received-<term>-<index>
// (hexadecimal) once complete and synced, with the suffix preparedPart
// while it is built. A complete one is the image of record of its
// snapshot: the node keeps no other copy. (Builds before that named their
// images tables.prepared-<term>-<index>, complete or not, and kept the
// stream in a spool file: those directories are removed at start.)
const (
	preparedPrefix = "tables.received-"
	preparedPart   = ".part"
	preparedOld    = "tables.prepared-"
)

// preparedDir is the directory of the complete image of snapshot (term, at).
func (c *replCluster) preparedDir(term, at uint64) string {
	return filepath.Join(c.dir, fmt.Sprintf("%s%x-%x", preparedPrefix, term, at))
}

// Prepare builds the image of a snapshot as it is received, and syncs it
// (cluster.Preparer).
func (sm *clusterSM) Prepare(term, at uint64, r io.Reader) error {
	c := sm.c
	dir := c.preparedDir(term, at)
	c.prepMu.Lock()
	_, err := os.Stat(dir)
	c.prepMu.Unlock()
	if err == nil {
		// The stream was sent again (the sender did not see the first
		// one through): the image built from the first is kept.
		_, err := io.Copy(io.Discard, r)
		return err
	}
	part := dir + preparedPart
	if err := os.RemoveAll(part); err != nil {
		return err
	}
	// Restore closes the database it built, which syncs its files.
	if _, err := index.Restore(context.Background(), c.r.dbOptions(part), r); err != nil {
		return err
	}
	c.prepMu.Lock()
	defer c.prepMu.Unlock()
	err = durable.SyncDir(part)
	if err == nil {
		err = os.Rename(part, dir)
	}
	if err == nil {
		err = durable.SyncDir(c.dir)
	}
	if err != nil {
		os.RemoveAll(part)
		return fmt.Errorf("cluster %s: the image of snapshot %d: %w", c.name, at, err)
	}
	return nil
}

// RestorePrepared swaps in the image Prepare built of snapshot (term,
// index), if it did, and removes the images of it and of earlier
// snapshots (cluster.Preparer).
func (sm *clusterSM) RestorePrepared(term, at uint64) (bool, error) {
	c := sm.c
	dir := c.preparedDir(term, at)
	c.prepMu.Lock()
	defer c.prepMu.Unlock()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if err := sm.swapIn(dir); err != nil {
		return false, err
	}
	return true, c.dropPrepared(at)
}

// dropPrepared removes the complete images of the snapshots at index at
// or before it: the tables are further on. The caller holds prepMu, or
// nothing else runs yet.
func (c *replCluster) dropPrepared(at uint64) error {
	old, err := filepath.Glob(filepath.Join(c.dir, preparedPrefix+"*"))
	if err != nil {
		return err
	}
	for _, dir := range old {
		var term, index uint64
		name := filepath.Base(dir)
		if strings.HasSuffix(name, preparedPart) {
			continue // being built
		}
		if _, err := fmt.Sscanf(name, preparedPrefix+"%x-%x", &term, &index); err != nil || index > at {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("cluster %s: removing an image installed before: %w", c.name, err)
		}
	}
	return nil
}

// cleanPrepared, at start, removes what a crash may have left beside the
// tables: images half built or half restored, those of an older build,
// and the images of snapshots the tables are at or past (after the swap,
// the directory of the image installed holds the old tables until it is
// removed).
func (c *replCluster) cleanPrepared(applied uint64) error {
	part, err := filepath.Glob(filepath.Join(c.dir, preparedPrefix+"*"+preparedPart))
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(c.dir, preparedOld+"*"))
	if err != nil {
		return err
	}
	for _, dir := range append(append(part, old...), filepath.Join(c.dir, "tables.restore")) {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("cluster %s: removing what a restore left: %w", c.name, err)
		}
	}
	return c.dropPrepared(applied)
}

// swapIn replaces the cluster's tables by the restored database in dir.
// The caller holds prepMu.
func (sm *clusterSM) swapIn(tmp string) error {
	c := sm.c
	tables := filepath.Join(c.dir, "tables")
	// No read runs on the database while it is closed and replaced. The
	// hold comes before the cluster's lock, as a read takes them (a read
	// holding dbHold looks its tables up through currentDB).
	c.r.dbHold.Lock()
	defer c.r.dbHold.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.db.Close(); err != nil {
		return err
	}
	if err := index.SwapIn(tables, tmp); err != nil {
		return err
	}
	db, err := index.Open(c.r.dbOptions(tables))
	if err != nil {
		return fmt.Errorf("cluster %s: opening the restored tables: %w", c.name, err)
	}
	c.db = db
	return c.loadMembersLocked()
}

// currentDB is the cluster's database now.
func (c *replCluster) currentDB() *index.DB {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.db
}

// writeMember records (opMember) or removes (opForget) a member's address.
func (c *replCluster) writeMember(ctx context.Context, db *index.DB, ent replEntry) error {
	t, err := db.Table(membersTable)
	if err != nil {
		return err
	}
	return t.Write(ctx, func(w *index.Writer) error {
		if ent.Op == opForget {
			_, err := w.Delete([]uint64{ent.ID})
			return err
		}
		_, err := w.Replace([]index.Document{{ID: ent.ID, Values: []index.Value{ent.Addr}}})
		return err
	})
}

// memberAt reports whether this server is in db's members table: whether
// it was a member at the point of the log db has applied.
func (c *replCluster) memberAt(db *index.DB) bool {
	t, err := db.Table(membersTable)
	if err != nil {
		return false
	}
	_, ok := t.Snapshot().Lookup(c.id)
	return ok
}

// noteMember tells the transport what a member entry changed.
func (c *replCluster) noteMember(ent replEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ent.Op == opForget {
		delete(c.addrs, ent.ID)
		// The transport keeps the peer a while: the removed node should
		// still hear that its removal is committed (the leader says so in
		// the messages it queued with the commit). The leader sends it
		// nothing new once the removal is applied; a removed node that
		// missed the commit learns it by asking a member (see
		// cluster.Node), over its own connection.
		tr := c.tr
		time.AfterFunc(forgetGrace, func() { tr.RemovePeer(ent.ID) })
		return
	}
	c.addrs[ent.ID] = ent.Addr
	c.tr.SetPeer(ent.ID, ent.Addr)
}

// loadMembers reads the members' addresses from the database.
func (c *replCluster) loadMembers() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadMembersLocked()
}

func (c *replCluster) loadMembersLocked() error {
	t, err := c.db.Table(membersTable)
	addrs := map[uint64]string{}
	switch {
	case errors.Is(err, index.ErrNoSuchTable):
		// A cluster being joined: its first image brings them; until
		// then, those the member that took the join named.
		if addrs, err = loadJoinMembers(c.dir); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		snap := t.Snapshot()
		err = snap.Scan(context.Background(), func(ref index.DocRef) bool {
			addr, _ := snap.Attr(ref, 0).(string)
			addrs[snap.ID(ref)] = addr
			return true
		})
		if err != nil {
			return err
		}
	}
	for id := range c.addrs {
		if _, ok := addrs[id]; !ok && c.tr != nil {
			c.tr.RemovePeer(id)
		}
	}
	c.addrs = addrs
	if c.tr != nil {
		for id, addr := range addrs {
			c.tr.SetPeer(id, addr)
		}
	}
	return nil
}

// applySession is the session an entry's statement runs in: the session
// of the member it was sent to, as far as the statement can see it.
func (e *Engine) applySession(c *replCluster, ent replEntry) *Session {
	s := newSession(e, ent.User, ent.Conn)
	clear(s.vars) // (not this member's SET GLOBALs: the sender's session is what counts)
	s.applying = c
	s.applyNow = time.Unix(0, ent.Now)
	if ent.Zone != "" {
		s.vars["time_zone"] = ent.Zone
	}
	if ent.Coll != "" {
		s.vars["collation_connection"] = ent.Coll
	}
	for name, tv := range ent.Vars {
		s.userVars[name] = decodeVar(tv)
	}
	return s
}

// encodeVar and decodeVar carry a user variable's value through JSON with
// its type.
func encodeVar(v any) [2]string {
	switch v := v.(type) {
	case int64:
		return [2]string{"i", strconv.FormatInt(v, 10)}
	case uint64:
		return [2]string{"u", strconv.FormatUint(v, 10)}
	case float64:
		return [2]string{"f", strconv.FormatFloat(v, 'g', -1, 64)}
	case string:
		return [2]string{"s", v}
	case []byte:
		return [2]string{"s", string(v)}
	}
	return [2]string{"n", ""}
}

func decodeVar(tv [2]string) any {
	switch tv[0] {
	case "i":
		v, _ := strconv.ParseInt(tv[1], 10, 64)
		return v
	case "u":
		v, _ := strconv.ParseUint(tv[1], 10, 64)
		return v
	case "f":
		v, _ := strconv.ParseFloat(tv[1], 64)
		return v
	case "s":
		return tv[1]
	}
	return nil
}

// copyBatch is the bytes of keys one entry of a table copy carries.
const copyBatch = 512 << 10

// copyTableOut copies table name of a cluster's database into this
// server's own (ALTER CLUSTER DROP): through a staging table, attached at
// the end. A table of that name this server already has (a copy made
// before a crash, as the entry is applied again) is kept.
func copyTableOut(from, to *index.DB, name string) error {
	if to.HasTable(name) {
		return nil
	}
	src, err := from.Table(name)
	if err != nil {
		return err
	}
	stage := copyPrefix + name
	if to.HasTable(stage) {
		if err := to.DropTable(stage); err != nil {
			return err
		}
	}
	schema := *src.Schema()
	schema.Name = stage
	if err := to.CreateTable(schema); err != nil {
		return err
	}
	ctx := context.Background()
	_, nextID, err := from.ExportTable(ctx, name, copyBatch, func(kvs []index.KV) error {
		return to.ImportKeysContext(ctx, stage, kvs)
	})
	if err == nil {
		err = to.AttachTableContext(ctx, stage, name, nextID)
	}
	if err != nil {
		if derr := to.DropTable(stage); derr != nil {
			err = errors.Join(err, derr)
		}
		return err
	}
	return nil
}

// joinMembersFile, in a cluster's directory, holds the members' addresses
// that the member which took this server's JOIN named, as JSON: they are
// this server's way to the others until its first image brings the
// members table.
const joinMembersFile = "join-members.json"

// saveJoinMembers keeps members in dir's joinMembersFile, synced.
func saveJoinMembers(dir string, members map[uint64]string) error {
	b, err := json.Marshal(members)
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(dir, joinMembersFile), b, 0o644)
}

// loadJoinMembers reads dir's joinMembersFile: an empty map when there is
// none (a cluster this server created, or one it never got an answer for).
func loadJoinMembers(dir string) (map[uint64]string, error) {
	members := map[uint64]string{}
	b, err := os.ReadFile(filepath.Join(dir, joinMembersFile))
	if errors.Is(err, os.ErrNotExist) {
		return members, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, fmt.Errorf("%s: %w", joinMembersFile, err)
	}
	return members, nil
}
