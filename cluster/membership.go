package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// AddLearner adds node id to the group as a learner: it receives the log
// (or a snapshot, when the log it needs was compacted) but does not vote.
// The leader promotes it to voter by itself once its log is within
// PromoteLag entries of the leader's. info reaches every member's state
// machine with the change (Entry.Change.Info): the new node's address, say.
// It returns once the change is applied on this node; errors as Propose's,
// and ErrMember, ErrIDReused.
func (n *Node) AddLearner(ctx context.Context, id uint64, info []byte) error {
	return n.changeMembership(ctx, pb.ConfChangeAddLearnerNode, id, info)
}

// Promote makes learner id a voter now, without waiting for the leader to
// find it caught up.
func (n *Node) Promote(ctx context.Context, id uint64) error {
	if !slices.Contains(n.Status().Learners, id) {
		return fmt.Errorf("promote node %d: not a learner: %w", id, ErrNotMember)
	}
	return n.changeMembership(ctx, pb.ConfChangeAddNode, id, nil)
}

// RemoveNode removes node id from the group for good (its ID is never
// accepted again). When id is the leader, leadership is first transferred
// to another voter. It returns once the removal is applied on this node,
// or with ErrLastVoter when id is, or becomes meanwhile, the last voter.
func (n *Node) RemoveNode(ctx context.Context, id uint64) error {
	st := n.Status()
	if !slices.Contains(st.Voters, id) && !slices.Contains(st.Learners, id) {
		return fmt.Errorf("remove node %d: %w", id, ErrNotMember)
	}
	// The removal can become impossible while it waits: when the other
	// voters leave at once, each asking for its own removal, the one left
	// last can never be removed (applyConfChange refuses it), the
	// leadership it would hand over has no one to go to, and its proposal
	// may have gone to a leader that left and dropped it. It then ends at
	// once with ErrLastVoter rather than at ctx's end.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lastVoter := func() bool {
		st := n.Status()
		return len(st.Voters) == 1 && st.Voters[0] == id
	}
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if lastVoter() {
					cancel(ErrLastVoter)
					return
				}
			}
		}
	}()
	err := n.removeNode(ctx, id)
	if err != nil && (errors.Is(context.Cause(ctx), ErrLastVoter) || lastVoter()) {
		return fmt.Errorf("remove node %d: %w", id, ErrLastVoter)
	}
	return err
}

func (n *Node) removeNode(ctx context.Context, id uint64) error {
	for n.Status().Leader == id {
		st := n.Status()
		var to uint64
		for _, v := range st.Voters {
			if v != id {
				to = v
				break
			}
		}
		if to == 0 {
			return fmt.Errorf("remove node %d: %w", id, ErrLastVoter)
		}
		if err := n.TransferLeadership(ctx, to); err != nil {
			return fmt.Errorf("remove node %d: transfer its leadership first: %w", id, err)
		}
	}
	return n.changeMembership(ctx, pb.ConfChangeRemoveNode, id, nil)
}

// TransferLeadership asks the leader to hand its role to voter to, and
// returns once this node sees a leader other than the one it asked (to, or
// another when an election intervened).
func (n *Node) TransferLeadership(ctx context.Context, to uint64) error {
	from := n.Status().Leader
	if from == to {
		return nil
	}
	tick := time.NewTicker(n.opts.TickInterval)
	defer tick.Stop()
	asked := 0
	for {
		st := n.Status()
		if st.Leader != 0 && st.Leader != from {
			return nil
		}
		if asked%(2*n.opts.ElectionTicks) == 0 {
			if err := n.control(ctx, func() { n.rn.TransferLeader(to) }); err != nil {
				return err
			}
		}
		asked++
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-n.donec:
			return n.stoppedErr()
		}
	}
}

// control runs f on the node's loop.
func (n *Node) control(ctx context.Context, f func()) error {
	select {
	case n.ctrlc <- f:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-n.donec:
		return n.stoppedErr()
	}
}

