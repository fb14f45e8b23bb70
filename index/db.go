package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/glint-search/glint/index/tokenize"
)

// DB is the storage engine: a catalog of tables, each an inverted index plus
// attributes, and the document store, all in one badger database.
// Methods are safe for concurrent use.
type DB struct {
	bdb *badger.DB

	// wmu orders badger writes against what must run alone: table writes and
	// DDL hold it shared; DropPrefix (which makes concurrent badger writes fail)
	// and Close hold it exclusively.
	wmu    sync.RWMutex
	closed bool

	cache *postingCache // nil: off

	logger      *log.Logger
	inMemory    bool
	syncWrites  bool
	sync        func() error              // badger's Sync; a test puts a failing one
	syncFailed  atomic.Pointer[SyncError] // set once a sync failed: writes are refused from then on
	dir         string                    // the data directory (Options.Dir)
	reserve     int64                     // free space kept for badger's own writes (space.go); 0: not checked
	statfsFails atomic.Bool               // the free space could not be read (logged once)
	mergeFactor int                       // 0: no background merges
	maint       maintenance
	searching   atomic.Int32 // searches running (search.go)
	knobs       knobs

	replicated bool          // Options.Replicated (replicate.go)
	applyMu    sync.Mutex    // held by Apply: entries apply one at a time
	applied    atomic.Uint64 // the applied index
	streams    streams       // snapshots being streamed (stream.go)

	mu        sync.RWMutex
	tables    map[string]*Table // by lower-case name
	nextTable uint32            // guarded by wmu (exclusive) or mu

	dists map[string]Distributed // distributed tables by lower-case name (distributed.go); guarded by mu
}

// catalogEntry is the JSON value of a table's catalog key.
type catalogEntry struct {
	ID     uint32 // table id, the prefix of all its keys; a TRUNCATE gives a new one
	NextID uint64 // floor of the next auto id (kept across TRUNCATE)
	Schema Schema
}

// badgerLogger passes badger's warnings and errors to a *log.Logger.
type badgerLogger struct {
	l *log.Logger
	// vlogSyncFailed, if set, is told of a failed sync of the value log in a
	// commit under SyncWrites, which badger logs but does not return.
	vlogSyncFailed func(error)
}

// vlogSyncError is the format of badger's (v4) log line for a failed sync of
// the value log in a commit. e2e TestFsyncFailure ("value log only") fails if
// a badger upgrade changes it.
const vlogSyncError = "Error while curlf sync: %v\n"

func (b badgerLogger) Errorf(f string, a ...any) {
	if f == vlogSyncError && len(a) == 1 && b.vlogSyncFailed != nil {
		if err, ok := a[0].(error); ok {
			b.vlogSyncFailed(err)
		}
	}
	if b.l != nil {
		b.l.Printf("badger error: "+strings.TrimSuffix(f, "\n"), a...)
	}
}

func (b badgerLogger) Warningf(f string, a ...any) {
	if b.l != nil {
		b.l.Printf("badger warning: "+strings.TrimSuffix(f, "\n"), a...)
	}
}
func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}

// valueLogFileSize is the size at which badger starts a new value-log file.
const valueLogFileSize = 64 << 20

// badgerOptions tunes badger to the memory budget b (see memoryBudget).
//
// Badger's block compression is off: stored text is already compressed by
// the docstore (s2) and posting lists are packed varints and bitmaps, so it
// saved little on disk while every table build ran twice the CPUs' number
// of compressing goroutines and held a second copy of each block.
//
// Conflict detection is off: every write to a key is already serialized by
// this package's locks (a table's keys by Table.mu, the catalog by DB.mu), so
// badger's per-key bookkeeping of every committed transaction (a hash per key,
// tens of thousands of keys per INSERT of 1,000 documents) would only cost.
func badgerOptions(o Options, b budget) badger.Options {
	dir := o.Dir
	threshold := int64(1 << 10) // larger values go to the value log
	if o.InMemory {
		// No value log in memory: every value stays in the LSM tree, and
		// badger refuses values above the threshold.
		dir = ""
		threshold = 1 << 20
	}
	return badger.DefaultOptions(dir).
		WithInMemory(o.InMemory).
		WithSyncWrites(o.SyncWrites).
		WithLogger(badgerLogger{l: o.Logger}).
		WithMemTableSize(b.memTable).
		WithNumMemtables(3).
		WithBlockCacheSize(b.blockCache).
		WithIndexCacheSize(b.indexCache).
		WithValueLogFileSize(valueLogFileSize).
		WithValueThreshold(threshold).
		WithNumCompactors(2).
		WithCompression(options.None).
		WithDetectConflicts(false).
		WithMetricsEnabled(false)
}

