package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// errPacketTooLarge ends a connection that sent a packet over max_allowed_packet.
var errPacketTooLarge = errors.New("server: packet over max_allowed_packet")

// How long and how much of an oversized packet is read and thrown away, so that
// the client finishes sending it and then reads error 1153 rather than a reset.
const (
	drainTimeout = 10 * time.Second
	drainLimit   = 1 << 30
)

// maxPhysical is the payload length of a physical packet that another one
// continues (MySQL's 16 MiB - 1).
const maxPhysical = 1<<24 - 1

// wireConn is the net.Conn that go-mysql's packet layer reads and writes for one
// MySQL connection. It
//   - buffers writes and flushes them before each read (one syscall per
//     response rather than one per packet),
//   - sets read deadlines: the handshake deadline during the handshake, the idle
//     timeout while waiting for a command, the read timeout inside a packet,
//   - follows the packet headers of what the client sends and answers a logical
//     packet over max_allowed_packet with error 1153 before go-mysql sees its
//     header (so nothing is allocated for it), then fails the read,
//   - watches the socket while a statement runs, to cancel it if the client goes
//     away (beginWatch, tick, endWatch).
//
// Read, Write and Close are called from the connection's goroutine only.
type wireConn struct {
	net.Conn // the raw connection

	bw    *bufio.Writer
	guard packetGuard

	idleTimeout, readTimeout, writeTimeout time.Duration
	handshakeDeadline                      time.Time // zero once the handshake is done

	// Set by the watcher goroutine, read by Read after the watcher stopped.
	peeked  []byte // bytes the watcher read: the start of the next command
	readErr error  // sticky: returned by every later Read

	rejectPending bool // an oversized packet was found; reject it at the next Read
	rejected      bool // error 1153 was sent: the connection is finished
	greeted       bool // the first write (the server's greeting) is done

	closeOnce sync.Once
	closeErr  error

	// The watch of a running statement (beginWatch, tick, endWatch).
	wmu      sync.Mutex
	wcancel  context.CancelFunc // the running statement's; nil between statements
	wseq     uint64             // statements begun
	wseen    uint64             // wseq at the last tick
	wstarted bool               // the background read runs
	wdone    chan struct{}      // closed when it has stopped
}

func newWireConn(raw net.Conn, cfg *Config) *wireConn {
	c := &wireConn{
		Conn:         raw,
		guard:        packetGuard{limit: int64(cfg.MaxAllowedPacket)},
		idleTimeout:  cfg.IdleTimeout,
		readTimeout:  cfg.ReadTimeout,
		writeTimeout: cfg.WriteTimeout,
	}
	c.bw = bufio.NewWriterSize(deadlineWriter{c}, 64<<10)
	return c
}

// deadlineWriter is the raw side of the write buffer: it sets the write deadline
// before each write that reaches the socket.
type deadlineWriter struct{ c *wireConn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	if w.c.writeTimeout > 0 {
		_ = w.c.Conn.SetWriteDeadline(time.Now().Add(w.c.writeTimeout))
	}
	return w.c.Conn.Write(p)
}

// Write buffers p; Read and Close flush it.
func (c *wireConn) Write(p []byte) (int, error) {
	if c.rejected {
		return 0, errPacketTooLarge
	}
	if !c.greeted {
		c.greeted = true
		if q, ok := greetingWithAutocommit(p); ok {
			return c.bw.Write(q)
		}
	}
	return c.bw.Write(p)
}

// greetingWithAutocommit returns a copy of the initial handshake packet p
// with SERVER_STATUS_AUTOCOMMIT in its status flags. go-mysql writes the
// greeting with no status and has no hook to set one; clients read it
// (PyMySQL decides from it whether to send SET autocommit), and every glint
// session starts with @@autocommit on. ok is false when p is not a
// protocol 10 greeting in one packet, which is then written as it is.
func greetingWithAutocommit(p []byte) (q []byte, ok bool) {
	if len(p) < 5 || int(p[0])|int(p[1])<<8|int(p[2])<<16 != len(p)-4 || p[3] != 0 || p[4] != 10 {
		return nil, false
	}
	i := bytes.IndexByte(p[5:], 0)
	if i < 0 {
		return nil, false
	}
	// server version, NUL, connection id (4), auth data (8), filler (1),
	// capabilities (2), character set (1), then the status (2).
	at := 5 + i + 1 + 4 + 8 + 1 + 2 + 1
	if at+2 > len(p) {
		return nil, false
	}
	q = bytes.Clone(p)
	q[at] |= byte(mysql.SERVER_STATUS_AUTOCOMMIT)
	return q, true
}

