package cluster

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
)

// frozen stands for a process stopped with SIGSTOP: while it is frozen
// the node sends nothing, and what is sent to it waits, in order, as in
// the socket buffers of a stopped process, until it is thawed.
type frozen struct {
	Transport
	mu     sync.Mutex
	on     bool
	held   []*pb.Message
	target Handler
}

func (f *frozen) isOn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.on
}

func (f *frozen) Send(msgs []*pb.Message) {
	if !f.isOn() {
		f.Transport.Send(msgs)
	}
}

func (f *frozen) SendSnapshot(m *pb.Message, body io.Reader) error {
	if f.isOn() {
		return ErrUnreachable
	}
	return f.Transport.SendSnapshot(m, body)
}

func (f *frozen) Step(m *pb.Message) {
	f.mu.Lock()
	if f.on {
		f.held = append(f.held, m)
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	f.target.Step(m)
}

func (f *frozen) ReceiveSnapshot(m *pb.Message, body io.Reader) error {
	if f.isOn() {
		return ErrUnreachable
	}
	return f.target.ReceiveSnapshot(m, body)
}

// Standing: a stopped process answers no one; an unknown standing
// settles nothing for the asker, as no answer would.
func (f *frozen) Standing(id uint64) Standing {
	if f.isOn() {
		return StandingUnknown
	}
	return f.target.Standing(id)
}

// StreamEnded: a stopped process reads nothing, a closed connection
// included.
func (f *frozen) StreamEnded(from uint64) {
	if !f.isOn() {
		f.target.StreamEnded(from)
	}
}

// Gone: a stopped process waits, as its probes would.
func (f *frozen) Gone(ctx context.Context, id uint64) bool {
	if f.isOn() {
		<-ctx.Done()
		return false
	}
	return f.Transport.Gone(ctx, id)
}

func (f *frozen) AskStanding(ctx context.Context, to, id uint64) (Standing, error) {
	if f.isOn() {
		<-ctx.Done()
		return StandingUnknown, ctx.Err()
	}
	return f.Transport.AskStanding(ctx, to, id)
}

func (f *frozen) freeze() {
	f.mu.Lock()
	f.on = true
	f.mu.Unlock()
}

// thaw hands the node what waited for it, all at once, and lets it
// send again.
func (f *frozen) thaw() int {
	f.mu.Lock()
	held := f.held
	f.held, f.on = nil, false
	f.mu.Unlock()
	for _, m := range held {
		f.target.Step(m)
	}
	return len(held)
}

// appBytes counts the bytes of entries a node sends in MsgApp messages,
// by receiver.
type appBytes struct {
	Transport
	mu sync.Mutex
	to map[uint64]int
}

func (a *appBytes) Send(msgs []*pb.Message) {
	a.mu.Lock()
	for _, m := range msgs {
		if m.GetType() == pb.MsgApp {
			for _, e := range m.GetEntries() {
				a.to[m.GetTo()] += len(e.GetData())
			}
		}
	}
	a.mu.Unlock()
	a.Transport.Send(msgs)
}

func (a *appBytes) take(to uint64) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.to[to]
	a.to[to] = 0
	return n
}

// TestThawedLeaderCatchesUpWithoutFlood: a leader frozen for a while (a
// process stopped with SIGSTOP) comes back to a group that went on
// without it. What waited for it includes a heartbeat of the new leader
// for every tick it was away, and it answers each; the new leader must
// not answer each of those answers with another copy of the log the
// thawed node lacks. With one copy per answer, a pause of seconds turned
// into hundreds of megabytes queued to one peer, and the leader's loop
// spent seconds encoding them while its other follower heard nothing
// (jepsen seed 50017: a member silent for 25 s after another was
// resumed).
func TestThawedLeaderCatchesUpWithoutFlood(t *testing.T) {
	nw := NewMemNetwork(1, Faults{})
	dir := t.TempDir()
	peers := []uint64{1, 2, 3}
	nodes := map[uint64]*Node{}
	sms := map[uint64]*kvSM{}
	counters := map[uint64]*appBytes{}
	gates := map[uint64]*frozen{}
	for _, id := range peers {
		o := DefaultOptions(id, filepath.Join(dir, fmt.Sprint(id)))
		o.Peers = peers
		o.TickInterval = 10 * time.Millisecond
		o.MaxSizePerMsg = 16 << 10
		counters[id] = &appBytes{Transport: nw.Endpoint(id), to: map[uint64]int{}}
		gates[id] = &frozen{Transport: counters[id]}
		sms[id] = newKVSM(&kvDisk{})
		n, err := Open(o, sms[id], gates[id])
		require.NoError(t, err)
		gates[id].target = n
		nw.Attach(id, gates[id])
		nodes[id] = n
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.Close()
		}
		nw.Wait()
	})
	leaderOf := func(among ...uint64) uint64 {
		var lead uint64
		require.Eventually(t, func() bool {
			for _, id := range among {
				if nodes[id].Status().State == StateLeader {
					lead = id
					return true
				}
			}
			return false
		}, 10*time.Second, 5*time.Millisecond)
		return lead
	}
	old := leaderOf(peers...)
	var others []uint64
	for _, id := range peers {
		if id != old {
			others = append(others, id)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := nodes[old].Propose(ctx, []byte("put before freeze"))
	require.NoError(t, err)

	gates[old].freeze()
	lead := leaderOf(others...)
	// The log the frozen node misses: 256 entries of 1 KiB, 16 messages'
	// worth at MaxSizePerMsg.
	value := strings.Repeat("v", 1<<10)
	for i := range 256 {
		_, err := nodes[lead].Propose(ctx, fmt.Appendf(nil, "put k%d %s", i, value))
		require.NoError(t, err)
	}
	missed := 256 * (1 << 10)
	time.Sleep(time.Second) // a hundred ticks: a hundred heartbeats wait for it
	// Counted from every member: the leadership may move meanwhile.
	sentToOld := func() int {
		n := 0
		for _, id := range others {
			n += counters[id].take(old)
		}
		return n
	}
	sentToOld()

	held := gates[old].thaw()
	require.Greater(t, held, 50, "heartbeats waiting for the thawed node")
	commit := nodes[lead].Status().Commit
	require.NoError(t, nodes[old].WaitApplied(ctx, commit))
	// Let the answers to what waited arrive at the leader.
	time.Sleep(500 * time.Millisecond)
	sent := sentToOld()
	t.Logf("%d messages waited; %d bytes of entries were sent to catch up %d", held, sent, missed)
	require.GreaterOrEqual(t, sent, missed, "the thawed node caught up from the log")
	require.Less(t, sent, 4*missed, "%d bytes of entries sent to catch up %d (%d messages waited)", sent, missed, held)
	require.Equal(t, sms[lead].get("k255"), sms[old].get("k255"))
}
