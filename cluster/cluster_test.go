package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestProposeAndReadOnEveryNode: writes proposed on followers reach the
// leader, return the state machine's result, and a ReadIndex on any node
// sees every write acknowledged before it.
func TestProposeAndReadOnEveryNode(t *testing.T) {
	c := newTestCluster(t, 1, 3, Faults{})
	lead := c.leader()
	for i, id := range c.live() {
		res, err := c.node(id).Propose(ctxT(t), fmt.Appendf(nil, "put k%d v%d", i, i))
		require.NoError(t, err)
		assert.Equal(t, "ok", res.Result)
		assert.LessOrEqual(t, res.Index, c.node(id).Status().Applied)
		for _, reader := range c.live() {
			idx, err := c.node(reader).ReadIndex(ctxT(t))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, idx, res.Index, "the read index covers the write")
			assert.Equal(t, fmt.Sprintf("v%d", i), c.sm(reader).get(fmt.Sprintf("k%d", i)), "read on %d after a write on %d", reader, id)
		}
	}
	res, err := c.node(lead).Propose(ctxT(t), []byte("frob x"))
	require.NoError(t, err)
	assert.Equal(t, `unknown command "frob"`, res.Result, "the state machine's result comes back")

	st := c.node(lead).Status()
	assert.Equal(t, StateLeader, st.State)
	assert.Equal(t, lead, st.Leader)
	assert.Equal(t, []uint64{1, 2, 3}, st.Voters)
	assert.Empty(t, st.Learners)
	assert.GreaterOrEqual(t, st.Commit, st.Applied)
	assert.Positive(t, st.Term)
	for _, id := range c.live() {
		if id != lead {
			assert.Equal(t, StateFollower, c.node(id).Status().State)
		}
	}
}

// TestProposeWithoutLeader: a node cut off from the others never learns
// of a leader: its proposal was never sent (ErrNoLeader). A leader cut off
// from its followers has sent its entry to nobody that answers: the
// outcome is unknown.
func TestProposeWithoutLeader(t *testing.T) {
	c := newTestCluster(t, 2, 3, Faults{})
	c.leader()
	c.crash(1)
	c.crash(2)
	c.crash(3)
	c.nw.Partition([]uint64{1}, []uint64{2}, []uint64{3})
	c.start(1, c.peers)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.node(1).Propose(ctx, []byte("put a 1"))
	require.ErrorIs(t, err, ErrNoLeader)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	c.nw.Heal()
	c.start(2, c.peers)
	c.start(3, c.peers)
	lead := c.leader()
	c.nw.Partition([]uint64{lead}, slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead }))
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = c.node(lead).Propose(ctx, []byte("put a 2"))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	c.converge()
}

// TestCrashAllAndReplay: every node crashes, losing what its state machine
// had not synced; on restart each replays its log and they converge with
// every acknowledged write.
func TestCrashAllAndReplay(t *testing.T) {
	c := newTestCluster(t, 3, 3, Faults{})
	c.leader()
	var cmds []string
	for i := range 100 {
		cmds = append(cmds, fmt.Sprintf("add a%d", i))
	}
	c.proposeMany(cmds)
	for _, id := range c.live() {
		c.crash(id)
	}
	for _, id := range c.peers {
		c.start(id, c.peers)
	}
	st := c.converge()
	for i := range 100 {
		assert.True(t, st.Set[fmt.Sprintf("a%d", i)], "a%d", i)
	}
}

