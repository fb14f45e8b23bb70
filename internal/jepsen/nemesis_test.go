package jepsen

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blocked lists the links of nw with a direction blocked, as "from->to".
func blocked(nw *Net, n int) map[[2]int][2]bool {
	out := map[[2]int][2]bool{}
	for from := range n {
		for to := range n {
			if from != to {
				if b := nw.Link(from, to).Faults().Block; b != [2]bool{} {
					out[[2]int{from, to}] = b
				}
			}
		}
	}
	return out
}

// TestNemesisClusterFaults: on five nodes a partition puts the target (the
// leader) and one other node in the minority and cuts every link across,
// both ways; a cut blocks one node's bytes to one other.
func TestNemesisClusterFaults(t *testing.T) {
	nw, _ := netOf(t, 5)
	c := &Cluster{Nodes: make([]*Node, 5), Net: nw}
	c.Config.Leader = func(context.Context, *Cluster) (int, error) { return 3, nil }
	n := &nemesis{c: c, hist: NewHistory(), rng: rand.New(rand.NewSource(1)), scale: 1}
	target := n.target(context.Background())
	assert.Equal(t, 3, target)

	detail := n.cut(NemesisPartition, target)
	got := blocked(nw, 5)
	assert.Len(t, got, 2*2*3, "2 minority x 3 majority nodes, links both ways")
	minority := map[int]bool{}
	for link, b := range got {
		assert.Equal(t, [2]bool{true, true}, b)
		if link[0] == 3 {
			minority[link[1]] = false
		}
	}
	assert.Len(t, minority, 3, "node 3 is cut from the three of the majority")
	assert.Contains(t, detail, "[3 ")
	nw.Heal()
	assert.Empty(t, blocked(nw, 5))

	detail = n.cut(NemesisCut, target)
	got = blocked(nw, 5)
	assert.Len(t, got, 2)
	for link, b := range got {
		if link[0] == 3 {
			assert.Equal(t, [2]bool{true, false}, b, "3's bytes, on the link 3 dials")
		} else {
			assert.Equal(t, 3, link[1])
			assert.Equal(t, [2]bool{false, true}, b, "3's answers, on the link the other dials")
		}
	}
	assert.Contains(t, detail, "node 3 -> node ")

	nw.Heal()

	// delay and loss go on every link, and heal clears them
	require.NoError(t, n.setLinkFaults(delayFaults))
	assert.Equal(t, delayFaults, nw.Link(4, 0).Faults())
	require.NoError(t, n.setLinkFaults(lossFaults))
	assert.Equal(t, lossFaults, nw.Link(0, 4).Faults())
	n.heal()
	assert.Equal(t, Faults{}, nw.Link(0, 4).Faults())

	// without a leader the seed picks
	c.Config.Leader = func(context.Context, *Cluster) (int, error) { return 0, errors.New("no leader") }
	assert.Less(t, n.target(context.Background()), 5)
}
