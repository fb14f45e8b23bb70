package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/internal/durable"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"
)

// Node runs one member of one raft group: its raft state machine, its
// durable log, and the loop that follows etcd raft's rules for each Ready:
// persist the snapshot, entries and HardState in one synced batch, then send
// the messages, then hand the committed entries to the applier in order,
// then Advance.
// Its methods are safe for concurrent use.
type Node struct {
	opts Options
	id   uint64
	sm   StateMachine
	tr   Transport
	st   *Storage
	rn   *raft.RawNode
	log  *slog.Logger
	lead uint64 // the leader this node last logged (0: none)
	// leaderCommit is the highest commit index a leader's append told
	// (the loop's copy of status.LeaderCommit).
	leaderCommit uint64
	reqSeq       atomic.Uint64 // request ids: a random start, so a restart does not reuse them

	recvc  chan *pb.Message
	propc  chan *proposal
	readc  chan *readRequest
	snapc  chan snapStatus
	standc chan uint64 // the answer of a round of AskStanding: the peer that says this node was removed, or 0
	endc   chan uint64 // peers whose stream of messages ended (StreamEnded)
	gonec  chan uint64 // the answer of a probe of the leader: its id when it is down, or 0
	ctrlc  chan func()
	stopc  chan struct{}
	donec  chan struct{}
	snapWG sync.WaitGroup
	// The applier (applyLoop) applies the committed normal entries the
	// loop hands it, in order, on a goroutine of its own: an Apply that
	// takes long (a table copy's keys, a disk that stalls) then does not
	// keep the loop from ticking, stepping and answering, which made a
	// leader lose its quorum while its followers applied. Everything else
	// that touches the state machine's state (membership changes,
	// restoring a snapshot, syncing before a compaction) waits until the
	// applier has done what it was handed (drainApplier).
	applyq      chan []*pb.Entry
	appliedc    chan applyDone
	applierDone chan struct{}
	askWG       sync.WaitGroup // the rounds of AskStanding
	recvMu      sync.Mutex     // held while a snapshot is received

	pendMu  sync.Mutex
	pending map[uint64]*proposal // by request id, until applied or abandoned

	mu        sync.Mutex
	applied   uint64
	appliedCh chan struct{} // closed and replaced whenever applied grows
	status    Status
	// behindSince is when status.Applied fell below
	// status.LeaderCommit (zero: it is not below).
	behindSince time.Time
	err         error // why the loop stopped
	closeOnce   sync.Once
	closeError  error

	smApplied atomic.Uint64 // the state machine's applied index (the applier's; the loop's while the applier is idle)

	// Owned by the loop.
	queued       int    // batches handed to the applier that it has not reported done
	appliedTerm  uint64 // the term of the last entry applied (retryStale)
	raftApplied  uint64 // the last entry applied (or snapshot taken): confState is as of it
	raftTerm     uint64 // its term
	confState    *pb.ConfState
	removed      map[uint64]bool   // written under mu (Standing reads it)
	gone         bool              // this node learned that it was removed: it stops
	heardLeader  uint64            // the last tick this node heard from its leader, or led
	heard        map[uint64]uint64 // peer -> the last tick a message from it came (a leader asks the silent ones)
	ledSince     uint64            // the tick this node became leader, 0 while it is not
	asking       bool              // a round of AskStanding is out
	probing      bool              // a probe of the leader (Transport.Gone) is out
	hastenUntil  uint64            // until this tick, a pre-candidate whose leader was found down campaigns again each tick
	nextAsk      uint64            // the tick before which no new round starts
	unsent       []*proposal
	changes      []*proposal   // this node's membership changes handed to raft, not yet applied
	inbox        []*pb.Message // the messages received this round (stepInbox)
	reads        []*readRequest
	readBatch    *readBatch
	readSeq      uint64
	ticks        uint64
	promoteAfter map[uint64]uint64   // learner -> tick before which no new promotion is proposed
	sending      map[uint64]sentSnap // peer -> the snapshot sent to it, until it holds it (holdLog)
}

// NodeState is a member's role as SHOW STATUS tells it.
type NodeState string

// The states of a node.
const (
	StateLeader       NodeState = "leader"
	StateFollower     NodeState = "follower"
	StateCandidate    NodeState = "candidate"
	StatePreCandidate NodeState = "pre-candidate"
	StateLearner      NodeState = "learner"
	// StateNone: the node is not a member of the group it knows of: it is
	// waiting to be added (joining).
	StateNone NodeState = "none"
	// StateRemoved: the node learned that it was removed from its group
	// and stopped (Err is ErrRemoved).
	StateRemoved NodeState = "removed"
)

// Status is a node's view of its group.
type Status struct {
	ID      uint64
	State   NodeState
	Leader  uint64 // 0 when none is known
	Term    uint64
	Commit  uint64 // the last index known committed
	Applied uint64 // the last index applied to the state machine
	// LeaderCommit is the highest commit index a leader has told this
	// node in its appends (the node's own Commit, which raft caps at the
	// log it holds, can be far behind it after a restart); a leader
	// keeps what it was told as a follower, if anything.
	LeaderCommit uint64
	// Behind is how long Applied has been below LeaderCommit (0 when
	// it is not).
	Behind   time.Duration
	Voters   []uint64
	Learners []uint64
}

type proposalState int

const (
	propWaiting   proposalState = iota // not handed to raft yet
	propAccepted                       // handed to raft: outcome unknown until applied
	propAbandoned                      // the caller gave up before it was handed to raft
	propDone                           // applied here: its outcome went to the caller
)

type proposal struct {
	req  uint64
	body []byte            // a normal entry's data, as the caller gave it, or
	cc   *pb.ConfChangeV2  // a membership change
	done chan proposalDone // buffered 1
	// term is the term this node was in when it last handed the normal
	// entry to raft; the entry carries it, and a copy appended in another
	// term is skipped by every member (see apply).
	term uint64
	// at is the tick at which a membership change was last handed to
	// raft (see retryConfChanges); 0 while it never was (see abandon).
	at uint64

	mu    sync.Mutex // held while handing the proposal to raft
	state proposalState
}

// abandon marks p given up by its caller, and reports whether it was never
// handed to raft (then it never will be). A membership change waiting to be
// handed to raft again (retryConfChanges) was handed to it before: it may
// still apply, so its outcome is unknown.
func (p *proposal) abandon() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == propWaiting {
		p.state = propAbandoned
		return p.at == 0
	}
	return false
}

type proposalDone struct {
	outcome Outcome
	err     error
}

type readRequest struct {
	done chan uint64 // buffered 1: the read index
}

type readBatch struct {
	ctx   []byte
	reqs  []*readRequest
	since uint64 // tick of issue
}

type snapStatus struct {
	to     uint64
	failed bool
}