// TestMembership: a learner joins after the log was compacted, so it
// catches up from a snapshot; the leader promotes it; the leader is
// removed (its leadership goes first) and its ID is refused afterwards.
func TestMembership(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			c := newTestCluster(t, seed, 3, Faults{Drop: 0.02, MaxDelay: 2 * time.Millisecond})
			c.leader()
			var cmds []string
			for i := range 119 {
				cmds = append(cmds, fmt.Sprintf("put k%d v%d", i%7+1, i))
			}
			c.proposeMany(cmds)
			c.propose(c.live()[0], "put k0 last")
			for _, id := range c.live() {
				first, _ := c.node(id).st.FirstIndex()
				require.Greater(t, first, uint64(1), "node %d compacted its log", id)
			}

			// Node 4 joins: started without peers, added through a follower.
			n4 := c.start(4, nil)
			assert.Equal(t, StateNone, n4.Status().State)
			lead := c.leader()
			follower := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead || id == 4 })[0]
			require.NoError(t, c.node(follower).AddLearner(ctxT(t), 4, []byte("addr-4")))
			// A linearizable read on the new node, a learner or just
			// promoted, waits until it holds every acknowledged write.
			_, err := n4.ReadIndex(ctxT(t))
			require.NoError(t, err)
			assert.Equal(t, "last", c.sm(4).get("k0"))
			require.Eventually(t, func() bool {
				return slices.Contains(c.node(lead).Status().Voters, 4) && slices.Contains(n4.Status().Voters, 4)
			}, 20*time.Second, 5*time.Millisecond, "node 4 promoted")
			snap := n4.st.Recorded()
			assert.Positive(t, snap.GetMetadata().GetIndex(), "node 4 caught up from a snapshot")
			assert.Equal(t, []uint64{1, 2, 3, 4}, n4.Status().Voters)
			st := c.converge()
			assert.Equal(t, "last", st.KV["k0"])
			assert.Equal(t, map[uint64]string{1: "", 2: "", 3: "", 4: "addr-4"}, st.Members, "every state machine saw the changes")
			assert.Len(t, st.KV, 8)

			require.ErrorIs(t, c.node(follower).AddLearner(ctxT(t), 4, nil), ErrMember)

			// The leader is removed; leadership moves first.
			lead = c.leader()
			other := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
			require.NoError(t, c.node(other).RemoveNode(ctxT(t), lead))
			require.Eventually(t, func() bool {
				st := c.node(other).Status()
				return !slices.Contains(st.Voters, lead) && st.Leader != 0 && st.Leader != lead
			}, 20*time.Second, 5*time.Millisecond)
			c.crash(lead)
			require.ErrorIs(t, c.node(other).AddLearner(ctxT(t), lead, nil), ErrIDReused)
			require.ErrorIs(t, c.node(other).RemoveNode(ctxT(t), lead), ErrNotMember)
			c.propose(other, "put after removal")
			st = c.converge()
			assert.Equal(t, "removal", st.KV["after"])
			assert.NotContains(t, st.Members, lead)
			assert.Len(t, st.Members, 3)
			assert.Len(t, c.node(other).Status().Voters, 3)
		})
	}
}

// TestRemovedIDRefusedAfterSnapshot: a node that catches up by snapshot
// knows the IDs removed before it.
func TestRemovedIDRefusedAfterSnapshot(t *testing.T) {
	c := newTestCluster(t, 4, 3, Faults{})
	lead := c.leader()
	victim := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	require.NoError(t, c.node(lead).RemoveNode(ctxT(t), victim))
	c.crash(victim)
	for i := range 100 {
		c.propose(lead, fmt.Sprintf("add a%d", i))
	}
	c.start(5, nil)
	require.NoError(t, c.node(lead).AddLearner(ctxT(t), 5, nil))
	require.Eventually(t, func() bool { return slices.Contains(c.node(5).Status().Voters, 5) }, 20*time.Second, 5*time.Millisecond)
	lead = c.leader()
	require.NoError(t, c.node(lead).TransferLeadership(ctxT(t), 5))
	require.Eventually(t, func() bool { return c.node(5).Status().State == StateLeader }, 20*time.Second, 5*time.Millisecond)
	require.ErrorIs(t, c.node(5).AddLearner(ctxT(t), victim, nil), ErrIDReused)
}