// Open opens or creates the database described by o, recovering every table.
func Open(o Options) (*DB, error) {
	factor := o.MergeFactor
	switch {
	case factor == 1:
		return nil, fmt.Errorf("index: merge factor 1: merging one segment at a time would never end (use 2 or more, or a negative value for none)")
	case factor == 0:
		factor = DefaultMergeFactor
	case factor < 0:
		factor = 0
	}
	limit := o.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	if limit < MinMemoryLimit {
		return nil, fmt.Errorf("index: memory limit %d bytes is below the least that works, %d (128M)", limit, int64(MinMemoryLimit))
	}
	b := memoryBudget(limit)
	reserve := o.DiskReserve
	if reserve == 0 {
		reserve = diskReserve(b.memTable)
	}
	db := &DB{tables: map[string]*Table{}, nextTable: 1, logger: o.Logger, inMemory: o.InMemory,
		dir: o.Dir, reserve: max(reserve, 0), mergeFactor: factor, replicated: o.Replicated}
	if !o.InMemory {
		if err := db.preflight(); err != nil {
			return nil, err
		}
	}
	db.knobs = o.knobs
	db.syncWrites = o.SyncWrites && !o.InMemory
	bo := badgerOptions(o, b)
	if db.syncWrites {
		bo = bo.WithLogger(badgerLogger{l: o.Logger, vlogSyncFailed: func(err error) { db.writeFailed(err) }})
	}
	bdb, err := badger.Open(bo)
	if err != nil {
		return nil, db.openError(err)
	}
	db.bdb = bdb
	db.sync = bdb.Sync
	cacheBytes := o.PostingCacheBytes
	if cacheBytes == 0 {
		cacheBytes = b.postingCache
	}
	db.cache = newPostingCache(cacheBytes)
	retired, err := db.recover()
	if err != nil {
		bdb.Close()
		return nil, err
	}
	db.maint.start(db)
	// The keys of segments that merges retired before the last stop are
	// garbage nothing reads: the background removes them, as it does those
	// retired while running, so a start after a busy crash does not wait
	// for tens of thousands of deletions (docs/restart.md).
	db.maint.retire(retired...)
	for _, t := range db.tables {
		db.maint.enqueue(t) // segments written before merging, or by a lower factor
	}
	return db, nil
}

