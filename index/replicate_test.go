package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openRepl opens a replicated DB in dir (in memory for "").
func openRepl(t testing.TB, dir string) *DB {
	t.Helper()
	o := DefaultOptions(dir).WithReplicated(true).WithMergeFactor(-1).WithMemoryLimit(MinMemoryLimit)
	if dir == "" {
		// In memory badger keeps values in its tree, which the memtable
		// of the least memory limit is too small for.
		o = o.WithInMemory(true).WithMemoryLimit(0)
	}
	db, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// applyWrite applies entry i: one Write to table name.
func applyWrite(db *DB, i uint64, name string, fn func(w *Writer) error) error {
	return db.Apply(ctx, i, func(ctx context.Context) error {
		tb, err := db.Table(name)
		if err != nil {
			return err
		}
		return tb.Write(ctx, fn)
	})
}

func insertFn(docs ...Document) func(w *Writer) error {
	return func(w *Writer) error {
		_, err := w.Insert(docs)
		return err
	}
}

func storedApplied(t *testing.T, db *DB) (uint64, bool) {
	t.Helper()
	var i uint64
	found := false
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyApplied)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return item.Value(func(v []byte) error {
			require.Len(t, v, 8)
			i = uint64(v[0])<<56 | uint64(v[1])<<48 | uint64(v[2])<<40 | uint64(v[3])<<32 |
				uint64(v[4])<<24 | uint64(v[5])<<16 | uint64(v[6])<<8 | uint64(v[7])
			return nil
		})
	}))
	return i, found
}

func TestApplyNotReplicated(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(1, "a", "b", 2000))
	require.NoError(t, db.TruncateTable("docs"))
	err := db.Apply(ctx, 1, nil)
	require.EqualError(t, err, "index: Apply of raft entry 1 to a database opened without Replicated")
	require.NoError(t, db.DropTable("docs"))
	_, found := storedApplied(t, db)
	require.False(t, found, "a DB without replication never writes the applied index")
	require.Zero(t, db.Applied())
}

