package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// recorder is a Handler that keeps what it is given.
type recorder struct {
	mu     sync.Mutex
	msgs   []*pb.Message
	snaps  [][]byte
	refuse error // ReceiveSnapshot's answer
	short  bool  // ReceiveSnapshot reads only a part of the body
	got    chan struct{}
	ended  chan uint64 // StreamEnded's peers
}

func newRecorder() *recorder {
	return &recorder{got: make(chan struct{}, 1<<16), ended: make(chan uint64, 16)}
}

func (r *recorder) StreamEnded(from uint64) {
	select {
	case r.ended <- from:
	default:
	}
}

func (r *recorder) Step(m *pb.Message) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *recorder) Standing(id uint64) Standing { return Standing(id % 3) }

func (r *recorder) ReceiveSnapshot(m *pb.Message, body io.Reader) error {
	if r.short {
		_, err := io.ReadFull(body, make([]byte, 10))
		return err
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse != nil {
		return r.refuse
	}
	r.snaps = append(r.snaps, b)
	return nil
}

// waitMsgs waits for n messages (the test's own timeout bounds it).
func (r *recorder) waitMsgs(t *testing.T, n int) []*pb.Message {
	for range n {
		<-r.got
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*pb.Message(nil), r.msgs...)
}

// serve starts a TCPServer on a free loopback port with cluster c routed to h.
func serve(t *testing.T, cfg TCPConfig, c string, h Handler) (*TCPServer, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := NewTCPServer(cfg)
	_, err = s.Register(c, h)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, <-done)
	})
	return s, l.Addr().String()
}

// sender returns a transport whose node 1 has sent node 2, rec's server at
// addr, a heartbeat: the connection is open.
func sender(t *testing.T, addr string, rec *recorder) *TCPTransport {
	t.Helper()
	tr := NewTCPTransport("c", TCPConfig{})
	tr.SetPeer(2, addr)
	tr.Send([]*pb.Message{msgFrom1(pb.MessageType_MsgHeartbeat, 2, 1)})
	rec.waitMsgs(t, 1)
	return tr
}

// dropConns closes every connection s has open, as the server's side.
func dropConns(s *TCPServer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

func msg(typ pb.MessageType, from, to, index uint64) *pb.Message {
	return &pb.Message{Type: typ.Enum(), From: proto.Uint64(from), To: proto.Uint64(to), Index: proto.Uint64(index), Term: proto.Uint64(1)}
}

func msgFrom1(typ pb.MessageType, to, index uint64) *pb.Message {
	return &pb.Message{Type: &typ, To: proto.Uint64(to), From: proto.Uint64(1), Index: proto.Uint64(index)}
}

func TestTCPSendInOrder(t *testing.T) {
	rec := newRecorder()
	_, addr := serve(t, TCPConfig{}, "c", rec)
	tr := NewTCPTransport("c", TCPConfig{})
	defer tr.Close()
	tr.SetPeer(2, addr)
	var want []uint64
	for i := range uint64(500) {
		tr.Send([]*pb.Message{msgFrom1(pb.MessageType_MsgApp, 2, i), msgFrom1(pb.MessageType_MsgApp, 3, i)}) // 3: no address, dropped
		want = append(want, i)
	}
	got := rec.waitMsgs(t, 500)
	var idx []uint64
	for _, m := range got {
		require.Equal(t, pb.MessageType_MsgApp, m.GetType())
		require.EqualValues(t, 2, m.GetTo())
		idx = append(idx, m.GetIndex())
	}
	require.Equal(t, want, idx, "one connection keeps the order")
}

func TestTCPReconnects(t *testing.T) {
	rec := newRecorder()
	s, addr := serve(t, TCPConfig{}, "c", rec)
	tr := sender(t, addr, rec)
	defer tr.Close()

	// Cut every connection: the transport dials again and later
	// messages arrive (some sent meanwhile may be lost: raft resends).
	dropConns(s)
	for i := uint64(2); ; i++ {
		tr.Send([]*pb.Message{msgFrom1(pb.MessageType_MsgHeartbeat, 2, i)})
		select {
		case <-rec.got:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestTCPSnapshot(t *testing.T) {
	rec := newRecorder()
	_, addr := serve(t, TCPConfig{}, "c", rec)
	tr := NewTCPTransport("c", TCPConfig{})
	defer tr.Close()
	tr.SetPeer(2, addr)
	body := make([]byte, 3<<20+17)
	_, _ = rand.Read(body)
	require.NoError(t, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 9), bytes.NewReader(body)))
	require.NoError(t, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 10), bytes.NewReader(nil)), "an empty image")
	rec.mu.Lock()
	require.Len(t, rec.snaps, 2)
	require.True(t, bytes.Equal(body, rec.snaps[0]))
	require.Empty(t, rec.snaps[1])
	rec.mu.Unlock()

	rec.mu.Lock()
	rec.refuse = errors.New("disk full")
	rec.mu.Unlock()
	err := tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 11), bytes.NewReader(body))
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	require.Contains(t, err.Error(), "disk full")
	require.Contains(t, err.Error(), "did not take the snapshot")
}

