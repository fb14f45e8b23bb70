package cluster

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// The TCP transport carries the raft messages of every cluster of a server
// over one listener. A connection carries one cluster's traffic one way:
//
//	client: magic, kind (streamMessages or streamSnapshot), cluster name
//	server: accept: 0, or 1 and a reason (the cluster is not here)
//	client: streamMessages: frames, each a length and a raftpb.Message, until it closes
//	        streamSnapshot: one frame (the MsgSnap), then the image in chunks,
//	        each a length and bytes, ended by a chunk of length 0
//	server: streamSnapshot only: 0, or 1 and the receiver's error
//	client: streamRequest: one frame, the request
//	server: streamRequest: 0 and the answer's frame, or 1 and the error
//	client: streamStanding: one frame, a node ID (uvarint)
//	server: streamStanding: one byte, the Standing of that node there
//
// A request is for the server's Requests handler (the cluster named may be
// one the server does not hold yet: a node asking to join names the
// cluster it wants).
//
// Lengths are uvarints; a reason or an error is a length and its bytes.
const tcpMagic = "glint-raft/1\n"

const (
	streamMessages byte = 1
	streamSnapshot byte = 2
	streamRequest  byte = 3
	streamStanding byte = 4
)

// TCPConfig are the settings of a TCPServer and its transports. A zero
// field takes the default its comment gives.
type TCPConfig struct {
	// ServerTLS, when set, makes the server accept TLS connections only.
	ServerTLS *tls.Config
	// ClientTLS, when set, makes transports connect with TLS.
	ClientTLS *tls.Config
	// DialTimeout bounds a connection attempt (default 2 s).
	DialTimeout time.Duration
	// WriteTimeout bounds each write of queued messages or of a snapshot
	// chunk (default 5 s).
	WriteTimeout time.Duration
	// IdleTimeout closes an incoming connection that sent nothing for so
	// long (default 30 s; a leader sends heartbeats every tick).
	IdleTimeout time.Duration
	// SnapshotReplyTimeout bounds the wait, after the last chunk of a
	// snapshot, for the receiver to say it took it (default 10 min:
	// installing a large image takes time).
	SnapshotReplyTimeout time.Duration
	// QueueLen is how many messages wait per peer while its connection is
	// slow or down; more are dropped (raft sends them again) (default 4096).
	QueueLen int
	// QueueBytes bounds the bytes of the messages waiting per peer
	// (default 64 MiB): a message that would take the queue past it is
	// dropped, unless the queue is empty (a message larger than the bound
	// still goes, alone). QueueLen alone let a slow peer's queue hold
	// thousands of appends of up to a megabyte each.
	QueueBytes int64
	// MaxMessage is the largest message frame read (default 256 MiB); a
	// larger one closes the connection.
	MaxMessage int
	// SnapshotRate bounds the bytes a second of each snapshot sent
	// (default 0: no bound). A snapshot sent as fast as the disk reads
	// takes the leader's CPU and disk from its writes.
	SnapshotRate int64
	// Logf logs what goes wrong on connections (default: nothing).
	Logf func(format string, args ...any)
	// Via maps a member's address to the address this server dials to
	// reach it (a tunnel, a NAT, a test's fault proxy); an address not in
	// it is dialed as it is.
	Via map[string]string
}

func (c TCPConfig) withDefaults() TCPConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.DialTimeout, 2*time.Second)
	def(&c.WriteTimeout, 5*time.Second)
	def(&c.IdleTimeout, 30*time.Second)
	def(&c.SnapshotReplyTimeout, 10*time.Minute)
	if c.QueueLen <= 0 {
		c.QueueLen = 4096
	}
	if c.QueueBytes <= 0 {
		c.QueueBytes = 64 << 20
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = 256 << 20
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// TCPServer takes the connections of the peers of every cluster on this
// server and hands what they carry to each cluster's Handler.
type TCPServer struct {
	cfg TCPConfig

	mu       sync.Mutex
	handlers map[string]Handler
	requests RequestHandler
	conns    map[net.Conn]struct{}
	ls       []net.Listener
	closed   bool
	wg       sync.WaitGroup
}

// NewTCPServer returns a server with no cluster registered.
func NewTCPServer(cfg TCPConfig) *TCPServer {
	return &TCPServer{cfg: cfg.withDefaults(), handlers: map[string]Handler{}, conns: map[net.Conn]struct{}{}}
}

// Register routes the traffic of cluster to h until the returned function
// is called. Registering a cluster twice is an error.
func (s *TCPServer) Register(cluster string, h Handler) (unregister func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handlers[cluster]; dup {
		return nil, fmt.Errorf("cluster: %q is already registered with the transport", cluster)
	}
	s.handlers[cluster] = h
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.handlers[cluster] == h {
			delete(s.handlers, cluster)
		}
	}, nil
}