// Open starts node opts.ID on the state machine sm, sending through tr. On
// a first start with opts.Peers it founds a group of those voters; with
// none it waits to be added by a member (AddLearner). On a restart it takes
// its state from its raft log and replays the entries after
// sm.AppliedIndex().
//
// With opts.ForceNewCluster it first rewrites its log so that it is the only
// member: the entries after its commit index are dropped and every other
// member is removed; this is logged at error level, since acknowledged
// writes that only the lost members held are gone and the removed members
// must not come back with their old data.
//
// The caller routes what tr receives for this node to the node's Handler
// methods, and calls Close when done.
func Open(opts Options, sm StateMachine, tr Transport) (*Node, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("node", opts.ID)
	if err := os.MkdirAll(filepath.Join(opts.Dir, "snap"), 0o755); err != nil {
		return nil, fmt.Errorf("cluster: node %d: %w", opts.ID, err)
	}
	st, err := OpenStorage(filepath.Join(opts.Dir, "raft"))
	if err != nil {
		return nil, err
	}
	n := &Node{
		opts: opts, id: opts.ID, sm: sm, tr: tr, st: st, log: logger,
		recvc:        make(chan *pb.Message, 4096),
		propc:        make(chan *proposal, 256),
		readc:        make(chan *readRequest, 256),
		snapc:        make(chan snapStatus, 16),
		standc:       make(chan uint64, 1),
		endc:         make(chan uint64, 8),
		gonec:        make(chan uint64, 1),
		ctrlc:        make(chan func()),
		applyq:       make(chan []*pb.Entry, applyQueue),
		appliedc:     make(chan applyDone, applyQueue+1),
		applierDone:  make(chan struct{}),
		stopc:        make(chan struct{}),
		donec:        make(chan struct{}),
		pending:      map[uint64]*proposal{},
		appliedCh:    make(chan struct{}),
		removed:      map[uint64]bool{},
		heard:        map[uint64]uint64{},
		promoteAfter: map[uint64]uint64{},
		sending:      map[uint64]sentSnap{},
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	n.reqSeq.Store(binary.LittleEndian.Uint64(seed[:]) >> 1)
	if err := n.start(); err != nil {
		st.Close()
		return nil, err
	}
	if how, gone := n.removedBefore(); gone {
		// It stays stopped: raft is not run, so it neither campaigns nor
		// sends; its status and the log say why.
		n.gone = true
		err := fmt.Errorf("%w (%s)", ErrRemoved, how)
		n.setErr(err) // (before the status that says removed is published)
		n.publishStatus()
		n.log.Warn("this node was removed from its group: it does not start", "how", how)
		n.stop(err)
		return n, nil
	}
	go n.run()
	return n, nil
}

// removedMark is the file, in Dir, that records that the node learned of
// its removal: a restart then stays stopped without asking anyone.
const removedMark = "removed"

// removedBefore reports whether the node knew at its last run that it was
// removed (its mark), or its log says so.
func (n *Node) removedBefore() (string, bool) {
	if b, err := os.ReadFile(filepath.Join(n.opts.Dir, removedMark)); err == nil {
		return strings.TrimSpace(string(b)), true
	}
	if n.removed[n.id] {
		return "its raft log holds its removal", true
	}
	return "", false
}

// learnRemoved makes the node stop for good: it was removed from its
// group, as how says. The mark is written first, so that a restart does
// not run raft again; without it (a failed write), the restart finds out
// again, from its log or from the members.
func (n *Node) learnRemoved(how string) error {
	n.gone = true
	path := filepath.Join(n.opts.Dir, removedMark)
	if err := durable.WriteFile(path, []byte(how+"\n"), 0o644); err != nil {
		n.log.Error("the mark of this node's removal was not written; a restart finds out again", "path", path, "err", err)
	}
	n.log.Warn("this node was removed from its group: it stops; its state machine keeps what it applied", "how", how)
	err := fmt.Errorf("%w (%s)", ErrRemoved, how)
	n.setErr(err) // (before the status that says removed is published)
	return err
}

// setErr sets what Err returns; stop sets it too, as the node stops.
func (n *Node) setErr(err error) {
	n.mu.Lock()
	n.err = err
	n.mu.Unlock()
}

func (n *Node) start() error {
	if n.opts.ForceNewCluster {
		applied, err := n.sm.AppliedIndex()
		if err != nil {
			return fmt.Errorf("cluster: node %d: state machine's applied index: %w", n.id, err)
		}
		if err := forceNewCluster(n.st, n.id, applied, n.opts.Logger); err != nil {
			return err
		}
	}
	snap := n.st.Recorded()
	md := snap.GetMetadata()
	removed, err := decodeHeader(snap.GetData())
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.removed = removed
	n.mu.Unlock()
	n.confState = proto.CloneOf(md.GetConfState())
	applied, err := n.sm.AppliedIndex()
	if err != nil {
		return fmt.Errorf("cluster: node %d: state machine's applied index: %w", n.id, err)
	}
	if applied < md.GetIndex() {
		// The image received last was recorded in the log but not (fully)
		// restored: restore it again.
		if err := n.restoreImage(md.GetTerm(), md.GetIndex()); err != nil {
			if errors.Is(err, errNoImage) {
				return fmt.Errorf("cluster: node %d: applied index %d, snapshot at %d: %w (%v)", n.id, applied, md.GetIndex(), ErrBehindLog, err)
			}
			return fmt.Errorf("cluster: node %d: restore the received snapshot at %d: %w", n.id, md.GetIndex(), err)
		}
		if applied, err = n.sm.AppliedIndex(); err != nil {
			return fmt.Errorf("cluster: node %d: state machine's applied index: %w", n.id, err)
		}
		if applied < md.GetIndex() {
			return fmt.Errorf("cluster: node %d: restored image is at %d, before the snapshot at %d: %w", n.id, applied, md.GetIndex(), ErrBehindLog)
		}
	}
	n.smApplied.Store(applied)
	n.applied = applied
	n.raftApplied, n.raftTerm = md.GetIndex(), md.GetTerm()
	cfg := &raft.Config{
		ID:                        n.id,
		ElectionTick:              n.opts.ElectionTicks,
		HeartbeatTick:             n.opts.HeartbeatTicks,
		Storage:                   n.st,
		Applied:                   md.GetIndex(),
		MaxSizePerMsg:             n.opts.MaxSizePerMsg,
		MaxInflightMsgs:           n.opts.MaxInflightMsgs,
		MaxInflightBytes:          n.opts.MaxInflightBytes,
		MaxUncommittedEntriesSize: n.opts.MaxUncommittedBytes,
		CheckQuorum:               true,
		PreVote:                   true,
		StepDownOnRemoval:         true,
		Logger:                    raftLogger{n.log},
	}
	rn, err := raft.NewRawNode(cfg)
	if err != nil {
		return fmt.Errorf("cluster: node %d: %w", n.id, err)
	}
	n.rn = rn
	last, _ := n.st.LastIndex()
	if last == 0 && raft.IsEmptyHardState(n.st.HardState()) && len(n.opts.Peers) > 0 {
		peers := make([]raft.Peer, len(n.opts.Peers))
		for i, id := range n.opts.Peers {
			peers[i] = raft.Peer{ID: id}
		}
		if err := rn.Bootstrap(peers); err != nil {
			return fmt.Errorf("cluster: node %d: bootstrap: %w", n.id, err)
		}
	}
	n.publishStatus()
	return nil
}

// Close stops the node and closes its raft log. Pending calls return
// ErrStopped. The state machine is the caller's to close, after Close.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		close(n.stopc)
		<-n.donec
		n.snapWG.Wait()
		n.askWG.Wait()
		n.closeError = n.st.Close()
	})
	return n.closeError
}

// Done is closed when the node has stopped, after Close or on a failure
// (Err tells which).
func (n *Node) Done() <-chan struct{} { return n.donec }

// Err returns why the node stopped: ErrStopped after Close, the failure
// otherwise; nil while it runs.
func (n *Node) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.err
}

// ID returns the node's ID.
func (n *Node) ID() uint64 { return n.id }

// Standing implements Handler: what node id is in this node's applied
// state. A node removed from the group and stopped still answers: what it
// applied was committed.
func (n *Node) Standing(id uint64) Standing {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.removed[id]:
		return StandingRemoved
	case slices.Contains(n.status.Voters, id) || slices.Contains(n.status.Learners, id):
		return StandingMember
	}
	return StandingUnknown
}

// Status returns the node's current view of its group.
func (n *Node) Status() Status {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.status
	if !n.behindSince.IsZero() {
		s.Behind = time.Since(n.behindSince)
	}
	s.Voters = slices.Clone(s.Voters)
	s.Learners = slices.Clone(s.Learners)
	return s
}

// Step implements Handler. A message for another node ID is dropped: the
// transport finds a node by its address, and an address can outlive the
// member that had it (a wiped server joins again from it as a new node,
// while the others still write to the old one until its removal reaches
// them). Stepped, such a message would tell this node of a log it never
// had, which raft takes for a corrupted log.
func (n *Node) Step(m *pb.Message) {
	if m.GetTo() != n.id {
		n.log.Debug("dropped a message for another node", "to", m.GetTo(), "from", m.GetFrom(), "type", m.GetType())
		return
	}
	select {
	case n.recvc <- m:
	default:
	}
}

// StreamEnded implements Handler: when from is this node's leader, the
// node probes it (probeLeader).
func (n *Node) StreamEnded(from uint64) {
	if from == n.id {
		return
	}
	select {
	case n.endc <- from:
	default: // a probe for the others waiting will do
	}
}

