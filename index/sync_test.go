package index

import (
	"errors"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSyncFailure: under SyncWrites, a statement whose fsync fails is not
// acknowledged, and neither is any write after it (the page cache can no
// longer be trusted), while reads go on. After a restart the database opens
// whole: every acknowledged row is there, and the failed statement's row is
// either wholly there or not at all.
func TestSyncFailure(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir).WithSyncWrites(true))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(1, "kept", "an acknowledged row", 2001))

	db.sync = func() error { return syscall.EIO }
	err = tb.Write(ctx, func(w *Writer) error {
		_, err := w.Insert([]Document{doc(2, "lost", "a row whose sync failed", 2002)})
		return err
	})
	var se *SyncError
	require.ErrorAs(t, err, &se)
	assert.True(t, errors.Is(err, syscall.EIO))
	assert.Equal(t, "index: writing to disk failed (fsync: input/output error): the last write may not be durable, "+
		"and no write is accepted until glintd is restarted", se.Error())

	db.sync = db.bdb.Sync // the disk is fine again: writes stay refused all the same
	err = tb.Write(ctx, func(w *Writer) error {
		_, err := w.Insert([]Document{doc(3, "refused", "a later row", 2003)})
		return err
	})
	require.ErrorAs(t, err, &se)
	require.ErrorAs(t, db.CreateTable(Schema{Name: "other", Columns: simple().Columns}), &se)
	assert.Equal(t, []uint64{1}, search(t, tb.Snapshot(), "acknowledged"), "reads go on")

	db, tb = reopen(t, db, dir, "Docs")
	got := ids(t, tb.Snapshot())
	assert.Contains(t, got, uint64(1))
	assert.NotContains(t, got, uint64(3))
	if len(got) == 2 {
		assert.Equal(t, []uint64{2}, search(t, tb.Snapshot(), "failed"), "the failed statement's row, whole")
	}
	insert(t, tb, doc(4, "again", "writes work after the restart", 2004))
	assert.Equal(t, []uint64{4}, search(t, tb.Snapshot(), "restart"))
	_, err = db.Table("other")
	assert.ErrorIs(t, err, ErrNoSuchTable)
}
