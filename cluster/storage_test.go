package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

func ents(term uint64, lo, hi uint64) []*pb.Entry {
	var out []*pb.Entry
	for i := lo; i <= hi; i++ {
		out = append(out, &pb.Entry{Index: proto.Uint64(i), Term: proto.Uint64(term), Type: pb.EntryNormal.Enum(), Data: fmt.Appendf(nil, "e%d.%d", term, i)})
	}
	return out
}

func hardState(term, vote, commit uint64) *pb.HardState {
	return &pb.HardState{Term: proto.Uint64(term), Vote: proto.Uint64(vote), Commit: proto.Uint64(commit)}
}

func data(t *testing.T, s *Storage, lo, hi uint64) []string {
	t.Helper()
	es, err := s.Entries(lo, hi, ^uint64(0))
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, string(e.GetData()))
	}
	return out
}

// TestStorage: what is saved survives a reopen; a later append replaces
// the tail; compaction, recorded snapshots and received snapshots move the
// first index; out-of-range reads get raft's errors.
func TestStorage(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStorage(dir)
	require.NoError(t, err)
	first, _ := s.FirstIndex()
	last, _ := s.LastIndex()
	assert.Equal(t, []uint64{1, 0}, []uint64{first, last})
	hs, cs, err := s.InitialState()
	require.NoError(t, err)
	assert.True(t, raft.IsEmptyHardState(hs))
	assert.Empty(t, cs.GetVoters())

	require.NoError(t, s.Save(hardState(1, 1, 3), ents(1, 1, 10), nil, true))
	reopen := func() {
		require.NoError(t, s.Close())
		s, err = OpenStorage(dir)
		require.NoError(t, err)
	}
	reopen()
	last, _ = s.LastIndex()
	assert.Equal(t, uint64(10), last)
	assert.Equal(t, []string{"e1.4", "e1.5"}, data(t, s, 4, 6))
	assert.Equal(t, uint64(3), s.HardState().GetCommit())

	// A new leader's entries replace the tail from their first index on.
	require.NoError(t, s.Save(hardState(2, 2, 5), ents(2, 6, 8), nil, true))
	reopen()
	last, _ = s.LastIndex()
	assert.Equal(t, uint64(8), last)
	assert.Equal(t, []string{"e1.5", "e2.6", "e2.7", "e2.8"}, data(t, s, 5, 9))
	term, err := s.Term(6)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), term)
	_, err = s.Term(9)
	assert.ErrorIs(t, err, raft.ErrUnavailable)
	_, err = s.Entries(5, 10, ^uint64(0))
	assert.ErrorIs(t, err, raft.ErrUnavailable)
	one, err := s.Entries(1, 8, 1)
	require.NoError(t, err)
	assert.Len(t, one, 1, "at least one entry whatever maxSize")
	assert.ErrorContains(t, s.Save(nil, ents(2, 10, 10), nil, true), "append at 10 leaves a gap after 8")

	// Record a snapshot at 6, compact to 4.
	cs = &pb.ConfState{Voters: []uint64{1, 2, 3}}
	require.NoError(t, s.CreateSnapshot(6, cs, []byte{1, 0}))
	assert.ErrorContains(t, s.Compact(7), "compact to 7, after the snapshot at 6")
	require.NoError(t, s.Compact(4))
	reopen()
	first, _ = s.FirstIndex()
	assert.Equal(t, uint64(5), first)
	term, err = s.Term(4)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), term, "the term before the first entry is kept")
	_, err = s.Term(3)
	assert.ErrorIs(t, err, raft.ErrCompacted)
	_, err = s.Entries(4, 6, ^uint64(0))
	assert.ErrorIs(t, err, raft.ErrCompacted)
	rec := s.Recorded()
	assert.Equal(t, uint64(6), rec.GetMetadata().GetIndex())
	assert.Equal(t, uint64(2), rec.GetMetadata().GetTerm())
	_, cs2, _ := s.InitialState()
	assert.Equal(t, []uint64{1, 2, 3}, cs2.GetVoters())

	// What raft sends is the last applied index, once it is later.
	s.setApplied(8, 2, &pb.ConfState{Voters: []uint64{1, 2, 3}, Learners: []uint64{4}}, nil)
	snap, err := s.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, uint64(8), snap.GetMetadata().GetIndex())
	assert.Equal(t, []uint64{4}, snap.GetMetadata().GetConfState().GetLearners())

	// A snapshot from the leader replaces the whole log.
	recv := &pb.Snapshot{Data: []byte{1, 0}, Metadata: &pb.SnapshotMetadata{Index: proto.Uint64(20), Term: proto.Uint64(3), ConfState: &pb.ConfState{Voters: []uint64{1, 2}}}}
	require.NoError(t, s.Save(hardState(3, 0, 20), ents(3, 21, 22), recv, true))
	reopen()
	first, _ = s.FirstIndex()
	last, _ = s.LastIndex()
	assert.Equal(t, []uint64{21, 22}, []uint64{first, last})
	term, err = s.Term(20)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), term)
	assert.Equal(t, []string{"e3.21", "e3.22"}, data(t, s, 21, 23))
	_, cs3, _ := s.InitialState()
	assert.Equal(t, []uint64{1, 2}, cs3.GetVoters())
	assert.ErrorContains(t, s.ApplySnapshot(recv), "snapshot at 20 is not after the current one at 20")
	require.NoError(t, s.Close())
}

// TestForceNewClusterRewrite: the forced log drops the uncommitted tail
// and removes every other member in committed entries.
func TestForceNewClusterRewrite(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStorage(dir)
	require.NoError(t, err)
	var es []*pb.Entry
	for i, id := range []uint64{1, 2, 3} {
		b, err := proto.Marshal(&pb.ConfChange{Type: pb.ConfChangeAddNode.Enum(), NodeId: proto.Uint64(id)})
		require.NoError(t, err)
		es = append(es, &pb.Entry{Index: proto.Uint64(uint64(i + 1)), Term: proto.Uint64(1), Type: pb.EntryConfChange.Enum(), Data: b})
	}
	es = append(es, ents(1, 4, 9)...)
	require.NoError(t, s.Save(hardState(2, 1, 6), es, nil, true))
	assert.ErrorContains(t, forceNewCluster(s, 2, 10, nil), "the state machine (applied 10) is ahead of node 2's log (last 9)")
	require.NoError(t, forceNewCluster(s, 2, 5, nil))
	last, _ := s.LastIndex()
	assert.Equal(t, uint64(8), last, "7..9 dropped, two removals appended")
	assert.Equal(t, uint64(8), s.HardState().GetCommit())
	tail, err := s.Entries(7, 9, ^uint64(0))
	require.NoError(t, err)
	var removed []uint64
	for _, e := range tail {
		cc, err := decodeConfChange(e)
		require.NoError(t, err)
		assert.Equal(t, pb.ConfChangeRemoveNode, cc.GetChanges()[0].GetType())
		assert.Equal(t, uint64(2), e.GetTerm())
		removed = append(removed, cc.GetChanges()[0].GetNodeId())
	}
	assert.Equal(t, []uint64{1, 3}, removed)
	assert.ErrorContains(t, forceNewCluster(s, 3, 0, nil), "node 3 is not a member of its group in its committed log")
	require.NoError(t, s.Close())
}