// probeLeader starts a probe of from when it is the leader of this
// follower: two Transport.Gone a tick apart, each within half an election
// timeout, so that one broken connection on a lossy path is not taken for
// a death.
func (n *Node) probeLeader(from uint64) {
	bs := n.rn.BasicStatus()
	if n.probing || n.gone || bs.RaftState != raft.StateFollower || bs.Lead != from {
		return
	}
	n.probing = true
	n.askWG.Add(1)
	go func() {
		defer n.askWG.Done()
		down := true
		for i := 0; i < 2 && down; i++ {
			if i > 0 && !sleepOr(n.opts.TickInterval, n.stopc) {
				down = false
				break
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n.opts.ElectionTicks)*n.opts.TickInterval/2)
			cancelWhen(ctx, cancel, n.stopc)
			down = n.tr.Gone(ctx, from)
			cancel()
		}
		var lead uint64
		if down {
			lead = from
		}
		select {
		case n.gonec <- lead:
		case <-n.donec:
		}
	}()
}

// leaderGone, on a follower whose leader lead was found down, advances
// raft's election clock by an election timeout: the follower would wait
// that long anyway before it gave up on a silent leader, and what is left
// of its randomized timeout still staggers the followers' campaigns. Its
// peers will have found the same, so that their leases (CheckQuorum) have
// ended too when its pre-vote reaches them; and since one may not have
// yet, a pre-candidate campaigns again each tick for an election timeout
// (onTick) rather than after a whole one. Without this, a killed leader
// costs writes a whole randomized election timeout (0.5 to 1 s by
// default); with it, what is left of one (0 to 0.5 s). A peer found down
// by mistake (probeLeader's two probes failing on a live one) costs no
// more than a pre-vote that the others refuse while their leader is heard.
func (n *Node) leaderGone(lead uint64) {
	bs := n.rn.BasicStatus()
	if lead == 0 || n.gone || bs.RaftState != raft.StateFollower || bs.Lead != lead {
		return
	}
	n.log.Info("the leader is down (its address refuses connections): advancing the election clock", "leader", lead, "term", bs.HardState.GetTerm())
	for range n.opts.ElectionTicks {
		n.rn.Tick()
	}
	n.hastenUntil = n.ticks + uint64(n.opts.ElectionTicks)
}

// ReceiveSnapshot implements Handler: the image is taken, then the
// message is stepped; the loop installs the image when raft hands the
// snapshot over. A state machine that is a Preparer builds it as it
// comes, and that is the image of record; for any other the image is
// written to a file under Dir/snap and synced, and restored from it.
// Snapshots are received one at a time.
func (n *Node) ReceiveSnapshot(m *pb.Message, body io.Reader) error {
	md := m.GetSnapshot().GetMetadata()
	if m.GetTo() != n.id {
		return fmt.Errorf("cluster: node %d: a snapshot for node %d", n.id, m.GetTo())
	}
	if m.GetType() != pb.MsgSnap || md.GetIndex() == 0 {
		return fmt.Errorf("cluster: node %d: snapshot stream with a %v message at index %d", n.id, m.GetType(), md.GetIndex())
	}
	n.mu.Lock()
	gone := n.removed[m.GetFrom()]
	n.mu.Unlock()
	if gone {
		// (As step: a removed member's image is of a group of its own.)
		return fmt.Errorf("cluster: node %d: a snapshot from node %d, which was removed from the group", n.id, m.GetFrom())
	}
	n.recvMu.Lock()
	defer n.recvMu.Unlock()
	start := time.Now()
	cr := &countReader{r: body}
	var err error
	var synced time.Duration
	if p, ok := n.sm.(Preparer); ok {
		err = p.Prepare(md.GetTerm(), md.GetIndex(), cr)
	} else {
		synced, err = n.spool(md.GetTerm(), md.GetIndex(), cr)
	}
	if err != nil {
		return fmt.Errorf("cluster: node %d: receive snapshot %d: %w", n.id, md.GetIndex(), err)
	}
	took := time.Since(start)
	streamed := took
	if !cr.end.IsZero() {
		streamed = cr.end.Sub(start)
	}
	n.log.Info("received snapshot", "index", md.GetIndex(), "bytes", cr.n, "took", took.Round(time.Millisecond),
		"MB/s", int(float64(cr.n)/1e6/took.Seconds()), "streamed", streamed.Round(time.Millisecond),
		"end", (took - streamed).Round(time.Millisecond), "sync", synced.Round(time.Millisecond))
	select {
	case n.recvc <- m:
		return nil
	case <-n.donec:
		return ErrStopped
	}
}

// countReader counts the bytes read through it, and notes when it read
// the end.
type countReader struct {
	r   io.Reader
	n   int64
	end time.Time
}

func (c *countReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n += int64(k)
	if err == io.EOF && c.end.IsZero() {
		c.end = time.Now()
	}
	return k, err
}