// TestForceNewCluster: after losing two of three nodes for good, the
// survivor is restarted as a group of one, keeps its committed writes,
// and grows again with new IDs.
func TestForceNewCluster(t *testing.T) {
	c := newTestCluster(t, 5, 3, Faults{})
	c.writeThenCrashAll(60)
	c.start(1, c.peers)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.node(1).Propose(ctx, []byte("add lost"))
	require.Error(t, err, "no quorum")
	c.crash(1)

	o := c.options(1, c.peers)
	o.ForceNewCluster = true
	c.startWith(o)
	require.Eventually(t, func() bool { return c.node(1).Status().State == StateLeader }, 20*time.Second, 5*time.Millisecond)
	st := c.node(1).Status()
	assert.Equal(t, []uint64{1}, st.Voters)
	c.propose(1, "add after")
	got := c.sm(1).state()
	for i := range 60 {
		assert.True(t, got.Set[fmt.Sprintf("a%d", i)], "a%d", i)
	}
	assert.True(t, got.Set["after"])

	// A restart without the option keeps the new membership.
	c.restart(1)
	require.Eventually(t, func() bool { return c.node(1).Status().State == StateLeader }, 20*time.Second, 5*time.Millisecond)
	assert.Equal(t, []uint64{1}, c.node(1).Status().Voters)
	require.ErrorIs(t, c.node(1).AddLearner(ctxT(t), 2, nil), ErrIDReused)
	c.start(6, nil)
	require.NoError(t, c.node(1).AddLearner(ctxT(t), 6, nil))
	require.Eventually(t, func() bool { return slices.Equal(c.node(6).Status().Voters, []uint64{1, 6}) }, 20*time.Second, 5*time.Millisecond)
	c.converge()

	// A member dropped by the force comes back alone: it finds no leader,
	// asks, and learns from node 1 that it was removed.
	c.start(2, c.peers)
	require.Eventually(t, func() bool { return c.node(2).Status().State == StateRemoved }, learnWithin, 5*time.Millisecond)
	require.ErrorIs(t, c.node(2).Err(), ErrRemoved)
	c.crash(2)
}

