package cluster

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuffer is a log destination safe for the nodes' goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const leaderDownLine = "the leader is down"

// loggedCluster is a cluster of three whose nodes log to buffers, with an
// election timeout of 50 to 100 ticks: a follower's probe (two ticks)
// ends well before its timeout would.
func loggedCluster(t *testing.T, seed uint64) (*testCluster, map[uint64]*syncBuffer) {
	logs := map[uint64]*syncBuffer{1: {}, 2: {}, 3: {}}
	c := newTestClusterTuned(t, seed, 3, Faults{}, func(o *Options) {
		o.ElectionTicks = 50
		o.Logger = slog.New(slog.NewTextHandler(logs[o.ID], nil))
	})
	return c, logs
}

// A killed leader's followers hear of it from their closed streams, find
// its address dead, and advance their election clocks: the log says so
// with the dead leader's id, and the next leader is elected.
func TestLeaderDownAdvancesElection(t *testing.T) {
	c, logs := loggedCluster(t, 7)
	lead := c.leader()
	c.crash(lead)
	found := func() []uint64 {
		var ids []uint64
		for id, l := range logs {
			if id != lead && strings.Contains(l.String(), leaderDownLine) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	require.Eventually(t, func() bool { return len(found()) > 0 }, 10*time.Second, 5*time.Millisecond,
		"no follower found its leader down")
	for _, id := range found() {
		require.Contains(t, logs[id].String(), fmt.Sprintf("leader=%d", lead), "node %d", id)
	}
	require.NotEqual(t, lead, c.leader())
}

// A stream that ends while its leader lives (a reconnect) changes nothing:
// the probe finds the leader up.
func TestLeaderUpAfterStreamEnds(t *testing.T) {
	c, logs := loggedCluster(t, 8)
	lead := c.leader()
	term := c.node(lead).Status().Term
	for _, id := range c.live() {
		if id != lead {
			c.node(id).StreamEnded(lead)
		}
	}
	// The probe takes a tick; the election timeout is 50 to 100.
	time.Sleep(200 * time.Millisecond)
	for _, id := range c.live() {
		require.NotContains(t, logs[id].String(), leaderDownLine, "node %d", id)
	}
	require.Equal(t, lead, c.leader())
	require.Equal(t, term, c.node(lead).Status().Term)
}