// spool writes the image of snapshot (term, index) from body to its file,
// synced, and returns how long the sync took.
func (n *Node) spool(term, index uint64, body io.Reader) (time.Duration, error) {
	path := n.spoolPath(term, index)
	f, err := os.CreateTemp(filepath.Dir(path), "recv-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	_, err = io.CopyBuffer(f, body, make([]byte, 1<<20))
	var synced time.Duration
	if err == nil {
		t := time.Now()
		err = f.Sync()
		synced = time.Since(t)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return synced, err
}

// errNoImage: the image of a snapshot recorded in the log is not here.
var errNoImage = errors.New("its image is missing")

// restoreImage replaces the state machine's state by the image received
// of snapshot (term, index): the one it prepared, or the spooled file.
func (n *Node) restoreImage(term, index uint64) error {
	if p, ok := n.sm.(Preparer); ok {
		done, err := p.RestorePrepared(term, index)
		if err == nil && !done {
			err = errNoImage
		}
		return err
	}
	f, err := os.Open(n.spoolPath(term, index))
	if err != nil {
		return fmt.Errorf("%w: %w", errNoImage, err)
	}
	defer f.Close()
	return n.sm.Restore(f)
}

func (n *Node) spoolPath(term, index uint64) string {
	return filepath.Join(n.opts.Dir, "snap", fmt.Sprintf("%016x-%016x.snap", term, index))
}

// Outcome is what Propose returns for an entry applied.
type Outcome struct {
	Index  uint64 // the entry's position in the log (WaitApplied on another node reads one's writes there)
	Result any    // what Apply returned for it on this node
}

// Propose replicates data and returns the outcome of applying it on this
// node, once it is committed and applied here. Any member may propose:
// followers hand the entry to the leader (raft's proposal forwarding).
// Errors: ErrNoLeader when no leader was known before ctx ended (the entry
// was never sent: it did not happen); ErrOutcomeUnknown (wrapping ctx's
// error) when it was sent but ctx ended before it was applied here (it may
// still commit); ErrStopped, or the state machine's failure, when the node
// stops.
func (n *Node) Propose(ctx context.Context, data []byte) (Outcome, error) {
	p := n.newProposal()
	p.body = data
	return n.submit(ctx, p)
}

func (n *Node) newProposal() *proposal {
	return &proposal{req: n.reqSeq.Add(1), done: make(chan proposalDone, 1)}
}

func (n *Node) submit(ctx context.Context, p *proposal) (Outcome, error) {
	n.pendMu.Lock()
	n.pending[p.req] = p
	n.pendMu.Unlock()
	defer func() {
		n.pendMu.Lock()
		delete(n.pending, p.req)
		n.pendMu.Unlock()
	}()
	select {
	case n.propc <- p:
	case <-ctx.Done():
		return Outcome{}, fmt.Errorf("%w: %w", ErrNoLeader, ctx.Err())
	case <-n.donec:
		return Outcome{}, n.stoppedErr()
	}
	select {
	case d := <-p.done:
		return d.outcome, d.err
	case <-ctx.Done():
		if p.abandon() {
			return Outcome{}, fmt.Errorf("%w: %w", ErrNoLeader, ctx.Err())
		}
		return Outcome{}, fmt.Errorf("%w: %w", ErrOutcomeUnknown, ctx.Err())
	case <-n.donec:
		select {
		case d := <-p.done:
			// Applied before the node stopped (its own removal, say).
			return d.outcome, d.err
		default:
		}
		if p.abandon() {
			return Outcome{}, n.stoppedErr()
		}
		return Outcome{}, fmt.Errorf("%w: %w", ErrOutcomeUnknown, n.stoppedErr())
	}
}

func (n *Node) stoppedErr() error {
	if err := n.Err(); err != nil {
		return err
	}
	return ErrStopped
}

// ReadIndex returns once this node has applied everything committed when
// it was called, with that commit index: a read of the state machine after
// it is linearizable. Concurrent calls share one round of raft's ReadIndex
// (a heartbeat to a quorum by the leader); followers and learners ask the
// leader. Without a leader it retries until ctx ends.
func (n *Node) ReadIndex(ctx context.Context) (uint64, error) {
	r := &readRequest{done: make(chan uint64, 1)}
	select {
	case n.readc <- r:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-n.donec:
		return 0, n.stoppedErr()
	}
	var idx uint64
	select {
	case idx = <-r.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-n.donec:
		return 0, n.stoppedErr()
	}
	return idx, n.WaitApplied(ctx, idx)
}

// WaitApplied returns once the node has applied index (read-your-writes on
// one node: wait for the index of one's last write).
func (n *Node) WaitApplied(ctx context.Context, index uint64) error {
	for {
		n.mu.Lock()
		applied, ch := n.applied, n.appliedCh
		n.mu.Unlock()
		if applied >= index {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-n.donec:
			return n.stoppedErr()
		}
	}
}

// run is the node's loop: the only goroutine that touches n.rn.
func (n *Node) run() {
	ticker := time.NewTicker(n.opts.TickInterval)
	defer ticker.Stop()
	go n.applyLoop()
	var err error
	for err == nil {
		select {
		case d := <-n.appliedc:
			err = n.onApplied(d)
		case <-ticker.C:
			n.rn.Tick()
			n.ticks++
			n.onTick()
		case m := <-n.recvc:
			n.inbox = append(n.inbox, m)
		case p := <-n.propc:
			n.propose(p)
		case r := <-n.readc:
			n.reads = append(n.reads, r)
		case s := <-n.snapc:
			n.reportSnapshot(s)
		case f := <-n.ctrlc:
			f()
		case by := <-n.standc:
			n.asking = false
			if by != 0 && !n.gone {
				err = n.learnRemoved(fmt.Sprintf("member %d has applied its removal", by))
			}
		case from := <-n.endc:
			n.probeLeader(from)
		case lead := <-n.gonec:
			n.probing = false
			n.leaderGone(lead)
		case <-n.stopc:
			n.stopApplier()
			n.stop(ErrStopped)
			return
		}
		n.drain()
		n.issueReads()
		// Advance can leave a Ready of its own: a group of one commits
		// its entries once they are in its own log, which raft learns at
		// Advance, and nothing else would wake the loop for it before the
		// next tick.
		for err == nil && n.rn.HasReady() {
			err = n.handleReady()
		}
		if err == nil {
			err = n.maybeCompact()
		}
		n.publishStatus()
	}
	// (learnRemoved logged a removal; ErrStopped is the applier's word
	// for a Close that came while it held entries.)
	if !errors.Is(err, ErrRemoved) && !errors.Is(err, ErrStopped) {
		n.log.Error("node stopped", "err", err)
	}
	n.stopApplier()
	n.stop(err)
}

// applyQueue is how many batches of committed entries the loop hands the
// applier before it waits for it (each batch is at most MaxSizePerMsg of
// entries, raft's bound on the committed entries of one Ready).
const applyQueue = 64

// applyDone is the applier's report of one batch: applied up to index
// (of term term), or the error that stopped it.
type applyDone struct {
	index, term uint64
	err         error
}

// applyLoop is the applier: it applies each batch of normal entries the
// loop hands it, in order, and reports each. After an error it applies
// nothing more (the loop stops the node); once Close is called it skips
// what is left, which a restart replays from the state machine's applied
// index.
func (n *Node) applyLoop() {
	defer close(n.applierDone)
	var failed error
	for ents := range n.applyq {
		d := applyDone{err: failed}
		for _, e := range ents {
			if d.err != nil {
				break
			}
			select {
			case <-n.stopc:
				d.err = ErrStopped
				continue
			default:
			}
			if d.err = n.apply(e); d.err == nil {
				d.index, d.term = e.GetIndex(), e.GetTerm()
			}
		}
		failed = d.err
		n.appliedc <- d
	}
}

// queueApply hands the applier a batch of normal entries, taking its
// reports meanwhile when its queue is full.
func (n *Node) queueApply(ents []*pb.Entry) error {
	for {
		select {
		case n.applyq <- ents:
			n.queued++
			return nil
		case d := <-n.appliedc:
			if err := n.onApplied(d); err != nil {
				return err
			}
		}
	}
}

// onApplied takes one report of the applier: what is applied is what a
// snapshot may now say it holds, and an entry of a new term applied
// means the proposals of earlier terms not applied were lost.
func (n *Node) onApplied(d applyDone) error {
	n.queued--
	if d.err != nil {
		return d.err
	}
	n.applyDoneTo(d.index, d.term)
	return nil
}

// applyDoneTo records that the entries up to index (of term) are applied.
func (n *Node) applyDoneTo(index, term uint64) {
	if index <= n.raftApplied {
		return
	}
	n.raftApplied, n.raftTerm = index, term
	n.st.setApplied(n.raftApplied, n.raftTerm, n.confState, encodeHeader(n.removed))
	if term > n.appliedTerm {
		n.appliedTerm = term
		n.retryStale(term)
	}
}

// drainApplier waits until the applier has applied every batch it was
// handed.
func (n *Node) drainApplier() error {
	for n.queued > 0 {
		if err := n.onApplied(<-n.appliedc); err != nil {
			// (It applies nothing more: the rest of its reports carry the error.)
			for n.queued > 0 {
				n.onApplied(<-n.appliedc)
			}
			return err
		}
	}
	return nil
}

// stopApplier ends the applier and waits for it.
func (n *Node) stopApplier() {
	close(n.applyq)
	for {
		select {
		case <-n.appliedc:
		case <-n.applierDone:
			return
		}
	}
}

// applyCommitted hands the committed entries of a Ready to the applier, in
// order; a membership change is applied here, on the loop (it changes
// raft's own configuration), once the applier has applied the entries
// before it.
func (n *Node) applyCommitted(ents []*pb.Entry) error {
	start := 0
	for i, e := range ents {
		if e.GetType() == pb.EntryNormal {
			continue
		}
		if i > start {
			if err := n.queueApply(ents[start:i]); err != nil {
				return err
			}
		}
		start = i + 1
		if err := n.drainApplier(); err != nil {
			return err
		}
		if err := n.apply(e); err != nil {
			return err
		}
		n.applyDoneTo(e.GetIndex(), e.GetTerm())
	}
	if start < len(ents) {
		return n.queueApply(ents[start:])
	}
	return nil
}

// drain takes what else is waiting, so that one Ready (one synced write)
// carries as many proposals and messages as arrived meanwhile, then steps
// the messages.
func (n *Node) drain() {
	defer n.stepInbox()
	for i := 0; i < 1024; i++ {
		select {
		case m := <-n.recvc:
			n.inbox = append(n.inbox, m)
		case p := <-n.propc:
			n.propose(p)
		case r := <-n.readc:
			n.reads = append(n.reads, r)
		case s := <-n.snapc:
			n.reportSnapshot(s)
		default:
			return
		}
	}
}

// stepInbox steps the messages received this round, in order, less the
// heartbeats that a later one of the same round makes redundant.
//
// A node that was stopped for a while (SIGSTOP, a long pause) finds a
// heartbeat of its leader for every tick it missed, and would answer each;
// in the leader, raft answers every heartbeat response from a follower it
// is probing with a new append of up to MaxSizePerMsg of the entries the
// follower lacks. A pause of seconds then made the leader read, encode and
// queue one such append per tick missed (up to 1 MiB each, 20 ticks a
// second), its loop busy for seconds while its other followers heard
// nothing. So, within one round:
//
//   - a heartbeat is skipped when a later one from the same leader in the
//     same term follows it: the later one carries a commit index as high and
//     the newest read request context, whose acknowledgement completes the
//     earlier read requests too (raft releases every read request queued
//     before the one acknowledged by a quorum);
//   - a heartbeat response is skipped when a later one from the same node in
//     the same term with the same context follows it: the later one says
//     all it says.
//
// Dropping a message is always safe in raft (the network may); these only
// ever stand in for a later copy.
func (n *Node) stepInbox() {
	msgs := n.inbox
	n.inbox = n.inbox[:0]
	type beat struct {
		typ        pb.MessageType
		from, term uint64
		ctx        string
	}
	var last map[beat]int
	key := func(m *pb.Message) (beat, bool) {
		switch m.GetType() {
		case pb.MsgHeartbeat:
			return beat{typ: pb.MsgHeartbeat, from: m.GetFrom(), term: m.GetTerm()}, true
		case pb.MsgHeartbeatResp:
			return beat{typ: pb.MsgHeartbeatResp, from: m.GetFrom(), term: m.GetTerm(), ctx: string(m.GetContext())}, true
		}
		return beat{}, false
	}
	if len(msgs) > 1 {
		for i, m := range msgs {
			if k, ok := key(m); ok {
				if last == nil {
					last = map[beat]int{}
				}
				last[k] = i
			}
		}
	}
	for i, m := range msgs {
		if k, ok := key(m); ok && last != nil && last[k] != i {
			continue
		}
		n.step(m)
	}
	if len(msgs) > 0 {
		lead := n.rn.BasicStatus().Lead
		for _, m := range msgs {
			n.heard[m.GetFrom()] = n.ticks
			if m.GetFrom() == lead {
				n.heardLeader = n.ticks
			}
		}
	}
	clear(msgs)
}

// step hands m to raft, unless it comes from a member removed for good:
// such a node's log may have gone its own way (the members a forced new
// cluster dropped, come back together, elect a leader of their old group),
// and raft, which follows any leader of a later term, would take it for
// its own leader, forward its proposals there and have its committed
// entries overwritten. (It learns of its removal by asking; see Standing.)
func (n *Node) step(m *pb.Message) {
	if n.removed[m.GetFrom()] {
		return
	}
	if c := m.GetCommit(); m.GetType() == pb.MsgApp && c > n.leaderCommit {
		n.leaderCommit = c
		n.mu.Lock()
		n.status.LeaderCommit = c
		if n.status.Applied < c && n.behindSince.IsZero() {
			n.behindSince = time.Now()
		}
		n.mu.Unlock()
	}
	if err := n.rn.Step(m); err != nil && !errors.Is(err, raft.ErrStepPeerNotFound) {
		n.log.Debug("step", "type", m.GetType(), "from", m.GetFrom(), "err", err)
	}
}

func (n *Node) reportSnapshot(s snapStatus) {
	if s.failed {
		delete(n.sending, s.to)
	}
	st := raft.SnapshotFinish
	if s.failed {
		st = raft.SnapshotFailure
	}
	n.rn.ReportSnapshot(s.to, st)
}

func (n *Node) stop(err error) {
	n.setErr(err)
	close(n.donec)
}

// propose hands p to raft, or keeps it for the next tick when no leader is
// known (raft drops proposals then).
func (n *Node) propose(p *proposal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != propWaiting {
		return // abandoned
	}
	var err error
	if p.cc != nil {
		err = n.rn.ProposeConfChange(p.cc)
	} else {
		p.term = n.rn.BasicStatus().GetTerm()
		err = n.rn.Propose(envelopeTerm(n.id, p.req, p.term, p.body))
	}
	if err != nil {
		n.unsent = append(n.unsent, p)
		return
	}
	if p.cc != nil {
		if p.at == 0 {
			n.changes = append(n.changes, p)
		}
		p.at = max(n.ticks, 1)
	}
	p.state = propAccepted
}

// retryConfChanges hands raft again this node's membership changes that
// were handed to it two election timeouts ago or more and are not applied.
// A leader drops a membership change proposed while another is not applied
// yet (a learner's promotion, another member's change, the changes its
// predecessor left: raft applies one at a time): it appends an empty entry
// in its place, and the change would never apply. A copy of a change that
// did apply is refused as every repeated change is (applyConfChange), and
// raft appends no copy while the first is pending.
func (n *Node) retryConfChanges() {
	kept := n.changes[:0]
	for _, p := range n.changes {
		p.mu.Lock()
		switch {
		case p.state == propDone || p.state == propAbandoned:
		case p.state == propWaiting: // (in unsent)
			kept = append(kept, p)
		case n.ticks-p.at >= 2*uint64(n.opts.ElectionTicks):
			p.state = propWaiting
			n.unsent = append(n.unsent, p)
			kept = append(kept, p)
		default:
			kept = append(kept, p)
		}
		p.mu.Unlock()
	}
	clear(n.changes[len(kept):])
	n.changes = kept
}

func (n *Node) onTick() {
	n.retryConfChanges()
	if len(n.unsent) > 0 {
		unsent := n.unsent
		n.unsent = nil
		for _, p := range unsent {
			n.propose(p)
		}
	}
	if b := n.readBatch; b != nil && n.ticks-b.since > uint64(n.opts.ElectionTicks) {
		// No answer (no leader, or it lost its leadership): ask again.
		n.reads = append(b.reqs, n.reads...)
		n.readBatch = nil
	}
	n.promoteLearners()
	n.maybeAskStanding()
	if n.ticks < n.hastenUntil && n.rn.BasicStatus().RaftState == raft.StatePreCandidate {
		// Its pre-vote may have reached a peer that had not yet found
		// the leader down, whose lease refused it; the peer has by now.
		_ = n.rn.Campaign()
	}
}

// A node that has not heard from a leader for askAfter election timeouts
// asks its peers whether it was removed, then again every askEvery while
// it still hears none. A member removed while it was cut off, paused or
// busy never hears the commit of its removal otherwise: the leader stops
// sending to it once the removal is applied, and the members drop its
// messages. (Silence, not the lack of a known leader, is the sign: a
// learner never campaigns, so it keeps the leader it last heard of.)
//
// A leader asks the members it has not heard from for askAfter election
// timeouts, as often: members removed together (those a forced new
// cluster dropped, come back) elect a leader of their own and hear it;
// the member that removed them drops their messages, and its silence is
// all they would ever get from it.
const (
	askAfter = 3
	askEvery = 4
)

// maybeAskStanding starts a round of AskStanding, in the background, when
// the node has not heard from a leader for a while, or, on a leader, from
// some of its members.
func (n *Node) maybeAskStanding() {
	election := uint64(n.opts.ElectionTicks)
	var peers []uint64
	if n.rn.BasicStatus().Lead == n.id {
		n.heardLeader = n.ticks
		if n.ledSince == 0 {
			n.ledSince = n.ticks
		}
		if !n.gone && !n.asking && n.ticks >= n.nextAsk {
			peers = n.silentPeers(askAfter * election)
		}
	} else {
		n.ledSince = 0
		if !n.gone && !n.asking && n.ticks >= n.nextAsk && n.ticks-n.heardLeader >= askAfter*election {
			peers = n.knownPeers()
		}
	}
	if len(peers) == 0 {
		return // nothing to ask, or a group of one, or a node not added yet that knows no one
	}
	n.asking = true
	n.nextAsk = n.ticks + askEvery*election
	timeout := max(time.Second, 2*time.Duration(election)*n.opts.TickInterval)
	n.askWG.Add(1)
	go func() {
		defer n.askWG.Done()
		by := n.askPeers(peers, timeout)
		select {
		case n.standc <- by:
		case <-n.donec:
		}
	}()
}

// knownPeers are the nodes other than this one that its applied
// membership names, and those its transport has an address for: a learner
// removed before its first snapshot or entry knows the members only from
// its transport (the addresses its join gave it).
func (n *Node) knownPeers() []uint64 {
	ids := append(slices.Clone(n.confState.GetVoters()), n.confState.GetLearners()...)
	ids = append(ids, n.tr.Peers()...)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return slices.DeleteFunc(ids, func(id uint64) bool { return id == n.id })
}

// silentPeers, on a leader, are the members it has heard nothing from for
// the last ticks ticks (and not since it became leader).
func (n *Node) silentPeers(ticks uint64) []uint64 {
	var ids []uint64
	for _, list := range [][]uint64{n.confState.GetVoters(), n.confState.GetLearners()} {
		for _, id := range list {
			if id != n.id && n.ticks-max(n.heard[id], n.ledSince) >= ticks {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// askPeers asks every peer at once what this node is to it, and returns
// one that says it was removed, or 0. Only that answer settles anything:
// a peer that calls it a member, or does not know it, may be behind.
func (n *Node) askPeers(peers []uint64, timeout time.Duration) uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cancelWhen(ctx, cancel, n.stopc)
	answers := make(chan uint64, len(peers))
	for _, p := range peers {
		go func() {
			s, err := n.tr.AskStanding(ctx, p, n.id)
			n.log.Debug("asked a peer whether this node is a member", "peer", p, "answer", s, "err", err)
			if err == nil && s == StandingRemoved {
				answers <- p
				return
			}
			answers <- 0
		}()
	}
	var by uint64
	for range peers {
		if p := <-answers; p != 0 && by == 0 {
			by = p
		}
	}
	return by
}

func (n *Node) issueReads() {
	if n.readBatch != nil || len(n.reads) == 0 {
		return
	}
	n.readSeq++
	ctx := make([]byte, 16)
	binary.BigEndian.PutUint64(ctx, n.id)
	binary.BigEndian.PutUint64(ctx[8:], n.readSeq)
	n.readBatch = &readBatch{ctx: ctx, reqs: n.reads, since: n.ticks}
	n.reads = nil
	n.rn.ReadIndex(ctx)
}

// promoteLearners, on the leader, proposes to make voters of the learners
// whose log is within PromoteLag of its own.
func (n *Node) promoteLearners() {
	if n.rn.BasicStatus().RaftState != raft.StateLeader {
		return
	}
	st := n.rn.Status()
	last := st.Progress[n.id].Match
	for id := range st.Config.Learners {
		pr, ok := st.Progress[id]
		// A learner still taking a snapshot (or probed after one) is not
		// promoted however close its match looks: as a voter it would be
		// half of a quorum that cannot answer while it installs the image.
		if !ok || !pr.RecentActive || pr.State != tracker.StateReplicate || pr.Match+n.opts.PromoteLag < last || n.ticks < n.promoteAfter[id] {
			continue
		}
		n.promoteAfter[id] = n.ticks + uint64(n.opts.ElectionTicks)
		n.log.Info("promoting learner", "learner", id, "match", pr.Match, "last", last)
		cc := &pb.ConfChangeV2{Changes: []*pb.ConfChangeSingle{{Type: pb.ConfChangeAddNode.Enum(), NodeId: proto.Uint64(id)}}}
		if err := n.rn.ProposeConfChange(cc); err != nil {
			n.log.Info("promotion not proposed", "learner", id, "err", err)
		}
	}
}

func (n *Node) handleReady() error {
	rd := n.rn.Ready()
	if !raft.IsEmptySnap(rd.Snapshot) {
		// A snapshot replaces the state the applier is applying to.
		if err := n.drainApplier(); err != nil {
			return err
		}
	}
	// When only the commit index moved, raft does not need it synced (a
	// restart learns it again): not syncing then saves the leader an fsync
	// between a quorum's answer and its client's.
	if err := n.st.Save(rd.HardState, rd.Entries, rd.Snapshot, rd.MustSync); err != nil {
		return err
	}
	if ss := rd.SoftState; ss != nil && ss.Lead != n.lead {
		// raft's own lines name nodes in hex; these name them as SHOW
		// STATUS does.
		n.lead = ss.Lead
		term := n.rn.BasicStatus().HardState.GetTerm()
		if ss.Lead == 0 {
			n.log.Info("no leader", "role", string(roles[ss.RaftState]), "term", term)
		} else {
			n.log.Info("leader", "leader", ss.Lead, "role", string(roles[ss.RaftState]), "term", term)
		}
	}
	// A snapshot received is installed before the messages go: they
	// include its acknowledgement, and a leader that took it for done
	// would count on this node (promote it, wait for it in a quorum)
	// while it installs a large image and answers nothing.
	if rd.Snapshot != nil && !raft.IsEmptySnap(rd.Snapshot) {
		if err := n.restore(rd.Snapshot); err != nil {
			return err
		}
	}
	var msgs []*pb.Message
	for _, m := range rd.Messages {
		if m.GetType() == pb.MsgSnap {
			n.sendSnapshot(m)
			continue
		}
		msgs = append(msgs, m)
	}
	if len(msgs) > 0 {
		n.tr.Send(msgs)
	}
	for _, rs := range rd.ReadStates {
		if b := n.readBatch; b != nil && string(rs.RequestCtx) == string(b.ctx) {
			for _, r := range b.reqs {
				r.done <- rs.Index
			}
			n.readBatch = nil
		}
	}
	if err := n.applyCommitted(rd.CommittedEntries); err != nil {
		return err
	}
	n.rn.Advance(rd)
	if n.removed[n.id] && !n.gone {
		return n.learnRemoved("it applied its own removal")
	}
	return nil
}

// sendSnapshot streams the state machine's image with m, in the
// background, and reports the outcome to raft.
func (n *Node) sendSnapshot(m *pb.Message) {
	n.sending[m.GetTo()] = sentSnap{index: m.GetSnapshot().GetMetadata().GetIndex(), tick: n.ticks}
	n.snapWG.Add(1)
	go func() {
		defer n.snapWG.Done()
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(n.sm.Snapshot(pw)) }()
		sent := make(chan struct{})
		go func() {
			// Close does not wait for a long send: the stream breaks.
			select {
			case <-n.donec:
				pr.CloseWithError(ErrStopped)
			case <-sent:
			}
		}()
		err := n.tr.SendSnapshot(m, pr)
		close(sent)
		pr.CloseWithError(errors.New("cluster: snapshot send ended"))
		if err != nil {
			n.log.Info("snapshot not sent", "to", m.GetTo(), "index", m.GetSnapshot().GetMetadata().GetIndex(), "err", err)
		}
		select {
		case n.snapc <- snapStatus{to: m.GetTo(), failed: err != nil}:
		case <-n.donec:
		}
	}()
}

// restore replaces the state machine by the image received with snap.
func (n *Node) restore(snap *pb.Snapshot) error {
	md := snap.GetMetadata()
	start := time.Now()
	if err := n.restoreImage(md.GetTerm(), md.GetIndex()); err != nil {
		if errors.Is(err, errNoImage) {
			return fmt.Errorf("cluster: node %d: snapshot %d accepted but %w", n.id, md.GetIndex(), err)
		}
		return fmt.Errorf("cluster: node %d: restore snapshot %d: %w", n.id, md.GetIndex(), err)
	}
	took := time.Since(start)
	applied, err := n.sm.AppliedIndex()
	if err != nil {
		return fmt.Errorf("cluster: node %d: state machine's applied index: %w", n.id, err)
	}
	if applied < md.GetIndex() {
		return fmt.Errorf("cluster: node %d: restored image is at %d, before the snapshot at %d: %w", n.id, applied, md.GetIndex(), ErrBehindLog)
	}
	removed, err := decodeHeader(snap.GetData())
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.removed = removed
	n.mu.Unlock()
	n.confState = proto.CloneOf(md.GetConfState())
	n.smApplied.Store(applied)
	n.raftApplied, n.raftTerm = md.GetIndex(), md.GetTerm()
	n.setApplied(applied)
	n.log.Info("restored snapshot", "index", md.GetIndex(), "applied", applied, "took", took.Round(time.Millisecond))
	// Older spooled images are of no use anymore; this one is kept until
	// the next one, though the state machine already made it durable. A
	// later one may be waiting for raft to take it. (A Preparer removes
	// its own images; files left by a build that spooled them for it go
	// here too.)
	if old, err := filepath.Glob(filepath.Join(n.opts.Dir, "snap", "*.snap")); err == nil {
		for _, o := range old {
			var term, index uint64
			if _, err := fmt.Sscanf(filepath.Base(o), "%016x-%016x.snap", &term, &index); err == nil && index < md.GetIndex() {
				os.Remove(o)
			}
		}
	}
	return nil
}

func (n *Node) setApplied(i uint64) {
	n.mu.Lock()
	// Status shows it at once (a Propose that returned is in it); what
	// is applied was committed.
	n.status.Applied = max(n.status.Applied, i)
	n.status.Commit = max(n.status.Commit, i)
	if n.status.Applied >= n.status.LeaderCommit && !n.behindSince.IsZero() {
		if d := time.Since(n.behindSince); d >= time.Second {
			n.log.Info("caught up", "applied", n.status.Applied, "behind", d.Round(time.Millisecond))
		}
		n.behindSince = time.Time{}
	}
	if i > n.applied {
		n.applied = i
		close(n.appliedCh)
		n.appliedCh = make(chan struct{})
	}
	n.mu.Unlock()
}

// apply hands one committed entry to raft (membership) and to the state
// machine, and its result to the waiting Propose.
func (n *Node) apply(e *pb.Entry) error {
	var origin, req, term uint64
	var data []byte
	var change *MemberChange
	var outcome error
	stale := false
	switch e.GetType() {
	case pb.EntryNormal:
		if len(e.GetData()) > 0 {
			var err error
			if origin, req, term, data, err = unwrapTerm(e.GetData()); err != nil {
				return fmt.Errorf("cluster: node %d: entry %d: %w", n.id, e.GetIndex(), err)
			}
			// A proposal appended in another term than the one it was
			// handed to raft in is a copy the proposer may have sent
			// again (see retryStale): every member skips it alike.
			if stale = term != 0 && term != e.GetTerm(); stale {
				data = nil
			}
		}
	case pb.EntryConfChange, pb.EntryConfChangeV2:
		cc, err := decodeConfChange(e)
		if err != nil {
			return fmt.Errorf("cluster: node %d: entry %d: %w", n.id, e.GetIndex(), err)
		}
		var info []byte
		if len(cc.GetContext()) > 0 {
			if origin, req, info, err = unwrap(cc.GetContext()); err != nil {
				return fmt.Errorf("cluster: node %d: entry %d: %w", n.id, e.GetIndex(), err)
			}
		}
		change, outcome = n.applyConfChange(cc)
		if change != nil {
			change.Info = info
		}
	}
	var result any
	if e.GetIndex() > n.smApplied.Load() {
		var err error
		result, err = n.sm.Apply(Entry{Index: e.GetIndex(), Term: e.GetTerm(), Data: data, Change: change})
		if err != nil {
			return fmt.Errorf("cluster: node %d: apply entry %d: %w", n.id, e.GetIndex(), err)
		}
		n.smApplied.Store(e.GetIndex())
		n.setApplied(e.GetIndex())
	}
	if origin == n.id && !stale {
		n.pendMu.Lock()
		p := n.pending[req]
		n.pendMu.Unlock()
		if p != nil && p.finish() {
			select {
			case p.done <- proposalDone{outcome: Outcome{Index: e.GetIndex(), Result: result}, err: outcome}:
			default:
			}
		}
	}
	return nil
}

// finish marks p applied, unless a copy of it was applied already.
func (p *proposal) finish() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == propDone {
		return false
	}
	p.state = propDone
	return true
}

// retryStale hands raft again the normal proposals of this node that were
// handed to it in a term before t and are not applied: once an entry of
// term t is applied, every entry of an earlier term that will ever commit
// is applied, so those proposals were lost (forwarded to a leader that
// died, or dropped by one that stepped down). The copies a late delivery
// might still append are of a later term than they carry, and apply skips
// them. Without this, a write sent while its leader dies waits for its
// caller's deadline and ends as an unknown outcome.
func (n *Node) retryStale(t uint64) {
	n.pendMu.Lock()
	var lost []*proposal
	for _, p := range n.pending {
		p.mu.Lock()
		if p.cc == nil && p.state == propAccepted && p.term < t {
			p.state = propWaiting
			lost = append(lost, p)
		}
		p.mu.Unlock()
	}
	n.pendMu.Unlock()
	n.unsent = append(n.unsent, lost...)
}

// applyConfChange checks a committed membership change against the
// current membership (so every member decides alike), applies it to raft,
// or applies it with its node IDs zeroed (raft's way of rejecting one). It
// returns the change made (nil if none) for the state machine, and why it
// was rejected.
func (n *Node) applyConfChange(cc *pb.ConfChangeV2) (*MemberChange, error) {
	voters := map[uint64]bool{}
	learners := map[uint64]bool{}
	for _, id := range n.confState.GetVoters() {
		voters[id] = true
	}
	for _, id := range n.confState.GetLearners() {
		learners[id] = true
	}
	var outcome error
	var change *MemberChange
	for _, c := range cc.GetChanges() {
		id := c.GetNodeId()
		var err error
		switch c.GetType() {
		case pb.ConfChangeAddLearnerNode:
			switch {
			case n.removed[id]:
				err = fmt.Errorf("add node %d: %w", id, ErrIDReused)
			case voters[id] || learners[id]:
				err = fmt.Errorf("add node %d: %w", id, ErrMember)
			}
		case pb.ConfChangeAddNode:
			switch {
			case n.removed[id]:
				err = fmt.Errorf("promote node %d: %w", id, ErrIDReused)
			}
			// A learner becomes a voter; a voter stays one (a repeated
			// promotion); a new ID becomes a voter directly only through
			// the founding members' bootstrap entries (Node never
			// proposes that).
		case pb.ConfChangeRemoveNode:
			switch {
			case !voters[id] && !learners[id]:
				err = fmt.Errorf("remove node %d: %w", id, ErrNotMember)
			case voters[id] && len(voters) == 1:
				// (Two members leaving at once: the second removal
				// would leave no voter, on which raft panics, and
				// again at every replay of the log.)
				err = fmt.Errorf("remove node %d: %w", id, ErrLastVoter)
			}
		}
		if err != nil {
			n.log.Info("membership change rejected", "err", err)
			c.NodeId = proto.Uint64(0)
			outcome = err
			continue
		}
		if c.GetType() == pb.ConfChangeRemoveNode {
			n.mu.Lock()
			n.removed[id] = true
			n.mu.Unlock()
			delete(voters, id)
			delete(learners, id)
		}
		if change == nil {
			change = &MemberChange{Node: id, Kind: map[pb.ConfChangeType]ChangeKind{
				pb.ConfChangeAddLearnerNode: AddLearner, pb.ConfChangeAddNode: AddVoter,
				pb.ConfChangeRemoveNode: Remove, pb.ConfChangeUpdateNode: Update,
			}[c.GetType()]}
		}
	}
	n.confState = n.rn.ApplyConfChange(cc)
	return change, outcome
}

func decodeConfChange(e *pb.Entry) (*pb.ConfChangeV2, error) {
	if e.GetType() == pb.EntryConfChange {
		var cc pb.ConfChange
		if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
			return nil, fmt.Errorf("decode membership change: %w", err)
		}
		return cc.AsV2(), nil
	}
	var cc pb.ConfChangeV2
	if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
		return nil, fmt.Errorf("decode membership change: %w", err)
	}
	return &cc, nil
}

// holdLog is the last index the log may be compacted to for the snapshots
// sent: a peer that received one goes on from its index, and the entries
// after it must still be there when it has installed the image (a large
// image takes long; without them it would need another snapshot, and
// another, while writes go on). A hold ends once the peer's log reaches
// the snapshot, or the peer is gone or silent, or this node no longer
// leads, or after holdSnapshotLog (a peer that died meanwhile does not
// keep the log growing for good).
func (n *Node) holdLog() uint64 {
	hold := uint64(math.MaxUint64)
	if len(n.sending) == 0 {
		return hold
	}
	st := n.rn.Status()
	maxTicks := uint64(holdSnapshotLog / n.opts.TickInterval)
	for to, s := range n.sending {
		pr, ok := st.Progress[to]
		if st.RaftState != raft.StateLeader || !ok || pr.Match >= s.index || n.ticks-s.tick > maxTicks {
			delete(n.sending, to)
			continue
		}
		hold = min(hold, s.index)
	}
	return hold
}

// holdSnapshotLog bounds how long a snapshot sent holds the log back.
const holdSnapshotLog = 10 * time.Minute

// sentSnap is a snapshot sent to a peer: its index, and the tick it went.
type sentSnap struct {
	index, tick uint64
}

// maybeCompact records a snapshot and compacts the log every
// SnapshotEntries applied entries; the state machine is synced first, since
// the entries compacted away are not replayed anymore. The snapshot is at
// the last entry raft handed over, whose membership confState is (after a
// restored image the state machine may be further on, without the entries
// between in the log yet).
func (n *Node) maybeCompact() error {
	at := n.st.Recorded().GetMetadata().GetIndex()
	if n.raftApplied < at+n.opts.SnapshotEntries {
		return nil
	}
	// (Sync covers what the state machine applied; the applier is let
	// finish what it holds first, so that nothing applies meanwhile.)
	if err := n.drainApplier(); err != nil {
		return err
	}
	if err := n.sm.Sync(); err != nil {
		return fmt.Errorf("cluster: node %d: sync state machine: %w", n.id, err)
	}
	if err := n.st.CreateSnapshot(n.raftApplied, n.confState, encodeHeader(n.removed)); err != nil {
		return err
	}
	if n.raftApplied > n.opts.CatchUpEntries {
		// The log keeps the entries after a snapshot being sent: its
		// receiver goes on from there, and would need another snapshot
		// if they were gone by the time it installed this one.
		to := min(n.raftApplied-n.opts.CatchUpEntries, n.holdLog())
		if err := n.st.Compact(to); err != nil {
			return err
		}
	}
	n.log.Debug("compacted", "snapshot", n.raftApplied)
	return nil
}

// roles names raft's roles as Status does.
var roles = map[raft.StateType]NodeState{
	raft.StateFollower: StateFollower, raft.StateCandidate: StateCandidate,
	raft.StateLeader: StateLeader, raft.StatePreCandidate: StatePreCandidate,
}

func (n *Node) publishStatus() {
	bs := n.rn.BasicStatus()
	s := Status{
		ID:      n.id,
		Leader:  bs.Lead,
		Term:    bs.HardState.GetTerm(),
		Commit:  max(bs.HardState.GetCommit(), n.smApplied.Load()), // a restored image may be ahead of the log
		Applied: n.smApplied.Load(),
		Voters:  slices.Clone(n.confState.GetVoters()),
		// (A leader's commit index is committed, whichever leader told it.)
		LeaderCommit: n.leaderCommit,
		Learners:     slices.Clone(n.confState.GetLearners()),
	}
	slices.Sort(s.Voters)
	slices.Sort(s.Learners)

	switch {
	case n.gone:
		s.State, s.Leader = StateRemoved, 0
	case slices.Contains(s.Learners, n.id):
		s.State = StateLearner
	case !slices.Contains(s.Voters, n.id):
		s.State = StateNone
	default:
		s.State = roles[bs.RaftState]
	}
	n.mu.Lock()
	n.status = s
	if s.Applied >= s.LeaderCommit {
		n.behindSince = time.Time{}
	}
	n.mu.Unlock()
}

// envelope prefixes a proposal's data with its origin and request id, so
// that the proposing node finds its caller when it applies the entry.
func envelope(origin, req uint64, data []byte) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(data))
	b = append(b, 1)
	b = binary.AppendUvarint(b, origin)
	b = binary.AppendUvarint(b, req)
	return append(b, data...)
}

