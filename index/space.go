package index

import (
	"fmt"
)

// Free space.
//
// Badger writes its logs and tables through memory maps of files it first
// extends without allocating (sparse). When the file system has no block left
// for a page the process writes, or (on tmpfs) even reads, the kernel answers
// with SIGBUS, not with an error: the Go runtime cannot recover from it, and
// glintd dies in the middle of the statement (measured: a 40 MB tmpfs filled by
// INSERTs ends in "fatal error: fault [signal SIGBUS]" in badger's value-log
// write, and a restart on the still full tmpfs dies the same way replaying the
// memtable's log). ENOSPC never reaches the caller.
//
// So the DB keeps a reserve of free space that only badger's own work may use:
// a statement that would leave less free than the reserve is refused before it
// writes anything, as are background merges and value-log rewrites, and Open
// refuses a data directory with less free than the reserve. What badger may
// still write once writes stop is bounded by its memtables (their logs and the
// tables a flush makes) and its compactions; the reserve covers both
// (diskReserve).

// DiskFullError is a write (or an Open) refused because the data directory's
// file system has less free space than the DB keeps in reserve. Nothing of the
// refused statement was written.
type DiskFullError struct {
	Dir     string
	Free    int64  // bytes free for unprivileged use (statfs f_bavail), as df shows
	Reserve int64  // bytes the DB keeps free
	Need    int64  // bytes the refused work was estimated to take
	For     string // the refused work: "this statement", "a merge", "glintd to start"
}

func (e *DiskFullError) Error() string {
	s := fmt.Sprintf("index: disk full: the file system of %s has %s free, and glint keeps %s free for its storage engine (memtable flushes and compactions)",
		e.Dir, size(e.Free), size(e.Reserve))
	if e.Need > 0 {
		s += " plus about " + size(e.Need) + " for " + e.For
	}
	return s
}

func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// diskReserve is the free space kept for badger's own writes, from the size of
// one memtable m: the logs of the memtables (up to four, counting the one being
// replaced, each up to m) and the tables their flushes build (as much again),
// a level-0 compaction (five tables of about m, with the overlapping tables of
// the next level, badger's 10 MB base level) and the other compactor's work on
// lower levels (tables of 2 MB and their overlaps, about 40 MB). At
// memory_limit 128M (m = 4 MB) it is 92 MB, at 1G (16 MB) 248 MB.
func diskReserve(m int64) int64 {
	return 4*m + 4*m + 5*m + 10<<20 + 30<<20
}

// checkSpace returns a *DiskFullError unless the data directory's file system
// has the reserve free and need bytes more for what. An in-memory DB, or one whose
// reserve is off, always has room; so does a file system whose free space
// cannot be read (the error is logged once).
func (db *DB) checkSpace(need int64, what string) error {
	if db.inMemory || db.reserve <= 0 {
		return nil
	}
	free, err := freeBytes(db.dir)
	if err != nil {
		if db.statfsFails.CompareAndSwap(false, true) {
			db.logf("cannot read the free space of %s (%v); writes are not checked against the disk reserve", db.dir, err)
		}
		return nil
	}
	if free-need < db.reserve {
		return &DiskFullError{Dir: db.dir, Free: free, Reserve: db.reserve, Need: need, For: what}
	}
	return nil
}

// pendingBytes estimates what the new documents of w take on disk once
// written: their values, twice (the stored text and the postings and word
// layouts made from it, then again in the tables a flush and a compaction
// build from the logs), and 64 bytes of keys per document.
func (w *Writer) pendingBytes() int64 {
	var n int64
	for _, d := range w.pend {
		if d.dead {
			continue
		}
		n += 64
		for _, v := range d.vals {
			if s, ok := v.(string); ok {
				n += int64(len(s))
			} else {
				n += 8
			}
		}
	}
	return 2 * n
}