// RequestHandler answers a request sent with Request: cluster is the
// cluster the request names, req its bytes. The answer or the error goes
// back to the caller.
type RequestHandler func(ctx context.Context, cluster string, req []byte) ([]byte, error)

// HandleRequests sets the handler of requests; without one, requests are
// refused.
func (s *TCPServer) HandleRequests(h RequestHandler) {
	s.mu.Lock()
	s.requests = h
	s.mu.Unlock()
}

// Serve accepts connections on l until Close; it returns nil after Close
// and the listener's error otherwise. With ServerTLS, l is wrapped in TLS.
func (s *TCPServer) Serve(l net.Listener) error {
	if s.cfg.ServerTLS != nil {
		l = tls.NewListener(l, s.cfg.ServerTLS)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return nil
	}
	s.ls = append(s.ls, l)
	s.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !s.track(c) {
			c.Close()
			return nil
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			if err := s.serveConn(c); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.cfg.Logf("cluster: connection from %s: %v", c.RemoteAddr(), err)
			}
		}()
	}
}

func (s *TCPServer) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *TCPServer) untrack(c net.Conn) {
	c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close stops the listeners and closes every connection, and waits for
// their goroutines.
func (s *TCPServer) Close() error {
	s.mu.Lock()
	s.closed = true
	for _, l := range s.ls {
		l.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// serveConn reads one connection: its preamble, then its stream.
func (s *TCPServer) serveConn(c net.Conn) error {
	r := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
	kind, cluster, err := readPreamble(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	h, requests := s.handlers[cluster], s.requests
	s.mu.Unlock()
	c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	if kind == streamRequest {
		return s.serveRequest(c, r, cluster, requests)
	}
	if h == nil {
		writeStatus(c, fmt.Errorf("cluster %q is not on this server", cluster))
		return fmt.Errorf("cluster %q is not on this server", cluster)
	}
	if err := writeStatus(c, nil); err != nil {
		return err
	}
	switch kind {
	case streamMessages:
		var from uint64 // the sender, once a message named it
		for {
			c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
			m, err := readMessage(r, s.cfg.MaxMessage)
			if err != nil {
				if h := s.handler(cluster); h != nil && from != 0 && !errors.Is(err, net.ErrClosed) {
					h.StreamEnded(from)
				}
				return err
			}
			from = m.GetFrom()
			// The handler of each message: a cluster reopened (a node
			// restarted in the process) takes the connections the old
			// one had.
			if h = s.handler(cluster); h == nil {
				return fmt.Errorf("cluster %q left this server", cluster)
			}
			h.Step(m)
		}
	case streamStanding:
		c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		b, err := readFrame(r, binary.MaxVarintLen64)
		if err != nil {
			return err
		}
		id, k := binary.Uvarint(b)
		if k <= 0 || k != len(b) {
			return errors.New("a standing request without a node ID")
		}
		c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		_, err = c.Write([]byte{byte(h.Standing(id))})
		return err
	default: // streamSnapshot
		c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		m, err := readMessage(r, s.cfg.MaxMessage)
		if err != nil {
			return err
		}
		if m.GetType() != pb.MessageType_MsgSnap {
			return fmt.Errorf("a snapshot stream starts with %s, not MsgSnap", m.GetType())
		}
		body := &chunkReader{r: r, renew: func() { c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout)) }}
		herr := h.ReceiveSnapshot(m, body)
		if herr == nil && !body.done {
			// The receiver stopped before the end: read the rest, so
			// that a short read is not taken as success.
			if _, err := io.Copy(io.Discard, body); err != nil {
				return err
			}
		}
		if herr == nil && body.err != nil {
			herr = body.err
		}
		c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		return writeStatus(c, herr)
	}
}

// handler is the Handler cluster is registered with, or nil.
func (s *TCPServer) handler(cluster string) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[cluster]
}

// serveRequest answers one request.
func (s *TCPServer) serveRequest(c net.Conn, r *bufio.Reader, cluster string, h RequestHandler) error {
	if h == nil {
		return writeStatus(c, errors.New("this server takes no cluster requests"))
	}
	if err := writeStatus(c, nil); err != nil {
		return err
	}
	c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
	req, err := readFrame(r, s.cfg.MaxMessage)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.SnapshotReplyTimeout)
	defer cancel()
	// The caller sends nothing more: a read that returns means it went
	// away (or the server is closing), and the handler need not go on.
	c.SetReadDeadline(time.Time{})
	go func() {
		r.ReadByte()
		cancel()
	}()
	answer, herr := h(ctx, cluster, req)
	c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	if herr != nil {
		return writeStatus(c, herr)
	}
	w := bufio.NewWriter(c)
	w.WriteByte(0)
	if err := writeFrame(w, answer); err != nil {
		return err
	}
	return w.Flush()
}

