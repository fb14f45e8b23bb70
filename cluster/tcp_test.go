package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// recorder is a Handler that keeps what it gets.
type recorder struct {
	mu      sync.Mutex
	msgs    []*pb.Message
	snaps   [][]byte
	snapErr error
	got     chan struct{}
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 1024)} }

func (r *recorder) Step(m *pb.Message) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *recorder) ReceiveSnapshot(m *pb.Message, body io.Reader) error {
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snapErr != nil {
		return r.snapErr
	}
	r.msgs = append(r.msgs, m)
	r.snaps = append(r.snaps, b)
	return nil
}

func listen(t testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln
}

func msg(typ pb.MessageType, from, to, index uint64) *pb.Message {
	return &pb.Message{Type: typ.Enum(), From: proto.Uint64(from), To: proto.Uint64(to), Index: proto.Uint64(index), Term: proto.Uint64(1)}
}

// TestTCPTransport: messages arrive in order and intact; a snapshot's
// image arrives whole and the receiver's refusal comes back; an unknown
// or unreachable peer is an error, not a hang.
func TestTCPTransport(t *testing.T) {
	a := NewTCPTransport(1, listen(t), TCPOptions{DialTimeout: 200 * time.Millisecond})
	b := NewTCPTransport(2, listen(t), TCPOptions{})
	defer a.Close()
	defer b.Close()
	rb := newRecorder()
	b.Attach(rb)
	a.SetPeer(2, b.Addr().String())

	var sent []*pb.Message
	for i := range 100 {
		m := msg(pb.MsgApp, 1, 2, uint64(i))
		m.Entries = []*pb.Entry{{Index: proto.Uint64(uint64(i)), Term: proto.Uint64(1), Data: bytes.Repeat([]byte{byte(i)}, i*100)}}
		sent = append(sent, m)
	}
	a.Send(sent[:50])
	a.Send(sent[50:])
	for range sent {
		select {
		case <-rb.got:
		case <-time.After(10 * time.Second):
			t.Fatal("messages did not arrive")
		}
	}
	rb.mu.Lock()
	require.Len(t, rb.msgs, len(sent))
	for i := range sent {
		assert.True(t, proto.Equal(sent[i], rb.msgs[i]), "message %d", i)
	}
	rb.msgs = nil
	rb.mu.Unlock()

	image := bytes.Repeat([]byte("0123456789abcdef"), 100_000) // 1.6 MB: several chunks
	snap := msg(pb.MsgSnap, 1, 2, 0)
	snap.Snapshot = &pb.Snapshot{Data: []byte{1, 0}, Metadata: &pb.SnapshotMetadata{Index: proto.Uint64(7), Term: proto.Uint64(1)}}
	require.NoError(t, a.SendSnapshot(snap, bytes.NewReader(image)))
	require.Len(t, rb.snaps, 1)
	assert.Equal(t, image, rb.snaps[0])
	assert.True(t, proto.Equal(snap, rb.msgs[0]))

	rb.mu.Lock()
	rb.snapErr = errors.New("disk full")
	rb.mu.Unlock()
	err := a.SendSnapshot(snap, bytes.NewReader(image))
	require.EqualError(t, err, "cluster: snapshot to node 2 refused: disk full")

	// The image's reader fails mid-way: the receiver sees a cut stream.
	rb.mu.Lock()
	rb.snapErr = nil
	rb.mu.Unlock()
	err = a.SendSnapshot(snap, io.MultiReader(bytes.NewReader(image[:1000]), iotestErrReader{}))
	require.ErrorContains(t, err, "read the image: broken image")

	err = a.SendSnapshot(msg(pb.MsgSnap, 1, 3, 0), bytes.NewReader(nil))
	require.EqualError(t, err, "cluster: snapshot to node 3: no address")
	dead := listen(t)
	deadAddr := dead.Addr().String()
	dead.Close()
	a.SetPeer(3, deadAddr)
	err = a.SendSnapshot(msg(pb.MsgSnap, 1, 3, 0), bytes.NewReader(nil))
	require.ErrorContains(t, err, "cluster: snapshot to node 3:")
	a.Send([]*pb.Message{msg(pb.MsgApp, 1, 3, 1)}) // dropped, without blocking
}

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errors.New("broken image") }

