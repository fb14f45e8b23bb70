package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Keys of the raft log's badger database (its own, under Options.Dir/raft).
//
//	e<index, 8 bytes big endian>  one log entry (raftpb.Entry)
//	h                             the HardState (term, vote, commit)
//	s                             the latest snapshot's metadata: index, term,
//	                              ConfState, and the small header in Data
//	c                             the compaction point: the index and term of
//	                              the entry before the first one kept
var (
	keyHardState = []byte("h")
	keySnapshot  = []byte("s")
	keyCompacted = []byte("c")
	prefixEntry  = []byte("e")
)

func entryKey(i uint64) []byte {
	k := make([]byte, 9)
	k[0] = prefixEntry[0]
	binary.BigEndian.PutUint64(k[1:], i)
	return k
}

// Storage is the durable raft log of one node: a raft.Storage backed by a
// badger database of its own. Save writes one Ready in one batch and syncs
// it (badger's DB.Sync: its write-ahead log and value log) when raft says
// the Ready must be synced, which is whenever it holds entries or a new term
// or vote: only a HardState whose commit index alone moved is left to the
// next sync, as etcd does. Snapshots and compactions are synced too. Its
// methods are safe for concurrent use; Save, ApplySnapshot, CreateSnapshot
// and Compact are called by the node's loop only.
//
// The log holds the entries after the compaction point; the snapshot records
// the index, term and membership (ConfState) at which the state machine's
// image was last made durable (see StateMachine.Sync), which may be later than
// the compaction point: entries between the two are kept so that a follower
// a little behind catches up from the log rather than by a snapshot.
type Storage struct {
	db *badger.DB

	mu        sync.Mutex
	hs        *pb.HardState
	snap      *pb.Snapshot // recorded: the state machine is durable at its index
	sendable  *pb.Snapshot // the node's last applied index, for Snapshot
	compIndex uint64       // entries <= compIndex are gone
	compTerm  uint64
	last      uint64
}

var _ raft.Storage = (*Storage)(nil)

// OpenStorage opens (creating if needed) the raft log in dir.
func OpenStorage(dir string) (*Storage, error) {
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(false). // Save syncs what raft needs synced

		WithLogger(nil).
		WithNumVersionsToKeep(1).
		WithCompactL0OnClose(false)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: open raft log %s: %w", dir, err)
	}
	s := &Storage{db: db, hs: &pb.HardState{}, snap: &pb.Snapshot{Metadata: &pb.SnapshotMetadata{ConfState: &pb.ConfState{}}}}
	if err := s.load(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Storage) load() error {
	return s.db.View(func(txn *badger.Txn) error {
		if err := getProto(txn, keyHardState, s.hs); err != nil {
			return err
		}
		if err := getProto(txn, keySnapshot, s.snap); err != nil {
			return err
		}
		s.snap.Metadata = pb.EnsureSnapshotMetadata(s.snap.Metadata)
		item, err := txn.Get(keyCompacted)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return fmt.Errorf("cluster: raft log: %w", err)
		default:
			v, err := item.ValueCopy(nil)
			if err != nil {
				return fmt.Errorf("cluster: raft log: %w", err)
			}
			if len(v) != 16 {
				return fmt.Errorf("cluster: raft log: compaction point is %d bytes, want 16", len(v))
			}
			s.compIndex = binary.BigEndian.Uint64(v)
			s.compTerm = binary.BigEndian.Uint64(v[8:])
		}
		s.last = s.compIndex
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: prefixEntry})
		defer it.Close()
		it.Seek(entryKey(^uint64(0)))
		if it.Valid() {
			s.last = binary.BigEndian.Uint64(it.Item().Key()[1:])
			// Entries from first to last must be contiguous.
			if s.last > s.compIndex {
				if _, err := txn.Get(entryKey(s.compIndex + 1)); err != nil {
					return fmt.Errorf("cluster: raft log: entry %d after the compaction point %d is missing: %w", s.compIndex+1, s.compIndex, err)
				}
			}
		}
		return nil
	})
}

