package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"

	pb "go.etcd.io/raft/v3/raftpb"
)

// Entry is one committed log entry as the state machine sees it.
type Entry struct {
	Index uint64 // its position in the log, from 1, without gaps
	Term  uint64 // the term of the leader that appended it
	// Data is what Propose was given, or nil for an entry that carries
	// nothing for the state machine (a new leader's empty entry, a
	// membership change): the state machine records the index and does
	// nothing else.
	Data []byte
	// Change is the membership change the entry made, nil for most; the
	// state machine may keep what the group needs to know of its members
	// (their addresses, from Info), so that it is replicated and in
	// snapshots like the rest of its state.
	Change *MemberChange
}

// MemberChange is one membership change as applied.
type MemberChange struct {
	Kind ChangeKind
	Node uint64
	// Info is what AddLearner was given (an address, say); nil for the
	// other kinds and for the founding members.
	Info []byte
}

// ChangeKind says what a MemberChange did.
type ChangeKind int

// The kinds of MemberChange.
const (
	AddLearner ChangeKind = iota + 1 // the node joined as a learner
	AddVoter                         // the node became a voter: a founder, or a learner promoted
	Remove                           // the node left the group for good
	Update                           // raft's ConfChangeUpdateNode; Node never proposes it
)

func (k ChangeKind) String() string {
	switch k {
	case AddLearner:
		return "add-learner"
	case AddVoter:
		return "add-voter"
	case Remove:
		return "remove"
	case Update:
		return "update"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// StateMachine is what a Node replicates: the node calls Apply, Restore
// and Sync one at a time, never two at once (Apply from its applier,
// Restore and Sync from its loop while the applier is idle), and
// Snapshot and AppliedIndex from other goroutines.
type StateMachine interface {
	// Apply applies one committed entry. It is called for every index in
	// log order, each once per run of the node, and must be deterministic:
	// every member computes the same result from the same entries. It
	// records e.Index as its applied index atomically with the entry's
	// effects. result goes back to the Propose call that proposed the entry
	// (on the node where it was proposed; elsewhere it is dropped), so a
	// statement's own failure (a duplicate id) is a result, not an error.
	// An error means the state machine cannot go on (its storage failed):
	// the node stops, and its pending calls return that error.
	Apply(e Entry) (result any, err error)

	// AppliedIndex returns the index of the last entry applied, 0 before
	// any. At start the node skips the entries up to it and applies the
	// rest; it must not be behind the index of the last Sync.
	AppliedIndex() (uint64, error)

	// Sync makes everything applied so far durable: after it returns, a
	// crash leaves AppliedIndex at least where it was. The node calls it
	// before it compacts the log, which it then does not replay anymore.
	Sync() error

	// Snapshot writes a consistent image of the state, including its
	// applied index, to w. It runs concurrently with Apply and must not
	// block it for long (read from a point-in-time view). The node streams
	// the image to a member too far behind to catch up from the log.
	Snapshot(w io.Writer) error

	// Restore replaces the whole state by the image that Snapshot wrote on
	// another member, reading r to its end; afterwards AppliedIndex is that
	// image's applied index, and the change is durable (as after Sync).
	Restore(r io.Reader) error
}

// Preparer is a StateMachine that builds the image of a snapshot as it is
// received, and keeps it durably: the image it builds is the image of
// record. The node then keeps no copy of the stream of its own; it hands
// Prepare the stream, steps the snapshot to raft once Prepare has
// returned, and at the snapshot's turn (or, after a crash, at start)
// installs it with RestorePrepared. A Prepare that fails is a snapshot
// not taken: the sender reports it failed, and raft sends one again.
type Preparer interface {
	// Prepare reads the image of snapshot (term, index) from r to its end
	// and builds what RestorePrepared of the same snapshot needs, without
	// changing the state. Once it returns nil the image survives a crash
	// (it is synced), until RestorePrepared installs it or one of a later
	// snapshot. Calls to Prepare do not overlap; RestorePrepared may run
	// meanwhile. A second Prepare of a snapshot already prepared reads r
	// and keeps the image it has.
	Prepare(term, index uint64, r io.Reader) error
	// RestorePrepared replaces the state by the image Prepare built of
	// snapshot (term, index), as Restore would, and removes the images
	// prepared of it and of earlier snapshots; false (and no change) when
	// there is no such image.
	RestorePrepared(term, index uint64) (bool, error)
}

// Handler receives what the transport delivers to one node; Node
// implements it.
type Handler interface {
	// Step takes one message from a peer. It does not block: when the node
	// is busy or stopped the message is dropped (raft resends).
	Step(m *pb.Message)

	// ReceiveSnapshot takes a MsgSnap message with the state machine image
	// it carries, reading body to its end before it returns. An error means
	// the image was not taken; the sender reports the snapshot as failed.
	ReceiveSnapshot(m *pb.Message, body io.Reader) error

	// Standing answers a peer that asks what node id is to this node's
	// group, from what this node has applied (Transport.AskStanding). It
	// does not block.
	Standing(id uint64) Standing

	// StreamEnded tells the node that the stream of messages from peer
	// from closed or broke: a process killed by the system closes its
	// connections, so this is how a node hears first of its leader's
	// death. It does not block. (The node then asks Transport.Gone; a
	// stream also ends when a live peer reconnects.)
	StreamEnded(from uint64)
}

// Standing is what a node's applied state says of another node: a
// member, removed for good, or neither as far as it knows.
type Standing byte

// The standings. Only StandingRemoved is conclusive for the node asking:
// removals are committed before any member applies them, while "member"
// or "unknown" may come from a member that is behind (or from a server
// that holds another group of the same name).
const (
	StandingUnknown Standing = iota // not a member in this node's applied state, nor removed
	StandingMember                  // a voter or a learner in this node's applied state
	StandingRemoved                 // its removal is applied here
)

func (s Standing) String() string {
	switch s {
	case StandingUnknown:
		return "unknown"
	case StandingMember:
		return "member"
	case StandingRemoved:
		return "removed"
	}
	return fmt.Sprintf("Standing(%d)", byte(s))
}

// Transport carries the raft messages of one node to its peers. It is used
// from the node's loop (Send) and from one goroutine per snapshot being
// sent (SendSnapshot).
type Transport interface {
	// Send queues messages for delivery to their m.To and returns without
	// waiting for the network: delivery is best effort (raft retries), and
	// messages may be lost, delayed, reordered or duplicated, except that a
	// proposal (MsgProp, forwarded by a follower to the leader) is
	// delivered at most once: raft's other messages are idempotent, but a
	// second delivery of a proposal appends, and applies, it twice. Send owns nothing it is given after it
	// returns: it encodes or copies what it keeps. It is never given
	// MsgSnap messages.
	Send(msgs []*pb.Message)

	// SendSnapshot delivers a MsgSnap message and streams body (the state
	// machine's image, read to its end) to m.To's Handler.ReceiveSnapshot,
	// returning nil once the receiver has taken it all and an error when it
	// did not (network, timeout, receiver's error).
	SendSnapshot(m *pb.Message, body io.Reader) error

	// AskStanding asks peer to what node id is to it (its
	// Handler.Standing) and returns the answer; an error when it did not
	// answer before ctx ended. A node that has had no leader for a while
	// asks its peers so, to learn that it was removed while it could not
	// hear the commit (see Node).
	AskStanding(ctx context.Context, to, id uint64) (Standing, error)

	// Gone reports whether peer id is known to be down: its address
	// refuses connections, or closes them before answering. A peer that
	// answers, or does not answer before ctx ends (stopped, overloaded or
	// cut off), is not known to be down.
	Gone(ctx context.Context, id uint64) bool

	// Peers returns the IDs of the nodes the transport can reach (an
	// address is known for them), in no order. A node asks them too, not
	// only the members its log names: a learner removed before it took
	// its first snapshot or entry knows no member from its log.
	Peers() []uint64
}

// Errors of the package. Propose and ReadIndex wrap them, so test them with
// errors.Is.
var (
	// ErrStopped: the node was closed or has stopped on an error.
	ErrStopped = errors.New("cluster: node stopped")
	// ErrNoLeader: no leader was known until the context ended; the
	// proposal was never sent, so it did not happen.
	ErrNoLeader = errors.New("cluster: no leader")
	// ErrOutcomeUnknown: the proposal was handed to raft (appended on the
	// leader or forwarded to it) but the context ended before it was
	// applied here. It may still commit: the outcome is unknown.
	ErrOutcomeUnknown = errors.New("cluster: outcome unknown")
	// ErrIDReused: a membership change names a node ID that was a member
	// before and was removed; IDs are never reused.
	ErrIDReused = errors.New("cluster: node id was removed before and is never reused")
	// ErrMember: the node to add is already a member.
	ErrMember = errors.New("cluster: node is already a member")
	// ErrNotMember: the node to remove or promote is not a member.
	ErrNotMember = errors.New("cluster: node is not a member")
	// ErrLastVoter: the node to remove is the group's last voter (the
	// others were removed meanwhile): a group keeps at least one.
	ErrLastVoter = errors.New("cluster: node is the last voter")
	// ErrRemoved: this node was removed from its group (it applied its
	// own removal, or a member that applied it said so): it stopped for
	// good, and Err returns it. Its state machine keeps what it applied.
	ErrRemoved = errors.New("cluster: this node was removed from its group")
	// ErrBehindLog: at start the state machine is behind the raft log's
	// snapshot (its state was lost) and no received image is left to
	// restore it from.
	ErrBehindLog = errors.New("cluster: state machine is behind the raft log's snapshot")
)