// Request sends req to the RequestHandler of the server at addr, naming
// cluster, and returns its answer: the handler's error comes back as a
// *RemoteError. ctx bounds the whole exchange, the connection included.
func Request(ctx context.Context, cfg TCPConfig, addr, cluster string, req []byte) ([]byte, error) {
	t := NewTCPTransport(cluster, cfg)
	var answer []byte
	err := t.exchange(ctx, addr, streamRequest, req, func(r *bufio.Reader) error {
		if err := readStatus(r); err != nil {
			return err
		}
		var err error
		if answer, err = readFrame(r, t.cfg.MaxMessage); err != nil {
			return fmt.Errorf("cluster %s: the answer of %s: %w", cluster, addr, err)
		}
		return nil
	})
	return answer, err
}

// exchange is one request and its answer on a stream of kind of their
// own: it connects to addr, sends req as one frame, and reads the answer
// with read. ctx bounds it all, the connection included; once ctx has
// ended, its error is returned, not the broken stream it made.
func (t *TCPTransport) exchange(ctx context.Context, addr string, kind byte, req []byte, read func(*bufio.Reader) error) error {
	c, w, err := t.dialContext(ctx, addr, kind)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	err = writeFrame(w, req)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		err = t.sendError(addr, err)
	} else {
		err = read(bufio.NewReader(c))
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("cluster %s: no answer from %s: %w", t.cluster, addr, ctx.Err())
	}
	return err
}

// TCPTransport sends one cluster's messages to its peers over TCP: one
// connection and one queue per peer, a goroutine each, reconnecting with a
// backoff when a connection fails.
type TCPTransport struct {
	cfg     TCPConfig
	cluster string

	mu      sync.Mutex
	peers   map[uint64]*tcpPeer
	retired []*tcpPeer // removed peers whose goroutine may still be ending (Close waits for them)
	closed  bool
}

// NewTCPTransport returns a transport for cluster with no peers yet.
func NewTCPTransport(cluster string, cfg TCPConfig) *TCPTransport {
	return &TCPTransport{cfg: cfg.withDefaults(), cluster: cluster, peers: map[uint64]*tcpPeer{}}
}

// SetPeer sets the address of node id: messages to it go there from now on.
func (t *TCPTransport) SetPeer(id uint64, addr string) {
	t.mu.Lock()
	old := t.peers[id]
	if t.closed || old != nil && old.addr == addr {
		t.mu.Unlock()
		return
	}
	p := &tcpPeer{t: t, addr: addr, queue: make(chan []byte, t.cfg.QueueLen), done: make(chan struct{}), exited: make(chan struct{})}
	t.peers[id] = p
	p.wg.Add(1)
	go p.run()
	t.mu.Unlock()
	if old != nil {
		old.stop()
	}
}

// Peers implements Transport: the nodes SetPeer gave an address, less
// those removed since.
func (t *TCPTransport) Peers() []uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]uint64, 0, len(t.peers))
	for id := range t.peers {
		ids = append(ids, id)
	}
	return ids
}

// RemovePeer forgets node id; its queued messages are dropped. It does not
// wait for the peer's goroutine, which may be in the middle of a dial or a
// write to a server that is going away: the state machine calls it while
// it applies a member's removal, and must not stall the log for that.
func (t *TCPTransport) RemovePeer(id uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.peers[id]
	if p == nil {
		return
	}
	delete(t.peers, id)
	p.once.Do(func() { close(p.done) })
	t.retired = slices.DeleteFunc(t.retired, (*tcpPeer).ended)
	t.retired = append(t.retired, p)
}

