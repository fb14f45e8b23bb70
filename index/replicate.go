package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/internal/durable"
)

// Replication (see doc.go): a replicated DB applies raft entries, each one
// statement, and records the index of the last one applied in the same
// badger transaction as the statement's change.

// ErrReplicated is the error of a change to a replicated DB made outside
// DB.Apply: its tables change only by raft entries.
var ErrReplicated = errors.New("index: the database is replicated: its tables change only through DB.Apply")

// ErrApplied is the error of DB.Apply for an entry at or below the applied
// index: applied indexes only go up.
var ErrApplied = errors.New("index: raft entry already applied")

// ErrEntryUsed is the error of a second change made with the context of
// one DB.Apply (or a change after it returned): one raft entry applies
// one statement, which changes one table or the catalog once.
var ErrEntryUsed = errors.New("index: raft entry already made its change")

// NotAppliedError is the error of DB.Apply when the entry was not applied
// for a reason of this node alone (a failed or refused storage write, a
// full disk, the DB closing, ctx done, or a misuse of the entry's
// context): the applied index stays where it was, and the entry must be
// applied again (or the node stop), never skipped.
type NotAppliedError struct {
	Index uint64
	Err   error
}

func (e *NotAppliedError) Error() string {
	return fmt.Sprintf("index: raft entry %d not applied: %v", e.Index, e.Err)
}

func (e *NotAppliedError) Unwrap() error { return e.Err }

// entry is the raft entry that one DB.Apply applies; the context passed to
// its fn carries it to the change (Table.Write or a DDL method) that
// records its index.
type entry struct {
	db    *DB
	index uint64

	mu        sync.Mutex
	claimed   bool  // a change took the entry
	committed bool  // that change committed, with the applied index
	failed    error // a failure of this node's storage, or a misuse: not applied
	ended     bool  // Apply returned
}

type entryKey struct{}

// claim returns the raft entry that ctx carries for a change to db, or
// nil when ctx carries none and db is not replicated. Errors are misuses:
// an untagged change to a replicated DB, an entry of another DB, a second
// change with one entry.
func (db *DB) claim(ctx context.Context) (*entry, error) {
	e, _ := ctx.Value(entryKey{}).(*entry)
	if e == nil {
		if db.replicated {
			return nil, ErrReplicated
		}
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	switch {
	case e.db != db:
		err = fmt.Errorf("index: raft entry %d is applied to another database", e.index)
	case e.ended:
		err = fmt.Errorf("%w: entry %d: its Apply has returned", ErrEntryUsed, e.index)
	case e.claimed:
		err = fmt.Errorf("%w: entry %d: a statement of one entry makes one change", ErrEntryUsed, e.index)
	}
	if err != nil {
		if e.failed == nil {
			e.failed = err
		}
		return nil, err
	}
	e.claimed = true
	return e, nil
}

// hold is what a change to db's storage holds while it runs (change).
type hold struct {
	db     *DB
	resume func() // the maintenance's, after an exclusive change; nil for a shared one
}

// change starts a change to db's storage, as every one starts: it claims
// the raft entry ctx carries (nil without replication) and holds the
// write lock: shared for a change of one table's keys or of the catalog;
// exclusive, with the maintenance interrupted, for one that removes or
// moves a table's data, which no table write may run beside. The caller
// releases the hold when done. A closed db is ErrClosed, a failure of
// this node noted on the entry.
func (db *DB) change(ctx context.Context, exclusive bool) (*entry, hold, error) {
	e, err := db.claim(ctx)
	if err != nil {
		return nil, hold{}, err
	}
	h := hold{db: db}
	if exclusive {
		h.resume = db.maint.interrupt()
		db.wmu.Lock()
	} else {
		db.wmu.RLock()
	}
	if db.closed {
		h.release()
		return nil, hold{}, e.fail(ErrClosed)
	}
	return e, h, nil
}

// release lets go of what change took.
func (h hold) release() {
	if h.resume == nil {
		h.db.wmu.RUnlock()
		return
	}
	h.db.wmu.Unlock()
	h.resume()
}

// record writes the applied index in txn, the change's transaction. Nil e
// (no replication) writes nothing.
func (e *entry) record(txn *badger.Txn) error {
	if e == nil {
		return nil
	}
	return txn.Set(keyApplied, binary.BigEndian.AppendUint64(nil, e.index))
}

// done notes that the change's transaction committed.
func (e *entry) done() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.committed = true
	e.mu.Unlock()
	e.db.applied.Store(e.index)
}

// fail notes err, a failure of this node (the entry is not applied), and
// returns it.
func (e *entry) fail(err error) error {
	if e == nil || err == nil {
		return err
	}
	e.mu.Lock()
	if e.failed == nil && !e.committed {
		e.failed = err
	}
	e.mu.Unlock()
	return err
}

// Applied is the index of the last raft entry applied: 0 for a DB that has
// applied none (and for a DB without replication).
func (db *DB) Applied() uint64 { return db.applied.Load() }

