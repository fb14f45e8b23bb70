package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// -cluster.seeds runs the seeded tests with that many seeds (also
// GLINT_CLUSTER_SEEDS); by default 2 with -short, 3 without.
var seedsFlag = flag.Int("cluster.seeds", 0, "number of seeds per seeded cluster test")

func seeds(t *testing.T) []uint64 {
	n := *seedsFlag
	if n == 0 {
		if v, err := strconv.Atoi(os.Getenv("GLINT_CLUSTER_SEEDS")); err == nil && v > 0 {
			n = v
		}
	}
	if n == 0 {
		n = 3
		if testing.Short() {
			n = 2
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// kvState is the test state machine's whole state: registers and a set.
type kvState struct {
	Applied uint64
	KV      map[string]string
	Set     map[string]bool
	Members map[uint64]string // node -> the info it was added with
}

// kvDisk is what survives a crash of a kvSM: its state as of the last Sync
// or Restore. Applied entries after it are lost, as with an index whose
// writes are not synced.
type kvDisk struct {
	mu   sync.Mutex
	data []byte

	restoreDelay time.Duration // each Restore takes this long (a large image)
	applyDelay   time.Duration // each Apply takes this long (a slow member)
	restores     int           // the Restores done

	prepare  string // "ok": the state machine is a Preparer; "fail": one whose first Prepare fails
	prepares int    // the Prepares that returned
	prepared int    // the images RestorePrepared installed
	// images are the images prepared, by snapshot: they survive a crash,
	// as Preparer asks.
	images map[[2]uint64][]byte
	// prepareHook, when set, is called by Prepare once it has read the
	// image and before it keeps it; an error fails the Prepare.
	prepareHook func() error
}

// prepKVSM is a kvSM that prepares images as they come (cluster.Preparer).
type prepKVSM struct {
	*kvSM
}

func (s *prepKVSM) Prepare(term, index uint64, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.disk.mu.Lock()
	s.disk.prepares++
	fail := s.disk.prepare == "fail" && s.disk.prepares == 1
	hook := s.disk.prepareHook
	s.disk.mu.Unlock()
	if fail {
		return errors.New("prepare fails in this test")
	}
	if hook != nil {
		if err := hook(); err != nil {
			return err
		}
	}
	s.disk.mu.Lock()
	defer s.disk.mu.Unlock()
	if _, ok := s.disk.images[[2]uint64{term, index}]; ok {
		return nil
	}
	if s.disk.images == nil {
		s.disk.images = map[[2]uint64][]byte{}
	}
	s.disk.images[[2]uint64{term, index}] = b
	return nil
}

func (s *prepKVSM) RestorePrepared(term, index uint64) (bool, error) {
	s.disk.mu.Lock()
	b, ok := s.disk.images[[2]uint64{term, index}]
	if ok {
		for k := range s.disk.images {
			if k[1] <= index {
				delete(s.disk.images, k)
			}
		}
		s.disk.prepared++
	}
	s.disk.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, s.Restore(bytes.NewReader(b))
}

// kvSM is the test StateMachine. Commands: "put k v" sets register k, "add
// x" adds x to the set; results: "ok". Apply fails on a gap or a repeat, so
// the node's ordering is checked at every entry.
type kvSM struct {
	mu    sync.Mutex
	st    kvState
	disk  *kvDisk
	delay time.Duration // of each Apply
}

func newKVSM(disk *kvDisk) *kvSM {
	sm := &kvSM{disk: disk, st: kvState{KV: map[string]string{}, Set: map[string]bool{}, Members: map[uint64]string{}}}
	disk.mu.Lock()
	defer disk.mu.Unlock()
	sm.delay = disk.applyDelay
	if disk.data != nil {
		if err := json.Unmarshal(disk.data, &sm.st); err != nil {
			panic(err)
		}
	}
	return sm
}

func (s *kvSM) Apply(e Entry) (any, error) {
	s.mu.Lock()
	d := s.delay
	s.mu.Unlock()
	time.Sleep(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Index != s.st.Applied+1 {
		return nil, fmt.Errorf("kv: entry %d after %d", e.Index, s.st.Applied)
	}
	s.st.Applied = e.Index
	if ch := e.Change; ch != nil {
		switch ch.Kind {
		case AddLearner, AddVoter:
			if _, ok := s.st.Members[ch.Node]; !ok || ch.Info != nil {
				s.st.Members[ch.Node] = string(ch.Info)
			}
		case Remove:
			delete(s.st.Members, ch.Node)
		}
	}
	if e.Data == nil {
		return nil, nil
	}
	op, rest, _ := strings.Cut(string(e.Data), " ")
	switch op {
	case "put":
		k, v, _ := strings.Cut(rest, " ")
		s.st.KV[k] = v
	case "add":
		s.st.Set[rest] = true
	default:
		return fmt.Sprintf("unknown command %q", op), nil
	}
	return "ok", nil
}

func (s *kvSM) AppliedIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Applied, nil
}

func (s *kvSM) encode() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(s.st)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *kvSM) Sync() error {
	b := s.encode()
	s.disk.mu.Lock()
	s.disk.data = b
	s.disk.mu.Unlock()
	return nil
}

func (s *kvSM) Snapshot(w io.Writer) error {
	_, err := w.Write(s.encode())
	return err
}

func (s *kvSM) Restore(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var st kvState
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	s.mu.Lock()
	s.st = st
	s.mu.Unlock()
	s.disk.mu.Lock()
	s.disk.data = b
	s.disk.restores++
	delay := s.disk.restoreDelay
	s.disk.mu.Unlock()
	time.Sleep(delay)
	return nil
}

func (s *kvSM) get(k string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.KV[k]
}

func (s *kvSM) state() kvState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return kvState{Applied: s.st.Applied, KV: maps.Clone(s.st.KV), Set: maps.Clone(s.st.Set), Members: maps.Clone(s.st.Members)}
}

// testCluster runs nodes in one process over a MemNetwork.
type testCluster struct {
	t     *testing.T
	nw    *MemNetwork
	root  string
	mu    sync.Mutex
	nodes map[uint64]*Node
	sms   map[uint64]*kvSM
	disks map[uint64]*kvDisk
	peers []uint64 // the founders
	tune  func(*Options)
}

func newTestCluster(t *testing.T, seed uint64, size int, f Faults) *testCluster {
	return newTestClusterTuned(t, seed, size, f, nil)
}

// newTestClusterTuned is newTestCluster with tune applied to every
// node's options, the founders' included.
func newTestClusterTuned(t *testing.T, seed uint64, size int, f Faults, tune func(*Options)) *testCluster {
	c := &testCluster{
		t: t, nw: NewMemNetwork(seed, f), root: t.TempDir(), tune: tune,
		nodes: map[uint64]*Node{}, sms: map[uint64]*kvSM{}, disks: map[uint64]*kvDisk{},
	}
	for i := 1; i <= size; i++ {
		c.peers = append(c.peers, uint64(i))
	}
	for _, id := range c.peers {
		c.start(id, c.peers)
	}
	t.Cleanup(c.closeAll)
	return c
}

func (c *testCluster) options(id uint64, peers []uint64) Options {
	o := DefaultOptions(id, filepath.Join(c.root, fmt.Sprint(id)))
	o.Peers = peers
	o.TickInterval = 10 * time.Millisecond
	o.SnapshotEntries = 40
	o.CatchUpEntries = 10
	o.PromoteLag = 5
	if os.Getenv("GLINT_CLUSTER_LOG") != "" {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if c.tune != nil {
		c.tune(&o)
	}
	return o
}

func (c *testCluster) start(id uint64, peers []uint64) *Node {
	return c.startWith(c.options(id, peers))
}

func (c *testCluster) startWith(o Options) *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	disk := c.disks[o.ID]
	if disk == nil {
		disk = &kvDisk{}
		c.disks[o.ID] = disk
	}
	sm := newKVSM(disk)
	var machine StateMachine = sm
	if disk.prepare != "" {
		machine = &prepKVSM{kvSM: sm}
	}
	n, err := Open(o, machine, c.nw.Endpoint(o.ID))
	require.NoError(c.t, err)
	c.nodes[o.ID], c.sms[o.ID] = n, sm
	c.nw.Attach(o.ID, n)
	return n
}

// crash stops a node: what it applied but did not sync is lost.
func (c *testCluster) crash(id uint64) {
	c.mu.Lock()
	n := c.nodes[id]
	delete(c.nodes, id)
	delete(c.sms, id)
	c.mu.Unlock()
	if n == nil {
		return
	}
	c.nw.Attach(id, nil)
	require.NoError(c.t, n.Close())
}

func (c *testCluster) restart(id uint64) {
	c.crash(id)
	c.start(id, c.peersOf(id))
}

// peersOf is what node id starts with: the founders for a founder, none
// for a node that joined later (a joiner's log may still be empty).
func (c *testCluster) peersOf(id uint64) []uint64 {
	if slices.Contains(c.peers, id) {
		return c.peers
	}
	return nil
}

// replace removes node old from the group for good and adds node new as a
// learner (the leader promotes it later), retrying through the faults.
func (c *testCluster) replace(old, new uint64) {
	c.t.Helper()
	retry := func(what string, f func(n *Node, ctx context.Context) error, done ...error) {
		for i := 0; ; i++ {
			lead := c.leader()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := f(c.node(lead), ctx)
			cancel()
			if err == nil || slices.ContainsFunc(done, func(d error) bool { return errors.Is(err, d) }) {
				return
			}
			require.Less(c.t, i, 30, "%s: %v", what, err)
		}
	}
	retry(fmt.Sprint("remove ", old), func(n *Node, ctx context.Context) error { return n.RemoveNode(ctx, old) }, ErrNotMember)
	c.crash(old)
	c.start(new, nil)
	retry(fmt.Sprint("add ", new), func(n *Node, ctx context.Context) error {
		return n.AddLearner(ctx, new, fmt.Appendf(nil, "addr-%d", new))
	}, ErrMember)
}

func (c *testCluster) node(id uint64) *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[id]
}

