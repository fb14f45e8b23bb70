package e2e

// An fsync that fails under the real glintd: its data directory is on a FUSE
// file system served by this test process, a loopback over a temporary
// directory whose fsync answers EIO while a switch is on.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultyDisk is the switch of a mounted faulty file system.
type faultyDisk struct {
	suffix  string       // only files whose names end so fail; "": every file
	failing atomic.Bool  // fsync answers EIO while set
	failed  atomic.Int64 // fsyncs answered EIO
}

// faultyNode is a loopback node whose fsync (fsync, fdatasync, and msync
// with MS_SYNC, which badger uses on its memory-mapped logs) fails while the
// disk's switch is on. The data written before it still reaches the
// directory underneath, as it does on a disk whose fsync fails late.
type faultyNode struct {
	*fs.LoopbackNode
	disk *faultyDisk
}

var (
	_ fs.NodeWrapChilder = (*faultyNode)(nil)
	_ fs.NodeOpener      = (*faultyNode)(nil)
	_ fs.NodeCreater     = (*faultyNode)(nil)
	_ fs.NodeFsyncer     = (*faultyNode)(nil)
)

func (n *faultyNode) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &faultyNode{LoopbackNode: ops.(*fs.LoopbackNode), disk: n.disk}
}

func (n *faultyNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	f, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	return noPassthrough(f), fuseFlags, errno
}

func (n *faultyNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	node, f, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	return node, noPassthrough(f), fuseFlags, errno
}

// loopbackFile is a loopback file the kernel cannot bypass. Where the kernel
// offers FUSE passthrough (Linux 6.9 and later, as root) the loopback hands it
// the file underneath, and then reads, writes, memory maps and their msync
// go there directly: fsync would still reach this file system, badger's msync
// would not.
type loopbackFile struct{ *fs.LoopbackFile }

func (loopbackFile) PassthroughFd() (int, bool) { return 0, false }

func noPassthrough(f fs.FileHandle) fs.FileHandle {
	if lf, ok := f.(*fs.LoopbackFile); ok {
		return loopbackFile{lf}
	}
	return f
}

func (n *faultyNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if n.disk.failing.Load() && strings.HasSuffix(n.Path(nil), n.disk.suffix) {
		n.disk.failed.Add(1)
		return syscall.EIO
	}
	if s, ok := f.(fs.FileFsyncer); ok {
		return s.Fsync(ctx, flags)
	}
	return syscall.ENOTSUP // what the loopback answers without a file handle
}