// Close stops every peer's goroutine.
func (t *TCPTransport) Close() {
	t.mu.Lock()
	t.closed = true
	peers := t.peers
	t.peers = map[uint64]*tcpPeer{}
	retired := t.retired
	t.retired = nil
	t.mu.Unlock()
	for _, p := range peers {
		p.stop()
	}
	for _, p := range retired {
		p.stop()
	}
}

// Send implements Transport: each message is encoded and queued for its
// peer; a message to an unknown peer or to a full queue (QueueLen messages,
// or QueueBytes) is dropped.
func (t *TCPTransport) Send(msgs []*pb.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range msgs {
		p := t.peers[m.GetTo()]
		if p == nil {
			continue
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.cfg.Logf("cluster %s: encoding a %s to %d: %v", t.cluster, m.GetType(), m.GetTo(), err)
			continue
		}
		if q := p.queued.Load(); q > 0 && q+int64(len(b)) > t.cfg.QueueBytes {
			continue // the peer is slow or down: raft sends again
		}
		p.queued.Add(int64(len(b)))
		select {
		case p.queue <- b:
		default: // (as above)
			p.queued.Add(-int64(len(b)))
		}
	}
}

// SendSnapshot implements Transport over a connection of its own.
func (t *TCPTransport) SendSnapshot(m *pb.Message, body io.Reader) error {
	t.mu.Lock()
	p := t.peers[m.GetTo()]
	t.mu.Unlock()
	if p == nil {
		return fmt.Errorf("cluster %s: no address for node %d", t.cluster, m.GetTo())
	}
	c, w, err := t.dial(p.addr, streamSnapshot)
	if err != nil {
		return err
	}
	defer c.Close()
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	c.SetWriteDeadline(time.Now().Add(t.cfg.WriteTimeout))
	if err := writeFrame(w, b); err != nil {
		return t.sendError(p.addr, err)
	}
	if err := w.Flush(); err != nil {
		return t.sendError(p.addr, err)
	}
	// The chunks go straight to the connection, each in one write: the
	// body is read in after room for its length, which is put just
	// before it (through the buffered writer, a chunk was two writes).
	const room = binary.MaxVarintLen64
	buf := make([]byte, room+256<<10)
	pace := newPacer(t.cfg.SnapshotRate, len(buf)-room)
	for {
		n, rerr := io.ReadFull(body, buf[room:])
		if n > 0 {
			pace.wait(n)
			var head [room]byte
			h := binary.PutUvarint(head[:], uint64(n))
			copy(buf[room-h:], head[:h])
			c.SetWriteDeadline(time.Now().Add(t.cfg.WriteTimeout))
			if _, err := c.Write(buf[room-h : room+n]); err != nil {
				return t.sendError(p.addr, err)
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("cluster %s: reading the snapshot to send: %w", t.cluster, rerr)
		}
	}
	c.SetWriteDeadline(time.Now().Add(t.cfg.WriteTimeout))
	if _, err := c.Write([]byte{0}); err != nil { // (the end: a chunk of no bytes)
		return t.sendError(p.addr, err)
	}
	c.SetReadDeadline(time.Now().Add(t.cfg.SnapshotReplyTimeout))
	if err := readStatus(bufio.NewReader(c)); err != nil {
		return fmt.Errorf("cluster %s: node %d at %s did not take the snapshot: %w", t.cluster, m.GetTo(), p.addr, err)
	}
	return nil
}

// AskStanding implements Transport: it dials the address of peer to
// (SetPeer) and asks what node id is there.
func (t *TCPTransport) AskStanding(ctx context.Context, to, id uint64) (Standing, error) {
	t.mu.Lock()
	p := t.peers[to]
	t.mu.Unlock()
	if p == nil {
		return StandingUnknown, fmt.Errorf("cluster %s: ask node %d: its address is not known", t.cluster, to)
	}
	var s Standing
	err := t.exchange(ctx, p.addr, streamStanding, binary.AppendUvarint(nil, id), func(r *bufio.Reader) error {
		b, err := r.ReadByte()
		switch {
		case err != nil:
			return fmt.Errorf("cluster %s: ask node %d at %s: %w", t.cluster, to, p.addr, unexpected(err))
		case Standing(b) > StandingRemoved:
			return fmt.Errorf("cluster %s: node %d at %s answered a standing %d this server does not know", t.cluster, to, p.addr, b)
		}
		s = Standing(b)
		return nil
	})
	if err != nil {
		return StandingUnknown, err
	}
	return s, nil
}

// Gone implements Transport: it asks peer id what id is to it (a request
// every server answers) and calls the peer down when the connection is
// refused, or reset or closed before the answer: what a killed process's
// address does, directly or through a proxy whose target is down.
func (t *TCPTransport) Gone(ctx context.Context, id uint64) bool {
	_, err := t.AskStanding(ctx, id, id)
	if err == nil || ctx.Err() != nil {
		return false
	}
	for _, down := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, down) {
			return true
		}
	}
	return false
}