func TestOptionsErrors(t *testing.T) {
	base := DefaultOptions(1, t.TempDir())
	for name, tc := range map[string]struct {
		tune func(*Options)
		want string
	}{
		"id 0":           {func(o *Options) { o.ID = 0 }, "cluster: node id 0: ids start at 1"},
		"no dir":         {func(o *Options) { o.Dir = "" }, "cluster: node 1: no data directory"},
		"tick":           {func(o *Options) { o.TickInterval = 0 }, "cluster: node 1: tick interval 0s is not positive"},
		"election":       {func(o *Options) { o.ElectionTicks = 1 }, "cluster: node 1: election ticks 1 must exceed heartbeat ticks 1"},
		"peers no self":  {func(o *Options) { o.Peers = []uint64{2, 3} }, "cluster: node 1: Peers [2 3] do not include the node itself"},
		"peer twice":     {func(o *Options) { o.Peers = []uint64{1, 2, 2} }, "cluster: node 1: peer 2 twice in Peers"},
		"snapshot 0":     {func(o *Options) { o.SnapshotEntries = 0 }, "cluster: node 1: snapshot entries 0: must be at least 1"},
		"inflight":       {func(o *Options) { o.MaxInflightMsgs = 0 }, "cluster: node 1: max inflight messages 0 is not positive"},
		"uncommitted":    {func(o *Options) { o.MaxUncommittedBytes = 0 }, "cluster: node 1: max uncommitted bytes 0"},
		"inflight bytes": {func(o *Options) { o.MaxInflightBytes = 1 << 19 }, "cluster: node 1: max inflight bytes 524288 is less than the max size per message 1048576"},
		"max msg":        {func(o *Options) { o.MaxSizePerMsg = 0 }, "cluster: node 1: max size per message 0"},
		"heartbeat zero": {func(o *Options) { o.HeartbeatTicks = 0 }, "cluster: node 1: heartbeat ticks 0 is not positive"},
	} {
		t.Run(name, func(t *testing.T) {
			o := base
			tc.tune(&o)
			_, err := Open(o, newKVSM(&kvDisk{}), NewMemNetwork(1, Faults{}).Endpoint(1))
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestRestartRestoresReceivedImage: a node that recorded a snapshot from
// the leader but crashed before its state machine had restored the image
// restores it from the file it spooled; without the file it refuses to
// start (ErrBehindLog) rather than run with a state behind its log.
func TestRestartRestoresReceivedImage(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions(4, dir)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "snap"), 0o755))
	st, err := OpenStorage(filepath.Join(dir, "raft"))
	require.NoError(t, err)
	snap := &pb.Snapshot{Data: encodeHeader(map[uint64]bool{2: true}), Metadata: &pb.SnapshotMetadata{
		Index: proto.Uint64(30), Term: proto.Uint64(2), ConfState: &pb.ConfState{Voters: []uint64{1, 3}, Learners: []uint64{4}},
	}}
	require.NoError(t, st.Save(hardState(2, 0, 30), nil, snap, true))
	require.NoError(t, st.Close())

	sm := newKVSM(&kvDisk{})
	_, err = Open(o, sm, NewMemNetwork(1, Faults{}).Endpoint(4))
	require.ErrorIs(t, err, ErrBehindLog)

	image := `{"Applied":33,"KV":{"k":"v"},"Set":{},"Members":{"1":"","3":"","4":"a"}}`
	n := &Node{opts: o}
	require.NoError(t, os.WriteFile(n.spoolPath(2, 30), []byte(image), 0o644))
	node, err := Open(o, sm, NewMemNetwork(1, Faults{}).Endpoint(4))
	require.NoError(t, err)
	defer node.Close()
	assert.Equal(t, uint64(33), sm.state().Applied)
	assert.Equal(t, "v", sm.get("k"))
	st2 := node.Status()
	assert.Equal(t, StateLearner, st2.State)
	assert.Equal(t, []uint64{1, 3}, st2.Voters)
	assert.Equal(t, uint64(33), st2.Applied)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, node.AddLearner(ctx, 5, nil), ErrNoLeader, "no leader: never sent")
}

// TestRestartRestoresPreparedImage: the same for a Preparer, whose image
// of record is the one it prepared (no file is spooled for it): restarted
// after the snapshot was recorded and before it was installed, the node
// installs the prepared image; without one it refuses to start.
func TestRestartRestoresPreparedImage(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions(4, dir)
	st, err := OpenStorage(filepath.Join(dir, "raft"))
	require.NoError(t, err)
	snap := &pb.Snapshot{Data: encodeHeader(nil), Metadata: &pb.SnapshotMetadata{
		Index: proto.Uint64(30), Term: proto.Uint64(2), ConfState: &pb.ConfState{Voters: []uint64{1, 3}, Learners: []uint64{4}},
	}}
	require.NoError(t, st.Save(hardState(2, 0, 30), nil, snap, true))
	require.NoError(t, st.Close())

	disk := &kvDisk{prepare: "ok", images: map[[2]uint64][]byte{
		// Of another snapshot: not this one's image.
		{2, 20}: []byte(`{"Applied":20,"KV":{"k":"old"},"Set":{},"Members":{}}`),
	}}
	_, err = Open(o, &prepKVSM{newKVSM(disk)}, NewMemNetwork(1, Faults{}).Endpoint(4))
	require.ErrorIs(t, err, ErrBehindLog)

	disk.images[[2]uint64{2, 30}] = []byte(`{"Applied":33,"KV":{"k":"v"},"Set":{},"Members":{"1":"","3":"","4":"a"}}`)
	sm := newKVSM(disk)
	node, err := Open(o, &prepKVSM{sm}, NewMemNetwork(1, Faults{}).Endpoint(4))
	require.NoError(t, err)
	defer node.Close()
	assert.Equal(t, uint64(33), sm.state().Applied)
	assert.Equal(t, "v", sm.get("k"))
	assert.Equal(t, uint64(33), node.Status().Applied)
	assert.Equal(t, 1, disk.prepared, "images installed as prepared")
	assert.Empty(t, disk.images, "images kept after the install")
}