func TestApply(t *testing.T) {
	db := openRepl(t, "")
	require.Zero(t, db.Applied())

	// Outside Apply nothing changes.
	require.ErrorIs(t, db.CreateTable(simple()), ErrReplicated)
	require.ErrorIs(t, db.CreateDistributed(Distributed{Name: "d"}), ErrReplicated)
	require.ErrorIs(t, db.DropDistributed("d"), ErrReplicated)

	step := func(i uint64, fn func(ctx context.Context) error) error {
		t.Helper()
		return db.Apply(ctx, i, fn)
	}
	require.NoError(t, step(1, func(ctx context.Context) error { return db.CreateTableContext(ctx, simple()) }))
	require.Equal(t, uint64(1), db.Applied())
	tb, err := db.Table("docs")
	require.NoError(t, err)
	require.ErrorIs(t, tb.Write(ctx, insertFn(doc(1, "x", "y", 1))), ErrReplicated)
	require.ErrorIs(t, db.TruncateTable("docs"), ErrReplicated)
	require.ErrorIs(t, db.DropTable("docs"), ErrReplicated)

	require.NoError(t, applyWrite(db, 2, "docs", insertFn(doc(1, "first", "one", 2001), doc(2, "second", "two", 2002))))
	require.Equal(t, uint64(2), db.Applied())

	// A deterministic failure: the entry is applied, its outcome the error.
	err = applyWrite(db, 3, "docs", insertFn(doc(2, "dup", "again", 2003)))
	var dup *DuplicateIDError
	require.ErrorAs(t, err, &dup)
	var na *NotAppliedError
	require.False(t, errors.As(err, &na))
	require.Equal(t, uint64(3), db.Applied())
	require.Equal(t, []uint64{1, 2}, ids(t, tb.Snapshot()))
	err = step(4, func(ctx context.Context) error { return db.CreateTableContext(ctx, Schema{Name: "DOCS"}) })
	require.ErrorIs(t, err, ErrTableExists)
	require.Equal(t, uint64(4), db.Applied())

	// No-ops: a nil fn, a statement that changes nothing, a write that
	// finds nothing to delete.
	require.NoError(t, step(5, nil))
	synced, err := db.Sync()
	require.NoError(t, err)
	require.Equal(t, uint64(5), synced)
	require.NoError(t, step(6, func(context.Context) error { return nil }))
	require.NoError(t, applyWrite(db, 7, "docs", func(w *Writer) error {
		n, err := w.Delete([]uint64{99})
		require.Zero(t, n)
		return err
	}))
	require.Equal(t, uint64(7), db.Applied())

	// Never back, and fn does not run.
	ran := false
	for _, i := range []uint64{7, 3, 0} {
		err = step(i, func(context.Context) error { ran = true; return nil })
		require.ErrorIs(t, err, ErrApplied)
		require.EqualError(t, err, fmt.Sprintf("index: raft entry already applied: entry %d, applied index 7", i))
	}
	require.False(t, ran)

	// Gaps are allowed.
	require.NoError(t, applyWrite(db, 10, "docs", func(w *Writer) error {
		_, err := w.Delete([]uint64{1})
		return err
	}))
	require.Equal(t, uint64(10), db.Applied())
	require.Equal(t, []uint64{2}, ids(t, tb.Snapshot()))

	// One entry, one change: a second is refused, the first stands.
	err = step(11, func(ctx context.Context) error {
		if err := tb.Write(ctx, insertFn(doc(3, "third", "three", 2003))); err != nil {
			return err
		}
		return tb.Write(ctx, insertFn(doc(4, "fourth", "four", 2004)))
	})
	require.ErrorIs(t, err, ErrEntryUsed)
	require.Equal(t, uint64(11), db.Applied())
	require.Equal(t, []uint64{2, 3}, ids(t, tb.Snapshot()))

	// A context kept after its Apply returned.
	var kept context.Context
	require.NoError(t, step(12, func(ctx context.Context) error { kept = ctx; return nil }))
	require.ErrorIs(t, tb.Write(kept, insertFn(doc(5, "late", "five", 2005))), ErrEntryUsed)
	require.Equal(t, uint64(12), db.Applied())

	// An entry of another DB.
	other := openRepl(t, "")
	err = step(13, func(ctx context.Context) error { return other.CreateTableContext(ctx, simple()) })
	require.ErrorAs(t, err, &na)
	require.EqualError(t, err, "index: raft entry 13 not applied: index: raft entry 13 is applied to another database")
	require.Equal(t, uint64(12), db.Applied())
	require.Zero(t, other.Applied())

	// A context done: not applied.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = db.Apply(cctx, 13, func(ctx context.Context) error { return tb.Write(ctx, insertFn(doc(6, "c", "d", 1))) })
	require.ErrorAs(t, err, &na)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, uint64(12), db.Applied())

	// DDL.
	require.NoError(t, step(13, func(ctx context.Context) error { return db.TruncateTableContext(ctx, "docs") }))
	require.Zero(t, tb.Snapshot().Count())
	require.NoError(t, step(14, func(ctx context.Context) error { return db.DropTableContext(ctx, "docs") }))
	require.Empty(t, db.TableNames())
	err = step(15, func(ctx context.Context) error { return db.DropTableContext(ctx, "docs") })
	require.ErrorIs(t, err, ErrNoSuchTable)
	got, found := storedApplied(t, db)
	require.True(t, found)
	require.Equal(t, uint64(15), got)
}

// TestApplyStorageFailure: an entry whose write this node's storage
// refuses is not applied, and Applied stays.
func TestApplyStorageFailure(t *testing.T) {
	db := openRepl(t, "")
	require.NoError(t, db.Apply(ctx, 1, func(ctx context.Context) error { return db.CreateTableContext(ctx, simple()) }))
	db.syncFailed.Store(&SyncError{Err: errors.New("injected")})
	for name, fn := range map[string]func(ctx context.Context) error{
		"write": func(ctx context.Context) error {
			tb, _ := db.Table("docs")
			return tb.Write(ctx, insertFn(doc(1, "a", "b", 1)))
		},
		"ddl":   func(ctx context.Context) error { return db.TruncateTableContext(ctx, "docs") },
		"no-op": nil,
	} {
		err := db.Apply(ctx, 2, fn)
		var na *NotAppliedError
		require.ErrorAs(t, err, &na, name)
		require.Equal(t, uint64(2), na.Index)
		var se *SyncError
		require.ErrorAs(t, err, &se, name)
		require.Equal(t, uint64(1), db.Applied(), name)
	}
}

