package index

// Sync makes every change committed so far durable (an fsync of badger's
// value log and memtable), also on a DB opened without SyncWrites: a
// replicated DB calls it before its raft log is compacted past what it
// applied.
func (db *DB) Sync() error {
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	return db.bdb.Sync()
}