func getProto(txn *badger.Txn, key []byte, m proto.Message) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster: raft log: read %q: %w", key, err)
	}
	return item.Value(func(v []byte) error {
		if err := proto.Unmarshal(v, m); err != nil {
			return fmt.Errorf("cluster: raft log: decode %q: %w", key, err)
		}
		return nil
	})
}

// Close closes the database.
func (s *Storage) Close() error { return s.db.Close() }

// InitialState returns the saved HardState and the ConfState of the latest
// snapshot (the node replays the membership changes after it from the log).
func (s *Storage) InitialState() (*pb.HardState, *pb.ConfState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return proto.CloneOf(s.hs), proto.CloneOf(s.snap.GetMetadata().GetConfState()), nil
}

// HardState returns the saved HardState.
func (s *Storage) HardState() *pb.HardState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return proto.CloneOf(s.hs)
}

// Entries returns the entries [lo, hi), at most maxSize bytes of them but at
// least one.
func (s *Storage) Entries(lo, hi, maxSize uint64) ([]*pb.Entry, error) {
	s.mu.Lock()
	comp, last := s.compIndex, s.last
	s.mu.Unlock()
	if lo <= comp {
		return nil, raft.ErrCompacted
	}
	if hi > last+1 {
		return nil, fmt.Errorf("cluster: raft log: entries [%d, %d) asked, last is %d: %w", lo, hi, last, raft.ErrUnavailable)
	}
	var out []*pb.Entry
	var size uint64
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefixEntry})
		defer it.Close()
		want := lo
		for it.Seek(entryKey(lo)); it.Valid() && want < hi; it.Next() {
			idx := binary.BigEndian.Uint64(it.Item().Key()[1:])
			if idx != want {
				return fmt.Errorf("cluster: raft log: entry %d missing: %w", want, raft.ErrUnavailable)
			}
			e := &pb.Entry{}
			if err := it.Item().Value(func(v []byte) error { return proto.Unmarshal(v, e) }); err != nil {
				return fmt.Errorf("cluster: raft log: entry %d: %w", idx, err)
			}
			size += uint64(proto.Size(e))
			if len(out) > 0 && size > maxSize {
				break
			}
			out = append(out, e)
			want++
		}
		if len(out) == 0 && lo < hi {
			return fmt.Errorf("cluster: raft log: entry %d missing: %w", lo, raft.ErrUnavailable)
		}
		return nil
	})
	if err != nil {
		// A concurrent compaction may have removed what we read.
		s.mu.Lock()
		comp := s.compIndex
		s.mu.Unlock()
		if lo <= comp {
			return nil, raft.ErrCompacted
		}
		return nil, err
	}
	return out, nil
}

// Term returns the term of entry i, for i in [FirstIndex()-1, LastIndex()].
func (s *Storage) Term(i uint64) (uint64, error) {
	s.mu.Lock()
	comp, compTerm, last := s.compIndex, s.compTerm, s.last
	s.mu.Unlock()
	switch {
	case i < comp:
		return 0, raft.ErrCompacted
	case i == comp:
		return compTerm, nil
	case i > last:
		return 0, raft.ErrUnavailable
	}
	var e pb.Entry
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(entryKey(i))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return proto.Unmarshal(v, &e) })
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if i <= s.compIndex {
			return 0, raft.ErrCompacted
		}
		return 0, raft.ErrUnavailable
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: raft log: term of %d: %w", i, err)
	}
	return e.GetTerm(), nil
}

// LastIndex returns the index of the last entry (the compaction point when
// the log is empty).
func (s *Storage) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, nil
}

// FirstIndex returns the index of the first entry kept.
func (s *Storage) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compIndex + 1, nil
}

// Snapshot returns what raft sends to a follower too far behind: the
// metadata of the node's last applied index (its term and membership, so
// that a member added since the last recorded snapshot finds itself in it),
// with the small header of encodeHeader as Data. The state machine's image
// itself, taken when it is sent and so at that index or later, is streamed
// by the transport (see Transport.SendSnapshot).
func (s *Storage) Snapshot() (*pb.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sendable != nil && s.sendable.GetMetadata().GetIndex() > s.snap.GetMetadata().GetIndex() {
		return proto.CloneOf(s.sendable), nil
	}
	return proto.CloneOf(s.snap), nil
}

