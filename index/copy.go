package index

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Copying a table from one DB to another (a table that joins a replication
// cluster, or leaves one) goes by its keys: ExportTable reads them, with
// the table's id taken off, in batches; in the other DB a table of the same
// schema is created under a name no one uses (the staging table), the
// batches are written under its id with ImportKeysContext, and
// AttachTableContext gives it its name and loads it. Each step is one
// change, so each can be one raft entry of a replicated DB, applied alike
// by every member; a staging table is a table like another (a snapshot
// carries it, Open loads it), dropped like another when a copy is given
// up.

// KV is one key and its value, the key relative to its table.
type KV struct {
	Key, Val []byte
}

// ExportTable calls fn with the keys of table name, in batches of about
// batch bytes, all from one read transaction (a consistent view, as of
// writes committed before it began), and returns the table's schema and
// its id floor (the next automatic id). The batches' slices are fn's to
// keep.
func (db *DB) ExportTable(ctx context.Context, name string, batch int, fn func([]KV) error) (Schema, uint64, error) {
	closing, err := db.streams.begin()
	if err != nil {
		return Schema{}, 0, err
	}
	defer db.endStream()
	t, err := db.Table(name)
	if err != nil {
		return Schema{}, 0, err
	}
	// The view and the id floor together: no write of the table commits
	// between them.
	t.mu.Lock()
	txn := db.bdb.NewTransaction(false)
	tid, nextID, schema := t.tid, t.nextID, cloneSchema(*t.schema)
	t.mu.Unlock()
	defer txn.Discard()
	prefix := tableKey(tid)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
	defer it.Close()
	var out []KV
	size := 0
	for it.Rewind(); it.Valid(); it.Next() {
		select {
		case <-closing:
			return Schema{}, 0, ErrClosed
		default:
		}
		item := it.Item()
		val, err := item.ValueCopy(nil)
		if err != nil {
			return Schema{}, 0, fmt.Errorf("index: export table %s: %w", name, dbErr(err))
		}
		key := bytes.Clone(item.Key()[len(prefix):])
		out = append(out, KV{Key: key, Val: val})
		if size += len(key) + len(val); size >= batch {
			if err := ctx.Err(); err != nil {
				return Schema{}, 0, err
			}
			if err := fn(out); err != nil {
				return Schema{}, 0, err
			}
			out, size = nil, 0
		}
	}
	if len(out) > 0 {
		if err := fn(out); err != nil {
			return Schema{}, 0, err
		}
	}
	return schema, nextID, nil
}

// ImportKeysContext writes keys that ExportTable gave under table name (a
// staging table: empty when the copy began, and written to by nothing
// else), in one transaction, with the raft entry ctx carries. They are
// not seen until AttachTableContext.
func (db *DB) ImportKeysContext(ctx context.Context, name string, kvs []KV) error {
	e, h, err := db.change(ctx, false)
	if err != nil {
		return err
	}
	defer h.release()
	size := 0
	for _, kv := range kvs {
		size += len(kv.Key) + len(kv.Val)
		if len(kv.Key) == 0 {
			return fmt.Errorf("%w: an empty key to import into %s", ErrBadSchema, name)
		}
	}
	if err := db.checkSpace(int64(size), name); err != nil {
		return e.fail(err)
	}
	t, err := db.Table(name)
	if err != nil {
		return err
	}
	prefix := tableKey(t.tid)
	err = db.update(func(txn *badger.Txn) error {
		for _, kv := range kvs {
			if err := txn.Set(append(bytes.Clone(prefix), kv.Key...), kv.Val); err != nil {
				return err
			}
		}
		return e.record(txn)
	})
	if err != nil {
		return e.fail(fmt.Errorf("index: import into %s: %w", name, err))
	}
	e.done()
	return nil
}

// AttachTableContext renames table from (a staging table) to, with id
// floor nextID, and loads its documents from the keys imported, with the
// raft entry ctx carries. ErrTableExists when to is taken.
func (db *DB) AttachTableContext(ctx context.Context, from, to string, nextID uint64) error {
	e, h, err := db.change(ctx, true)
	if err != nil {
		return err
	}
	defer h.release()
	db.mu.Lock()
	defer db.mu.Unlock()
	lowerFrom, lowerTo := strings.ToLower(from), strings.ToLower(to)
	old, ok := db.tables[lowerFrom]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoSuchTable, from)
	}
	if db.nameTaken(lowerTo) {
		return fmt.Errorf("%w: %s", ErrTableExists, to)
	}
	schema := cloneSchema(*old.schema)
	schema.Name = to
	ce := catalogEntry{ID: old.tid, NextID: max(nextID, old.nextID), Schema: schema}
	t, err := newTable(db, ce)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSchema, err)
	}
	err = db.update(func(txn *badger.Txn) error {
		if err := txn.Delete(catalogKey(lowerFrom)); err != nil {
			return err
		}
		if err := db.putCatalog(txn, ce); err != nil {
			return err
		}
		return e.record(txn)
	})
	if err != nil {
		return e.fail(fmt.Errorf("index: attach table %s as %s: %w", from, to, err))
	}
	e.done()
	old.mu.Lock()
	old.dropped = true
	old.mu.Unlock()
	delete(db.tables, lowerFrom)
	// Segments staged but never registered in the source, and merged
	// ones, came with the keys: Open removes them.
	if _, _, err := t.load(); err != nil {
		// The catalog says the table is there: this node cannot go on
		// without it (a replicated DB would differ from its members).
		db.tables[lowerTo] = t
		return e.fail(fmt.Errorf("index: attach table %s as %s: loading it: %w", from, to, err))
	}
	db.tables[lowerTo] = t
	return nil
}

// HasTable reports whether table name (case-insensitive) exists.
func (db *DB) HasTable(name string) bool {
	_, err := db.Table(name)
	return err == nil
}