func (t *TCPTransport) sendError(addr string, err error) error {
	return fmt.Errorf("cluster %s: sending to %s: %w", t.cluster, addr, err)
}

// dial connects to addr and sends the preamble of a stream of kind, then
// waits for the server to accept it.
func (t *TCPTransport) dial(addr string, kind byte) (net.Conn, *bufio.Writer, error) {
	return t.dialContext(context.Background(), addr, kind)
}

// dialContext is dial, given up when ctx ends.
func (t *TCPTransport) dialContext(ctx context.Context, addr string, kind byte) (net.Conn, *bufio.Writer, error) {
	dctx, cancel := context.WithTimeout(ctx, t.cfg.DialTimeout)
	defer cancel()
	if via, ok := t.cfg.Via[addr]; ok {
		addr = via
	}
	var c net.Conn
	var err error
	if t.cfg.ClientTLS != nil {
		d := &tls.Dialer{Config: t.cfg.ClientTLS}
		c, err = d.DialContext(dctx, "tcp", addr)
	} else {
		var d net.Dialer
		c, err = d.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cluster %s: connecting to %s: %w", t.cluster, addr, err)
	}
	w := bufio.NewWriterSize(c, 64<<10)
	c.SetDeadline(time.Now().Add(t.cfg.DialTimeout + t.cfg.WriteTimeout))
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	err = writePreamble(w, kind, t.cluster)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = readStatus(bufio.NewReaderSize(c, 512))
	}
	if !stop() && err == nil {
		err = ctx.Err() // the deadline it set may outlive this call
	}
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			err = ctx.Err() // (not the broken stream it made)
		}
		return nil, nil, fmt.Errorf("cluster %s: opening a stream to %s: %w", t.cluster, addr, err)
	}
	c.SetDeadline(time.Time{})
	return c, w, nil
}

// tcpPeer is the queue and connection of one peer.
type tcpPeer struct {
	t      *TCPTransport
	addr   string
	queue  chan []byte
	done   chan struct{}
	exited chan struct{} // closed when run returns
	queued atomic.Int64  // the bytes of the messages in queue
	once   sync.Once
	wg     sync.WaitGroup
}

// ended reports whether p's goroutine has returned.
func (p *tcpPeer) ended() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (p *tcpPeer) stop() {
	p.once.Do(func() { close(p.done) })
	p.wg.Wait()
}

// run connects and writes the queue until stop, reconnecting with a
// backoff; while the peer cannot be reached its queued messages are dropped.
func (p *tcpPeer) run() {
	defer p.wg.Done()
	defer close(p.exited)
	// Stopped, the peer gives up a connection it waits for (Close does
	// not wait out the dial timeout of a peer that takes connections and
	// answers nothing).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelWhen(ctx, cancel, p.done)
	backoff := 50 * time.Millisecond
	for {
		select {
		case <-p.done:
			return
		default:
		}
		c, w, err := p.t.dialContext(ctx, p.addr, streamMessages)
		if err != nil {
			p.t.cfg.Logf("%v", err)
			if !p.drainFor(backoff) {
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		err = p.write(c, w)
		c.Close()
		if err == nil {
			return // stopped
		}
		p.t.cfg.Logf("cluster %s: sending to %s: %v", p.t.cluster, p.addr, err)
	}
}

// drainFor drops queued messages for d; false when stopped meanwhile.
func (p *tcpPeer) drainFor(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-p.done:
			return false
		case <-timer.C:
			return true
		case b := <-p.queue:
			p.queued.Add(-int64(len(b)))
		}
	}
}