func TestTCPSnapshotShortRead(t *testing.T) {
	rec := newRecorder()
	rec.short = true
	_, addr := serve(t, TCPConfig{}, "c", rec)
	tr := NewTCPTransport("c", TCPConfig{})
	defer tr.Close()
	tr.SetPeer(2, addr)
	// The receiver takes 10 bytes and says yes: the server reads the
	// rest, and the answer is still yes, over a body of several chunks.
	require.NoError(t, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 1), bytes.NewReader(make([]byte, 1<<20))))
}

func TestTCPRefusals(t *testing.T) {
	rec := newRecorder()
	_, addr := serve(t, TCPConfig{}, "c", rec)

	other := NewTCPTransport("elsewhere", TCPConfig{})
	defer other.Close()
	other.SetPeer(2, addr)
	err := other.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 1), bytes.NewReader([]byte("x")))
	require.ErrorContains(t, err, `cluster "elsewhere" is not on this server`)

	err = other.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 7, 1), bytes.NewReader(nil))
	require.ErrorContains(t, err, "no address for node 7")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	l.Close()
	other.SetPeer(3, dead)
	err = other.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 3, 1), bytes.NewReader(nil))
	require.ErrorContains(t, err, "connecting to "+dead)

	// Not a stream of ours: the server drops the connection.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	require.NoError(t, err)
	_, err = c.Read(make([]byte, 1))
	require.Error(t, err)
}

func TestTCPRegister(t *testing.T) {
	s := NewTCPServer(TCPConfig{})
	un, err := s.Register("c", newRecorder())
	require.NoError(t, err)
	_, err = s.Register("c", newRecorder())
	require.ErrorContains(t, err, "already registered")
	un()
	_, err = s.Register("c", newRecorder())
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

func TestTCPTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	rec := newRecorder()
	_, addr := serve(t, TCPConfig{ServerTLS: &tls.Config{Certificates: []tls.Certificate{cert}}}, "c", rec)

	tr := NewTCPTransport("c", TCPConfig{ClientTLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}})
	defer tr.Close()
	tr.SetPeer(2, addr)
	tr.Send([]*pb.Message{msgFrom1(pb.MessageType_MsgHeartbeat, 2, 1)})
	rec.waitMsgs(t, 1)
	require.NoError(t, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 2), bytes.NewReader([]byte("image"))))

	plain := NewTCPTransport("c", TCPConfig{DialTimeout: time.Second, WriteTimeout: time.Second})
	defer plain.Close()
	plain.SetPeer(2, addr)
	require.Error(t, plain.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 3), bytes.NewReader(nil)), "a plain client is not served")
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "glint test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// FuzzTCPStream feeds the server's reader arbitrary bytes: it never panics
// and never reads a frame over its limit.
func FuzzTCPStream(f *testing.F) {
	var good bytes.Buffer
	w := bufio.NewWriter(&good)
	_ = writePreamble(w, streamSnapshot, "c")
	b, _ := proto.Marshal(msgFrom1(pb.MessageType_MsgSnap, 2, 1))
	_ = writeFrame(w, b)
	_ = writeFrame(w, []byte("image"))
	_ = writeFrame(w, nil)
	_ = w.Flush()
	f.Add(good.Bytes())
	f.Add([]byte(tcpMagic + "\x01\x01c\xff\xff\xff\xff\x0f"))
	f.Add([]byte(tcpMagic + "\x02\x01c\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		kind, _, err := readPreamble(r)
		if err != nil {
			return
		}
		m, err := readMessage(r, 1<<10)
		if err != nil || kind == streamMessages {
			return
		}
		_ = m.GetType()
		body := &chunkReader{r: r, renew: func() {}}
		n, err := io.Copy(io.Discard, body)
		require.LessOrEqual(t, n, int64(len(in)))
		if err == nil {
			require.True(t, body.done)
		}
	})
}