// recover loads the catalog and every table, and removes the leftovers of
// statements and DDL interrupted by a crash. It returns the segments that
// merges retired whose keys are still there, for the background to remove.
func (db *DB) recover() ([]retiredSegment, error) {
	var entries []catalogEntry
	var garbage [][]byte
	var retired []retiredSegment
	err := db.bdb.View(func(txn *badger.Txn) error {
		if item, err := txn.Get(keyNextTable); err == nil {
			if err := item.Value(func(v []byte) error {
				if len(v) != 4 {
					return fmt.Errorf("%w: next table id", errCorrupt)
				}
				db.nextTable = binary.BigEndian.Uint32(v)
				return nil
			}); err != nil {
				return err
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		if err := db.loadApplied(txn); err != nil {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixCatalog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var e catalogEntry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("index: catalog entry %q: %w", it.Item().Key(), err)
			}
			entries = append(entries, e)
		}
		return db.loadDistributed(txn)
	})
	if err != nil {
		return nil, err
	}
	live := map[uint32]bool{}
	for _, e := range entries {
		t, err := newTable(db, e)
		if err != nil {
			return nil, err
		}
		live[e.ID] = true
		db.nextTable = max(db.nextTable, e.ID+1)
		pending, merged, err := t.load()
		if err != nil {
			return nil, fmt.Errorf("index: table %s: %w", e.Schema.Name, err)
		}
		garbage = append(garbage, pending...)
		retired = append(retired, merged...)
		db.tables[strings.ToLower(e.Schema.Name)] = t
	}
	// Tables dropped or truncated whose data was not yet removed.
	err = db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixTable}})
		defer it.Close()
		for it.Seek([]byte{prefixTable}); it.Valid(); {
			key := it.Item().Key()
			if len(key) < 5 {
				it.Next()
				continue
			}
			tid := keyTable(key)
			db.nextTable = max(db.nextTable, tid+1)
			if !live[tid] {
				garbage = append(garbage, tableKey(tid))
			}
			if tid == ^uint32(0) {
				break
			}
			it.Seek(tableKey(tid + 1))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(garbage) > 0 {
		if err := db.dropPrefix(garbage...); err != nil {
			return nil, fmt.Errorf("index: removing leftovers: %w", err)
		}
	}
	return retired, nil
}

// Close waits for running writes and closes the storage. Later calls return nil.
func (db *DB) Close() error {
	db.maint.stop()    // a merge in progress gives up
	db.streams.close() // and so does a snapshot being streamed
	db.wmu.Lock()
	if db.closed {
		db.wmu.Unlock()
		return nil
	}
	db.closed = true
	err := db.bdb.Close()
	db.wmu.Unlock()
	<-db.maint.done
	return err
}

// dropPrefix removes every key under the prefixes, unless a sync failed.
func (db *DB) dropPrefix(prefixes ...[]byte) error {
	if err := db.refused(); err != nil {
		return err
	}
	return db.writeFailed(db.bdb.DropPrefix(prefixes...))
}

// knobs are what only tests change, on one DB rather than in package state.
type knobs struct {
	noTermBlocks     bool                      // write segments as before term blocks: a 'P' key per term (still read)
	searchWorkers    int                       // > 0: the goroutines of every search
	beforeMergeStage func(ctx context.Context) // runs before a merge stages its segment
	afterStage       func()                    // runs after a Write staged its segment, before it registers it
	beforeRemove     func(n int)               // runs before the keys of n retired segments are removed
}

// SyncError is a failed fsync under SyncWrites. What was written just before
// may or may not be on disk, and what the page cache holds is no longer
// known, so the DB refuses every write from then on: the owner restarts the
// server (recovery reads what is really on disk).
type SyncError struct{ Err error }

func (e *SyncError) Error() string {
	return fmt.Sprintf("index: writing to disk failed (fsync: %v): the last write may not be durable, "+
		"and no write is accepted until glintd is restarted", e.Err)
}

func (e *SyncError) Unwrap() error { return e.Err }

// update runs fn in a read-write transaction and, with SyncWrites, syncs
// badger's memtable log before it returns (badger's commit syncs both logs
// too; see writeFailed): a nil error means what fn wrote and every write
// before it is on disk. After a failed sync, in the commit or after it,
// every update fails with the same *SyncError.
func (db *DB) update(fn func(txn *badger.Txn) error) error {
	if err := db.refused(); err != nil {
		return err
	}
	txn := db.bdb.NewTransaction(true)
	defer txn.Discard()
	if err := fn(txn); err != nil {
		return err
	}
	if err := db.writeFailed(txn.Commit()); err != nil {
		return err
	}
	if !db.syncWrites {
		return nil
	}
	if err := db.sync(); err != nil {
		return db.writeFailed(err)
	}
	return nil
}

// refused is the *SyncError every write returns once a sync failed, or nil.
// Writes that go to badger other than through update (staged segments,
// DropPrefix) ask it first.
func (db *DB) refused() error {
	if failed := db.syncFailed.Load(); failed != nil {
		return failed
	}
	return nil
}

