package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/glint-search/glint/index/query"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrNoSuchTable = errors.New("index: no such table")
	ErrTableExists = errors.New("index: table already exists")
	ErrClosed      = errors.New("index: database is closed")
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
	Dir        string // data directory; created if missing
	InMemory   bool   // keep everything in memory (tests); Dir is ignored
	SyncWrites bool   // fsync every commit (survives power loss, not just kill -9)
}

// DefaultOptions returns the options for a DB in dir: on disk, no fsync per commit
// (an acknowledged write survives kill -9 because the OS keeps the written pages).
func DefaultOptions(dir string) Options { return Options{Dir: dir} }

// WithInMemory returns o with InMemory set. Default false.
func (o Options) WithInMemory(v bool) Options { o.InMemory = v; return o }

// WithSyncWrites returns o with SyncWrites set. Default false.
func (o Options) WithSyncWrites(v bool) Options { o.SyncWrites = v; return o }

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

// DB is the storage engine: a catalog of tables, each an inverted index plus
// attributes, and the document store, all in one badger database.
// Methods are safe for concurrent use.
type DB struct{}

// Open opens or creates the database described by o, recovering every table.
func Open(o Options) (*DB, error) { panic("unimplemented") }

// Close waits for running writes and closes the storage. Later calls return nil.
func (db *DB) Close() error { panic("unimplemented") }

// CreateTable creates a table. ErrTableExists if the name is taken.
func (db *DB) CreateTable(s Schema) error { panic("unimplemented") }

// DropTable removes a table and all its data. ErrNoSuchTable if missing.
func (db *DB) DropTable(name string) error { panic("unimplemented") }

// TruncateTable removes every document of a table, keeping its schema.
func (db *DB) TruncateTable(name string) error { panic("unimplemented") }

// TableNames lists the tables in byte order of their names.
func (db *DB) TableNames() []string { panic("unimplemented") }

// Table returns the named table (names are case-insensitive). ErrNoSuchTable if missing.
func (db *DB) Table(name string) (*Table, error) { panic("unimplemented") }

// Table is one table. Reads go through a Snapshot; writes through Write.
type Table struct{}

// Schema returns the table's schema. The caller must not modify it.
func (t *Table) Schema() *Schema { panic("unimplemented") }

// Snapshot returns an immutable view of the table's current contents.
func (t *Table) Snapshot() *Snapshot { panic("unimplemented") }

// Write runs fn with exclusive write access to the table. Everything fn does
// through the Writer is committed atomically when fn returns nil (index, attributes
// and document store together), and nothing is when fn returns an error or ctx is
// cancelled. Readers see either all of it or none of it.
func (t *Table) Write(ctx context.Context, fn func(w *Writer) error) error {
	panic("unimplemented")
}

// Writer stages the changes of one statement. It is valid only inside Write.
type Writer struct{}

// Snapshot is the table as it was when the write began, without staged changes.
func (w *Writer) Snapshot() *Snapshot { panic("unimplemented") }

// Insert stages new documents and returns their ids (new ones for ID 0).
// A *DuplicateIDError if an id exists already or repeats; a *ValueError for a
// value of the wrong type.
func (w *Writer) Insert(docs []Document) ([]uint64, error) { panic("unimplemented") }

// Replace is Insert that first deletes any existing document with the same id.
func (w *Writer) Replace(docs []Document) ([]uint64, error) { panic("unimplemented") }

// Delete stages the deletion of documents by id and returns how many existed.
func (w *Writer) Delete(ids []uint64) (int, error) { panic("unimplemented") }

// Update stages new attribute values (column index -> value) for one document.
// Text columns cannot be updated (*ValueError). Returns false if id is absent.
func (w *Writer) Update(id uint64, values map[int]Value) (bool, error) {
	panic("unimplemented")
}

// Snapshot is an immutable, consistent view of a table. Safe for concurrent use.
type Snapshot struct{}

// Schema is the table's schema.
func (s *Snapshot) Schema() *Schema { panic("unimplemented") }

// Count is the number of live documents.
func (s *Snapshot) Count() int { panic("unimplemented") }

// Scan calls fn for every live document, in ascending id order, until fn
// returns false or ctx is done (then it returns ctx.Err()).
func (s *Snapshot) Scan(ctx context.Context, fn func(ref DocRef) bool) error {
	panic("unimplemented")
}

// Search returns the live documents that match q, in ascending id order, each
// with its weight.
func (s *Snapshot) Search(ctx context.Context, q query.Node) ([]Match, error) {
	panic("unimplemented")
}

// Lookup finds a live document by id.
func (s *Snapshot) Lookup(id uint64) (DocRef, bool) { panic("unimplemented") }

// ID returns the id of a document.
func (s *Snapshot) ID(ref DocRef) uint64 { panic("unimplemented") }

// Attr returns the value of a non-text column (by schema column index).
func (s *Snapshot) Attr(ref DocRef, col int) Value { panic("unimplemented") }

// Stored reads the stored text of the given text columns for a batch of
// documents in one pass: result[i][j] is column cols[j] of refs[i] ("" when the
// column is not stored).
func (s *Snapshot) Stored(ctx context.Context, refs []DocRef, cols []int) ([][]string, error) {
	panic("unimplemented")
}
