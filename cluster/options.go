package cluster

import (
	"fmt"
	"log/slog"
	"time"
)

// Options configure a Node. Start from DefaultOptions; each field's comment
// gives its default.
type Options struct {
	// ID is the node's raft ID: non-zero, unique in the group for all time
	// (a removed node's ID is never given to another node).
	ID uint64
	// Dir holds the node's raft log (Dir/raft) and the state machine images
	// it receives (Dir/snap).
	Dir string
	// Peers are the voters of a new group, this node among them, the same
	// list on every founding member. It is read only when the raft log is
	// empty; a node that joins an existing group has none (the group adds
	// it with AddLearner).
	Peers []uint64

	// TickInterval is raft's clock: 50 ms.
	TickInterval time.Duration
	// ElectionTicks: a follower that hears no leader for this many ticks
	// (randomized up to twice as many) starts an election: 10, so that a
	// silent leader (stopped, cut off) costs writes 0.5 to 1 s before the
	// next leader takes them, under the 2 s issue 27 allows from kill -9
	// to the next acknowledged write, with ten heartbeats missed before a
	// follower gives up on a leader. A leader whose process is gone costs
	// what is left of that after an election timeout (see leaderGone).
	ElectionTicks int
	// HeartbeatTicks: the leader's heartbeat period: 1.
	HeartbeatTicks int

	// SnapshotEntries: after this many entries applied since the last
	// snapshot, the node syncs the state machine, records a snapshot and
	// compacts the log: 10,000.
	SnapshotEntries uint64
	// CatchUpEntries: entries kept before the snapshot's index at
	// compaction, so that a follower slightly behind catches up from the
	// log: 1,000.
	CatchUpEntries uint64
	// PromoteLag: the leader promotes a learner to voter once its log
	// matches the leader's to within this many entries: 100.
	PromoteLag uint64
	// MaxSizePerMsg bounds the entries in one append message: 1 MiB.
	MaxSizePerMsg uint64
	// MaxInflightMsgs bounds the append messages in flight to a follower:
	// 256.
	MaxInflightMsgs int
	// MaxInflightBytes bounds the entries' bytes in flight to a follower,
	// at least MaxSizePerMsg: 32 MiB (without it, 256 appends of up to
	// 1 MiB could be on their way to one slow follower).
	MaxInflightBytes uint64
	// MaxUncommittedBytes bounds the payload a leader holds uncommitted (a
	// leader cut off from its quorum stops taking proposals, which then
	// wait as when no leader is known): 64 MiB.
	MaxUncommittedBytes uint64

	// ForceNewCluster restarts the node as the only member of its group,
	// keeping its committed log and dropping the entries after the commit
	// index: the explicit recovery from a lost quorum, never automatic. The
	// other members' IDs are removed for good. See Open.
	ForceNewCluster bool

	// Logger gets raft's and the node's messages; nil discards them (the
	// loud ForceNewCluster message goes to slog.Default then).
	Logger *slog.Logger
}

// DefaultOptions returns the options of node id with its data under dir.
func DefaultOptions(id uint64, dir string) Options {
	return Options{
		ID:              id,
		Dir:             dir,
		TickInterval:    50 * time.Millisecond,
		ElectionTicks:   10,
		HeartbeatTicks:  1,
		SnapshotEntries: 10000,
		CatchUpEntries:  1000,
		PromoteLag:      100,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,

		MaxInflightBytes: 32 << 20,

		MaxUncommittedBytes: 64 << 20,
	}
}

func (o Options) check() error {
	switch {
	case o.ID == 0:
		return fmt.Errorf("cluster: node id 0: ids start at 1")
	case o.Dir == "":
		return fmt.Errorf("cluster: node %d: no data directory", o.ID)
	case o.TickInterval <= 0:
		return fmt.Errorf("cluster: node %d: tick interval %v is not positive", o.ID, o.TickInterval)
	case o.HeartbeatTicks <= 0:
		return fmt.Errorf("cluster: node %d: heartbeat ticks %d is not positive", o.ID, o.HeartbeatTicks)
	case o.ElectionTicks <= o.HeartbeatTicks:
		return fmt.Errorf("cluster: node %d: election ticks %d must exceed heartbeat ticks %d", o.ID, o.ElectionTicks, o.HeartbeatTicks)
	case o.SnapshotEntries == 0:
		return fmt.Errorf("cluster: node %d: snapshot entries 0: must be at least 1", o.ID)
	case o.MaxSizePerMsg == 0:
		return fmt.Errorf("cluster: node %d: max size per message 0", o.ID)
	case o.MaxInflightMsgs <= 0:
		return fmt.Errorf("cluster: node %d: max inflight messages %d is not positive", o.ID, o.MaxInflightMsgs)
	case o.MaxInflightBytes < o.MaxSizePerMsg:
		return fmt.Errorf("cluster: node %d: max inflight bytes %d is less than the max size per message %d", o.ID, o.MaxInflightBytes, o.MaxSizePerMsg)
	case o.MaxUncommittedBytes == 0:
		return fmt.Errorf("cluster: node %d: max uncommitted bytes 0", o.ID)
	}
	seen := map[uint64]bool{}
	for _, p := range o.Peers {
		if p == 0 {
			return fmt.Errorf("cluster: node %d: peer id 0 in Peers", o.ID)
		}
		if seen[p] {
			return fmt.Errorf("cluster: node %d: peer %d twice in Peers", o.ID, p)
		}
		seen[p] = true
	}
	if len(o.Peers) > 0 && !seen[o.ID] {
		return fmt.Errorf("cluster: node %d: Peers %v do not include the node itself", o.ID, o.Peers)
	}
	return nil
}