// write sends queued messages on c, flushing when the queue is empty;
// nil when stopped, the error of a failed write otherwise.
func (p *tcpPeer) write(c net.Conn, w *bufio.Writer) error {
	for {
		var b []byte
		select {
		case <-p.done:
			return nil
		case b = <-p.queue:
		}
		p.queued.Add(-int64(len(b)))
		c.SetWriteDeadline(time.Now().Add(p.t.cfg.WriteTimeout))
		if err := writeFrame(w, b); err != nil {
			return err
		}
		for more := true; more; {
			select {
			case b = <-p.queue:
				p.queued.Add(-int64(len(b)))
				if err := writeFrame(w, b); err != nil {
					return err
				}
			default:
				more = false
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

func writePreamble(w *bufio.Writer, kind byte, cluster string) error {
	w.WriteString(tcpMagic)
	w.WriteByte(kind)
	return writeFrame(w, []byte(cluster))
}

// maxClusterName bounds the cluster name of a preamble.
const maxClusterName = 1 << 10

func readPreamble(r *bufio.Reader) (kind byte, cluster string, err error) {
	magic := make([]byte, len(tcpMagic))
	if _, err := io.ReadFull(r, magic); err != nil {
		return 0, "", fmt.Errorf("reading the preamble: %w", err)
	}
	if string(magic) != tcpMagic {
		return 0, "", errors.New("not a glint raft stream (bad preamble)")
	}
	if kind, err = r.ReadByte(); err != nil {
		return 0, "", fmt.Errorf("reading the preamble: %w", err)
	}
	if kind != streamMessages && kind != streamSnapshot && kind != streamRequest && kind != streamStanding {
		return 0, "", fmt.Errorf("unknown stream kind %d", kind)
	}
	name, err := readFrame(r, maxClusterName)
	if err != nil {
		return 0, "", fmt.Errorf("reading the cluster name: %w", err)
	}
	return kind, string(name), nil
}

// writeFrame writes a uvarint length and b.
func writeFrame(w *bufio.Writer, b []byte) error {
	var n [binary.MaxVarintLen64]byte
	if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// readFrame reads a frame of at most max bytes.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, fmt.Errorf("a frame of %d bytes, over the limit of %d", n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, unexpected(err)
	}
	return b, nil
}

func readMessage(r *bufio.Reader, max int) (*pb.Message, error) {
	b, err := readFrame(r, max)
	if err != nil {
		return nil, err
	}
	m := new(pb.Message)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("a message that does not decode: %w", err)
	}
	return m, nil
}

// maxReason bounds the text of a status.
const maxReason = 64 << 10

func writeStatus(w io.Writer, err error) error {
	bw := bufio.NewWriter(w)
	if err == nil {
		bw.WriteByte(0)
	} else {
		bw.WriteByte(1)
		msg := err.Error()
		if len(msg) > maxReason {
			msg = msg[:maxReason]
		}
		writeFrame(bw, []byte(msg))
	}
	return bw.Flush()
}

func readStatus(r *bufio.Reader) error {
	b, err := r.ReadByte()
	if err != nil {
		return fmt.Errorf("no answer: %w", unexpected(err))
	}
	switch b {
	case 0:
		return nil
	case 1:
		msg, err := readFrame(r, maxReason)
		if err != nil {
			return fmt.Errorf("a refusal without its reason: %w", err)
		}
		return &RemoteError{Msg: string(msg)}
	}
	return fmt.Errorf("an answer of unknown kind %d: the address does not speak glint's replication protocol "+
		"(a MySQL or HTTP listener? give the member's replication_listen address)", b)
}

// RemoteError is the error a peer answered with.
type RemoteError struct{ Msg string }

func (e *RemoteError) Error() string { return "the peer answered: " + e.Msg }

// chunkReader reads the chunks of a snapshot body up to the chunk of
// length 0.
type chunkReader struct {
	r     *bufio.Reader
	renew func() // extends the read deadline
	left  uint64 // bytes left in the current chunk
	done  bool   // the end chunk was read
	err   error  // the stream broke
}

// maxChunk bounds a snapshot chunk.
const maxChunk = 16 << 20

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		c.renew()
		n, err := binary.ReadUvarint(c.r)
		if err != nil {
			c.err = fmt.Errorf("the snapshot stream broke: %w", unexpected(err))
			return 0, c.err
		}
		if n > maxChunk {
			c.err = fmt.Errorf("a snapshot chunk of %d bytes, over the limit of %d", n, maxChunk)
			return 0, c.err
		}
		if n == 0 {
			c.done = true
			return 0, io.EOF
		}
		c.left = n
	}
	if uint64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= uint64(n)
	if err != nil {
		c.err = fmt.Errorf("the snapshot stream broke: %w", unexpected(err))
		return n, c.err
	}
	return n, nil
}

// unexpected turns io.EOF in the middle of something into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