func (c *testCluster) sm(id uint64) *kvSM {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sms[id]
}

func (c *testCluster) live() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := slices.Collect(maps.Keys(c.nodes))
	slices.Sort(ids)
	return ids
}

func (c *testCluster) closeAll() {
	for _, id := range c.live() {
		c.crash(id)
	}
	c.nw.Wait()
}

// leader waits until the live nodes agree on a leader among them.
func (c *testCluster) leader() uint64 {
	c.t.Helper()
	var lead uint64
	require.Eventually(c.t, func() bool {
		lead = 0
		for _, id := range c.live() {
			st := c.node(id).Status()
			if st.State == StateLeader {
				if lead != 0 {
					return false
				}
				lead = id
			}
		}
		return lead != 0
	}, 30*time.Second, 5*time.Millisecond)
	return lead
}

// propose retries p on node id until it is applied, for set-up writes in a
// healthy cluster.
func (c *testCluster) propose(id uint64, data string) {
	c.t.Helper()
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		res, err := c.node(id).Propose(ctx, []byte(data))
		cancel()
		if err == nil {
			require.Equal(c.t, "ok", res.Result)
			return
		}
		require.Less(c.t, i, 20, "propose %q on %d: %v", data, id, err)
	}
}

// writeThenCrashAll adds a0 .. a(n-1) through the live nodes in turn, then
// crashes every node: a group that lost its quorum for good.
func (c *testCluster) writeThenCrashAll(n int) {
	c.t.Helper()
	c.leader()
	live := c.live()
	for i := range n {
		c.propose(live[i%len(live)], fmt.Sprintf("add a%d", i))
	}
	for _, id := range live {
		c.crash(id)
	}
}