// Apply applies raft entry i: fn runs the entry's statement, handing the
// ctx it gets to the one Table.Write or DDL method (CreateTableContext,
// DropTableContext, TruncateTableContext) the statement makes. That change
// commits "applied = i" in its own badger transaction, so after a crash
// Applied is the index of the last entry whose change is visible, and the
// node replays from Applied()+1.
//
// When fn makes no change (a no-op statement, or fn is nil) or the change
// fails deterministically (fn's error, or a DDL or Writer error such as a
// *DuplicateIDError or ErrTableExists), Apply records i in a transaction of
// its own and returns fn's error: the entry is applied, its outcome is that
// error, and it is not applied again. When the entry could not be applied
// for a reason of this node (see NotAppliedError) Apply returns a
// *NotAppliedError and Applied stays.
//
// Entries apply one at a time, in increasing order: i <= Applied() is
// refused with ErrApplied, without running fn (the raft layer starts its
// log at Applied()+1, so this means a bug, not a replay). Gaps are allowed
// (raft entries that carry no statement need not be passed). Apply is for
// a DB opened with Replicated; on another DB it is an error.
func (db *DB) Apply(ctx context.Context, i uint64, fn func(ctx context.Context) error) error {
	if !db.replicated {
		return fmt.Errorf("index: Apply of raft entry %d to a database opened without Replicated", i)
	}
	db.applyMu.Lock()
	defer db.applyMu.Unlock()
	if cur := db.applied.Load(); i <= cur {
		return fmt.Errorf("%w: entry %d, applied index %d", ErrApplied, i, cur)
	}
	e := &entry{db: db, index: i}
	var err error
	if fn != nil {
		err = fn(context.WithValue(ctx, entryKey{}, e))
	}
	e.mu.Lock()
	e.ended = true
	committed, failed := e.committed, e.failed
	e.mu.Unlock()
	switch {
	case committed:
		return err
	case failed != nil:
		if err == nil || !errors.Is(err, failed) {
			err = failed
		}
		return &NotAppliedError{Index: i, Err: err}
	case ctx.Err() != nil:
		return &NotAppliedError{Index: i, Err: ctx.Err()}
	}
	if aerr := db.advance(i); aerr != nil {
		return &NotAppliedError{Index: i, Err: aerr}
	}
	return err
}

// advance records applied = i in a transaction of its own.
func (db *DB) advance(i uint64) error {
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	err := db.update(func(txn *badger.Txn) error {
		return txn.Set(keyApplied, binary.BigEndian.AppendUint64(nil, i))
	})
	if err != nil {
		return err
	}
	db.applied.Store(i)
	return nil
}

// Sync makes every entry applied up to the index it returns durable (a
// power loss keeps them), for a DB that does not sync each write (without
// SyncWrites): the raft layer calls it before it compacts its log, which
// then no longer holds those entries. Badger's own Sync covers the
// memtable being written and the value-log file being appended to, not
// the full memtables that wait to be flushed to tables nor the value-log
// files it moved on from (without SyncWrites it syncs neither), so Sync
// also syncs their files.
func (db *DB) Sync() (uint64, error) {
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return 0, ErrClosed
	}
	if err := db.refused(); err != nil {
		return 0, err
	}
	applied := db.applied.Load()
	if db.inMemory {
		return applied, nil
	}
	if err := db.bdb.Sync(); err != nil {
		return 0, db.writeFailed(fmt.Errorf("index: sync: %w", err))
	}
	mems, err := filepath.Glob(filepath.Join(db.dir, "*.mem"))
	if err != nil {
		return 0, fmt.Errorf("index: sync: %w", err)
	}
	vlogs, err := filepath.Glob(filepath.Join(db.dir, "*.vlog"))
	if err != nil {
		return 0, fmt.Errorf("index: sync: %w", err)
	}
	for _, name := range append(mems, vlogs...) {
		if err := syncFile(name); err != nil {
			return 0, db.writeFailed(fmt.Errorf("index: sync: %w", err))
		}
	}
	return applied, nil
}

// syncFile fsyncs a file (its pages written through badger's mmap too);
// one that is gone (a memtable flushed meanwhile, its table synced, or a
// value-log file that garbage collection rewrote) is fine.
func syncFile(name string) error {
	if err := durable.SyncFile(name); !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// loadApplied reads the applied index (recover).
func (db *DB) loadApplied(txn *badger.Txn) error {
	item, err := txn.Get(keyApplied)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return item.Value(func(v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("%w: applied index of %d bytes", errCorrupt, len(v))
		}
		i := binary.BigEndian.Uint64(v)
		if !db.replicated {
			return fmt.Errorf("index: the database in %s is replicated (applied index %d): open it with Replicated, or its replicas would differ", db.dir, i)
		}
		db.applied.Store(i)
		return nil
	})
}