// mountFaulty mounts a faulty loopback over a new directory on a new mount
// point, unmounted when the test ends. Call it before starting the servers
// that use it, so that they are stopped (or killed) before the unmount.
func mountFaulty(t *testing.T, suffix string) (string, *faultyDisk) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipFault(t, "mounting a FUSE file system without fusermount needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		skipFault(t, fmt.Sprintf("no FUSE: %v", err))
	}
	under, mnt := t.TempDir(), t.TempDir()
	disk := &faultyDisk{suffix: suffix}
	root := &faultyNode{LoopbackNode: &fs.LoopbackNode{RootData: &fs.LoopbackRoot{Path: under}}, disk: disk}
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(under, &st))
	root.RootData.Dev = st.Dev
	root.RootData.RootNode = root
	server, err := fs.Mount(mnt, root, &fs.Options{MountOptions: fuse.MountOptions{
		// The mount(2) call itself, as root: no fusermount helper is needed.
		DirectMountStrict: true,
		FsName:            "glint-faulty",
		Name:              "glintfaulty",
	}})
	if err != nil {
		skipFault(t, fmt.Sprintf("mounting FUSE on %s: %v", mnt, err))
	}
	t.Cleanup(func() {
		// The servers on the mount are stopped or killed by now (their
		// cleanups ran first); an open file would make the unmount fail.
		if err := server.Unmount(); err != nil {
			t.Errorf("unmounting %s: %v; detaching it", mnt, err)
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	return mnt, disk
}

// TestFsyncFailure: under --sync-writes, the statement whose fsync fails is
// refused, and so is every write after it even once the disk works again,
// while reads go on. After a restart every acknowledged row is there, the
// failed statement is there whole or not at all, and writes work again.
//
// glintd is restarted two ways. "stop": the disk works again and SIGTERM
// closes the storage cleanly. "kill": the disk still fails, and glintd is
// killed, as its owner must: its shutdown would not end, since badger retries
// the flush of its memtable, and the fsync in it, every second.
func TestFsyncFailure(t *testing.T) {
	tests := []struct {
		name   string
		suffix string // the files whose fsync fails
		kill   bool
	}{
		{"stop", "", false},
		{"kill", "", true},
		{"value log only", ".vlog", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testFsyncFailure(t, tt.suffix, tt.kill) })
	}
}

func testFsyncFailure(t *testing.T, suffix string, kill bool) {
	mnt, disk := mountFaulty(t, suffix)
	s := StartServer(t, WithDataDir(filepath.Join(mnt, "data")), WithArgs("--memory-limit", "128M", "--sync-writes"))
	t.Cleanup(func() { disk.failing.Store(false) }) // before the server is stopped
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE f (body text, n int)")

	// Rows 1..30 are acknowledged, three statements of ten; every third text
	// is over 1 KB, so badger's value log holds it.
	body := func(id int) string {
		if id%3 == 0 {
			return fmt.Sprintf("row%d acked %s", id, strings.Repeat("x", 2000))
		}
		return fmt.Sprintf("row%d acked", id)
	}
	insert := func(from, to int) error {
		var values []string
		for id := from; id <= to; id++ {
			values = append(values, fmt.Sprintf("(%d, '%s', %d)", id, body(id), id))
		}
		_, err := db.Exec("INSERT INTO f (id, body, n) VALUES " + strings.Join(values, ","))
		return err
	}
	for from := 1; from <= 30; from += 10 {
		require.NoError(t, insert(from, from+9))
	}
	require.Zero(t, disk.failed.Load())

	const refused = "writing to disk failed (fsync: input/output error): the last write may not be durable, " +
		"and no write is accepted until glintd is restarted"
	disk.failing.Store(true)
	me := RequireMySQLError(t, insert(31, 40), 1105) // the failed statement
	assert.Equal(t, refused, me.Message)
	assert.Equal(t, "HY000", string(me.SQLState[:]))
	assert.Positive(t, disk.failed.Load(), "the error came from the faulty fsync")

	// Later writes are refused, DDL too, even once the disk works again;
	// reads go on.
	disk.failing.Store(false)
	me = RequireMySQLError(t, insert(41, 41), 1105)
	assert.Equal(t, refused, me.Message)
	_, err := db.Exec("CREATE TABLE g (body text)")
	me = RequireMySQLError(t, err, 1105)
	assert.Equal(t, refused, me.Message)
	requireAcked := func() []string {
		t.Helper()
		db := s.DB(t)
		ids := MustQuery(t, db, "SELECT id FROM f ORDER BY id ASC LIMIT 100").Column(0)
		for id := 1; id <= 30; id++ {
			assert.Contains(t, ids, strconv.Itoa(id), "acknowledged row %d", id)
		}
		assert.Equal(t, [][]string{{"30"}}, MustQuery(t, db, "SELECT id FROM f WHERE MATCH('row30')").Values)
		got := MustQuery(t, db, "SELECT body FROM f WHERE id = 30").Values
		require.Len(t, got, 1)
		assert.Equal(t, body(30), got[0][0])
		assert.NotContains(t, ids, "41", "the write after the failure")
		assert.Equal(t, []string{"f"}, MustQuery(t, db, "SHOW TABLES").Column(0))
		return ids
	}
	requireAcked()

	if kill {
		disk.failing.Store(true)
		s.Kill(t)
		disk.failing.Store(false)
	} else {
		s.Stop(t) // fails unless glintd exits 0
	}
	assert.Contains(t, s.Output(), "index: writing to disk failed (fsync: input/output error)", "glintd logs it")
	assert.NotContains(t, s.Output(), "panic")

	s.Restart(t)
	ids := requireAcked()
	var failed []string
	for id := 31; id <= 40; id++ {
		if slices.Contains(ids, strconv.Itoa(id)) {
			failed = append(failed, strconv.Itoa(id))
		}
	}
	assert.Contains(t, []int{0, 10}, len(failed), "the failed statement whole or not at all: %v", failed)
	t.Logf("after the restart: %d rows, %d of them of the failed statement", len(ids), len(failed))
	if len(failed) == 10 {
		assert.Equal(t, [][]string{{"31"}}, MustQuery(t, s.DB(t), "SELECT id FROM f WHERE MATCH('row31')").Values)
	}

	// Writes work again.
	db = s.DB(t)
	require.NoError(t, insert(50, 52))
	assert.Equal(t, [][]string{{"51"}}, MustQuery(t, db, "SELECT id FROM f WHERE MATCH('row51')").Values)
	MustExec(t, db, "CREATE TABLE g (body text)")
	assert.NotContains(t, s.Output(), "writing to disk failed")
}
