package index

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// maintenance is the DB's background work, done by one goroutine: the
// merges of tables that need them (merge.go), the removal of the keys of
// segments that merges retired, and badger's value-log garbage collection.
type maintenance struct {
	db     *DB
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine ends
	wake   chan struct{}

	mu      sync.Mutex
	queue   []*Table         // tables that may need merges
	retired []retiredSegment // segments whose keys no snapshot reads any more

	pending atomic.Int64 // tables queued or being merged
	merges  atomic.Int64 // merges committed

	fullLogged atomic.Bool // a merge waiting for disk space was logged

	ddl     atomic.Int32       // DDL statements that want the write lock
	running context.CancelFunc // cancels the background merge under way (under mu)
}

// errInterrupted is a background merge that gave way to a DDL statement.
var errInterrupted = errors.New("index: merge interrupted by DROP or TRUNCATE")

// interrupt makes the background merge under way give up, and those that
// start meanwhile, so that a DDL statement waiting for the DB's write lock
// does not wait for them; they are made again after it. done must be
// called once the statement has ended.
func (m *maintenance) interrupt() (done func()) {
	m.ddl.Add(1)
	m.mu.Lock()
	if m.running != nil {
		m.running()
	}
	m.mu.Unlock()
	return func() { m.ddl.Add(-1) }
}

// valueLogGCEvery is how often the value log is garbage-collected: rewriting
// its files whose values are mostly deleted or overwritten frees their space.
const valueLogGCEvery = time.Minute

func (m *maintenance) start(db *DB) {
	m.db = db
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.done = make(chan struct{})
	m.wake = make(chan struct{}, 1)
	go m.run()
}

// stop ends the goroutine's work in progress (a merge is abandoned: its
// staged keys are removed, or the next Open removes them). It does not wait.
func (m *maintenance) stop() { m.cancel() }

func (m *maintenance) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// enqueue asks for merges of t if it needs any.
func (m *maintenance) enqueue(t *Table) {
	if !t.needsMerge() || !t.mergeQueued.CompareAndSwap(false, true) {
		return
	}
	m.pending.Add(1)
	m.mu.Lock()
	m.queue = append(m.queue, t)
	m.mu.Unlock()
	m.signal()
}

// retiredSegment is a segment that a merge unregistered, with the docstore
// records that went with it.
type retiredSegment struct {
	segmentKeys
	records []docRun
}

// retire asks for the removal of retired segments' keys. Called by the
// runtime once no snapshot holds a segment, and by Open with those that
// merges retired before the last stop, all at once: one at a time, the
// background could wake between two and remove the first alone.
func (m *maintenance) retire(rs ...retiredSegment) {
	if len(rs) == 0 {
		return
	}
	m.mu.Lock()
	m.retired = append(m.retired, rs...)
	m.mu.Unlock()
	m.signal()
}

func (m *maintenance) run() {
	defer close(m.done)
	gc := time.NewTicker(valueLogGCEvery)
	defer gc.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-gc.C:
			m.collectValueLog()
		case <-m.wake:
		}
		m.mergeQueued()
		m.removeRetired()
	}
}

// mergeQueued merges the queued tables until none needs more.
func (m *maintenance) mergeQueued() {
	for m.ctx.Err() == nil {
		m.mu.Lock()
		if len(m.queue) == 0 {
			m.mu.Unlock()
			return
		}
		t := m.queue[0]
		m.queue = m.queue[1:]
		m.mu.Unlock()
		err := m.mergeTable(t)
		t.mergeQueued.Store(false)
		m.pending.Add(-1)
		switch {
		case err == nil:
			m.fullLogged.Store(false)
			m.enqueue(t) // a write may have asked while the flag was still set
		case errors.Is(err, ErrClosed), errors.Is(err, ErrNoSuchTable), m.ctx.Err() != nil:
		case errors.As(err, new(*DiskFullError)):
			if m.fullLogged.CompareAndSwap(false, true) { // once until a merge is made
				m.db.logf("merging segments of %s: %v (merges wait for room; the next write retries)", t.schema.Name, err)
			}
		default:
			m.db.logf("merging segments of %s: %v (the next write retries)", t.schema.Name, err)
		}
	}
}