// writeFailed turns err, from committing a badger write, into a *SyncError
// under SyncWrites, and refuses every later write. With SyncWrites badger
// syncs its logs in the commit itself, so an error there is most often a
// failed fsync (msync of the memtable log) whose write is already in the
// memtable, and readable, without being durable. A failed sync of the value
// log badger only logs (badgerLogger passes it here), and its DB.Sync skips
// the value log under SyncWrites, so a nil err still returns the *SyncError
// when a sync failed meanwhile. Errors badger raises before writing anything
// pass unchanged.
func (db *DB) writeFailed(err error) error {
	if err == nil {
		return db.refused()
	}
	if !db.syncWrites || errors.Is(err, badger.ErrDBClosed) ||
		errors.Is(err, badger.ErrBlockedWrites) || errors.Is(err, badger.ErrTxnTooBig) || errors.Is(err, badger.ErrConflict) {
		return err
	}
	if db.syncFailed.CompareAndSwap(nil, &SyncError{Err: err}) {
		db.logf("%v", db.syncFailed.Load())
	}
	return db.syncFailed.Load()
}

// logf reports a background failure to the logger of Options.
func (db *DB) logf(format string, args ...any) {
	if db.logger != nil {
		db.logger.Printf("index: "+format, args...)
	}
}

func validateSchema(s *Schema) error {
	if s.Name == "" {
		return fmt.Errorf("%w: empty table name", ErrBadSchema)
	}
	seen := map[string]bool{"id": true}
	indexed := 0
	for _, c := range s.Columns {
		name := strings.ToLower(c.Name)
		if name == "" {
			return fmt.Errorf("%w: empty column name", ErrBadSchema)
		}
		if seen[name] {
			return fmt.Errorf("%w: duplicate column %q", ErrBadSchema, c.Name)
		}
		seen[name] = true
		if c.Type < TypeText || c.Type > TypeJSON {
			return fmt.Errorf("%w: column %q has unknown type %d", ErrBadSchema, c.Name, c.Type)
		}
		if c.Type == TypeText && c.Indexed {
			indexed++
		}
		if c.Type != TypeText && (c.Indexed || c.Stored) {
			return fmt.Errorf("%w: column %q: only text columns are indexed or stored", ErrBadSchema, c.Name)
		}
	}
	if indexed > 256 {
		return fmt.Errorf("%w: more than 256 indexed text columns", ErrBadSchema)
	}
	return nil
}

func cloneSchema(s Schema) Schema {
	s.Columns = slices.Clone(s.Columns)
	s.Settings = slices.Clone(s.Settings)
	return s
}

// putCatalog writes a catalog entry and the next table id in txn.
func (db *DB) putCatalog(txn *badger.Txn, e catalogEntry) error {
	if err := putCatalogEntry(txn, e); err != nil {
		return err
	}
	return txn.Set(keyNextTable, binary.BigEndian.AppendUint32(nil, db.nextTable))
}

// putCatalogEntry writes a table's catalog entry alone (the caller need
// not hold db.mu, which guards the next table id putCatalog writes).
func putCatalogEntry(txn *badger.Txn, e catalogEntry) error {
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return txn.Set(catalogKey(strings.ToLower(e.Schema.Name)), v)
}

// CreateTable creates a table. ErrTableExists if the name is taken.
func (db *DB) CreateTable(s Schema) error { return db.CreateTableContext(context.Background(), s) }

// CreateTableContext is CreateTable with the context of a raft entry
// (DB.Apply), whose index it records with the table.
func (db *DB) CreateTableContext(ctx context.Context, s Schema) error {
	e, h, err := db.change(ctx, false)
	if err != nil {
		return err
	}
	defer h.release()
	s = cloneSchema(s)
	if err := validateSchema(&s); err != nil {
		return err
	}
	if err := db.checkSpace(0, ""); err != nil {
		return e.fail(err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	lower := strings.ToLower(s.Name)
	if db.nameTaken(lower) {
		return fmt.Errorf("%w: %s", ErrTableExists, s.Name)
	}
	ce := catalogEntry{ID: db.nextTable, NextID: 1, Schema: s}
	t, err := newTable(db, ce)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSchema, err)
	}
	db.nextTable++
	err = db.update(func(txn *badger.Txn) error {
		if err := db.putCatalog(txn, ce); err != nil {
			return err
		}
		return e.record(txn)
	})
	if err != nil {
		return e.fail(fmt.Errorf("index: create table %s: %w", s.Name, err))
	}
	e.done()
	db.tables[lower] = t
	return nil
}