// flush sends what is buffered.
func (c *wireConn) flush() error {
	if c.bw.Buffered() == 0 {
		return nil
	}
	return c.bw.Flush()
}

// Read flushes pending writes, then reads from the client.
func (c *wireConn) Read(p []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	if c.rejectPending {
		return 0, c.reject()
	}
	if c.readErr != nil && len(c.peeked) == 0 {
		return 0, c.readErr
	}
	var n int
	var err error
	if len(c.peeked) > 0 {
		n = copy(p, c.peeked)
		c.peeked = c.peeked[n:]
	} else {
		_ = c.Conn.SetReadDeadline(c.readDeadline())
		n, err = c.Conn.Read(p)
	}
	pass, over := c.guard.feed(p[:n])
	if over {
		c.rejectPending = true
		if pass > 0 {
			return pass, nil
		}
		return 0, c.reject()
	}
	return n, err
}

// readDeadline is the deadline of the next read from the socket.
func (c *wireConn) readDeadline() time.Time {
	if !c.handshakeDeadline.IsZero() {
		return c.handshakeDeadline
	}
	d := c.readTimeout
	if c.guard.atBoundary() {
		d = c.idleTimeout
	}
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// reject reads the rest of an oversized packet (bounded in time and bytes, into
// a small buffer), answers error 1153 and makes the connection fail.
func (c *wireConn) reject() error {
	c.rejectPending = false
	buf := make([]byte, 32<<10)
	_ = c.Conn.SetReadDeadline(time.Now().Add(drainTimeout))
	drained := 0
	for !c.guard.done() && drained < drainLimit {
		n, err := c.Conn.Read(buf)
		c.guard.feed(buf[:n])
		drained += n
		if err != nil {
			break
		}
	}
	msg := packetTooLarge(c.guard.size, c.guard.limit)
	_, _ = c.bw.Write(errorPacket(c.guard.seq+1, mysql.ER_NET_PACKET_TOO_LARGE, "08S01", msg))
	_ = c.bw.Flush()
	c.rejected = true
	c.readErr = errPacketTooLarge
	return c.readErr
}

// packetTooLarge is MySQL's message of error 1153 for a packet of size
// bytes over limit.
func packetTooLarge(size, limit int64) string {
	return fmt.Sprintf("Got a packet bigger than 'max_allowed_packet' bytes (%d > %d)", size, limit)
}

// errorPacket is a complete ERR packet (header included) for a 4.1 client.
func errorPacket(seq byte, code uint16, state, msg string) []byte {
	n := 1 + 2 + 1 + 5 + len(msg)
	p := make([]byte, 0, 4+n)
	p = append(p, byte(n), byte(n>>8), byte(n>>16), seq)
	p = append(p, mysql.ERR_HEADER, byte(code), byte(code>>8), '#')
	p = append(p, state...)
	p = append(p, msg...)
	return p
}

// Close flushes what is buffered (bounded by the write timeout) and closes the
// socket. Only the connection's goroutine calls it; others close the raw
// net.Conn.
func (c *wireConn) Close() error {
	c.closeOnce.Do(func() {
		_ = c.flush()
		c.closeErr = c.Conn.Close()
	})
	return c.closeErr
}

// aLongTimeAgo is a deadline in the past: it wakes a blocked Read at once.
var aLongTimeAgo = time.Unix(1, 0)

// Watching a statement's socket costs about as much as a short statement, so
// it starts only for statements that run long: the server's watch loop calls
// tick every watchTick, and the second tick that sees the same statement
// running starts the watch (after 1-2 ticks).
const watchTick = 20 * time.Millisecond

// beginWatch notes that a statement runs with cancel as its context's cancel
// function. Once it has run for a while (see tick), the socket is read in the
// background: EOF or an error there (the client closed or reset the connection)
// calls cancel; a byte that arrives (a client that sends its next command
// early) is kept for the next Read. endWatch must be called before the next
// Read.
func (c *wireConn) beginWatch(cancel context.CancelFunc) {
	if len(c.peeked) > 0 || c.readErr != nil || c.rejectPending {
		return // already know what comes next
	}
	if err := c.flush(); err != nil {
		cancel()
		return
	}
	c.wmu.Lock()
	c.wcancel = cancel
	c.wseq++
	c.wmu.Unlock()
}

// endWatch ends the watch of the statement that ran, waiting for the background
// read to stop if it started.
func (c *wireConn) endWatch() {
	c.wmu.Lock()
	started, done := c.wstarted, c.wdone
	c.wcancel, c.wstarted, c.wdone = nil, false, nil
	c.wmu.Unlock()
	if started {
		_ = c.Conn.SetReadDeadline(aLongTimeAgo) // wakes the read
		<-done
	}
}

// tick starts the background read for a statement that has been running since
// the previous tick.
func (c *wireConn) tick() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wcancel == nil || c.wstarted {
		return
	}
	if c.wseen != c.wseq {
		c.wseen = c.wseq // first sighting
		return
	}
	cancel, done := c.wcancel, make(chan struct{})
	c.wstarted, c.wdone = true, done
	_ = c.Conn.SetReadDeadline(time.Time{})
	go func() {
		defer close(done)
		var b [1]byte
		n, err := c.Conn.Read(b[:])
		if n > 0 {
			c.peeked = append(c.peeked, b[0])
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			c.readErr = err
			cancel()
		}
	}()
}