// mergeTable makes the merges t needs. One that a DDL statement
// interrupts is made again once the statement has ended.
func (m *maintenance) mergeTable(t *Table) error {
	for {
		ctx, cancel := context.WithCancel(m.ctx)
		m.mu.Lock()
		m.running = cancel
		m.mu.Unlock()
		var err error
		for merged := true; merged && err == nil; {
			merged, err = t.mergeNext(ctx)
			// Under a steady stream of writes a table may need merges for
			// as long as it lasts: the keys the merges retire go meanwhile,
			// not when it ends (a crash left them all for the next start).
			m.removeRetired()
		}
		m.mu.Lock()
		m.running = nil
		m.mu.Unlock()
		cancel()
		if !errors.Is(err, errInterrupted) && !errors.Is(err, context.Canceled) || m.ctx.Err() != nil {
			return err
		}
		for m.ddl.Load() > 0 && m.ctx.Err() == nil {
			time.Sleep(time.Millisecond) // the statement runs
		}
	}
}

// removeRetired deletes the keys of the retired segments.
func (m *maintenance) removeRetired() {
	m.mu.Lock()
	retired := m.retired
	m.retired = nil
	m.mu.Unlock()
	for len(retired) > 0 && m.ctx.Err() == nil {
		n := min(len(retired), removeBatch)
		if err := m.db.removeSegments(retired[:n]); err != nil {
			m.db.logf("removing %d merged segments of %s: %v (the next start removes them)", n, retired[0].t.schema.Name, err)
		}
		retired = retired[n:]
	}
}

// removeBatch is how many retired segments one removal takes: one write
// batch of their keys and one transaction of their markers, rather than a
// commit of each (a churn of REPLACEs retires hundreds a second).
const removeBatch = 256

// collectValueLog rewrites the value-log files that are mostly garbage.
func (m *maintenance) collectValueLog() {
	if m.db.inMemory {
		return
	}
	for m.ctx.Err() == nil {
		// A rewrite copies up to half a value-log file before it frees the
		// file; it waits for room (the next minute asks again).
		if m.db.checkSpace(valueLogFileSize/2, "") != nil {
			return
		}
		m.db.wmu.RLock()
		err := ErrClosed
		if !m.db.closed {
			err = m.db.bdb.RunValueLogGC(0.5)
		}
		m.db.wmu.RUnlock()
		if err != nil {
			if !errors.Is(err, badger.ErrNoRewrite) && !errors.Is(err, ErrClosed) {
				m.db.logf("value log garbage collection: %v", err)
			}
			return
		}
	}
}

// removeSegments deletes the keys of segments that merges unregistered:
// their term blocks and posting lists and the records named in them, then
// the markers that made them garbage. A segment of a table dropped or
// truncated meanwhile is left to the DROP or TRUNCATE, or the next Open.
func (db *DB) removeSegments(rs []retiredSegment) error {
	if hook := db.knobs.beforeRemove; hook != nil {
		hook(len(rs))
	}
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return nil // the next Open removes them
	}
	if err := db.refused(); err != nil {
		return err
	}
	rs = slices.DeleteFunc(slices.Clone(rs), func(r retiredSegment) bool { return r.t.dropped || r.t.tid != r.tid })
	if len(rs) == 0 {
		return nil
	}
	wb := db.bdb.NewWriteBatch()
	defer wb.Cancel()
	err := db.bdb.View(func(txn *badger.Txn) error {
		for _, r := range rs {
			for _, kind := range []byte{kindBlock, kindPosting} {
				err := iteratePrefix(txn, segKey(r.tid, kind, r.seg), false, func(key, _ []byte) error {
					return wb.Delete(append([]byte(nil), key...))
				})
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	for _, r := range rs {
		for _, run := range r.records {
			for ord := run.ord; err == nil && ord < run.ord+run.n; ord++ {
				err = wb.Delete(appendDocKey(nil, r.tid, run.seg, ord))
			}
		}
	}
	if err == nil {
		err = db.writeFailed(wb.Flush())
	}
	if err != nil {
		return err
	}
	return db.update(func(txn *badger.Txn) error {
		for _, r := range rs {
			if err := txn.Delete(segKey(r.tid, kindRetired, r.seg)); err != nil {
				return err
			}
		}
		return nil
	})
}

// needsMerge reports whether the table has segments to merge.
func (t *Table) needsMerge() bool {
	lo, hi := pickMerge(t.Snapshot().segs, t.db.mergeFactor)
	return lo < hi
}

// MergesPending is the number of tables whose segments are being merged or
// wait for it.
func (db *DB) MergesPending() int { return int(db.maint.pending.Load()) }

// Merges is the number of merges committed since Open.
func (db *DB) Merges() int64 { return db.maint.merges.Load() }

// SegmentStats counts, over every table's current snapshot, the segments
// and the deleted documents they still hold (which merges drop).
func (db *DB) SegmentStats() (segments, deleted int) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	for _, t := range db.tables {
		for _, seg := range t.Snapshot().segs {
			segments++
			if seg.deleted != nil {
				deleted += int(seg.deleted.GetCardinality())
			}
		}
	}
	return segments, deleted
}
