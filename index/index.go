package index

import (
	"errors"
	"fmt"
	"log"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrNoSuchTable = errors.New("index: no such table")
	ErrTableExists = errors.New("index: table already exists")
	ErrClosed      = errors.New("index: database is closed")
	ErrBadSchema   = errors.New("index: invalid schema")
)

// DuplicateIDError reports an INSERT of an id that exists already, or twice in one
// statement.
type DuplicateIDError struct{ ID uint64 }

func (e *DuplicateIDError) Error() string {
	return fmt.Sprintf("index: duplicate id %d", e.ID)
}

// ValueError reports a value that does not fit its column.
type ValueError struct {
	Column string
	Msg    string
}

func (e *ValueError) Error() string { return fmt.Sprintf("index: column %q: %s", e.Column, e.Msg) }

// Options configure a DB. Use DefaultOptions and the With methods.
type Options struct {
	Dir        string      // data directory; created if missing
	InMemory   bool        // keep everything in memory (tests); Dir is ignored
	SyncWrites bool        // fsync every commit (survives power loss, not just kill -9)
	Logger     *log.Logger // receives the storage's warnings and errors; nil discards them

	// MemoryLimit is the memory the storage sizes itself for: badger's
	// memtables and caches and the posting cache are shares of it (see
	// memoryBudget). 0 means DefaultMemoryLimit. It is not enforced here:
	// glintd also gives it to the Go runtime as its soft memory limit.
	MemoryLimit int64

	// PostingCacheBytes bounds the memory of decoded posting lists kept for
	// searches: 0 means its share of MemoryLimit, a negative value turns the
	// cache off.
	PostingCacheBytes int64

	// MergeFactor is how many neighbouring segments of about the same size
	// the background merges combine into one (merge.go): 0 means
	// DefaultMergeFactor, a negative value turns background merges off
	// (OPTIMIZE TABLE still merges), and 1 is an error.
	MergeFactor int

	// DiskReserve is the free space of the data directory's file system kept
	// for the storage engine's own writes (space.go): a write that would
	// leave less is refused with a *DiskFullError, and so is Open. 0 means
	// the default, from the memtable size of MemoryLimit (92 MB at 128M,
	// 248 MB at 1G); a negative value turns the check off.
	DiskReserve int64

	// Replicated makes the DB the state machine of a raft group (doc.go,
	// "Replication"): its tables change only through DB.Apply, which
	// records the applied index with each change. A database that has
	// recorded one opens only with Replicated.
	Replicated bool

	knobs knobs // what only tests set, for the DB from its start (db.go)
}

// DefaultMemoryLimit is the memory a DB sizes itself for when Options leaves
// MemoryLimit 0: modest, for a small machine.
const DefaultMemoryLimit = 1 << 30

// MinMemoryLimit is the smallest MemoryLimit accepted: below it badger's
// fixed costs alone would not fit.
const MinMemoryLimit = 128 << 20

// budget is how a memory limit is shared out.
type budget struct {
	memTable     int64 // one badger memtable; three are kept, and a flush builds a table of about this size
	blockCache   int64 // badger's cache of table blocks
	indexCache   int64 // badger's cache of table indexes and bloom filters
	postingCache int64 // decoded posting lists (cache.go)
}

// memoryBudget shares limit out. Badger holds up to three memtables and keeps
// up to eight table builders' buffers for reuse, each about a memtable's size
// (its allocator pool), so a memtable costs about eleven times its size:
// limit/64 each makes that a sixth of the limit. Caches take another fifth;
// the rest is for statements at work and the collector's headroom.
func memoryBudget(limit int64) budget {
	return budget{
		memTable:     min(max(limit/64, 4<<20), 64<<20),
		blockCache:   limit / 16,
		indexCache:   limit / 32,
		postingCache: limit / 8,
	}
}

// DefaultOptions returns the options for a DB in dir: on disk, no fsync per commit
// (an acknowledged write survives kill -9 because the OS keeps the written pages).
func DefaultOptions(dir string) Options { return Options{Dir: dir} }

// WithInMemory returns o with InMemory set. Default false.
func (o Options) WithInMemory(v bool) Options { o.InMemory = v; return o }

// WithSyncWrites returns o with SyncWrites set. Default false.
func (o Options) WithSyncWrites(v bool) Options { o.SyncWrites = v; return o }

// WithLogger returns o with Logger set. Default nil: badger's messages are discarded.
func (o Options) WithLogger(l *log.Logger) Options { o.Logger = l; return o }

// WithMemoryLimit returns o with MemoryLimit set. Default 0: DefaultMemoryLimit.
func (o Options) WithMemoryLimit(n int64) Options { o.MemoryLimit = n; return o }

// WithMergeFactor returns o with MergeFactor set. Default 0: DefaultMergeFactor.
func (o Options) WithMergeFactor(n int) Options { o.MergeFactor = n; return o }

// WithDiskReserve returns o with DiskReserve set. Default 0: from MemoryLimit.
func (o Options) WithDiskReserve(n int64) Options { o.DiskReserve = n; return o }

// WithReplicated returns o with Replicated set. Default false.
func (o Options) WithReplicated(v bool) Options { o.Replicated = v; return o }

// DocRef addresses one document inside a Snapshot. It is valid only with the
// Snapshot that produced it.
type DocRef struct {
	Seg uint32 // position of the segment in the snapshot
	Ord uint32 // ordinal of the document inside its segment
}

// Match is one document matched by a full-text query, with its relevance weight.
type Match struct {
	Ref    DocRef
	Weight int64
}
