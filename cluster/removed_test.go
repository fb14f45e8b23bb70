package cluster

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
)

// learnWithin bounds how long a removed node that can reach a member
// again takes to learn of its removal (the harness ticks every 10 ms:
// askAfter and askEvery election timeouts are 0.3 and 0.4 s).
const learnWithin = 5 * time.Second

// requireRemoved waits until node id says it was removed, and checks that
// it stopped for good.
func requireRemoved(t *testing.T, c *testCluster, id uint64) {
	t.Helper()
	n := c.node(id)
	require.Eventually(t, func() bool { return n.Status().State == StateRemoved }, learnWithin, 5*time.Millisecond,
		"node %d learns of its removal", id)
	select {
	case <-n.Done():
	case <-time.After(learnWithin):
		t.Fatalf("node %d still runs after it learned of its removal", id)
	}
	require.ErrorIs(t, n.Err(), ErrRemoved)
	_, err := n.Propose(ctxT(t), []byte("put after removed"))
	require.ErrorIs(t, err, ErrRemoved)
	assert.Zero(t, n.Status().Leader)
}

// requireStillMember checks that node id has not concluded it was removed
// after a while in which it may have asked its peers.
func requireStillMember(t *testing.T, c *testCluster, id uint64) {
	t.Helper()
	time.Sleep(time.Second)
	require.NotEqual(t, StateRemoved, c.node(id).Status().State, "node %d cannot know yet", id)
	require.NoError(t, c.node(id).Err())
}

// TestRemovedWhilePartitioned: a voter cut off from the others is removed
// by them; it cannot hear the commit, and after the partition heals the
// leader sends it nothing. It learns of its removal by asking, stops, and
// stays stopped across a restart.
func TestRemovedWhilePartitioned(t *testing.T) {
	c := newTestCluster(t, 1, 3, Faults{})
	lead := c.leader()
	c.propose(lead, "put k v")
	victim := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	others := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == victim })
	c.nw.Partition([]uint64{victim}, others)
	require.NoError(t, c.node(lead).RemoveNode(ctxT(t), victim))
	requireStillMember(t, c, victim)

	c.nw.Heal()
	requireRemoved(t, c, victim)

	// A restart stays stopped: the node wrote down what it learned.
	c.crash(victim)
	n := c.start(victim, c.peers)
	assert.Equal(t, StateRemoved, n.Status().State)
	require.ErrorIs(t, n.Err(), ErrRemoved)
	c.crash(victim)

	c.propose(c.leader(), "put after removal")
	st := c.converge()
	assert.Equal(t, "removal", st.KV["after"])
	assert.NotContains(t, st.Members, victim)
}

// TestRemovedLearner: a learner never campaigns and keeps the leader it
// last heard of, so silence, not the lack of a leader, makes it ask. The
// learner here never gets past the entry that would promote it.
func TestRemovedLearner(t *testing.T) {
	c := newTestCluster(t, 2, 3, Faults{})
	lead := c.leader()
	n4 := c.start(4, nil)
	c.nw.Attach(4, &noPromotion{Node: n4, id: 4})
	require.NoError(t, c.node(lead).AddLearner(ctxT(t), 4, nil))
	require.Eventually(t, func() bool { return n4.Status().State == StateLearner }, 20*time.Second, 5*time.Millisecond)

	c.nw.Partition([]uint64{4}, c.peers)
	// Retried: raft drops a membership change proposed while the
	// leader's promotion of 4 is not applied yet.
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.node(c.leader()).RemoveNode(ctx, 4)
		cancel()
		if err == nil || errors.Is(err, ErrNotMember) {
			break
		}
		require.Less(t, i, 20, "remove 4: %v", err)
	}
	requireStillMember(t, c, 4)
	st := n4.Status()
	require.Equal(t, StateLearner, st.State)
	require.NotZero(t, st.Leader, "a learner cut off still names its last leader")

	c.nw.Heal()
	requireRemoved(t, c, 4)
}

// TestRemovedBeforeFirstImage: a learner is removed before it took
// anything from the group (the members' links to it are cut), so its log
// names no member it could ask; its transport knows them (a join gives
// it their addresses), and it learns of its removal from them.
func TestRemovedBeforeFirstImage(t *testing.T) {
	c := newTestCluster(t, 6, 3, Faults{})
	lead := c.leader()
	c.propose(lead, "put k v")
	n4 := c.start(4, nil)
	c.nw.Partition([]uint64{4}, c.peers)
	require.NoError(t, c.node(lead).AddLearner(ctxT(t), 4, nil))
	require.NoError(t, c.node(lead).RemoveNode(ctxT(t), 4))
	requireStillMember(t, c, 4)
	st := n4.Status()
	require.Equal(t, StateNone, st.State)
	require.Zero(t, st.Applied)
	require.Empty(t, st.Voters)

	c.nw.Heal()
	requireRemoved(t, c, 4)
	assert.Zero(t, n4.Status().Applied, "it took nothing from the group")
	c.crash(4)
	n := c.start(4, nil)
	assert.Equal(t, StateRemoved, n.Status().State)
	require.ErrorIs(t, n.Err(), ErrRemoved)
}