// envelopeTerm is the envelope of a normal entry (version 2): origin,
// request id and the term the proposer handed it to raft in.
func envelopeTerm(origin, req, term uint64, data []byte) []byte {
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(data))
	b = append(b, 2)
	b = binary.AppendUvarint(b, origin)
	b = binary.AppendUvarint(b, req)
	b = binary.AppendUvarint(b, term)
	return append(b, data...)
}

// unwrapTerm reads an envelope of either version; term is 0 in version 1.
func unwrapTerm(b []byte) (origin, req, term uint64, data []byte, err error) {
	if len(b) == 0 || b[0] != 2 {
		origin, req, data, err = unwrap(b)
		return origin, req, 0, data, err
	}
	var v [3]uint64
	b = b[1:]
	for i, what := range []string{"origin", "request id", "term"} {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, 0, 0, nil, errors.New("entry envelope: bad " + what)
		}
		v[i], b = n, b[k:]
	}
	return v[0], v[1], v[2], b, nil
}

func unwrap(b []byte) (origin, req uint64, data []byte, err error) {
	if len(b) == 0 || b[0] != 1 {
		return 0, 0, nil, errors.New("entry envelope: unknown version")
	}
	b = b[1:]
	origin, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, 0, nil, errors.New("entry envelope: bad origin")
	}
	b = b[k:]
	req, k = binary.Uvarint(b)
	if k <= 0 {
		return 0, 0, nil, errors.New("entry envelope: bad request id")
	}
	return origin, req, b[k:], nil
}

