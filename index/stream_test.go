package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

func restoreOptions(dir string) Options {
	return DefaultOptions(dir).WithMemoryLimit(MinMemoryLimit)
}

// allPairs is every key and value of a DB.
func allPairs(t *testing.T, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		return iteratePrefix(txn, nil, true, func(key, val []byte) error {
			out[string(key)] = string(val)
			return nil
		})
	}))
	return out
}

// streamPairs parses a snapshot stream.
func streamPairs(t *testing.T, b []byte) (uint64, map[string]string) {
	t.Helper()
	sr := newSnapReader(bytes.NewReader(b))
	applied, err := sr.header()
	require.NoError(t, err)
	out := map[string]string{}
	for {
		err := sr.next(func(key, val []byte) error {
			out[string(key)] = string(val)
			return nil
		})
		if err == io.EOF {
			return applied, out
		}
		require.NoError(t, err)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := openRepl(t, filepath.Join(dir, "src"))
	entries := replicaEntries(src)
	last := uint64(len(entries))
	applyAll(t, src, entries[:last-1])
	want := dumpDB(t, src)

	// Streamed while the last entry's segment is staged: its keys are in
	// the stream, and the Open after Restore removes them.
	var buf bytes.Buffer
	var applied uint64
	var serr error
	src.knobs.afterStage = func() { applied, serr = src.StreamTo(ctx, &buf) }
	require.NoError(t, src.Apply(ctx, last, entries[last-1]))
	src.knobs.afterStage = nil
	require.NoError(t, serr)
	require.Equal(t, last-1, applied)
	header, pairs := streamPairs(t, buf.Bytes())
	require.Equal(t, last-1, header)
	pending := 0
	for k := range pairs {
		if k[0] == prefixTable && k[5] == kindPending {
			pending++
		}
	}
	require.Equal(t, 1, pending, "the staged segment's marker is in the stream")

	got, err := Restore(ctx, restoreOptions(filepath.Join(dir, "new")), &buf)
	require.NoError(t, err)
	require.Equal(t, last-1, got)

	// Swap it in where an older database of the node lives.
	node := filepath.Join(dir, "node")
	old, err := Open(restoreOptions(node))
	require.NoError(t, err)
	require.NoError(t, old.CreateTable(simple()))
	require.EqualError(t, SwapIn(node, filepath.Join(dir, "new")),
		fmt.Sprintf("index: data directory %s is in use by another glintd (process %d holds the lock; its pid is in %s)",
			node, os.Getpid(), filepath.Join(node, "LOCK")))
	require.NoError(t, old.Close())
	require.NoError(t, SwapIn(node, filepath.Join(dir, "new")))
	_, err = os.Stat(filepath.Join(dir, "new"))
	require.ErrorIs(t, err, os.ErrNotExist, "the old database is removed")

	rdb := openRepl(t, node)
	require.Equal(t, want, dumpDB(t, rdb))
	requireNoKeys(t, rdb, []byte{prefixTable, 0, 0, 0, 0}) // no table 0
	for _, name := range rdb.TableNames() {
		tb, err := rdb.Table(name)
		require.NoError(t, err)
		requireNoKeys(t, rdb, kindKey(tb.tid, kindPending))
	}
	// The restored replica applies the last entry as the source did.
	applyAll(t, rdb, replicaEntries(rdb))
	require.Equal(t, dumpDB(t, src), dumpDB(t, rdb))

	// Without garbage, the restored database holds the same pairs.
	buf.Reset()
	_, err = src.StreamTo(ctx, &buf)
	require.NoError(t, err)
	_, err = Restore(ctx, restoreOptions(filepath.Join(dir, "again")), &buf)
	require.NoError(t, err)
	again, err := Open(restoreOptions(filepath.Join(dir, "again")).WithReplicated(true))
	require.NoError(t, err)
	defer again.Close()
	require.Equal(t, allPairs(t, src), allPairs(t, again))
	require.Equal(t, src.Applied(), again.Applied())
}

func TestSnapshotEmpty(t *testing.T) {
	dir := t.TempDir()
	db := openMem(t)
	var buf bytes.Buffer
	applied, err := db.StreamTo(ctx, &buf)
	require.NoError(t, err)
	require.Zero(t, applied)
	require.Equal(t, snapHeader+frameHead+16, buf.Len())
	got, err := Restore(ctx, restoreOptions(filepath.Join(dir, "r")), &buf)
	require.NoError(t, err)
	require.Zero(t, got)
	rdb, err := Open(restoreOptions(filepath.Join(dir, "r")))
	require.NoError(t, err)
	defer rdb.Close()
	require.Empty(t, rdb.TableNames())

	require.NoError(t, db.Close())
	_, err = db.StreamTo(ctx, io.Discard)
	require.ErrorIs(t, err, ErrClosed)
}

// TestSnapshotDuringDrop: a table dropped while a stream runs is in the
// stream whole, and its data leaves the source when the stream ends.
func TestSnapshotDuringDrop(t *testing.T) {
	dir := t.TempDir()
	src := openRepl(t, filepath.Join(dir, "src"))
	applyAll(t, src, replicaEntries(src))
	want := dumpDB(t, src)
	tb, err := src.Table("c")
	require.NoError(t, err)
	tid := tb.tid

	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := src.StreamTo(ctx, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	head := make([]byte, snapHeader)
	_, err = io.ReadFull(pr, head) // the stream's transaction is open
	require.NoError(t, err)
	next := src.Applied() + 1
	require.NoError(t, src.Apply(ctx, next, func(ctx context.Context) error { return src.DropTableContext(ctx, "c") }))
	require.NotZero(t, countKeys(t, src, tableKey(tid)), "the data stays while the stream runs")
	rest, err := io.ReadAll(pr)
	require.NoError(t, err)
	require.NoError(t, <-done)
	requireNoKeys(t, src, tableKey(tid))

	_, err = Restore(ctx, restoreOptions(filepath.Join(dir, "r")), io.MultiReader(bytes.NewReader(head), bytes.NewReader(rest)))
	require.NoError(t, err)
	rdb := openRepl(t, filepath.Join(dir, "r"))
	require.Equal(t, want, dumpDB(t, rdb))
}

// TestRestoreDamaged: a stream cut short or damaged anywhere is an error,
// and no directory is left.
func TestRestoreDamaged(t *testing.T) {
	dir := t.TempDir()
	src := openRepl(t, "")
	applyAll(t, src, replicaEntries(src)[:6])
	var buf bytes.Buffer
	_, err := src.StreamTo(ctx, &buf)
	require.NoError(t, err)
	valid := buf.Bytes()

	// Every damage is found by the reader; Restore of a few of them
	// leaves no directory.
	parse := func(b []byte) error {
		sr := newSnapReader(bytes.NewReader(b))
		if _, err := sr.header(); err != nil {
			return err
		}
		for {
			if err := sr.next(func(key, val []byte) error { return nil }); err != nil {
				return err
			}
		}
	}
	try := func(what string, b []byte) error {
		t.Helper()
		target := filepath.Join(dir, "r")
		_, err := Restore(ctx, restoreOptions(target), bytes.NewReader(b))
		require.Error(t, err, what)
		_, serr := os.Stat(target)
		require.ErrorIs(t, serr, os.ErrNotExist, "%s: %v", what, err)
		return err
	}
	require.Equal(t, io.EOF, parse(valid))
	var damaged [][]byte
	for c := range len(valid) {
		damaged = append(damaged, valid[:c])
	}
	for at := range valid {
		b := bytes.Clone(valid)
		b[at] ^= 0x20
		damaged = append(damaged, b)
	}
	for k, b := range damaged {
		err := parse(b)
		var se *SnapshotError
		require.ErrorAs(t, err, &se, k)
		if k%(len(damaged)/12) == 0 {
			require.Equal(t, err, try(fmt.Sprint(k), b))
		}
	}
	require.EqualError(t, try("appended", append(bytes.Clone(valid), 0)),
		fmt.Sprintf("index: snapshot stream at byte %d: bytes follow the end frame", len(valid)))
	require.EqualError(t, try("cut", valid[:len(valid)-3]),
		fmt.Sprintf("index: snapshot stream at byte %d: the stream ends inside a frame (13 of its 16 bytes)", len(valid)-3))
	require.EqualError(t, try("other", []byte("SQLite format 3\x00......")),
		`index: snapshot stream at byte 0: not a glint snapshot (it begins "SQLite f", not "GLINTSNP")`)
	require.EqualError(t, try("short", valid[:10]),
		"index: snapshot stream at byte 10: the stream ends inside the header (10 of its 24 bytes)")

	// A directory that exists is not touched.
	target := filepath.Join(dir, "exists")
	require.NoError(t, os.MkdirAll(target, 0o700))
	_, err = Restore(ctx, restoreOptions(target), bytes.NewReader(valid))
	require.EqualError(t, err, fmt.Sprintf("index: restore into %s: it exists; a snapshot is restored into a new directory", target))
	_, err = os.Stat(target)
	require.NoError(t, err)

	// A failing reader.
	boom := errors.New("connection reset")
	_, err = Restore(ctx, restoreOptions(filepath.Join(dir, "r")), io.MultiReader(bytes.NewReader(valid[:200]), errReader{boom}))
	require.ErrorIs(t, err, boom)
	_, err = os.Stat(filepath.Join(dir, "r"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestSnapshotWriterFails: a stream whose writer fails returns its error,
// and the DB streams again.
func TestSnapshotWriterFails(t *testing.T) {
	db := openRepl(t, "")
	applyAll(t, db, replicaEntries(db))
	boom := errors.New("peer went away")
	for _, after := range []int{0, 10, snapHeader + 100} {
		_, err := db.StreamTo(ctx, &failWriter{left: after, err: boom})
		require.ErrorIs(t, err, boom, after)
	}
	var buf bytes.Buffer
	applied, err := db.StreamTo(ctx, &buf)
	require.NoError(t, err)
	require.Equal(t, db.Applied(), applied)
	_, pairs := streamPairs(t, buf.Bytes())
	require.Equal(t, allPairs(t, db), pairs)
}

// failWriter fails once it has taken left bytes.
type failWriter struct {
	left int
	err  error
}

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, f.err
	}
	f.left -= len(p)
	return len(p), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// FuzzSnapshotStream: the stream reader never panics, and what it reads
// whole writes back to a stream that reads the same.
func FuzzSnapshotStream(f *testing.F) {
	var buf bytes.Buffer
	sw := newSnapWriter(&buf)
	require.NoError(f, sw.header(42))
	for _, k := range []string{"a", "b", "c\x00d", "mapplied"} {
		require.NoError(f, sw.add([]byte(k), []byte("value of "+k)))
	}
	require.NoError(f, sw.flush())
	require.NoError(f, sw.add([]byte("t\x00\x00\x00\x01S"), nil))
	require.NoError(f, sw.end())
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:40])
	f.Add([]byte(snapMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		sr := newSnapReader(bytes.NewReader(b))
		applied, err := sr.header()
		if err != nil {
			return
		}
		type pair struct{ k, v string }
		var pairs []pair
		for {
			err = sr.next(func(key, val []byte) error {
				pairs = append(pairs, pair{string(key), string(val)})
				return nil
			})
			if err != nil {
				break
			}
		}
		if err != io.EOF {
			var se *SnapshotError
			require.ErrorAs(t, err, &se)
			return
		}
		var out bytes.Buffer
		w := newSnapWriter(&out)
		require.NoError(t, w.header(applied))
		for _, p := range pairs {
			require.NoError(t, w.add([]byte(p.k), []byte(p.v)))
		}
		require.NoError(t, w.end())
		again := newSnapReader(&out)
		a2, err := again.header()
		require.NoError(t, err)
		require.Equal(t, applied, a2)
		i := 0
		for {
			err = again.next(func(key, val []byte) error {
				require.Equal(t, pairs[i], pair{string(key), string(val)})
				i++
				return nil
			})
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
		}
		require.Equal(t, len(pairs), i)
	})
}
