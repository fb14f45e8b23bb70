package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
)

func received(r *recorder) map[pb.MessageType]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[pb.MessageType]int{}
	for _, m := range r.msgs {
		out[m.GetType()]++
	}
	return out
}

// TestMemNetwork: cuts are one way, partitions both ways, Heal undoes
// them; a detached node gets nothing; duplicates never include proposals;
// the same seed makes the same drops.
func TestMemNetwork(t *testing.T) {
	nw := NewMemNetwork(1, Faults{})
	r1, r2 := newRecorder(), newRecorder()
	nw.Attach(1, r1)
	nw.Attach(2, r2)
	e1, e2 := nw.Endpoint(1), nw.Endpoint(2)

	nw.Cut(1, 2)
	e1.Send([]*pb.Message{msg(pb.MsgApp, 1, 2, 1)})
	e2.Send([]*pb.Message{msg(pb.MsgAppResp, 2, 1, 1)})
	nw.Wait()
	assert.Empty(t, received(r2), "1 -> 2 is cut")
	assert.Equal(t, map[pb.MessageType]int{pb.MsgAppResp: 1}, received(r1), "2 -> 1 is not")

	nw.Heal()
	nw.Partition([]uint64{1}, []uint64{2})
	e2.Send([]*pb.Message{msg(pb.MsgAppResp, 2, 1, 1)})
	nw.Wait()
	assert.Equal(t, 1, received(r1)[pb.MsgAppResp], "2 -> 1 cut by the partition")
	require.ErrorIs(t, e1.SendSnapshot(msg(pb.MsgSnap, 1, 2, 0), bytes.NewReader(nil)), ErrUnreachable)

	nw.Heal()
	nw.Attach(2, nil)
	e1.Send([]*pb.Message{msg(pb.MsgApp, 1, 2, 1)})
	nw.Wait()
	assert.Empty(t, received(r2), "2 is detached")
	nw.Attach(2, r2)

	nw.SetFaults(Faults{Duplicate: 1, MaxDelay: time.Millisecond})
	e1.Send([]*pb.Message{msg(pb.MsgApp, 1, 2, 1), msg(pb.MsgProp, 1, 2, 0)})
	nw.Wait()
	assert.Equal(t, map[pb.MessageType]int{pb.MsgApp: 2, pb.MsgProp: 1}, received(r2), "everything twice but the proposal")

	drops := func(seed uint64) int {
		nw := NewMemNetwork(seed, Faults{Drop: 0.5})
		r := newRecorder()
		nw.Attach(2, r)
		for i := range 200 {
			nw.Endpoint(1).Send([]*pb.Message{msg(pb.MsgApp, 1, 2, uint64(i))})
		}
		nw.Wait()
		return 200 - len(r.msgs)
	}
	assert.Equal(t, drops(7), drops(7), "the seed decides")
	assert.InDelta(t, 100, drops(7), 40)
}