// encodeHeader is the Data of the snapshots the log records: the IDs
// removed from the group, so that a member that catches up by a snapshot
// refuses them too.
func encodeHeader(removed map[uint64]bool) []byte {
	ids := make([]uint64, 0, len(removed))
	for id := range removed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendUvarint(b, id)
	}
	return b
}

func decodeHeader(b []byte) (map[uint64]bool, error) {
	removed := map[uint64]bool{}
	if len(b) == 0 {
		return removed, nil
	}
	if b[0] != 1 {
		return nil, fmt.Errorf("cluster: snapshot header version %d unknown", b[0])
	}
	b = b[1:]
	cnt, k := binary.Uvarint(b)
	if k <= 0 || cnt > uint64(len(b)) {
		return nil, errors.New("cluster: snapshot header: bad count")
	}
	b = b[k:]
	for i := uint64(0); i < cnt; i++ {
		id, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errors.New("cluster: snapshot header: bad id")
		}
		removed[id] = true
		b = b[k:]
	}
	return removed, nil
}

// raftLogger sends raft's messages to slog: debug and info at debug level.
type raftLogger struct{ l *slog.Logger }

func (r raftLogger) Debug(v ...any)                 { r.l.Debug(fmt.Sprint(v...)) }
func (r raftLogger) Debugf(format string, v ...any) { r.l.Debug(fmt.Sprintf(format, v...)) }
func (r raftLogger) Info(v ...any)                  { r.l.Debug(fmt.Sprint(v...)) }
func (r raftLogger) Infof(format string, v ...any)  { r.l.Debug(fmt.Sprintf(format, v...)) }
func (r raftLogger) Warning(v ...any)               { r.l.Warn(fmt.Sprint(v...)) }
func (r raftLogger) Warningf(format string, v ...any) {
	r.l.Warn(fmt.Sprintf(format, v...))
}
func (r raftLogger) Error(v ...any)                 { r.l.Error(fmt.Sprint(v...)) }
func (r raftLogger) Errorf(format string, v ...any) { r.l.Error(fmt.Sprintf(format, v...)) }
func (r raftLogger) Fatal(v ...any)                 { r.l.Error(fmt.Sprint(v...)); panic(fmt.Sprint(v...)) }
func (r raftLogger) Fatalf(format string, v ...any) {
	r.l.Error(fmt.Sprintf(format, v...))
	panic(fmt.Sprintf(format, v...))
}
func (r raftLogger) Panic(v ...any) { panic(fmt.Sprint(v...)) }
func (r raftLogger) Panicf(format string, v ...any) {
	panic(fmt.Sprintf(format, v...))
}

// cancelWhen calls cancel, ctx's, when done closes first.
func cancelWhen(ctx context.Context, cancel context.CancelFunc, done <-chan struct{}) {
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
}

// sleepOr waits d; false when done closed first.
func sleepOr(d time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