// TestTCPTransportRejects: a connection that is not the transport's, or
// sends a frame longer than MaxFrame, is dropped without delivering.
func TestTCPTransportRejects(t *testing.T) {
	b := NewTCPTransport(2, listen(t), TCPOptions{MaxFrame: 1024})
	defer b.Close()
	rb := newRecorder()
	b.Attach(rb)
	for name, payload := range map[string][]byte{
		"not raft":  []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"too large": append([]byte("glrt\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01"), 0, 1, 0, 0),
		"cut":       append([]byte("glrt\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01"), 0, 0, 0, 9, 1, 2),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := net.Dial("tcp", b.Addr().String())
			require.NoError(t, err)
			_, err = c.Write(payload)
			require.NoError(t, err)
			c.(*net.TCPConn).CloseWrite()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = c.Read(make([]byte, 1))
			assert.ErrorIs(t, err, io.EOF, "the transport closed the connection")
			c.Close()
		})
	}
	rb.mu.Lock()
	assert.Empty(t, rb.msgs)
	rb.mu.Unlock()
}

// TestTCPCluster: three nodes over real TCP connections on loopback: writes
// on any node, linearizable reads, a crashed follower that catches up.
func TestTCPCluster(t *testing.T) {
	root := t.TempDir()
	ids := []uint64{1, 2, 3}
	trs := map[uint64]*TCPTransport{}
	for _, id := range ids {
		trs[id] = NewTCPTransport(id, listen(t), TCPOptions{})
	}
	for _, id := range ids {
		for _, peer := range ids {
			if peer != id {
				trs[id].SetPeer(peer, trs[peer].Addr().String())
			}
		}
	}
	disks := map[uint64]*kvDisk{1: {}, 2: {}, 3: {}}
	nodes := map[uint64]*Node{}
	sms := map[uint64]*kvSM{}
	start := func(id uint64) {
		o := DefaultOptions(id, filepath.Join(root, fmt.Sprint(id)))
		o.Peers = ids
		o.TickInterval = 10 * time.Millisecond
		o.SnapshotEntries = 20
		o.CatchUpEntries = 5
		sms[id] = newKVSM(disks[id])
		n, err := Open(o, sms[id], trs[id])
		require.NoError(t, err)
		nodes[id] = n
		trs[id].Attach(n)
	}
	stop := func(id uint64) {
		trs[id].Attach(nil)
		require.NoError(t, nodes[id].Close())
	}
	for _, id := range ids {
		start(id)
	}
	defer func() {
		for _, id := range ids {
			stop(id)
			trs[id].Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 10 {
		_, err := nodes[ids[i%3]].Propose(ctx, fmt.Appendf(nil, "put k%d v%d", i%3, i))
		require.NoError(t, err)
	}
	stop(3)
	for i := 10; i < 60; i++ {
		_, err := nodes[ids[i%2]].Propose(ctx, fmt.Appendf(nil, "put k%d v%d", i%3, i))
		require.NoError(t, err)
	}
	start(3)
	_, err := nodes[3].ReadIndex(ctx)
	require.NoError(t, err)
	for k := range 3 {
		assert.Equal(t, sms[1].get(fmt.Sprint("k", k)), sms[3].get(fmt.Sprint("k", k)))
	}
	assert.Equal(t, "v59", sms[3].get("k2"))
	images, err := filepath.Glob(filepath.Join(root, "3", "snap", "*.snap"))
	require.NoError(t, err)
	assert.Len(t, images, 1, "node 3 caught up through a snapshot")
}