// DropTable removes a table and all its data. ErrNoSuchTable if missing.
func (db *DB) DropTable(name string) error { return db.DropTableContext(context.Background(), name) }

// DropTableContext is DropTable with the context of a raft entry
// (DB.Apply), whose index it records with the catalog change.
func (db *DB) DropTableContext(ctx context.Context, name string) error {
	e, h, err := db.change(ctx, true) // no table write runs; DropPrefix needs that
	if err != nil {
		return err
	}
	defer h.release()
	lower := strings.ToLower(name)
	db.mu.Lock()
	t, ok := db.tables[lower]
	if !ok {
		db.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNoSuchTable, name)
	}
	tid := t.tid
	err = db.update(func(txn *badger.Txn) error {
		if err := txn.Delete(catalogKey(lower)); err != nil {
			return err
		}
		return e.record(txn)
	})
	if err != nil {
		db.mu.Unlock()
		return e.fail(fmt.Errorf("index: drop table %s: %w", name, err))
	}
	e.done()
	delete(db.tables, lower)
	t.dropped = true
	db.mu.Unlock()
	// The table is gone; its keys are garbage that Open also removes.
	if err := db.dropData(tableKey(tid)); err != nil {
		err = fmt.Errorf("index: drop table %s: removing data: %w", name, err)
		if e != nil {
			// The entry is applied, on every member alike; this node
			// removes the data at its next start.
			db.logf("%v", err)
			return nil
		}
		return err
	}
	return nil
}

// TruncateTable removes every document of a table, keeping its schema.
func (db *DB) TruncateTable(name string) error {
	return db.TruncateTableContext(context.Background(), name)
}

// TruncateTableContext is TruncateTable with the context of a raft entry
// (DB.Apply), whose index it records with the catalog change.
func (db *DB) TruncateTableContext(ctx context.Context, name string) error {
	e, h, err := db.change(ctx, true)
	if err != nil {
		return err
	}
	defer h.release()
	db.mu.Lock()
	t, ok := db.tables[strings.ToLower(name)]
	if !ok {
		db.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNoSuchTable, name)
	}
	old := t.tid
	ce := catalogEntry{ID: db.nextTable, NextID: t.nextID, Schema: *t.schema}
	db.nextTable++
	err = db.update(func(txn *badger.Txn) error {
		if err := db.putCatalog(txn, ce); err != nil {
			return err
		}
		return e.record(txn)
	})
	if err != nil {
		db.mu.Unlock()
		return e.fail(fmt.Errorf("index: truncate table %s: %w", name, err))
	}
	e.done()
	t.reset(ce.ID)
	db.mu.Unlock()
	if err := db.dropData(tableKey(old)); err != nil {
		err = fmt.Errorf("index: truncate table %s: removing data: %w", name, err)
		if e != nil {
			// The entry is applied, on every member alike; this node
			// removes the data at its next start.
			db.logf("%v", err)
			return nil
		}
		return err
	}
	return nil
}

// TableNames lists the tables in byte order of their names.
func (db *DB) TableNames() []string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	names := make([]string, 0, len(db.tables))
	for _, t := range db.tables {
		names = append(names, t.schema.Name)
	}
	slices.Sort(names)
	return names
}

// Table returns the named table (names are case-insensitive). ErrNoSuchTable if missing.
func (db *DB) Table(name string) (*Table, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	t, ok := db.tables[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchTable, name)
	}
	return t, nil
}

