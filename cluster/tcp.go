package cluster

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// The TCP wire format. A connection opens with a preamble: the magic
// "glrt", a version byte (1), a kind byte, and the sender's node ID as 8
// bytes big endian. Then, by kind:
//
//	kindMessages  frames, each a 4-byte big-endian length and an encoded
//	              raftpb.Message, until the connection closes
//	kindSnapshot  one frame with the MsgSnap message, then the image in
//	              chunks (4-byte length, bytes), ended by a 0-length chunk;
//	              the receiver answers one frame: empty when it took the
//	              image, else its error's text
const (
	tcpMagic      = "glrt"
	tcpVersion    = 1
	kindMessages  = 1
	kindSnapshot  = 2
	snapChunkSize = 256 << 10
)

// TCPOptions configure a TCPTransport. Zero fields take the defaults given.
type TCPOptions struct {
	// DialTimeout bounds a connection's set-up: 1 s.
	DialTimeout time.Duration
	// WriteTimeout bounds the write of one frame or snapshot chunk: 5 s.
	WriteTimeout time.Duration
	// IdleTimeout: an incoming message connection that brings nothing for
	// this long is closed (a leader heartbeats every tick): 30 s.
	IdleTimeout time.Duration
	// SnapshotAckTimeout bounds the wait for the receiver to sync the image
	// it got: 1 min.
	SnapshotAckTimeout time.Duration
	// MaxFrame bounds a message frame, either way: 64 MiB.
	MaxFrame int
	// QueueSize bounds the messages waiting for one peer's connection;
	// more are dropped (raft resends): 4096.
	QueueSize int
	// TLS, when set, is the client side's configuration: connections to
	// peers are TLS. The server side is the listener's: give
	// NewTCPTransport a tls.NewListener.
	TLS *tls.Config
	// Logger gets connection failures; nil discards them.
	Logger *slog.Logger
}

func (o *TCPOptions) fill() {
	if o.DialTimeout <= 0 {
		o.DialTimeout = time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 5 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Second
	}
	if o.SnapshotAckTimeout <= 0 {
		o.SnapshotAckTimeout = time.Minute
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = 64 << 20
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// TCPTransport is the Transport of one node over TCP (TLS optionally):
// one outgoing connection per peer for messages, fed from a bounded queue
// by a writer goroutine, and one new connection per snapshot. A frame that
// fails is dropped, never written again, so a proposal is delivered at most
// once. It serves its listener until Close.
type TCPTransport struct {
	id   uint64
	opts TCPOptions
	ln   net.Listener

	mu      sync.Mutex
	handler Handler
	addrs   map[uint64]string
	peers   map[uint64]*tcpPeer
	conns   map[net.Conn]bool // incoming
	closed  bool

	stopc chan struct{}
	wg    sync.WaitGroup
}

// NewTCPTransport serves ln for node id. Incoming messages go to the
// Handler given to Attach; until then they are dropped.
func NewTCPTransport(id uint64, ln net.Listener, opts TCPOptions) *TCPTransport {
	opts.fill()
	t := &TCPTransport{
		id: id, opts: opts, ln: ln,
		addrs: map[uint64]string{}, peers: map[uint64]*tcpPeer{}, conns: map[net.Conn]bool{},
		stopc: make(chan struct{}),
	}
	t.wg.Add(1)
	go t.accept()
	return t
}

// Attach routes incoming messages and snapshots to h (nil drops them).
func (t *TCPTransport) Attach(h Handler) {
	t.mu.Lock()
	t.handler = h
	t.mu.Unlock()
}

// Addr returns the address the transport listens on.
func (t *TCPTransport) Addr() net.Addr { return t.ln.Addr() }

// SetPeer sets the address of peer id ("host:port").
func (t *TCPTransport) SetPeer(id uint64, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.addrs[id] == addr {
		return
	}
	t.addrs[id] = addr
	if p := t.peers[id]; p != nil {
		p.stop()
		delete(t.peers, id)
	}
}

// RemovePeer forgets peer id and closes its connection.
func (t *TCPTransport) RemovePeer(id uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.addrs, id)
	if p := t.peers[id]; p != nil {
		p.stop()
		delete(t.peers, id)
	}
}

// Close stops serving, closes every connection and waits for the
// transport's goroutines.
func (t *TCPTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	close(t.stopc)
	for _, p := range t.peers {
		p.stop()
	}
	for c := range t.conns {
		c.Close()
	}
	t.mu.Unlock()
	err := t.ln.Close()
	t.wg.Wait()
	return err
}

// Send implements Transport: each message is encoded now and queued for
// its peer; when the queue is full or the peer unknown, it is dropped.
func (t *TCPTransport) Send(msgs []*pb.Message) {
	for _, m := range msgs {
		p := t.peer(m.GetTo())
		if p == nil {
			continue
		}
		frame, err := proto.Marshal(m)
		if err != nil || len(frame) > t.opts.MaxFrame {
			t.opts.Logger.Warn("raft message not sent", "to", m.GetTo(), "type", m.GetType(), "size", len(frame), "err", err)
			continue
		}
		select {
		case p.queue <- frame:
		default:
		}
	}
}

func (t *TCPTransport) peer(id uint64) *tcpPeer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	if p := t.peers[id]; p != nil {
		return p
	}
	addr, ok := t.addrs[id]
	if !ok {
		return nil
	}
	p := &tcpPeer{t: t, id: id, addr: addr, queue: make(chan []byte, t.opts.QueueSize), stopc: make(chan struct{})}
	t.peers[id] = p
	t.wg.Add(1)
	go p.run()
	return p
}

