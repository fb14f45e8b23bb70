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

	// PostingCacheBytes bounds the memory of decoded posting lists kept for
	// searches: 0 means DefaultPostingCacheBytes, a negative value turns the
	// cache off.
	PostingCacheBytes int64

	// MergeFactor is how many neighbouring segments of about the same size
	// the background merges combine into one (merge.go): 0 means
	// DefaultMergeFactor, a negative value turns background merges off
	// (OPTIMIZE TABLE still merges), and 1 is an error.
	MergeFactor int
}

// DefaultPostingCacheBytes is the posting cache's size when Options leaves it 0.
const DefaultPostingCacheBytes = 256 << 20

// DefaultOptions returns the options for a DB in dir: on disk, no fsync per commit
// (an acknowledged write survives kill -9 because the OS keeps the written pages).
func DefaultOptions(dir string) Options { return Options{Dir: dir} }

// WithInMemory returns o with InMemory set. Default false.
func (o Options) WithInMemory(v bool) Options { o.InMemory = v; return o }

// WithSyncWrites returns o with SyncWrites set. Default false.
func (o Options) WithSyncWrites(v bool) Options { o.SyncWrites = v; return o }

// WithLogger returns o with Logger set. Default nil: badger's messages are discarded.
func (o Options) WithLogger(l *log.Logger) Options { o.Logger = l; return o }

// WithMergeFactor returns o with MergeFactor set. Default 0: DefaultMergeFactor.
func (o Options) WithMergeFactor(n int) Options { o.MergeFactor = n; return o }

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
