package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
)

// regInput is one register operation of the history.
type regInput struct {
	put   bool
	key   string
	value string // put's value
}

// registerModel: one register per key, reads see the last write.
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range history {
			k := op.Input.(regInput).key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		var out [][]porcupine.Operation
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		in := input.(regInput)
		if in.put {
			return true, in.value
		}
		return output.(string) == state.(string), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(regInput)
		if in.put {
			return fmt.Sprintf("put(%s, %s)", in.key, in.value)
		}
		return fmt.Sprintf("get(%s) -> %v", in.key, output)
	},
}

// history records the clients' operations: invoke, then ok, fail or
// unknown.
type history struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
	// adds acknowledged: each must be on every node at the end.
	acked []string
	// counts by outcome, for the log.
	ok, failed, unknown int
}

func (h *history) now() int64 { return time.Since(h.start).Nanoseconds() }

const unknownReturn = int64(1) << 62 // after every other event: the write may take effect any time

// runWorkload runs clients against the cluster while nemesis runs, then
// heals, and checks the history: the registers linearizable, every
// acknowledged add on every node.
func runWorkload(t *testing.T, c *testCluster, seed uint64, clients int, nemesis func(rng *rand.Rand)) {
	h := &history{start: time.Now()}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var addSeq atomic.Int64
	for cl := 0; cl < clients; cl++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(cl)))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ids := c.live()
				n := c.node(ids[rng.IntN(len(ids))])
				if n == nil {
					continue
				}
				sm := c.sm(n.ID())
				key := fmt.Sprintf("r%d", rng.IntN(3))
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				switch rng.IntN(3) {
				case 0: // put
					val := fmt.Sprintf("c%d-%d", cl, i)
					call := h.now()
					_, err := n.Propose(ctx, []byte("put "+key+" "+val))
					ret := h.now()
					h.mu.Lock()
					switch {
					case err == nil:
						h.ok++
						h.ops = append(h.ops, porcupine.Operation{ClientId: cl, Input: regInput{put: true, key: key, value: val}, Call: call, Return: ret})
					case isUnknown(err):
						h.unknown++
						h.ops = append(h.ops, porcupine.Operation{ClientId: cl, Input: regInput{put: true, key: key, value: val}, Call: call, Return: unknownReturn})
					default:
						h.failed++ // never sent: it did not happen
					}
					h.mu.Unlock()
				case 1: // linearizable read
					call := h.now()
					_, err := n.ReadIndex(ctx)
					if err == nil && sm != nil {
						v := sm.get(key)
						ret := h.now()
						h.mu.Lock()
						h.ok++
						h.ops = append(h.ops, porcupine.Operation{ClientId: cl, Input: regInput{key: key}, Output: v, Call: call, Return: ret})
						h.mu.Unlock()
					}
				case 2: // set add
					x := fmt.Sprintf("x%d", addSeq.Add(1))
					_, err := n.Propose(ctx, []byte("add "+x))
					if err == nil {
						h.mu.Lock()
						h.acked = append(h.acked, x)
						h.mu.Unlock()
					}
				}
				cancel()
			}
		}()
	}
	nemesis(rand.New(rand.NewPCG(seed, 0xfeed)))
	close(stop)
	wg.Wait()
	final := c.converge()

	t.Logf("seed %d: %d ok, %d failed, %d unknown writes and reads; %d adds acknowledged; %d entries applied",
		seed, h.ok, h.failed, h.unknown, len(h.acked), final.Applied)
	for _, x := range h.acked {
		assert.True(t, final.Set[x], "acknowledged add %s is missing", x)
	}
	res, info := porcupine.CheckOperationsVerbose(registerModel, h.ops, time.Minute)
	if !assert.Equal(t, porcupine.Ok, res, "register history is not linearizable") {
		path := filepath.Join(os.TempDir(), fmt.Sprintf("glint-cluster-seed%d.html", seed))
		if err := porcupine.VisualizePath(registerModel, info, path); err == nil {
			t.Logf("history: %s", path)
		}
	}
}

// nemesisSteps runs steps faults, each for a random while, with a heal
// after each; every six steps take each kind of fault once, in an order
// drawn from the seed.
func nemesisSteps(c *testCluster, steps int) func(rng *rand.Rand) {
	nextID := uint64(len(c.peers) + 1)
	return func(rng *rand.Rand) {
		pause := func() { time.Sleep(time.Duration(100+rng.IntN(200)) * time.Millisecond) }
		var kinds []int
		for s := 0; s < steps; s++ {
			if len(kinds) == 0 {
				kinds = rng.Perm(6)
			}
			kind := kinds[0]
			kinds = kinds[1:]
			ids := c.live()
			lead := c.leader()
			others := slices.DeleteFunc(slices.Clone(ids), func(id uint64) bool { return id == lead })
			switch kind {
			case 0: // the leader in a minority
				minority := []uint64{lead}
				for len(minority) < (len(ids)-1)/2 {
					minority = append(minority, others[len(minority)-1])
				}
				rest := slices.DeleteFunc(slices.Clone(ids), func(id uint64) bool { return slices.Contains(minority, id) })
				c.nw.Partition(minority, rest)
			case 1: // a random follower cut off
				f := others[rng.IntN(len(others))]
				c.nw.Partition([]uint64{f}, slices.DeleteFunc(slices.Clone(ids), func(id uint64) bool { return id == f }))
			case 2: // one way: the leader hears nobody
				for _, o := range others {
					c.nw.Cut(o, lead)
				}
			case 3: // the leader crashes, then restarts
				c.crash(lead)
				pause()
				c.start(lead, c.peersOf(lead))
			case 4: // a follower crashes, then restarts
				f := others[rng.IntN(len(others))]
				c.crash(f)
				pause()
				c.start(f, c.peersOf(f))
			case 5: // a follower is replaced by a new node
				c.replace(others[rng.IntN(len(others))], nextID)
				nextID++
			}
			pause()
			c.nw.Heal()
			pause()
		}
	}
}

func TestJepsenInProcess(t *testing.T) {
	for _, size := range []int{3, 5} {
		for _, seed := range seeds(t) {
			t.Run(fmt.Sprintf("nodes=%d/seed=%d", size, seed), func(t *testing.T) {
				c := newTestCluster(t, seed, size, Faults{Drop: 0.05, Duplicate: 0.05, MaxDelay: 3 * time.Millisecond})
				c.leader()
				runWorkload(t, c, seed, size+1, nemesisSteps(c, 6))
			})
		}
	}
}