func (t *TCPTransport) dial(ctx context.Context, addr string, kind byte) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.DialTimeout)
	defer cancel()
	var c net.Conn
	var err error
	if t.opts.TLS != nil {
		d := &tls.Dialer{Config: t.opts.TLS}
		c, err = d.DialContext(ctx, "tcp", addr)
	} else {
		var d net.Dialer
		c, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	pre := make([]byte, 0, 14)
	pre = append(pre, tcpMagic...)
	pre = append(pre, tcpVersion, kind)
	pre = binary.BigEndian.AppendUint64(pre, t.id)
	c.SetWriteDeadline(time.Now().Add(t.opts.WriteTimeout))
	if _, err := c.Write(pre); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// SendSnapshot implements Transport over a connection of its own.
func (t *TCPTransport) SendSnapshot(m *pb.Message, body io.Reader) error {
	t.mu.Lock()
	addr, ok := t.addrs[m.GetTo()]
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("cluster: snapshot to node %d: no address", m.GetTo())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-t.stopc:
			cancel()
		case <-ctx.Done():
		}
	}()
	c, err := t.dial(ctx, addr, kindSnapshot)
	if err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	frame, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
	}
	w := bufio.NewWriterSize(c, 64<<10)
	write := func(b []byte) error {
		c.SetWriteDeadline(time.Now().Add(t.opts.WriteTimeout))
		return writeFrame(w, b)
	}
	if err := write(frame); err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
	}
	buf := make([]byte, snapChunkSize)
	for {
		k, rerr := io.ReadFull(body, buf)
		if k > 0 {
			if err := write(buf[:k]); err != nil {
				return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
			}
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return fmt.Errorf("cluster: snapshot to node %d: read the image: %w", m.GetTo(), rerr)
		}
	}
	if err := write(nil); err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
	}
	c.SetWriteDeadline(time.Now().Add(t.opts.WriteTimeout))
	if err := w.Flush(); err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: %w", m.GetTo(), err)
	}
	c.SetReadDeadline(time.Now().Add(t.opts.SnapshotAckTimeout))
	ack, err := readFrame(bufio.NewReader(c), t.opts.MaxFrame)
	if err != nil {
		return fmt.Errorf("cluster: snapshot to node %d: no answer: %w", m.GetTo(), err)
	}
	if len(ack) > 0 {
		return fmt.Errorf("cluster: snapshot to node %d refused: %s", m.GetTo(), ack)
	}
	return nil
}