// TestProposalLostWithItsLeader: a follower forwards a proposal to a leader
// that is cut off at once; the others elect a new leader, and the follower,
// seeing an entry of the new term applied, hands its proposal to raft
// again: it is applied once, long before the caller's deadline (without
// the retry it ends as an unknown outcome at the deadline).
func TestProposalLostWithItsLeader(t *testing.T) {
	c := newTestCluster(t, 1, 3, Faults{})
	c.propose(1, "add warm")
	lead := c.leader()
	var rest []uint64
	for _, id := range c.live() {
		if id != lead {
			rest = append(rest, id)
		}
	}
	c.nw.Partition([]uint64{lead}, rest)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.node(rest[0]).Propose(ctx, []byte("add lost-with-its-leader"))
	require.NoError(t, err)
	require.Equal(t, "ok", res.Result)
	require.NoError(t, ctx.Err())
	c.nw.Heal()
	st := c.converge()
	require.True(t, st.Set["lost-with-its-leader"])
}

// TestMessageForAnotherNode: a message that reaches a node but names
// another node ID (its address once belonged to a member whose disk was
// wiped) is dropped, not stepped: a heartbeat committing entries this node
// never had would otherwise stop it as a corrupted log.
func TestMessageForAnotherNode(t *testing.T) {
	c := newTestCluster(t, 1, 3, Faults{})
	lead := c.leader()
	c.propose(lead, "put k v")
	var follower uint64
	for _, id := range c.live() {
		if id != lead {
			follower = id
			break
		}
	}
	st := c.node(follower).Status()
	c.node(follower).Step(&pb.Message{Type: pb.MsgHeartbeat.Enum(), To: proto.Uint64(99), From: proto.Uint64(lead),
		Term: proto.Uint64(st.Term), Commit: proto.Uint64(st.Commit + 1000)})
	require.Error(t, c.node(follower).ReceiveSnapshot(&pb.Message{Type: pb.MsgSnap.Enum(), To: proto.Uint64(99)}, strings.NewReader("")))
	c.propose(lead, "put k w")
	c.converge()
	require.NoError(t, c.node(follower).Err(), "the node goes on")
	require.Equal(t, "w", c.sm(follower).get("k"))
}