// load reads the table's segments from badger. It returns the key prefixes of
// segments that were staged but never registered (to be dropped), and the
// segments that merges retired whose keys are still there.
func (t *Table) load() ([][]byte, []retiredSegment, error) {
	var garbage [][]byte
	var retired []retiredSegment
	var segs []*segment
	err := t.db.bdb.View(func(txn *badger.Txn) error {
		// Staged, unregistered segments.
		err := iteratePrefix(txn, kindKey(t.tid, kindPending), false, func(key, _ []byte) error {
			seg := keySeg(key)
			garbage = append(garbage,
				segKey(t.tid, kindPending, seg),
				segKey(t.tid, kindPosting, seg),
				segKey(t.tid, kindBlock, seg),
				segKey(t.tid, kindDoc, seg),
				segKey(t.tid, kindAttr, seg), // a segment a merge retired before records.go
				segKey(t.tid, kindDeleted, seg))
			t.nextSeg = max(t.nextSeg, seg+1)
			return nil
		})
		if err != nil {
			return err
		}
		err = iteratePrefix(txn, kindKey(t.tid, kindRetired), true, func(key, val []byte) error {
			seg := keySeg(key)
			r := byteReader{b: val}
			records, err := decodeRuns(&r, -1)
			if err == nil && len(r.b) > 0 {
				err = fmt.Errorf("%w: %d bytes after the end", errCorrupt, len(r.b))
			}
			if err != nil {
				return fmt.Errorf("retired segment %d: %w", seg, err)
			}
			retired = append(retired, retiredSegment{segmentKeys{t: t, tid: t.tid, seg: seg}, records})
			t.nextSeg = max(t.nextSeg, seg+1)
			return nil
		})
		if err != nil {
			return err
		}
		err = iteratePrefix(txn, kindKey(t.tid, kindSeg), true, func(key, val []byte) error {
			s, err := decodeSegMeta(keySeg(key), val)
			if err != nil {
				return err
			}
			s.keys = &segmentKeys{t: t, tid: t.tid, seg: s.seg}
			segs = append(segs, s)
			return nil
		})
		if err != nil {
			return err
		}
		for _, s := range segs {
			if s.nf != len(t.layout.indexed) {
				return fmt.Errorf("%w: segment %d has %d fields", errCorrupt, s.seg, s.nf)
			}
			item, err := txn.Get(segKey(t.tid, kindAttr, s.seg))
			if err != nil {
				return fmt.Errorf("segment %d attributes: %w", s.seg, err)
			}
			if err := item.Value(func(v []byte) error { return decodeAttrs(t.layout, s, v) }); err != nil {
				return err
			}
			item, err = txn.Get(segKey(t.tid, kindDeleted, s.seg))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			err = item.Value(func(v []byte) error {
				bm := roaring.New()
				if _, err := bm.FromUnsafeBytes(bytes.Clone(v)); err != nil {
					return fmt.Errorf("%w: segment %d deletions: %v", errCorrupt, s.seg, err)
				}
				s.deleted = bm
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, s := range segs {
		t.nextSeg = max(t.nextSeg, s.seg+1)
		t.nextID = max(t.nextID, s.nextID)
	}
	// A merged segment has a newer number than the segments after it; by
	// their first ids, the segments are in the order they had (when their
	// ids do not overlap; when they do, the order does not matter).
	slices.SortStableFunc(segs, func(a, b *segment) int { return cmp.Compare(a.minID, b.minID) })
	t.snap.Store(newSnapshot(t, segs))
	return garbage, retired, nil
}

// iteratePrefix calls fn for every key under prefix (with its value if values).
func iteratePrefix(txn *badger.Txn, prefix []byte, values bool, fn func(key, val []byte) error) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: values, PrefetchSize: 16})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		var err error
		if values {
			err = item.Value(func(v []byte) error { return fn(item.Key(), v) })
		} else {
			err = fn(item.Key(), nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tokenizerFor builds the tokenizer of a schema's settings.
func tokenizerFor(s *Schema) (*tokenize.Tokenizer, error) {
	tok, err := tokenize.New(s.Tokenization)
	if err != nil {
		return nil, fmt.Errorf("index: table %s: %w", s.Name, err)
	}
	return tok, nil
}