// noPromotion is node id behind a filter that drops every append that
// would make it a voter (so it stays a learner in its own view).
type noPromotion struct {
	*Node
	id uint64
}

func (f *noPromotion) Step(m *pb.Message) {
	for _, e := range m.GetEntries() {
		if e.GetType() != pb.EntryConfChangeV2 && e.GetType() != pb.EntryConfChange {
			continue
		}
		cc, err := decodeConfChange(e)
		if err != nil {
			panic(err)
		}
		for _, ch := range cc.GetChanges() {
			if ch.GetType() == pb.ConfChangeAddNode && ch.GetNodeId() == f.id {
				return
			}
		}
	}
	f.Node.Step(m)
}

// TestRemovedItselfUnheard: a node asks for its own removal, which
// commits, but it does not hear the leader's answer (its link from the
// leader is cut): its RemoveNode ends with an unknown outcome, and it
// learns of the removal from the member it can still reach.
func TestRemovedItselfUnheard(t *testing.T) {
	c := newTestCluster(t, 3, 3, Faults{})
	lead := c.leader()
	victim := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	c.nw.Cut(lead, victim)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.node(victim).RemoveNode(ctx, victim)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	requireRemoved(t, c, victim)
	c.crash(victim)
	assert.NotContains(t, c.node(lead).Status().Voters, victim)
}

// TestCutOffNotRemoved: a node cut off for a while asks its peers, hears
// that it is a member (or nothing), and goes on when the network heals.
func TestCutOffNotRemoved(t *testing.T) {
	c := newTestCluster(t, 4, 3, Faults{})
	lead := c.leader()
	victim := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	c.nw.Cut(lead, victim)
	requireStillMember(t, c, victim) // it asked the other follower: "member"
	c.nw.Partition([]uint64{victim}, slices.DeleteFunc(c.live(), func(id uint64) bool { return id == victim }))
	requireStillMember(t, c, victim) // no answer
	c.propose(lead, "put k v")
	st := c.converge()
	assert.Equal(t, "v", st.KV["k"])
	require.NoError(t, c.node(victim).Err())
}

// TestStanding: what a member answers of a node, from its applied state.
func TestStanding(t *testing.T) {
	c := newTestCluster(t, 5, 3, Faults{})
	lead := c.leader()
	victim := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	n := c.node(lead)
	assert.Equal(t, StandingMember, n.Standing(victim))
	assert.Equal(t, StandingUnknown, n.Standing(99))
	require.NoError(t, n.RemoveNode(ctxT(t), victim))
	assert.Equal(t, StandingRemoved, n.Standing(victim))
	s, err := c.nw.Endpoint(victim).AskStanding(ctxT(t), lead, victim)
	require.NoError(t, err)
	assert.Equal(t, StandingRemoved, s)
}

// TestLastVoterStays: when the members of a group leave at once (DELETE
// CLUSTER on each), the removal that would leave no voter is refused with
// ErrLastVoter, on every member alike, where raft would panic ("removed
// all voters"), and again at each replay of the log. The last voter goes
// on alone, and a restart replays the refused removal as a refusal.
func TestLastVoterStays(t *testing.T) {
	c := newTestCluster(t, 5, 2, Faults{})
	lead := c.leader()
	other := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	c.propose(lead, "put before leaving")
	require.NoError(t, c.node(lead).RemoveNode(ctxT(t), other))
	requireRemoved(t, c, other)
	c.crash(other)

	// (RemoveNode itself refuses before proposing; the entry is what a
	// second member's removal, proposed before the first applied, is.)
	err := c.node(lead).changeMembership(ctxT(t), pb.ConfChangeRemoveNode, lead, nil)
	require.ErrorIs(t, err, ErrLastVoter)
	require.ErrorIs(t, c.node(lead).RemoveNode(ctxT(t), lead), ErrLastVoter)
	require.NoError(t, c.node(lead).Err())
	assert.Equal(t, []uint64{lead}, c.node(lead).Status().Voters)

	c.restart(lead)
	require.Eventually(t, func() bool { return c.node(lead).Status().Leader == lead }, learnWithin, 5*time.Millisecond)
	c.propose(lead, "put after leaving")
	assert.Equal(t, "leaving", c.sm(lead).get("after"))
}
