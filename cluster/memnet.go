package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Faults are the misbehaviours of a MemNetwork, drawn from its seed.
type Faults struct {
	Drop      float64       // probability that a message is lost
	Duplicate float64       // probability that a message other than a proposal is delivered twice (see Transport.Send)
	MaxDelay  time.Duration // each delivery waits a random time up to this (so messages reorder)
}

// MemNetwork is an in-memory network between the nodes of one process, for
// tests: it encodes each message as the wire would, and drops, duplicates,
// delays and reorders them as its Faults say, with random draws from its
// seed; it cuts links between nodes one way or both (partitions). It is safe
// for concurrent use.
type MemNetwork struct {
	mu       sync.Mutex
	rng      *rand.Rand
	faults   Faults
	handlers map[uint64]Handler
	cut      map[[2]uint64]bool // {from, to}
	wg       sync.WaitGroup
}

// ErrUnreachable: the MemNetwork did not deliver a snapshot (link cut,
// receiver down, or dropped).
var ErrUnreachable = errors.New("cluster: peer unreachable")

// NewMemNetwork returns a network with faults drawn from seed.
func NewMemNetwork(seed uint64, f Faults) *MemNetwork {
	return &MemNetwork{
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		faults:   f,
		handlers: map[uint64]Handler{},
		cut:      map[[2]uint64]bool{},
	}
}

// Attach routes what is sent to id to h; a nil h detaches id (a crashed
// node: what is sent to it is lost, and the nodes its links reach are told
// that its stream ended, as a killed process's connections close).
func (nw *MemNetwork) Attach(id uint64, h Handler) {
	nw.mu.Lock()
	if h != nil {
		nw.handlers[id] = h
		nw.mu.Unlock()
		return
	}
	var told []Handler
	if _, was := nw.handlers[id]; was {
		delete(nw.handlers, id)
		for to, th := range nw.handlers {
			if !nw.cut[[2]uint64{id, to}] {
				told = append(told, th)
			}
		}
	}
	nw.mu.Unlock()
	for _, th := range told {
		th.StreamEnded(id)
	}
}

// Endpoint returns the Transport of node id.
func (nw *MemNetwork) Endpoint(id uint64) Transport { return &memEndpoint{nw: nw, id: id} }

// SetFaults changes the faults from now on.
func (nw *MemNetwork) SetFaults(f Faults) {
	nw.mu.Lock()
	nw.faults = f
	nw.mu.Unlock()
}

// Cut stops messages from one node to another (one way).
func (nw *MemNetwork) Cut(from, to uint64) {
	nw.mu.Lock()
	nw.cut[[2]uint64{from, to}] = true
	nw.mu.Unlock()
}

// Partition cuts every link between nodes of different groups, both ways.
func (nw *MemNetwork) Partition(groups ...[]uint64) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	for i, a := range groups {
		for j, b := range groups {
			if i == j {
				continue
			}
			for _, x := range a {
				for _, y := range b {
					nw.cut[[2]uint64{x, y}] = true
				}
			}
		}
	}
}

// Heal restores every link.
func (nw *MemNetwork) Heal() {
	nw.mu.Lock()
	nw.cut = map[[2]uint64]bool{}
	nw.mu.Unlock()
}

// Wait waits for the deliveries in flight.
func (nw *MemNetwork) Wait() { nw.wg.Wait() }

type memEndpoint struct {
	nw *MemNetwork
	id uint64
}

func (e *memEndpoint) Send(msgs []*pb.Message) {
	nw := e.nw
	for _, m := range msgs {
		wire, err := proto.Marshal(m)
		if err != nil {
			panic(fmt.Sprintf("cluster: encode message: %v", err))
		}
		nw.mu.Lock()
		if nw.cut[[2]uint64{e.id, m.GetTo()}] || nw.rng.Float64() < nw.faults.Drop {
			nw.mu.Unlock()
			continue
		}
		copies := 1
		if nw.rng.Float64() < nw.faults.Duplicate && m.GetType() != pb.MsgProp {
			copies = 2
		}
		delays := make([]time.Duration, copies)
		for i := range delays {
			if nw.faults.MaxDelay > 0 {
				delays[i] = time.Duration(nw.rng.Int64N(int64(nw.faults.MaxDelay) + 1))
			}
		}
		nw.mu.Unlock()
		for _, d := range delays {
			nw.wg.Add(1)
			deliver := func() {
				defer nw.wg.Done()
				nw.deliver(e.id, m.GetTo(), wire)
			}
			if d == 0 {
				deliver()
			} else {
				time.AfterFunc(d, deliver)
			}
		}
	}
}

func (nw *MemNetwork) deliver(from, to uint64, wire []byte) {
	nw.mu.Lock()
	h := nw.handlers[to]
	cut := nw.cut[[2]uint64{from, to}]
	nw.mu.Unlock()
	if h == nil || cut {
		return
	}
	m := &pb.Message{}
	if err := proto.Unmarshal(wire, m); err != nil {
		panic(fmt.Sprintf("cluster: decode message: %v", err))
	}
	h.Step(m)
}

// AskStanding implements Transport: the peer answers at once unless a link
// between the two is cut either way or it is detached. (The faults' drops
// and delays are left to raft's messages: no draw is taken for an ask, so
// the seeded sequence of those is as it was.)
func (e *memEndpoint) AskStanding(ctx context.Context, to, id uint64) (Standing, error) {
	nw := e.nw
	nw.mu.Lock()
	h := nw.handlers[to]
	cut := nw.cut[[2]uint64{e.id, to}] || nw.cut[[2]uint64{to, e.id}]
	nw.mu.Unlock()
	if h == nil || cut {
		return StandingUnknown, fmt.Errorf("ask %d from %d: %w", to, e.id, ErrUnreachable)
	}
	if err := ctx.Err(); err != nil {
		return StandingUnknown, err
	}
	return h.Standing(id), nil
}

// Gone implements Transport: a detached node is down; one attached is not,
// cut off or not (a cut link is silent, as a partition is).
func (e *memEndpoint) Gone(ctx context.Context, id uint64) bool {
	e.nw.mu.Lock()
	_, attached := e.nw.handlers[id]
	e.nw.mu.Unlock()
	return !attached && ctx.Err() == nil
}

// Peers implements Transport: every node attached but this one, cut off
// or not.
func (e *memEndpoint) Peers() []uint64 {
	e.nw.mu.Lock()
	defer e.nw.mu.Unlock()
	var ids []uint64
	for id := range e.nw.handlers {
		if id != e.id {
			ids = append(ids, id)
		}
	}
	return ids
}

func (e *memEndpoint) SendSnapshot(m *pb.Message, body io.Reader) error {
	nw := e.nw
	to := m.GetTo()
	nw.mu.Lock()
	h := nw.handlers[to]
	cut := nw.cut[[2]uint64{e.id, to}]
	drop := nw.rng.Float64() < nw.faults.Drop
	nw.mu.Unlock()
	if h == nil || cut || drop {
		return fmt.Errorf("snapshot from %d to %d: %w", e.id, to, ErrUnreachable)
	}
	wire, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	cp := &pb.Message{}
	if err := proto.Unmarshal(wire, cp); err != nil {
		return err
	}
	return h.ReceiveSnapshot(cp, body)
}