// discard is a Handler that reads snapshots to their end and drops them.
type discard struct{}

func (discard) Step(*pb.Message)         {}
func (discard) Standing(uint64) Standing { return StandingUnknown }
func (discard) StreamEnded(uint64)       {}
func (discard) ReceiveSnapshot(_ *pb.Message, body io.Reader) error {
	_, err := io.Copy(io.Discard, body)
	return err
}

// BenchmarkTCPSnapshot streams a 64 MiB image over loopback: the bytes per
// second a joining node can be sent (issue 27 asks 100 MB/s or more).
func BenchmarkTCPSnapshot(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	s := NewTCPServer(TCPConfig{})
	_, err = s.Register("c", discard{})
	require.NoError(b, err)
	go s.Serve(l)
	defer s.Close()
	tr := NewTCPTransport("c", TCPConfig{})
	defer tr.Close()
	tr.SetPeer(2, l.Addr().String())
	body := make([]byte, 64<<20)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		require.NoError(b, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 1), bytes.NewReader(body)))
	}
}

func TestTCPRequest(t *testing.T) {
	s, addr := serve(t, TCPConfig{}, "c", newRecorder())
	ctx := context.Background()
	_, err := Request(ctx, TCPConfig{}, addr, "c", []byte("hello"))
	require.ErrorContains(t, err, "takes no cluster requests")

	s.HandleRequests(func(_ context.Context, cluster string, req []byte) ([]byte, error) {
		if string(req) == "fail" {
			return nil, errors.New("no such thing")
		}
		return []byte(cluster + ":" + string(req)), nil
	})
	got, err := Request(ctx, TCPConfig{}, addr, "new", []byte("join me"))
	require.NoError(t, err)
	require.Equal(t, "new:join me", string(got), "a request may name a cluster the server does not hold")
	_, err = Request(ctx, TCPConfig{}, addr, "c", []byte("fail"))
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "no such thing", re.Msg)

	s.HandleRequests(func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = Request(short, TCPConfig{}, addr, "c", []byte("slow"))
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// A server that takes the connection and never answers it: the
	// context ends the request while it waits to be accepted (it waited
	// out the dial and write timeouts, 7 s, before).
	mute := muteListener(t)
	mctx, mcancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer mcancel()
	start := time.Now()
	_, err = Request(mctx, TCPConfig{}, mute, "c", []byte("hello"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 2*time.Second)
}

// muteListener returns the address of a listener that accepts
// connections and never writes or reads a byte.
func muteListener(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return l.Addr().String()
}

func TestTCPVia(t *testing.T) {
	rec := newRecorder()
	_, addr := serve(t, TCPConfig{}, "c", rec)
	tr := NewTCPTransport("c", TCPConfig{Via: map[string]string{"member.example:9312": addr}})
	defer tr.Close()
	tr.SetPeer(2, "member.example:9312")
	require.NoError(t, tr.SendSnapshot(msgFrom1(pb.MessageType_MsgSnap, 2, 1), bytes.NewReader([]byte("x"))))
}

// tcpGroup is nodes over loopback TCP: a TCPServer and a TCPTransport of
// cluster "c" each.
type tcpGroupNet struct {
	srvs map[uint64]*TCPServer
	trs  map[uint64]*TCPTransport
	un   map[uint64]func()
}

func newTCPGroup(t testing.TB, ids []uint64) *tcpGroupNet {
	g := &tcpGroupNet{srvs: map[uint64]*TCPServer{}, trs: map[uint64]*TCPTransport{}, un: map[uint64]func(){}}
	addrs := map[uint64]string{}
	for _, id := range ids {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		g.srvs[id] = NewTCPServer(TCPConfig{})
		go g.srvs[id].Serve(l)
		addrs[id] = l.Addr().String()
		g.trs[id] = NewTCPTransport("c", TCPConfig{})
	}
	for _, id := range ids {
		for _, peer := range ids {
			if peer != id {
				g.trs[id].SetPeer(peer, addrs[peer])
			}
		}
	}
	return g
}

// attach routes what node id's server receives to n; nil detaches it.
func (g *tcpGroupNet) attach(t testing.TB, id uint64, n *Node) {
	if un := g.un[id]; un != nil {
		un()
		delete(g.un, id)
	}
	if n != nil {
		un, err := g.srvs[id].Register("c", n)
		require.NoError(t, err)
		g.un[id] = un
	}
}

func (g *tcpGroupNet) close() {
	for id, tr := range g.trs {
		tr.Close()
		g.srvs[id].Close()
	}
}

// TestTCPCluster: three nodes over real TCP connections on loopback: writes
// on any node, linearizable reads, a stopped follower that catches up
// through a snapshot.
func TestTCPCluster(t *testing.T) {
	root := t.TempDir()
	ids := []uint64{1, 2, 3}
	g := newTCPGroup(t, ids)
	defer g.close()
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
		n, err := Open(o, sms[id], g.trs[id])
		require.NoError(t, err)
		nodes[id] = n
		g.attach(t, id, n)
	}
	stop := func(id uint64) {
		g.attach(t, id, nil)
		require.NoError(t, nodes[id].Close())
	}
	for _, id := range ids {
		start(id)
	}
	defer func() {
		for _, id := range ids {
			stop(id)
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
		require.Equal(t, sms[1].get(fmt.Sprint("k", k)), sms[3].get(fmt.Sprint("k", k)))
	}
	require.Equal(t, "v59", sms[3].get("k2"))
	images, err := filepath.Glob(filepath.Join(root, "3", "snap", "*.snap"))
	require.NoError(t, err)
	require.Len(t, images, 1, "node 3 caught up through a snapshot")
}

// gate is a Handler whose Step blocks until open is closed: the server then
// stops reading, and the sender's connection and queue fill up.
type gate struct {
	open chan struct{}
	rec  *recorder
}

func (g *gate) Step(m *pb.Message) {
	<-g.open
	g.rec.Step(m)
}

func (g *gate) ReceiveSnapshot(m *pb.Message, body io.Reader) error {
	return g.rec.ReceiveSnapshot(m, body)
}

func (g *gate) Standing(id uint64) Standing { return g.rec.Standing(id) }

func (g *gate) StreamEnded(from uint64) { g.rec.StreamEnded(from) }

func TestTCPQueueBytes(t *testing.T) {
	g := &gate{open: make(chan struct{}), rec: newRecorder()}
	_, addr := serve(t, TCPConfig{}, "c", g)
	var opened sync.Once
	release := func() { opened.Do(func() { close(g.open) }) }
	t.Cleanup(release) // (before the server's: its Close waits for Step)
	const limit = 1 << 20
	tr := NewTCPTransport("c", TCPConfig{QueueBytes: limit})
	defer tr.Close()
	tr.SetPeer(2, addr)
	big := func(i uint64, size int) *pb.Message {
		m := msgFrom1(pb.MessageType_MsgApp, 2, i)
		m.Entries = []*pb.Entry{{Data: make([]byte, size)}}
		return m
	}
	// A message larger than the bound goes when nothing waits.
	tr.Send([]*pb.Message{big(0, 2*limit)})
	tr.mu.Lock()
	p := tr.peers[2]
	tr.mu.Unlock()
	require.Eventually(t, func() bool { return p.queued.Load() == 0 }, 10*time.Second, time.Millisecond)
	// The receiver reads no more: 100 MB sent, the queue holds at most the
	// bound, the rest is dropped.
	most := int64(0)
	for i := range uint64(400) {
		tr.Send([]*pb.Message{big(i+1, 256<<10)})
		most = max(most, p.queued.Load())
	}
	require.LessOrEqual(t, most, int64(limit))
	require.Positive(t, most, "the queue filled")
	release()
	// What was queued or in the connection's buffers arrives; the rest
	// was dropped.
	g.rec.waitMsgs(t, 2)
	require.Eventually(t, func() bool { return p.queued.Load() == 0 }, 10*time.Second, 10*time.Millisecond)
	g.rec.mu.Lock()
	n := len(g.rec.msgs)
	// The first (of 2 MB) among them: not always first to arrive, since a
	// connection whose writes timed out while the receiver held it is
	// replaced, and the two connections' messages are stepped as each
	// reader gets them.
	first := slices.IndexFunc(g.rec.msgs, func(m *pb.Message) bool { return m.GetIndex() == 0 })
	require.GreaterOrEqual(t, first, 0, "the message larger than the bound arrived")
	require.Len(t, g.rec.msgs[first].Entries[0].Data, 2*limit)
	g.rec.mu.Unlock()
	require.Less(t, n, 401, "messages past the bound were dropped")
}

// TestTCPAskStanding: a node asks a peer what it is there; a peer whose
// address is not known, or a server without the cluster, is an error,
// never an answer.
func TestTCPAskStanding(t *testing.T) {
	_, addr := serve(t, TCPConfig{}, "c", newRecorder()) // Standing: id % 3
	tr := NewTCPTransport("c", TCPConfig{})
	defer tr.Close()
	tr.SetPeer(2, addr)
	for id, want := range map[uint64]Standing{3: StandingUnknown, 4: StandingMember, 5: StandingRemoved, 1 << 62: StandingMember} {
		s, err := tr.AskStanding(context.Background(), 2, id)
		require.NoError(t, err)
		require.Equal(t, want, s, "node %d", id)
	}
	_, err := tr.AskStanding(context.Background(), 9, 5)
	require.ErrorContains(t, err, "ask node 9: its address is not known")
	tr.SetPeer(7, addr)
	require.ElementsMatch(t, []uint64{2, 7}, tr.Peers())
	tr.RemovePeer(7)
	require.Equal(t, []uint64{2}, tr.Peers())

	other := NewTCPTransport("d", TCPConfig{})
	defer other.Close()
	other.SetPeer(2, addr)
	_, err = other.AskStanding(context.Background(), 2, 5)
	require.ErrorContains(t, err, `cluster "d" is not on this server`)

	// A peer that does not answer: the context ends the ask.
	tr.SetPeer(3, muteListener(t))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = tr.AskStanding(ctx, 3, 5)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// A member address that is another kind of listener (a MySQL greeting
// starts with its length, an HTTP answer with 'H') is named as such, not
// only as an unknown kind of answer.
func TestStatusFromAnotherProtocol(t *testing.T) {
	for _, first := range []string{"\x56\x00\x00\x00\x0a8.0.0-glint", "HTTP/1.1 400 Bad Request\r\n"} {
		err := readStatus(bufio.NewReader(bytes.NewReader([]byte(first))))
		require.ErrorContains(t, err, "does not speak glint's replication protocol")
		require.ErrorContains(t, err, "replication_listen")
	}
}

// TestTCPCloseWhileDialing: a peer that takes connections and answers
// nothing holds a connection attempt for the dial and write timeouts (7 s);
// Close gives it up at once.
func TestTCPCloseWhileDialing(t *testing.T) {
	tr := NewTCPTransport("c", TCPConfig{})
	tr.SetPeer(2, muteListener(t))
	time.Sleep(50 * time.Millisecond) // (the peer's goroutine waits to be accepted)
	start := time.Now()
	tr.Close()
	require.Less(t, time.Since(start), time.Second)
}

// A sender's stream that closes is reported with the sender's id; Gone
// tells a peer that answers, one that takes connections and says nothing
// (not known to be down) and one whose address refuses them (down).
func TestTCPStreamEndedAndGone(t *testing.T) {
	rec := newRecorder()
	s, addr := serve(t, TCPConfig{}, "c", rec)
	tr := sender(t, addr, rec)
	tr.Close() // the sender's process ends: its connection closes
	select {
	case from := <-rec.ended:
		require.EqualValues(t, 1, from)
	case <-time.After(10 * time.Second):
		t.Fatal("the closed stream was not reported")
	}

	// The server closing its own connections reports nothing.
	tr2 := sender(t, addr, rec)
	defer tr2.Close()
	dropConns(s)

	silent, err := net.Listen("tcp", "127.0.0.1:0") // takes connections, never answers
	require.NoError(t, err)
	defer silent.Close()
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refusedAddr := refused.Addr().String()
	require.NoError(t, refused.Close())

	probe := NewTCPTransport("c", TCPConfig{})
	defer probe.Close()
	probe.SetPeer(2, addr)
	probe.SetPeer(3, silent.Addr().String())
	probe.SetPeer(4, refusedAddr)
	gone := func(id uint64) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return probe.Gone(ctx, id)
	}
	require.False(t, gone(2), "a live server answers")
	require.False(t, gone(3), "a silent one may be stopped or slow")
	require.True(t, gone(4), "nothing listens at the address")
	require.False(t, gone(5), "no address known")
	select {
	case from := <-rec.ended:
		t.Fatalf("stream of %d reported after the server closed it", from)
	default:
	}
}