// TestApplyReopen: the applied index survives a restart, and a replicated
// database opens only as one.
func TestApplyReopen(t *testing.T) {
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprint("sync=", sync), func(t *testing.T) {
			dir := t.TempDir()
			o := DefaultOptions(dir).WithReplicated(true).WithSyncWrites(sync).WithMemoryLimit(MinMemoryLimit)
			db, err := Open(o)
			require.NoError(t, err)
			entries := replicaEntries(db)[:8]
			applyAll(t, db, entries)
			want := dumpDB(t, db)
			synced, err := db.Sync()
			require.NoError(t, err)
			require.Equal(t, uint64(8), synced)
			require.NoError(t, db.Close())
			_, err = db.Sync()
			require.ErrorIs(t, err, ErrClosed)
			_, err = Open(DefaultOptions(dir))
			require.EqualError(t, err, fmt.Sprintf("index: the database in %s is replicated (applied index 8): open it with Replicated, or its replicas would differ", dir))
			db, err = Open(o)
			require.NoError(t, err)
			defer db.Close()
			require.Equal(t, uint64(8), db.Applied())
			require.Equal(t, want, dumpDB(t, db))
		})
	}
}

// copyDir copies the files of a badger directory as a kill -9 at this
// moment would leave them (the page cache is the files' content), but for
// the lock. It copies the data regions only, in the kernel: badger's logs
// are mostly preallocated holes.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(to, 0o700))
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() == "LOCK" || e.IsDir() {
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // badger removed it meanwhile
		}
		require.NoError(t, err)
		fi, err := src.Stat()
		require.NoError(t, err)
		dst, err := os.Create(filepath.Join(to, e.Name()))
		require.NoError(t, err)
		sfd, dfd := int(src.Fd()), int(dst.Fd())
		for off := int64(0); off < fi.Size(); {
			data, err := unix.Seek(sfd, off, unix.SEEK_DATA)
			if errors.Is(err, unix.ENXIO) {
				break // only a hole is left
			}
			require.NoError(t, err)
			hole, err := unix.Seek(sfd, data, unix.SEEK_HOLE)
			require.NoError(t, err)
			for in, out := data, data; in < hole; {
				n, err := unix.CopyFileRange(sfd, &in, dfd, &out, int(hole-in), 0)
				require.NoError(t, err)
				require.Positive(t, n)
			}
			off = hole
		}
		require.NoError(t, dst.Truncate(fi.Size()))
		require.NoError(t, dst.Close())
		require.NoError(t, src.Close())
	}
}

// dumpDB is everything a reader sees of a DB, and its applied index.
func dumpDB(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "applied %d\n", db.Applied())
	for _, name := range db.TableNames() {
		tb, err := db.Table(name)
		require.NoError(t, err)
		fmt.Fprintf(&b, "table %s\n%s", name, contents(t, tb.Snapshot()))
	}
	return b.String()
}

