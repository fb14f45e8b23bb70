package e2e

// Disk faults: a full disk, a read-only or locked data directory, damaged
// files found at start, and a failed fsync (fsync_test.go), each injected
// under the real glintd. Every test checks that nothing acknowledged is lost.
//
// The disk-full and read-only tests mount a tmpfs, the fsync test a FUSE file
// system, which needs root; they skip without it unless GLINT_REQUIRE_FAULTS=1
// (make test sets it, so CI fails rather than skips).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glint-search/glint/e2e/daemon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// skipFault skips a test that cannot set up its fault, or fails it under
// GLINT_REQUIRE_FAULTS=1.
func skipFault(t *testing.T, why string) {
	t.Helper()
	skipUnlessRequired(t, "GLINT_REQUIRE_FAULTS", why)
}

// skipUnlessRequired skips the test for the reason why, or fails it when the
// environment variable env is 1 (make test sets them: CI must not skip).
func skipUnlessRequired(t *testing.T, env, why string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf("%s (%s=1)", why, env)
	}
	t.Skipf("%s (%s=1 makes this a failure)", why, env)
}

// mountTmpfs mounts a tmpfs of sizeMB on a new directory, unmounted when the
// test ends (after the servers it started are stopped).
func mountTmpfs(t *testing.T, sizeMB int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		skipFault(t, "mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", sizeMB), "tmpfs", dir).CombinedOutput(); err != nil {
		skipFault(t, fmt.Sprintf("mount -t tmpfs: %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	return int64(st.Bavail) * int64(st.Bsize)
}

// fill allocates a file in dir that leaves about leave bytes free.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, unix.Fallocate(int(f.Fd()), 0, 0, freeBytes(t, dir)-leave))
	return name
}

// startFails starts glintd on dir, which must exit non-zero before it is
// ready; it returns what glintd printed.
func startFails(t *testing.T, dir string, args ...string) string {
	t.Helper()
	p, err := daemon.Start(context.Background(), daemon.Options{Binary: glintd(t), DataDir: dir, Args: args, StartTimeout: 30 * time.Second})
	if err == nil {
		_ = p.Stop(10 * time.Second)
		t.Fatalf("glintd started on %s; output:\n%s", dir, p.Output())
	}
	require.Contains(t, err.Error(), "exited before it was ready", "glintd must exit, not hang")
	require.Contains(t, err.Error(), "exit status 1")
	assert.NotContains(t, err.Error(), "panic", "a clean message, not a crash")
	assert.NotContains(t, err.Error(), "SIGBUS")
	return err.Error()
}

// reserveMB is the disk reserve of glintd at --memory-limit 128M
// (index.diskReserve of a 4 MB memtable).
const reserveMB = 92

// noise is n bytes of text that no compression makes smaller.
func noise(n int) string {
	b := make([]byte, n/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func TestDiskFullRefusesWritesAndRecovers(t *testing.T) {
	mnt := mountTmpfs(t, reserveMB+40)
	s := StartServer(t, WithDataDir(filepath.Join(mnt, "data")), WithArgs("--memory-limit", "128M"))
	db := s.DB(t)
	MustExec(t, db, "CREATE TABLE f (body text, n int)")
	filler := fill(t, mnt, (reserveMB+4)<<20)

	// Statements of five rows of ~4 KB until the disk is full.
	var acked []int
	var refused []int
	var err error
	for stmt := 0; stmt < 1000 && err == nil; stmt++ {
		var values []string
		var ids []int
		for i := range 5 {
			id := stmt*5 + i + 1
			ids = append(ids, id)
			values = append(values, fmt.Sprintf("(%d, 'row%d %s', %d)", id, id, noise(4000), id))
		}
		if _, err = db.Exec("INSERT INTO f (id, body, n) VALUES " + strings.Join(values, ",")); err == nil {
			acked = append(acked, ids...)
		} else {
			refused = ids
		}
	}
	require.Error(t, err, "4 MB more than the reserve cannot take 20 MB")
	RequireMySQLError(t, err, 1114, "disk full", "free", "nothing of this statement was written")
	t.Logf("%d rows acknowledged; refused: %v", len(acked), err)
	require.Greater(t, len(acked), 100)

	// Everything acknowledged is there, nothing of the refused statement, and reads work.
	requireRows := func() {
		t.Helper()
		db := s.DB(t)
		assert.Equal(t, [][]string{{strconv.Itoa(len(acked))}}, MustQuery(t, db, "SELECT COUNT(*) FROM f").Values)
		last := acked[len(acked)-1]
		assert.Equal(t, [][]string{{strconv.Itoa(last)}}, MustQuery(t, db, fmt.Sprintf("SELECT id FROM f WHERE MATCH('row%d')", last)).Values)
		body := MustQuery(t, db, fmt.Sprintf("SELECT body FROM f WHERE id = %d", last)).Values
		require.Len(t, body, 1)
		assert.Len(t, body[0][0], len(fmt.Sprintf("row%d ", last))+4000)
		for _, id := range refused {
			assert.Empty(t, MustQuery(t, db, fmt.Sprintf("SELECT id FROM f WHERE id = %d", id)).Values, "id %d of the refused statement", id)
		}
	}
	requireRows()
	_, err = db.Exec(fmt.Sprintf("INSERT INTO f (id, body) VALUES (200000, '%s')", noise(100_000)))
	RequireMySQLError(t, err, 1114, "disk full")

	// Space comes back: writes work without a restart.
	require.NoError(t, os.Remove(filler))
	MustExec(t, db, fmt.Sprintf("INSERT INTO f (id, body, n) VALUES (100000, 'row100000 %s', 1), (100001, 'row100001 %s', 2)", noise(4000), noise(4000)))
	acked = append(acked, 100000, 100001)
	requireRows()

	// And a restart keeps all of it.
	s.Restart(t)
	requireRows()
	assert.NotContains(t, s.Output(), "panic")
}

func TestDiskFullAtStartIsRefused(t *testing.T) {
	mnt := mountTmpfs(t, reserveMB+20)
	dir := filepath.Join(mnt, "data")
	s := StartServer(t, WithDataDir(dir), WithArgs("--memory-limit", "128M"))
	writeAcknowledged(t, s)
	s.Stop(t)
	filler := fill(t, mnt, (reserveMB-10)<<20)

	out := startFails(t, dir, "--memory-limit", "128M")
	assert.Contains(t, out, "disk full: the file system of "+dir+" has ")
	assert.Contains(t, out, "free some space and start again")

	require.NoError(t, os.Remove(filler))
	s.Restart(t)
	requireAcknowledged(t, s)
}

func TestReadOnlyDataDirIsRefused(t *testing.T) {
	mnt := mountTmpfs(t, reserveMB+20)
	dir := filepath.Join(mnt, "data")
	s := StartServer(t, WithDataDir(dir), WithArgs("--memory-limit", "128M"))
	writeAcknowledged(t, s)
	s.Stop(t)
	remount := func(mode string) {
		t.Helper()
		out, err := exec.Command("mount", "-o", "remount,"+mode, mnt).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	remount("ro")
	t.Cleanup(func() { _ = exec.Command("mount", "-o", "remount,rw", mnt).Run() })

	out := startFails(t, dir, "--memory-limit", "128M")
	assert.Contains(t, out, "glintd: opening "+dir+": index: data directory "+dir+" is read-only (its file system is mounted read-only)")

	remount("rw")
	s.Restart(t)
	requireAcknowledged(t, s)
}

func TestLockedDataDirIsRefused(t *testing.T) {
	s := StartServer(t)
	writeAcknowledged(t, s)

	out := startFails(t, s.DataDir)
	assert.Contains(t, out, fmt.Sprintf("index: data directory %s is in use by another glintd (process %d holds the lock; its pid is in %s)",
		s.DataDir, s.Pid(), filepath.Join(s.DataDir, "LOCK")))

	// The running server was not disturbed.
	requireAcknowledged(t, s)
	s.Restart(t)
	requireAcknowledged(t, s)
}

// TestDamagedFilesAtStart stops a server with acknowledged writes, damages
// one file of a copy of its data directory, and starts glintd on the copy:
// it refuses with a message naming the file, or recovers with every
// acknowledged row.
func TestDamagedFilesAtStart(t *testing.T) {
	s := StartServer(t)
	writeAcknowledged(t, s)
	s.Stop(t)

	only := func(t *testing.T, dir, ext string) string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(dir, "*"+ext))
		require.NoError(t, err)
		require.Len(t, names, 1, "one %s file after a clean stop", ext)
		return names[0]
	}
	resize := func(t *testing.T, name string, delta int64) {
		t.Helper()
		st, err := os.Stat(name)
		require.NoError(t, err)
		require.NoError(t, os.Truncate(name, st.Size()+delta))
	}
	tests := []struct {
		name     string
		damage   func(t *testing.T, dir string) string // returns the file it damaged
		mentions []string                              // empty: glintd recovers
	}{
		{"MANIFEST removed", func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "MANIFEST")
			require.NoError(t, os.Remove(name))
			return name
		}, []string{"is missing", "refusing to start"}},
		{"MANIFEST cut short", func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "MANIFEST")
			resize(t, name, -6)
			return name
		}, []string{"is cut short", ".sst", "refusing to start"}},
		{"MANIFEST byte flipped", func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "MANIFEST")
			flip(t, name, 12)
			return name
		}, []string{"is damaged", "checksum", "refusing to start"}},
		{"table truncated", func(t *testing.T, dir string) string {
			name := only(t, dir, ".sst")
			resize(t, name, -100)
			return name
		}, []string{"table file", "is damaged", "refusing to start"}},
		{"table removed", func(t *testing.T, dir string) string {
			name := only(t, dir, ".sst")
			require.NoError(t, os.Remove(name))
			return name
		}, []string{"table file", "is missing", "MANIFEST"}},
		{"table half written, not listed", func(t *testing.T, dir string) string {
			// A kill -9 while badger filled a new table (a flush or a
			// compaction: the file is sized first, then written, then
			// listed in the MANIFEST): badger deletes it as it opens.
			data, err := os.ReadFile(only(t, dir, ".sst"))
			require.NoError(t, err)
			clear(data[len(data)/3:])
			name := filepath.Join(dir, "099999.sst")
			require.NoError(t, os.WriteFile(name, data, 0o644))
			return name
		}, nil},
		{"empty memtable log", func(t *testing.T, dir string) string {
			// A kill -9 between the creation of badger's next memtable log
			// and its sizing.
			name := filepath.Join(dir, "99999.mem")
			require.NoError(t, os.WriteFile(name, nil, 0o644))
			return name
		}, nil},
		{"empty value-log file", func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "099999.vlog")
			require.NoError(t, os.WriteFile(name, nil, 0o644))
			return name
		}, nil},
		{"torn value-log tail", func(t *testing.T, dir string) string {
			// A write cut short by a crash: half an entry after the last whole one.
			name := only(t, dir, ".vlog")
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.Write([]byte{0, 0, 0, 0x12, 0x34, 0x56, 7, 8, 9})
			require.NoError(t, err)
			require.NoError(t, f.Close())
			return name
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, s.DataDir, dir)
			name := tt.damage(t, dir)
			if tt.mentions == nil {
				c := StartServer(t, WithDataDir(dir))
				requireAcknowledged(t, c)
				if strings.HasSuffix(name, ".sst") {
					_, err := os.Stat(name)
					assert.ErrorIs(t, err, fs.ErrNotExist, "badger deletes a table the MANIFEST does not list")
				}
				return
			}
			out := startFails(t, dir)
			assert.Contains(t, out, name)
			for _, m := range tt.mentions {
				assert.Contains(t, out, m)
			}
			// The files glintd refused are as they were: nothing was deleted.
			if _, err := os.Stat(name); err == nil {
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				assert.NotEmpty(t, entries)
			}
		})
	}
	// The undamaged original still has everything.
	s.Restart(t)
	requireAcknowledged(t, s)
}

func flip(t *testing.T, name string, off int64) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0xff
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), b, 0o644))
	}
}