// proposeMany proposes the commands from 8 clients at once, spread over
// the live nodes, each retried until it is applied.
func (c *testCluster) proposeMany(cmds []string) {
	c.t.Helper()
	var wg sync.WaitGroup
	next := make(chan string)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cmd := range next {
				ids := c.live()
				c.propose(ids[len(cmd)%len(ids)], cmd)
			}
		}()
	}
	for _, cmd := range cmds {
		next <- cmd
	}
	close(next)
	wg.Wait()
}

// converge heals the network and waits until every live node has applied
// the same index and holds the same state, which it returns.
func (c *testCluster) converge() kvState {
	c.t.Helper()
	c.nw.SetFaults(Faults{})
	c.nw.Heal()
	lead := c.leader()
	// A write makes the leader's commit index cover its whole term.
	c.propose(lead, "add converge")
	var want kvState
	require.Eventually(c.t, func() bool {
		ids := c.live()
		want = c.sm(ids[0]).state()
		for _, id := range ids[1:] {
			got := c.sm(id).state()
			if got.Applied != want.Applied || !maps.Equal(got.KV, want.KV) || !maps.Equal(got.Set, want.Set) || !maps.Equal(got.Members, want.Members) {
				return false
			}
		}
		return want.Applied >= c.node(lead).Status().Commit
	}, 30*time.Second, 5*time.Millisecond)
	return want
}

func isUnknown(err error) bool { return errors.Is(err, ErrOutcomeUnknown) }
