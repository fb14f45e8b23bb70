package index

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopyTable copies a table of several segments, with deletions, into a
// replicated DB by raft entries (staging table, batches, attach), and finds
// the same documents there, after a reopen too; then writes go on in the
// copy with the next automatic ids.
func TestCopyTable(t *testing.T) {
	src := openMem(t)
	tb := newTableT(t, src, simple())
	for i := range 5 {
		var docs []Document
		for j := range 40 {
			id := uint64(i*40 + j + 1)
			docs = append(docs, doc(id, fmt.Sprintf("title %d fox", id), fmt.Sprintf("body %d dog word%d", id, id%7), int64(2000+id%10)))
		}
		insert(t, tb, docs...)
	}
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		_, err := w.Delete([]uint64{3, 50, 199})
		return err
	}))

	dir := t.TempDir()
	dst := openRepl(t, dir)
	stage := simple()
	stage.Name = "__copy_docs"
	idx := uint64(1)
	apply := func(fn func(ctx context.Context) error) error {
		idx++
		return dst.Apply(ctx, idx, fn)
	}
	require.NoError(t, apply(func(ctx context.Context) error { return dst.CreateTableContext(ctx, stage) }))
	batches := 0
	schema, nextID, err := src.ExportTable(ctx, "docs", 4<<10, func(kvs []KV) error {
		batches++
		return apply(func(ctx context.Context) error { return dst.ImportKeysContext(ctx, "__copy_docs", kvs) })
	})
	require.NoError(t, err)
	assert.Greater(t, batches, 2, "the table went in several batches")
	assert.Equal(t, "Docs", schema.Name)
	assert.Equal(t, uint64(201), nextID)
	require.NoError(t, apply(func(ctx context.Context) error { return dst.AttachTableContext(ctx, "__copy_docs", "docs", nextID) }))
	assert.Equal(t, []string{"docs"}, dst.TableNames())
	assert.Equal(t, idx, dst.Applied())

	check := func(db *DB) {
		t.Helper()
		got, err := db.Table("docs")
		require.NoError(t, err)
		assert.Equal(t, ids(t, tb.Snapshot()), ids(t, got.Snapshot()))
		assert.Equal(t, search(t, tb.Snapshot(), "dog word3"), search(t, got.Snapshot(), "dog word3"))
		assert.Equal(t, 197, got.Snapshot().Count())
	}
	check(dst)
	require.NoError(t, dst.Close())
	dst = openRepl(t, dir)
	check(dst)

	got, err := dst.Table("docs")
	require.NoError(t, err)
	var newIDs []uint64
	require.NoError(t, dst.Apply(ctx, idx+1, func(ctx context.Context) error {
		return got.Write(ctx, func(w *Writer) error {
			newIDs, err = w.Insert([]Document{{Values: []Value{"new fox", "new", int64(1), []int64{1}}}})
			return err
		})
	}))
	assert.Equal(t, []uint64{201}, newIDs)
	assert.Equal(t, 198, got.Snapshot().Count())

	// Errors name what is wrong.
	require.ErrorIs(t, dst.Apply(ctx, idx+2, func(ctx context.Context) error {
		return dst.AttachTableContext(ctx, "nope", "docs2", 1)
	}), ErrNoSuchTable)
	_, _, err = src.ExportTable(ctx, "nope", 1, func([]KV) error { return nil })
	require.ErrorIs(t, err, ErrNoSuchTable)
}

// TestAttachTaken: attaching under a name in use is refused, and the
// staging table stays, to be dropped.
func TestAttachTaken(t *testing.T) {
	db := openMem(t)
	newTableT(t, db, simple())
	stage := simple()
	stage.Name = "stage"
	newTableT(t, db, stage)
	require.ErrorIs(t, db.AttachTableContext(context.Background(), "stage", "DOCS", 1), ErrTableExists)
	require.NoError(t, db.DropTable("stage"))
}

// TestFreeze: Freeze waits for the write running, which commits; writes
// after it get the freeze's error and change nothing; after Thaw they run.
func TestFreeze(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	inWrite, release := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		wrote <- tb.Write(ctx, func(w *Writer) error {
			close(inWrite)
			<-release
			_, err := w.Insert([]Document{doc(1, "running", "when the freeze came", 2001)})
			return err
		})
	}()
	<-inWrite
	frozen := make(chan struct{})
	refused := errors.New("the table is being copied")
	go func() {
		tb.Freeze(refused)
		close(frozen)
	}()
	select {
	case <-frozen:
		t.Fatal("Freeze returned while a write was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-frozen
	require.NoError(t, <-wrote, "the write that was running commits")
	assert.Equal(t, []uint64{1}, ids(t, tb.Snapshot()))

	err := tb.Write(ctx, func(w *Writer) error {
		_, err := w.Insert([]Document{doc(2, "after", "the freeze", 2002)})
		return err
	})
	require.ErrorIs(t, err, refused)
	assert.Equal(t, []uint64{1}, ids(t, tb.Snapshot()), "a refused write changes nothing")

	tb.Thaw()
	insert(t, tb, doc(2, "after", "the thaw", 2002))
	assert.Equal(t, []uint64{1, 2}, ids(t, tb.Snapshot()))
}
