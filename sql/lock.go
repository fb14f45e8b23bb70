package sql

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// This file holds FLUSH TABLES and its read locks, which backup tools take
// (mysqldump --lock-all-tables and --master-data, mydumper) for a dump
// that no write changes while it is read.

// readLocks are the locks of FLUSH TABLES [t, ...] WITH READ LOCK. While a
// session holds one, a write to its tables (to any table, for the lock of
// every table) from another session waits until it is released, by UNLOCK
// TABLES or the session's end, and the holder's own writes are refused. A
// lock is granted once the writes to its tables that were running have
// ended; the writes that come meanwhile wait, so a stream of writes
// cannot keep it out. A write that waits longer than the session's
// @@lock_wait_timeout, as a lock that waits that long, is MySQL's error
// 1205.
type readLocks struct {
	mu sync.Mutex
	// held counts the sessions holding a lock on each table (lower-case
	// name; "" for every table); writing, the writes running on each
	// ("" for a write whose tables are not known: one on every table).
	held, writing map[string]int
	// changed is closed, and forgotten, when either count goes down:
	// what waits for one waits on it.
	changed chan struct{}
}

// lockKeys are the keys of readLocks' counts for tables (nil: all).
func lockKeys(tables []string) []string {
	if tables == nil {
		return []string{""}
	}
	keys := make([]string, len(tables))
	for i, t := range tables {
		keys[i] = strings.ToLower(t)
	}
	return keys
}

// waitWhile waits, l.mu held, while blocked() says so: until it does not
// (nil), ctx ends (its error) or wait has passed (errLockWait).
func (l *readLocks) waitWhile(ctx context.Context, blocked func() bool, wait time.Duration) error {
	var timeout <-chan time.Time
	for blocked() {
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		var err error
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		case <-timeout:
			err = errLockWait
		}
		l.mu.Lock()
		if err != nil {
			return err
		}
	}
	return nil
}

var errLockWait = errors.New("lock_wait_timeout")

// dropLocked takes keys off counts and wakes the waiters; l.mu is held.
func (l *readLocks) dropLocked(counts map[string]int, keys []string) {
	for _, k := range keys {
		if counts[k]--; counts[k] <= 0 {
			delete(counts, k)
		}
	}
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// anyOf reports whether counts has a key of keys, or any key when keys
// are every table's ("") or when counts has every table's.
func anyOf(counts map[string]int, keys []string) bool {
	if counts[""] > 0 || len(counts) > 0 && keys[0] == "" {
		return true
	}
	for _, k := range keys {
		if counts[k] > 0 {
			return true
		}
	}
	return false
}

// beginWrite waits until no lock holds a table of keys back, for at most
// wait, and counts a write to them as running; end ends it.
func (l *readLocks) beginWrite(ctx context.Context, keys []string, wait time.Duration) (end func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.waitWhile(ctx, func() bool { return anyOf(l.held, keys) }, wait); err != nil {
		return nil, err
	}
	if l.writing == nil {
		l.writing = map[string]int{}
	}
	for _, k := range keys {
		l.writing[k]++
	}
	return func() {
		l.mu.Lock()
		l.dropLocked(l.writing, keys)
		l.mu.Unlock()
	}, nil
}

// acquire takes a lock on keys once the writes running on them end,
// waiting for at most wait.
func (l *readLocks) acquire(ctx context.Context, keys []string, wait time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[string]int{}
	}
	for _, k := range keys {
		l.held[k]++
	}
	if err := l.waitWhile(ctx, func() bool { return anyOf(l.writing, keys) }, wait); err != nil {
		l.dropLocked(l.held, keys)
		return err
	}
	return nil
}

// release gives back a lock acquire took.
func (l *readLocks) release(keys []string) {
	l.mu.Lock()
	l.dropLocked(l.held, keys)
	l.mu.Unlock()
}

// changedTables is the names of writtenTables (nil: not known, for a
// write of several tables or of another shape): what a read-only session
// refuses and what a read lock holds back.
func changedTables(n ast.StmtNode) ([]string, bool) {
	tables, write := writtenTables(n)
	if !write || len(tables) == 0 {
		return nil, write
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name.O
	}
	return names, true
}

// heldLock is a read lock a session holds: its keys.
type heldLock struct{ keys []string }

// execFlush answers FLUSH TABLES [t, ...] [WITH READ LOCK]. glint keeps
// no table open and each write is on disk when it is acknowledged, so
// FLUSH TABLES itself has nothing to write: it checks that the tables it
// names exist. WITH READ LOCK takes the lock (see readLocks), in place of
// one the session held. Other FLUSH statements are not supported.
func (s *Session) execFlush(ctx context.Context, n *ast.FlushStmt) (*Result, error) {
	if n.Tp != ast.FlushTables {
		return nil, Errorf(CodeUnsupported, "FLUSH takes only TABLES [name, ...] [WITH READ LOCK]: glint has no logs, privileges, hosts or status to flush")
	}
	var tables []string
	for _, t := range n.Tables {
		if err := s.checkDumpTable(t); err != nil {
			return nil, err
		}
		tables = append(tables, t.Name.O)
	}
	if !n.ReadLock {
		return &Result{}, nil
	}
	if s.applying != nil {
		return nil, Errorf(CodeUnsupported, "FLUSH TABLES WITH READ LOCK is a session's, not a cluster's")
	}
	s.unlockTables()
	keys := lockKeys(tables)
	if err := s.engine.locks.acquire(ctx, keys, s.lockWait()); err != nil {
		return nil, lockWaitError(err)
	}
	s.lock = &heldLock{keys: keys}
	return &Result{}, nil
}

// unlockTables gives back the session's read lock, if it holds one
// (UNLOCK TABLES, a new FLUSH ... WITH READ LOCK, the session's end).
func (s *Session) unlockTables() {
	if s.lock != nil {
		s.engine.locks.release(s.lock.keys)
		s.lock = nil
	}
}

// Close ends the session: it gives back what it holds (a read lock).
// The server closes a session when its connection or request ends.
func (s *Session) Close() error {
	s.unlockTables()
	return nil
}

// beginWrite counts the write n as running, once no other session's read
// lock holds its tables back; end ends it (nil when n is no write). The
// statements a cluster's log applies are the members', never held back.
func (s *Session) beginWrite(ctx context.Context, n ast.StmtNode) (end func(), err error) {
	if s.applying != nil {
		return nil, nil
	}
	tables, write := changedTables(n)
	if !write {
		return nil, nil
	}
	return s.beginWriteTo(ctx, tables)
}

// beginWriteTo is beginWrite of a write to tables (nil: not known).
func (s *Session) beginWriteTo(ctx context.Context, tables []string) (end func(), err error) {
	keys := lockKeys(tables)
	if s.lock != nil && (s.lock.keys[0] == "" || keys[0] == "" || overlaps(s.lock.keys, keys)) {
		return nil, Errorf(CodeReadLock, "Can't execute the query because you have a conflicting read lock (FLUSH TABLES ... WITH READ LOCK; UNLOCK TABLES releases it)")
	}
	end, err = s.engine.locks.beginWrite(ctx, keys, s.lockWait())
	if err != nil {
		return nil, lockWaitError(err)
	}
	return end, nil
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// lockWait is how long the session waits for a lock: @@lock_wait_timeout.
func (s *Session) lockWait() time.Duration {
	return s.timeout("lock_wait_timeout", 31536000*time.Second)
}

// lockWaitError is the error of a wait for a lock that ended with err.
func lockWaitError(err error) error {
	if errors.Is(err, errLockWait) {
		return Errorf(CodeLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	}
	return cancelled(err)
}