// Recorded returns the latest snapshot recorded in the log (by
// CreateSnapshot or ApplySnapshot): the state machine is durable at its
// index, and a restart takes its membership and replays the log after it.
func (s *Storage) Recorded() *pb.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return proto.CloneOf(s.snap)
}

// setApplied tells the storage the node's last applied entry, membership
// and header, for Snapshot. It writes nothing.
func (s *Storage) setApplied(index, term uint64, cs *pb.ConfState, header []byte) {
	snap := &pb.Snapshot{Data: header, Metadata: &pb.SnapshotMetadata{
		Index: proto.Uint64(index), Term: proto.Uint64(term), ConfState: proto.CloneOf(cs),
	}}
	s.mu.Lock()
	s.sendable = snap
	s.mu.Unlock()
}

// Save writes one Ready's snapshot, entries and HardState, in that order, in
// one batch (group commit), synced when sync is set (raft's Ready.MustSync),
// before the node sends any message of that Ready. Entries replace any saved
// entries from the first one's index on.
func (s *Storage) Save(hs *pb.HardState, entries []*pb.Entry, snap *pb.Snapshot, sync bool) error {
	if !raft.IsEmptySnap(snap) {
		if err := s.ApplySnapshot(snap); err != nil {
			return err
		}
	}
	if len(entries) == 0 && raft.IsEmptyHardState(hs) {
		return nil
	}
	s.mu.Lock()
	last, comp := s.last, s.compIndex
	s.mu.Unlock()
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	newLast := last
	if len(entries) > 0 {
		first := entries[0].GetIndex()
		if first <= comp {
			return fmt.Errorf("cluster: raft log: append at %d, before the compaction point %d", first, comp)
		}
		if first > last+1 {
			return fmt.Errorf("cluster: raft log: append at %d leaves a gap after %d", first, last)
		}
		for _, e := range entries {
			v, err := proto.Marshal(e)
			if err != nil {
				return fmt.Errorf("cluster: raft log: encode entry %d: %w", e.GetIndex(), err)
			}
			if err := wb.Set(entryKey(e.GetIndex()), v); err != nil {
				return fmt.Errorf("cluster: raft log: %w", err)
			}
		}
		newLast = entries[len(entries)-1].GetIndex()
		for i := newLast + 1; i <= last; i++ {
			if err := wb.Delete(entryKey(i)); err != nil {
				return fmt.Errorf("cluster: raft log: %w", err)
			}
		}
	}
	if !raft.IsEmptyHardState(hs) {
		v, err := proto.Marshal(hs)
		if err != nil {
			return fmt.Errorf("cluster: raft log: encode hard state: %w", err)
		}
		if err := wb.Set(keyHardState, v); err != nil {
			return fmt.Errorf("cluster: raft log: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("cluster: raft log: write: %w", err)
	}
	if sync {
		if err := s.db.Sync(); err != nil {
			return fmt.Errorf("cluster: raft log: sync: %w", err)
		}
	}
	s.mu.Lock()
	s.last = newLast
	if !raft.IsEmptyHardState(hs) {
		s.hs = proto.CloneOf(hs)
	}
	s.mu.Unlock()
	return nil
}

// ApplySnapshot replaces the whole log by a snapshot received from the
// leader: the log becomes empty, its compaction point the snapshot's index.
func (s *Storage) ApplySnapshot(snap *pb.Snapshot) error {
	md := snap.GetMetadata()
	s.mu.Lock()
	cur := s.snap.GetMetadata().GetIndex()
	s.mu.Unlock()
	if md.GetIndex() <= cur {
		return fmt.Errorf("cluster: raft log: snapshot at %d is not after the current one at %d", md.GetIndex(), cur)
	}
	v, err := proto.Marshal(snap)
	if err != nil {
		return fmt.Errorf("cluster: raft log: encode snapshot: %w", err)
	}
	comp := make([]byte, 16)
	binary.BigEndian.PutUint64(comp, md.GetIndex())
	binary.BigEndian.PutUint64(comp[8:], md.GetTerm())
	// The metadata first: if the entries' removal below is cut short, the
	// log reopens with the new compaction point and ignores the rest.
	err = s.db.Update(func(txn *badger.Txn) error {
		if err := txn.Set(keySnapshot, v); err != nil {
			return err
		}
		return txn.Set(keyCompacted, comp)
	})
	if err == nil {
		err = s.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("cluster: raft log: write snapshot: %w", err)
	}
	s.mu.Lock()
	oldComp, oldLast := s.compIndex, s.last
	s.snap = proto.CloneOf(snap)
	s.compIndex, s.compTerm, s.last = md.GetIndex(), md.GetTerm(), md.GetIndex()
	s.mu.Unlock()
	return s.deleteEntries(oldComp+1, oldLast)
}

// CreateSnapshot records that the state machine's image is durable at index
// i (whose term the log still holds), with membership cs, and header data.
func (s *Storage) CreateSnapshot(i uint64, cs *pb.ConfState, data []byte) error {
	term, err := s.Term(i)
	if err != nil {
		return fmt.Errorf("cluster: raft log: snapshot at %d: %w", i, err)
	}
	snap := &pb.Snapshot{Data: data, Metadata: &pb.SnapshotMetadata{
		Index: proto.Uint64(i), Term: proto.Uint64(term), ConfState: proto.CloneOf(cs),
	}}
	v, err := proto.Marshal(snap)
	if err != nil {
		return fmt.Errorf("cluster: raft log: encode snapshot: %w", err)
	}
	err = s.db.Update(func(txn *badger.Txn) error { return txn.Set(keySnapshot, v) })
	if err == nil {
		err = s.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("cluster: raft log: write snapshot: %w", err)
	}
	s.mu.Lock()
	s.snap = snap
	s.mu.Unlock()
	return nil
}

// Compact drops the entries up to and including i, which must not be after
// the latest snapshot.
func (s *Storage) Compact(i uint64) error {
	s.mu.Lock()
	comp, snapIdx := s.compIndex, s.snap.GetMetadata().GetIndex()
	s.mu.Unlock()
	if i <= comp {
		return nil
	}
	if i > snapIdx {
		return fmt.Errorf("cluster: raft log: compact to %d, after the snapshot at %d", i, snapIdx)
	}
	term, err := s.Term(i)
	if err != nil {
		return fmt.Errorf("cluster: raft log: compact to %d: %w", i, err)
	}
	v := make([]byte, 16)
	binary.BigEndian.PutUint64(v, i)
	binary.BigEndian.PutUint64(v[8:], term)
	err = s.db.Update(func(txn *badger.Txn) error { return txn.Set(keyCompacted, v) })
	if err == nil {
		err = s.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("cluster: raft log: compact: %w", err)
	}
	s.mu.Lock()
	s.compIndex, s.compTerm = i, term
	s.mu.Unlock()
	return s.deleteEntries(comp+1, i)
}

func (s *Storage) deleteEntries(lo, hi uint64) error {
	if lo > hi {
		return nil
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for i := lo; i <= hi; i++ {
		if err := wb.Delete(entryKey(i)); err != nil {
			return fmt.Errorf("cluster: raft log: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("cluster: raft log: delete entries: %w", err)
	}
	return nil
}

// rewrite replaces the entries after commit and the HardState, for
// ForceNewCluster: entries are appended at commit+1.
func (s *Storage) rewrite(hs *pb.HardState, entries []*pb.Entry) error {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	commit := hs.GetCommit()
	if len(entries) > 0 && entries[0].GetIndex() != commit+1 {
		return fmt.Errorf("cluster: raft log: forced entries start at %d, want %d", entries[0].GetIndex(), commit+1)
	}
	if err := s.deleteEntries(commit+1, last); err != nil {
		return err
	}
	s.mu.Lock()
	if s.last > commit {
		s.last = commit
	}
	s.mu.Unlock()
	newHS := proto.CloneOf(hs)
	if len(entries) > 0 {
		newHS.Commit = proto.Uint64(entries[len(entries)-1].GetIndex())
	}
	return s.Save(newHS, entries, nil, true)
}