func (n *Node) changeMembership(ctx context.Context, typ pb.ConfChangeType, id uint64, info []byte) error {
	if id == 0 {
		return fmt.Errorf("cluster: membership change of node id 0: ids start at 1")
	}
	p := n.newProposal()
	p.cc = &pb.ConfChangeV2{
		Changes: []*pb.ConfChangeSingle{{Type: typ.Enum(), NodeId: proto.Uint64(id)}},
		Context: envelope(n.id, p.req, info),
	}
	_, err := n.submit(ctx, p)
	return err
}

// forceNewCluster rewrites the log of node id so that it is the only
// member: entries after the commit index are dropped, and entries that
// remove every other member (and make id a voter) are appended and marked
// committed. The commit index is the saved one or the state machine's
// applied index, whichever is later (it applies committed entries only,
// and the saved commit index may lag).
func forceNewCluster(st *Storage, id, applied uint64, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	hs := st.HardState()
	last, _ := st.LastIndex()
	if applied > last {
		return fmt.Errorf("cluster: force new cluster: the state machine (applied %d) is ahead of node %d's log (last %d); let it catch up first", applied, id, last)
	}
	if applied > hs.GetCommit() {
		hs.Commit = proto.Uint64(applied)
	}
	snap := st.Recorded()
	cs := snap.GetMetadata().GetConfState()
	members := map[uint64]bool{}
	for _, list := range [][]uint64{cs.GetVoters(), cs.GetLearners(), cs.GetVotersOutgoing(), cs.GetLearnersNext()} {
		for _, m := range list {
			members[m] = true
		}
	}
	voter := slices.Contains(cs.GetVoters(), id)
	from := snap.GetMetadata().GetIndex() + 1
	if hs.GetCommit() >= from {
		ents, err := st.Entries(from, hs.GetCommit()+1, ^uint64(0))
		if err != nil {
			return fmt.Errorf("cluster: force new cluster: read the log: %w", err)
		}
		for _, e := range ents {
			if e.GetType() == pb.EntryNormal {
				continue
			}
			cc, err := decodeConfChange(e)
			if err != nil {
				return fmt.Errorf("cluster: force new cluster: entry %d: %w", e.GetIndex(), err)
			}
			for _, c := range cc.GetChanges() {
				switch c.GetType() {
				case pb.ConfChangeAddNode:
					members[c.GetNodeId()] = true
					if c.GetNodeId() == id {
						voter = true
					}
				case pb.ConfChangeAddLearnerNode:
					members[c.GetNodeId()] = true
				case pb.ConfChangeRemoveNode:
					delete(members, c.GetNodeId())
					if c.GetNodeId() == id {
						voter = false
					}
				}
			}
		}
	}
	if !members[id] {
		return fmt.Errorf("cluster: force new cluster: node %d is not a member of its group in its committed log", id)
	}
	var others []uint64
	for m := range members {
		if m != id {
			others = append(others, m)
		}
	}
	slices.Sort(others)
	var ents []*pb.Entry
	next := hs.GetCommit() + 1
	add := func(cc *pb.ConfChange) error {
		data, err := proto.Marshal(cc)
		if err != nil {
			return err
		}
		ents = append(ents, &pb.Entry{Type: pb.EntryConfChange.Enum(), Term: proto.Uint64(hs.GetTerm()), Index: proto.Uint64(next), Data: data})
		next++
		return nil
	}
	if !voter {
		if err := add(&pb.ConfChange{Type: pb.ConfChangeAddNode.Enum(), NodeId: proto.Uint64(id)}); err != nil {
			return err
		}
	}
	for _, m := range others {
		if err := add(&pb.ConfChange{Type: pb.ConfChangeRemoveNode.Enum(), NodeId: proto.Uint64(m)}); err != nil {
			return err
		}
	}
	logger.Error("FORCE NEW CLUSTER: this node becomes the only member of its group; entries after its commit index are dropped and the other members are removed for good",
		"node", id, "commit", hs.GetCommit(), "dropped_entries", last-min(last, hs.GetCommit()), "removed", others)
	return st.rewrite(hs, ents)
}
