package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// tcpGroup starts three nodes over TCP on loopback with the default
// options (100 ms ticks) and returns them once a leader is known.
func tcpGroup(b *testing.B) []*Node {
	root := b.TempDir()
	ids := []uint64{1, 2, 3}
	g := newTCPGroup(b, ids)
	var nodes []*Node
	for _, id := range ids {
		o := DefaultOptions(id, filepath.Join(root, fmt.Sprint(id)))
		o.Peers = ids
		n, err := Open(o, newKVSM(&kvDisk{}), g.trs[id])
		require.NoError(b, err)
		g.attach(b, id, n)
		nodes = append(nodes, n)
	}
	b.Cleanup(func() {
		for _, n := range nodes {
			n.Close()
		}
		g.close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for nodes[0].Status().Leader == 0 {
		select {
		case <-ctx.Done():
			b.Fatal("no leader")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nodes
}

// BenchmarkPropose: one write of 100 bytes, committed by three nodes over
// loopback TCP and applied on the proposer (the leader, or a follower that
// forwards it), one at a time or from 16 clients at once (group commit).
func BenchmarkPropose(b *testing.B) {
	payload := []byte("put k " + string(make([]byte, 94)))
	for _, mode := range []string{"leader", "follower", "leader-parallel16"} {
		b.Run(mode, func(b *testing.B) {
			nodes := tcpGroup(b)
			lead := nodes[nodes[0].Status().Leader-1]
			var on *Node
			for _, n := range nodes {
				if (n == lead) == (mode != "follower") {
					on = n
					break
				}
			}
			ctx := context.Background()
			b.ResetTimer()
			if mode == "leader-parallel16" {
				b.SetParallelism(8) // x GOMAXPROCS 2 = 16 clients
				var failed atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := on.Propose(ctx, payload); err != nil {
							failed.Add(1)
						}
					}
				})
				require.Zero(b, failed.Load())
				return
			}
			for i := 0; i < b.N; i++ {
				_, err := on.Propose(ctx, payload)
				require.NoError(b, err)
			}
		})
	}
}

// BenchmarkSyncedWrite is the yardstick of BenchmarkPropose: one badger
// write of the same size with SyncWrites, as a single node's statement
// costs at least.
func BenchmarkSyncedWrite(b *testing.B) {
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithSyncWrites(true).WithLogger(nil))
	require.NoError(b, err)
	defer db.Close()
	v := make([]byte, 100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		require.NoError(b, db.Update(func(txn *badger.Txn) error { return txn.Set(entryKey(uint64(i)), v) }))
	}
}