// TestSingleVoterCommitsAtOnce: a group of one commits a proposal as soon
// as its own log holds it, not at the next tick (raft learns of its own
// append only when the node advances, and has a Ready then that nothing
// else would wake the node for).
func TestSingleVoterCommitsAtOnce(t *testing.T) {
	o := DefaultOptions(1, t.TempDir())
	o.Peers = []uint64{1}
	o.TickInterval = 200 * time.Millisecond
	o.ElectionTicks, o.HeartbeatTicks = 2, 1
	node, err := Open(o, newKVSM(&kvDisk{}), NewMemNetwork(1, Faults{}).Endpoint(1))
	require.NoError(t, err)
	defer node.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var times []time.Duration
	for i := range 11 {
		start := time.Now()
		_, err := node.Propose(ctx, fmt.Appendf(nil, "put k%d v", i))
		require.NoError(t, err)
		if i > 0 { // the first waits for the election
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	assert.Less(t, times[len(times)/2], o.TickInterval/2, "median proposal time %v with a tick of %v: %v", times[len(times)/2], o.TickInterval, times)
}

// TestJoinTakesOneSnapshot: a node that joins while writes go on installs
// one snapshot, however long that takes: the leader keeps the entries after
// it until the node has them, though it compacts its log meanwhile.
func TestJoinTakesOneSnapshot(t *testing.T) {
	c := newTestCluster(t, 7, 0, Faults{})
	c.tune = func(o *Options) { o.CatchUpEntries = 100 }
	c.start(1, []uint64{1})
	lead := c.leader()
	for i := range 300 {
		c.propose(lead, fmt.Sprintf("put k%d v%d", i%5, i))
	}
	first, _ := c.node(lead).st.FirstIndex()
	require.Greater(t, first, uint64(1), "the leader compacted its log")
	c.mu.Lock()
	c.disks[2] = &kvDisk{restoreDelay: 2 * time.Second}
	c.mu.Unlock()
	c.start(2, nil)
	stop := make(chan struct{})
	wrote := make(chan int)
	go func() {
		i := 0
		defer func() { wrote <- i }()
		for ; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.node(lead).Propose(ctxT(t), fmt.Appendf(nil, "add during%d", i)); err != nil {
				return
			}
			time.Sleep(time.Millisecond) // writes go on, at a pace a follower keeps up with
		}
	}()
	require.NoError(t, c.node(lead).AddLearner(ctxT(t), 2, nil))
	require.Eventually(t, func() bool { return slices.Contains(c.node(2).Status().Voters, 2) }, 20*time.Second, 5*time.Millisecond)
	close(stop)
	n := <-wrote
	require.Greater(t, n, 150, "writes went on during the join, past a snapshot's cadence (40) and the entries kept (100)")
	st := c.converge()
	assert.Len(t, st.Set, n+1) // converge adds one
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Equal(t, 1, c.disks[2].restores, "snapshots node 2 installed")
}

// TestJoinPrepared: a state machine that prepares an image as it comes
// installs that one, and nothing of the stream is spooled beside it; when
// Prepare fails, the snapshot is not taken and the leader sends another.
func TestJoinPrepared(t *testing.T) {
	for _, mode := range []string{"ok", "fail"} {
		t.Run(mode, func(t *testing.T) {
			c := newTestCluster(t, 8, 1, Faults{})
			lead := c.leader()
			for i := range 100 {
				c.propose(lead, fmt.Sprintf("put k%d v%d", i%5, i))
			}
			c.mu.Lock()
			c.disks[2] = &kvDisk{prepare: mode}
			c.mu.Unlock()
			c.start(2, nil)
			require.NoError(t, c.node(lead).AddLearner(ctxT(t), 2, nil))
			require.Eventually(t, func() bool { return slices.Contains(c.node(2).Status().Voters, 2) }, 20*time.Second, 5*time.Millisecond)
			st := c.converge()
			assert.Equal(t, "v99", st.KV["k4"])
			spooled, err := os.ReadDir(filepath.Join(c.root, "2", "snap"))
			require.NoError(t, err)
			assert.Empty(t, spooled, "files spooled")
			c.mu.Lock()
			defer c.mu.Unlock()
			assert.Equal(t, 1, c.disks[2].restores, "images installed")
			assert.Equal(t, 1, c.disks[2].prepared, "images installed as prepared")
			want := map[string]int{"ok": 1, "fail": 2}[mode]
			assert.Equal(t, want, c.disks[2].prepares, "images prepared")
			assert.Empty(t, c.disks[2].images, "images kept after the install")
		})
	}
}

// TestJoinCrashWhilePreparing: a joiner that crashes while it builds the
// image it receives (a Preparer: that image is the only copy) comes back
// with the state it had, and raft sends it a snapshot again, which it
// installs.
func TestJoinCrashWhilePreparing(t *testing.T) {
	c := newTestCluster(t, 9, 1, Faults{})
	lead := c.leader()
	for i := range 100 {
		c.propose(lead, fmt.Sprintf("put k%d v%d", i%5, i))
	}
	inPrepare := make(chan struct{})
	crashed := make(chan struct{})
	var once sync.Once
	disk := &kvDisk{prepare: "ok", prepareHook: func() error {
		first := false
		once.Do(func() { first = true })
		if !first {
			return nil
		}
		close(inPrepare)
		<-crashed
		return errors.New("the process died while it built the image")
	}}
	c.mu.Lock()
	c.disks[2] = disk
	c.mu.Unlock()
	c.start(2, nil)
	require.NoError(t, c.node(lead).AddLearner(ctxT(t), 2, nil))
	<-inPrepare
	c.crash(2)
	close(crashed)
	c.start(2, nil)
	require.Eventually(t, func() bool { return slices.Contains(c.node(2).Status().Voters, 2) }, 20*time.Second, 5*time.Millisecond)
	st := c.converge()
	assert.Equal(t, "v99", st.KV["k4"])
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.GreaterOrEqual(t, disk.prepares, 2, "images prepared")
	assert.Equal(t, 1, disk.restores, "images installed")
	assert.Equal(t, 1, disk.prepared, "images installed as prepared")
	assert.Empty(t, disk.images, "images kept after the install")
}

// TestConcurrentMembershipChanges: raft takes one membership change at a
// time and drops one proposed while another is pending (it appends an
// empty entry instead). Changes asked for at once, from the leader and a
// follower, all apply, each within seconds rather than at its caller's
// deadline.
func TestConcurrentMembershipChanges(t *testing.T) {
	c := newTestCluster(t, 4, 3, Faults{})
	lead := c.leader()
	follower := slices.DeleteFunc(c.live(), func(id uint64) bool { return id == lead })[0]
	c.start(4, nil)
	c.start(5, nil)
	c.start(6, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	errs := make(chan error, 3)
	go func() { errs <- c.node(lead).AddLearner(ctx, 4, nil) }()
	go func() { errs <- c.node(lead).AddLearner(ctx, 5, nil) }()
	go func() { errs <- c.node(follower).AddLearner(ctx, 6, nil) }()
	for range 3 {
		require.NoError(t, <-errs)
	}
	t.Logf("three changes applied in %v", time.Since(start))
	for _, id := range []uint64{4, 5, 6} {
		require.Eventually(t, func() bool { return slices.Contains(c.node(id).Status().Voters, id) }, 20*time.Second, 5*time.Millisecond, "node %d a voter", id)
	}
}

// TestForceNewClusterDroppedPairComesBack: the two members a forced new
// cluster dropped come back together, against the documented advice, and
// elect a leader of their old group with a later term. The survivor does
// not hear them: stepped, their leader's appends would make raft take it
// for its leader and overwrite entries the survivor committed alone (raft
// panics on that). It keeps its group, its leadership and its writes.
// Their leader, hearing nothing from the survivor, asks it what it is
// there, learns it was removed and stops; the other then hears no leader,
// asks, and stops too: neither serves its stale copy on.
func TestForceNewClusterDroppedPairComesBack(t *testing.T) {
	c := newTestCluster(t, 7, 3, Faults{})
	c.writeThenCrashAll(20)
	o := c.options(1, c.peers)
	o.ForceNewCluster = true
	c.startWith(o)
	require.Eventually(t, func() bool { return c.node(1).Status().State == StateLeader }, 20*time.Second, 5*time.Millisecond)
	c.propose(1, "add after")

	// Nodes 2 and 3 come back, cut off from node 1 at first (else they
	// may ask it, learn of their removal and stop before they elect a
	// leader, as a dropped member should); then their messages reach it.
	// Leadership goes back and forth between them so that their term
	// passes node 1's, and a node with a leader does not ask.
	c.nw.Partition([]uint64{1}, []uint64{2, 3})
	c.start(2, c.peers)
	c.start(3, c.peers)
	var lead uint64
	require.Eventually(t, func() bool {
		for _, id := range []uint64{2, 3} {
			if c.node(id).Status().State == StateLeader {
				lead = id
				return true
			}
		}
		return false
	}, 20*time.Second, 5*time.Millisecond)
	for range 4 {
		other := 5 - lead
		require.NoError(t, c.node(lead).TransferLeadership(ctxT(t), other))
		lead = other
	}
	require.Greater(t, c.node(lead).Status().Term, c.node(1).Status().Term, "the pair's term is past node 1's")
	c.propose(lead, "add old-group") // (the old pair makes its own writes)
	c.nw.Heal()
	healed := time.Now()
	// (Meanwhile their heartbeats and appends reach node 1.)
	requireRemoved(t, c, lead)
	requireRemoved(t, c, 5-lead)
	t.Logf("the dropped pair learned of its removal %v after the heal", time.Since(healed).Round(time.Millisecond))
	assert.True(t, c.sm(lead).state().Set["old-group"], "their copy keeps what they applied")

	st := c.node(1).Status()
	require.NoError(t, c.node(1).Err())
	require.Equal(t, StateLeader, st.State)
	require.Equal(t, []uint64{1}, st.Voters)
	c.propose(1, "add later")
	got := c.sm(1).state()
	require.True(t, got.Set["after"] && got.Set["later"])
	require.False(t, got.Set["old-group"], "node 1 took an entry of the dropped members")
}

// TestStatusCatchingUp: a member restarted behind its leader knows the
// leader's commit index from the leader's appends, and how long it has
// been behind it (SHOW STATUS says joining from these), until it has
// applied it.
func TestStatusCatchingUp(t *testing.T) {
	// (The log keeps what the member misses: it catches up by entries,
	// not by an image.)
	c := newTestClusterTuned(t, 1, 3, Faults{}, func(o *Options) { o.SnapshotEntries, o.CatchUpEntries = 1000, 500 })
	lead := c.leader()
	var behind uint64
	for _, id := range c.live() {
		if id != lead {
			behind = id
			break
		}
	}
	c.crash(behind)
	for i := range 60 {
		c.propose(lead, fmt.Sprintf("add a%d", i))
	}
	c.disks[behind].applyDelay = 40 * time.Millisecond
	c.start(behind, c.peersOf(behind))
	require.Eventually(t, func() bool {
		st := c.node(behind).Status()
		return st.Behind > time.Second && st.LeaderCommit > st.Applied
	}, 20*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		st := c.node(behind).Status()
		return st.Behind == 0 && st.Applied >= st.LeaderCommit && st.LeaderCommit >= 60
	}, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, uint64(0), c.node(lead).Status().LeaderCommit, "a leader is told by no leader")
}

// TestSlowApplyKeepsLeader: members whose every Apply takes three election
// timeouts still answer their leader meanwhile (the applier applies, the
// loop ticks and answers), so the leader keeps its quorum and its term
// while they apply; before, their loops were busy in Apply and the leader
// stepped down for want of a quorum.
func TestSlowApplyKeepsLeader(t *testing.T) {
	c := newTestCluster(t, 3, 3, Faults{})
	lead := c.leader()
	term := c.node(lead).Status().Term
	for _, id := range c.live() {
		if id != lead {
			c.sm(id).mu.Lock()
			c.sm(id).delay = 300 * time.Millisecond // (the election timeout: 100 ms)
			c.sm(id).mu.Unlock()
		}
	}
	for i := range 5 {
		c.propose(lead, fmt.Sprintf("add s%d", i))
	}
	require.Eventually(t, func() bool {
		for _, id := range c.live() {
			if st := c.node(id).Status(); st.Applied < st.Commit || !c.sm(id).state().Set["s4"] {
				return false
			}
		}
		return true
	}, 30*time.Second, 10*time.Millisecond)
	st := c.node(lead).Status()
	require.Equal(t, StateLeader, st.State, "the leader stepped down while its members applied")
	require.Equal(t, term, st.Term, "an election while the members applied")
}