func writeFrame(w io.Writer, b []byte) error {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(b)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// errFrameTooLarge: a peer sent a frame longer than MaxFrame.
var errFrameTooLarge = errors.New("cluster: frame longer than the transport's MaxFrame")

func readFrame(r io.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", errFrameTooLarge, n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

func (t *TCPTransport) accept() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			select {
			case <-t.stopc:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			t.opts.Logger.Warn("raft transport: accept", "err", err)
			select {
			case <-t.stopc:
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			c.Close()
			return
		}
		t.conns[c] = true
		t.wg.Add(1)
		t.mu.Unlock()
		go t.serve(c)
	}
}

func (t *TCPTransport) serve(c net.Conn) {
	defer t.wg.Done()
	defer func() {
		t.mu.Lock()
		delete(t.conns, c)
		t.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(t.opts.IdleTimeout))
	var pre [14]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return
	}
	if string(pre[:4]) != tcpMagic || pre[4] != tcpVersion {
		t.opts.Logger.Warn("raft transport: not a raft connection, or another version", "from", c.RemoteAddr())
		return
	}
	from := binary.BigEndian.Uint64(pre[6:])
	switch pre[5] {
	case kindMessages:
		for {
			c.SetReadDeadline(time.Now().Add(t.opts.IdleTimeout))
			frame, err := readFrame(r, t.opts.MaxFrame)
			if err != nil {
				if errors.Is(err, errFrameTooLarge) {
					t.opts.Logger.Warn("raft transport: connection dropped", "from", from, "err", err)
				}
				return
			}
			m := &pb.Message{}
			if err := proto.Unmarshal(frame, m); err != nil {
				t.opts.Logger.Warn("raft transport: bad message, connection dropped", "from", from, "err", err)
				return
			}
			t.mu.Lock()
			h := t.handler
			t.mu.Unlock()
			if h != nil {
				h.Step(m)
			}
		}
	case kindSnapshot:
		frame, err := readFrame(r, t.opts.MaxFrame)
		if err != nil {
			return
		}
		m := &pb.Message{}
		if err := proto.Unmarshal(frame, m); err != nil {
			return
		}
		t.mu.Lock()
		h := t.handler
		t.mu.Unlock()
		var herr error
		body := &chunkReader{r: r, c: c, timeout: t.opts.IdleTimeout}
		if h == nil {
			herr = errors.New("node not running")
		} else {
			herr = h.ReceiveSnapshot(m, body)
		}
		if herr == nil && !body.done {
			herr = errors.New("the image was not read to its end")
		}
		ack := []byte(nil)
		if herr != nil {
			ack = []byte(herr.Error())
		}
		c.SetWriteDeadline(time.Now().Add(t.opts.WriteTimeout))
		writeFrame(c, ack)
	default:
		t.opts.Logger.Warn("raft transport: unknown connection kind", "from", from, "kind", pre[5])
	}
}

// chunkReader reads a snapshot's chunks as one stream; a connection that
// ends before the 0-length chunk is an error (io.ErrUnexpectedEOF).
type chunkReader struct {
	r       io.Reader
	c       net.Conn
	timeout time.Duration
	left    int
	done    bool
}

func (cr *chunkReader) Read(p []byte) (int, error) {
	for cr.left == 0 {
		if cr.done {
			return 0, io.EOF
		}
		cr.c.SetReadDeadline(time.Now().Add(cr.timeout))
		var hdr [4]byte
		if _, err := io.ReadFull(cr.r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		cr.left = int(binary.BigEndian.Uint32(hdr[:]))
		if cr.left == 0 {
			cr.done = true
		}
	}
	if len(p) > cr.left {
		p = p[:cr.left]
	}
	cr.c.SetReadDeadline(time.Now().Add(cr.timeout))
	k, err := cr.r.Read(p)
	cr.left -= k
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return k, err
}

// tcpPeer owns the outgoing message connection to one peer.
type tcpPeer struct {
	t     *TCPTransport
	id    uint64
	addr  string
	queue chan []byte
	stopc chan struct{}
	once  sync.Once
}

func (p *tcpPeer) stop() { p.once.Do(func() { close(p.stopc) }) }

func (p *tcpPeer) run() {
	defer p.t.wg.Done()
	var c net.Conn
	var w *bufio.Writer
	var retryAt time.Time
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for {
		var frame []byte
		select {
		case frame = <-p.queue:
		case <-p.stopc:
			return
		}
		if c == nil {
			if time.Now().Before(retryAt) {
				continue // the peer is down: drop, raft resends
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-p.stopc:
					cancel()
				case <-ctx.Done():
				}
			}()
			conn, err := p.t.dial(ctx, p.addr, kindMessages)
			cancel()
			if err != nil {
				p.t.opts.Logger.Debug("raft transport: dial", "peer", p.id, "addr", p.addr, "err", err)
				retryAt = time.Now().Add(100 * time.Millisecond)
				continue
			}
			c, w = conn, bufio.NewWriterSize(conn, 64<<10)
		}
		c.SetWriteDeadline(time.Now().Add(p.t.opts.WriteTimeout))
		err := writeFrame(w, frame)
		// Write what else is queued in the same flush.
		for err == nil && len(p.queue) > 0 {
			err = writeFrame(w, <-p.queue)
		}
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			p.t.opts.Logger.Debug("raft transport: write", "peer", p.id, "err", err)
			c.Close()
			c, w = nil, nil
		}
	}
}