// packetGuard follows the MySQL packet headers in the byte stream a client
// sends, to find a logical packet (physical packets of 16 MiB - 1 continued by
// the next one) larger than limit from its headers alone.
type packetGuard struct {
	limit int64 // largest logical payload accepted

	hdr  [4]byte
	hdrN int   // bytes of hdr read so far
	left int   // payload bytes of the current physical packet still to come
	more bool  // the current physical packet is continued by the next one
	size int64 // payload of the current logical packet, as announced so far
	seq  byte  // sequence id of the last header
	over bool  // the current logical packet is over limit

	// tls is set once the client's SSL request (a handshake response of
	// 32 bytes with CLIENT_SSL, which TLS follows) has gone by: from then
	// on the bytes are TLS records, not packets, and nothing is followed.
	tls    bool
	sslReq []byte // the start of a possible SSL request's payload
}

// feed follows b, the next bytes from the client. Once a packet is over the
// limit, over is true and pass is how many bytes of b come before that packet's
// header (bytes of earlier packets that may still be passed on); otherwise pass
// is len(b).
func (g *packetGuard) feed(b []byte) (pass int, over bool) {
	pass = len(b)
	if g.tls {
		return pass, false
	}
	hdrStart := 0
	for i := 0; i < len(b); {
		if g.left > 0 {
			k := min(g.left, len(b)-i)
			if g.sslReq != nil {
				g.sslReq = append(g.sslReq, b[i:i+min(k, 4-len(g.sslReq))]...)
			}
			g.left -= k
			i += k
			if g.left == 0 {
				if len(g.sslReq) == 4 && (uint32(g.sslReq[0])|uint32(g.sslReq[1])<<8)&mysql.CLIENT_SSL != 0 {
					g.tls = true // what follows in b is TLS
					return pass, false
				}
				g.sslReq = nil
			}
			continue
		}
		if g.hdrN == 0 {
			hdrStart = i
		}
		k := copy(g.hdr[g.hdrN:], b[i:])
		g.hdrN += k
		i += k
		if g.hdrN < 4 {
			break
		}
		g.hdrN = 0
		length := int(g.hdr[0]) | int(g.hdr[1])<<8 | int(g.hdr[2])<<16
		g.seq = g.hdr[3]
		if !g.more {
			g.size = 0
		}
		if length == sslRequestLen && g.seq == 1 && !g.more {
			g.sslReq = make([]byte, 0, 4) // (its capability flags come first)
		}
		g.size += int64(length)
		g.more = length == maxPhysical
		g.left = length
		if !g.over && g.size > g.limit {
			g.over = true
			pass = hdrStart
		}
	}
	if g.over && pass == len(b) {
		pass = 0 // over since an earlier feed
	}
	return pass, g.over
}

// atBoundary reports whether the next byte starts a new logical packet
// (under TLS, where packets are not followed: always).
func (g *packetGuard) atBoundary() bool { return g.tls || g.hdrN == 0 && g.left == 0 && !g.more }

// sslRequestLen is the payload of a protocol 4.1 SSL request: capability
// flags, max packet size, character set and 23 bytes of filler.
const sslRequestLen = 32

// done reports whether an oversized packet has been read to its end.
func (g *packetGuard) done() bool { return g.over && g.atBoundary() }
