package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOpenLeavesRetiredToBackground: the keys of segments that merges
// retired before a stop are removed after Open returns, not by it. A start
// after a minute of small writes found tens of thousands of them and spent
// seconds deleting them before it answered anything.
func TestOpenLeavesRetiredToBackground(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir).WithMergeFactor(-1))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 20 {
		insert(t, tb, mergeDoc(r, uint64(i+1)))
	}
	held := tb.Snapshot() // keeps the sources' keys until the stop
	require.NoError(t, tb.Optimize(ctx))
	runtime.GC()
	retired := countKeys(t, db, kindKey(tb.tid, kindRetired))
	require.Equal(t, 20, retired)
	want := contents(t, tb.Snapshot())
	require.NoError(t, db.Close())
	runtime.KeepAlive(held)

	release := make(chan struct{})
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	handed := make(chan int, 64)
	o := DefaultOptions(dir).WithMergeFactor(-1)
	o.knobs.beforeRemove = func(n int) {
		handed <- n
		<-release
	}
	type opened struct {
		db  *DB
		err error
	}
	done := make(chan opened, 1)
	go func() {
		db, err := Open(o)
		done <- opened{db, err}
	}()
	var got opened
	select {
	case got = <-done:
	case <-time.After(time.Minute): // a hang guard, not a measure
		t.Fatal("Open waits for the removal of the segments merged before the stop")
	}
	require.NoError(t, got.err)
	db = got.db
	t.Cleanup(func() { db.Close() }) // after the deferred release: a failure below must not wait on the held removal
	tb, err = db.Table("docs")
	require.NoError(t, err)
	// The removal is held: every marker is still there, and the table reads
	// as it did.
	require.Equal(t, retired, countKeys(t, db, kindKey(tb.tid, kindRetired)))
	require.Equal(t, want, contents(t, tb.Snapshot()))
	require.Equal(t, retired, <-handed, "the background removes them in one batch")

	close(release)
	released = true
	for deadline := time.Now().Add(time.Minute); countKeys(t, db, kindKey(tb.tid, kindRetired)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the segments merged before the stop were not removed")
		}
	}
	require.Equal(t, want, contents(t, tb.Snapshot()))
}

// BenchmarkRestart opens the files a stop in the middle of merges left
// after a churn of single-row statements (inserts of new ids and REPLACEs
// of 16 ids, as the Jepsen workloads write), and reports the time of Open
// and the segments it loaded. (It copied the live directory before, as a
// stand-in for a kill -9; but files copied one after another while badger
// writes them are no image a crash can leave, and now and then Open found
// one torn: "corrupt data: segment meta version".)
func BenchmarkRestart(b *testing.B) {
	const statements = 20000
	live := filepath.Join(b.TempDir(), "live")
	db, err := Open(DefaultOptions(live))
	require.NoError(b, err)
	tb := newTableT(b, db, simple())
	r := rand.New(rand.NewPCG(1, 2))
	for i := range statements {
		d := mergeDoc(r, uint64(i+100))
		if i%2 == 1 {
			d.ID = uint64(i%32)/2 + 1
		}
		require.NoError(b, tb.Write(ctx, func(w *Writer) error {
			_, err := w.Replace([]Document{d})
			return err
		}))
	}
	// Closed in the middle of the merges the writes asked for: they are
	// abandoned, and the retired segments' keys left for the next start.
	require.NoError(b, db.Close())
	img := filepath.Join(b.TempDir(), "image")
	copyDir(b, live, img)

	segs := 0
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		copyDir(b, img, dir)
		b.StartTimer()
		db, err := Open(DefaultOptions(dir))
		require.NoError(b, err)
		b.StopTimer()
		tb, err := db.Table("docs")
		require.NoError(b, err)
		segs = len(tb.Snapshot().segs)
		require.NoError(b, db.Close())
		b.StartTimer()
	}
	b.ReportMetric(float64(segs), "segments")
}