// replicaEntries are the entries of a history: DDL, inserts, deletes,
// updates, replacements, failures and no-ops. Entry i is entries[i-1].
func replicaEntries(db *DB) []func(ctx context.Context) error {
	r := rand.New(rand.NewPCG(27, 1))
	write := func(name string, fn func(w *Writer) error) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			tb, err := db.Table(name)
			if err != nil {
				return err
			}
			return tb.Write(ctx, fn)
		}
	}
	create := func(name string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			s := simple()
			s.Name = name
			return db.CreateTableContext(ctx, s)
		}
	}
	var out []func(ctx context.Context) error
	out = append(out, create("a"), create("b"))
	next := uint64(1)
	for i := range 12 {
		name := []string{"a", "b"}[i%2]
		switch i % 6 {
		case 0, 1, 2:
			var docs []Document
			for range 1 + r.IntN(4) {
				docs = append(docs, mergeDoc(r, next))
				next++
			}
			out = append(out, write(name, insertFn(docs...)))
		case 3:
			victim := uint64(1 + r.IntN(int(next)))
			out = append(out, write(name, func(w *Writer) error { _, err := w.Delete([]uint64{victim}); return err }))
		case 4:
			id := uint64(1 + r.IntN(int(next)))
			out = append(out, write(name, func(w *Writer) error {
				_, err := w.Update(id, map[int]Value{2: int64(3000 + i)})
				return err
			}))
		case 5:
			out = append(out, write(name, insertFn(doc(1, "dup", "duplicate", 1))), nil)
			replacement := mergeDoc(r, 2)
			out = append(out, write(name, func(w *Writer) error {
				_, err := w.Replace([]Document{replacement})
				return err
			}))
		}
		if i == 5 {
			out = append(out, func(ctx context.Context) error { return db.TruncateTableContext(ctx, "b") })
		}
	}
	out = append(out, func(ctx context.Context) error { return db.DropTableContext(ctx, "a") }, create("c"),
		write("c", insertFn(mergeDoc(r, 1))))
	return out
}

// TestApplyCrash: a crash at any point of a history (after a statement,
// or between staging a statement's segment and registering it) leaves a
// database whose applied index is that of the last statement it shows,
// and replaying the entries after it gives the same database as never
// crashing.
func TestApplyCrash(t *testing.T) {
	dir := t.TempDir()
	db := openRepl(t, filepath.Join(dir, "live"))
	entries := replicaEntries(db)
	type image struct {
		dir     string
		applied uint64
	}
	var images []image
	crash := func(applied uint64) {
		img := filepath.Join(dir, fmt.Sprintf("crash%03d", len(images)))
		copyDir(t, filepath.Join(dir, "live"), img)
		images = append(images, image{img, applied})
	}
	want := map[uint64]string{0: dumpDB(t, db)}
	for k, fn := range entries {
		i := uint64(k + 1)
		db.knobs.afterStage = func() { crash(i - 1) }
		err := db.Apply(ctx, i, fn)
		var na *NotAppliedError
		require.False(t, errors.As(err, &na), "entry %d: %v", i, err)
		want[i] = dumpDB(t, db)
		crash(i)
	}
	db.knobs.afterStage = nil
	final := want[uint64(len(entries))]
	require.Contains(t, final, "table c")
	require.NotContains(t, final, "table a\n")

	for n, img := range images {
		rdb := openRepl(t, img.dir)
		require.Equal(t, img.applied, rdb.Applied(), img.dir)
		require.Equal(t, want[img.applied], dumpDB(t, rdb), img.dir)
		if n%3 != 0 && n != len(images)-2 {
			require.NoError(t, rdb.Close())
			continue // replaying from a third of them is enough
		}
		// Replay: a fresh set of entries bound to the reopened DB.
		replay := replicaEntries(rdb)
		require.ErrorIs(t, rdb.Apply(ctx, img.applied, nil), ErrApplied)
		for k := img.applied; k < uint64(len(replay)); k++ {
			err := rdb.Apply(ctx, k+1, replay[k])
			var na *NotAppliedError
			require.False(t, errors.As(err, &na), "replay of entry %d: %v", k+1, err)
		}
		require.Equal(t, final, dumpDB(t, rdb), img.dir)
		require.NoError(t, rdb.Close())
	}
	require.Greater(t, len(images), len(entries)+5, "crashes between staging and registering too")
}

// applyAll is used by other tests: it applies entries from Applied()+1.
func applyAll(t *testing.T, db *DB, entries []func(ctx context.Context) error) {
	t.Helper()
	for k := db.Applied(); k < uint64(len(entries)); k++ {
		err := db.Apply(ctx, k+1, entries[k])
		var na *NotAppliedError
		require.False(t, errors.As(err, &na), "entry %d: %v", k+1, err)
	}
}
