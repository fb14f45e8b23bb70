package jepsen

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"sync"
	"time"
)

// Direction is one way through a Proxy: Up is from the side that dialed the
// proxy to its target, Down is back.
type Direction int

// The two directions of a proxied connection.
const (
	Up Direction = iota
	Down
)

func (d Direction) String() string {
	if d == Up {
		return "up"
	}
	return "down"
}

// Faults are what a Proxy does to the bytes through it. The zero value passes
// everything at once.
type Faults struct {
	// Each chunk read is forwarded after Delay plus a uniformly random part
	// of Jitter, in order (a later chunk never overtakes an earlier one).
	Delay, Jitter time.Duration
	// Loss is the probability, per chunk, that the connection is reset
	// instead (both sides see it broken), as a lossy path ends in a TCP
	// timeout. 0 to 1.
	Loss float64
	// Block[Up] and Block[Down] blackhole one direction: its bytes are
	// read and discarded, the connection stays open and silent. A new
	// connection while either is blocked is held without reaching the
	// target (a TCP handshake needs both directions).
	Block [2]bool
}

// Validate says what is wrong with f.
func (f Faults) Validate() error {
	switch {
	case f.Delay < 0 || f.Jitter < 0:
		return fmt.Errorf("jepsen: proxy delay %v and jitter %v must not be negative", f.Delay, f.Jitter)
	case f.Loss < 0 || f.Loss > 1:
		return fmt.Errorf("jepsen: proxy loss %v is not a probability (0 to 1)", f.Loss)
	}
	return nil
}

// ProxyStats count what a Proxy did.
type ProxyStats struct {
	Accepted  int   // connections accepted
	Held      int   // of them, held without reaching the target (a block was on)
	Reset     int   // connections reset by Loss or Drop
	Forwarded int64 // bytes forwarded, both ways
	Discarded int64 // bytes blackholed, both ways
}

// Proxy is a TCP proxy with faults that can change while connections are
// open: the project's stand-in for netem, placed between glintd nodes (each
// node dials its peers through one) or between clients and a node.
//
// A blackholed connection cannot be healed in place: bytes it discarded are
// gone, so Heal resets every connection that lost bytes or was held, as a
// real partition ends with TCP timeouts; the ends reconnect.
type Proxy struct {
	ln net.Listener

	mu     sync.Mutex
	target string
	faults Faults
	rng    *rand.Rand
	links  map[*link]struct{}
	stats  ProxyStats
	closed bool
	wg     sync.WaitGroup
}

// link is one proxied connection.
type link struct {
	client   net.Conn
	poisoned bool // lost bytes or was held: reset at Heal (guarded by the Proxy's mu)

	mu     sync.Mutex
	server net.Conn // nil while held or dialing
	closed bool
}

// reset closes both ends with a TCP RST where it can.
func (l *link) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	for _, c := range []net.Conn{l.client, l.server} {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		if c != nil {
			_ = c.Close()
		}
	}
}

// connect records the connection to the target; false if the link was
// reset meanwhile (s is then closed).
func (l *link) connect(s net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = s.Close()
		return false
	}
	l.server = s
	return true
}

// NewProxy listens on listen (host:port; port 0 picks one) and forwards
// every connection to target. seed drives jitter and loss.
func NewProxy(listen, target string, seed int64) (*Proxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("jepsen: proxy: %w", err)
	}
	p := &Proxy{ln: ln, target: target, rng: rand.New(rand.NewSource(seed)), links: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is where new connections go.
func (p *Proxy) Target() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target
}

// SetTarget changes where new connections go (open ones stay).
func (p *Proxy) SetTarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
}

// SetFaults replaces the faults; open connections take them from their next
// chunk.
func (p *Proxy) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = f
	return nil
}

// Faults returns the faults in force.
func (p *Proxy) Faults() Faults {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults
}

// Block blackholes one direction (a one-way cut), keeping the other faults.
func (p *Proxy) Block(d Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults.Block[d] = true
}

// Partition blackholes both directions.
func (p *Proxy) Partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults.Block = [2]bool{true, true}
}

// Heal clears every fault and resets the connections that lost bytes or
// were held.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.faults = Faults{}
	var poisoned []*link
	for l := range p.links {
		if l.poisoned {
			poisoned = append(poisoned, l)
		}
	}
	p.mu.Unlock()
	for _, l := range poisoned {
		l.reset()
	}
}

// Drop resets every open connection now; new ones are accepted as the
// faults say.
func (p *Proxy) Drop() {
	p.mu.Lock()
	var all []*link
	for l := range p.links {
		all = append(all, l)
	}
	p.stats.Reset += len(all)
	p.mu.Unlock()
	for _, l := range all {
		l.reset()
	}
}

// Stats returns the counts so far.
func (p *Proxy) Stats() ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close stops listening, resets every connection and waits for the proxy's
// goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Drop()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		l := &link{client: c}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			l.reset()
			return
		}
		p.links[l] = struct{}{}
		p.stats.Accepted++
		held := p.faults.Block[Up] || p.faults.Block[Down]
		if held {
			l.poisoned = true
			p.stats.Held++
		}
		target := p.target
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(l, held, target)
	}
}

// serve runs one connection to its end.
func (p *Proxy) serve(l *link, held bool, target string) {
	defer p.wg.Done()
	defer func() {
		l.reset()
		p.mu.Lock()
		delete(p.links, l)
		p.mu.Unlock()
	}()
	if held { // swallow what the client sends until Heal or Drop resets it
		buf := make([]byte, 4<<10)
		for {
			n, err := l.client.Read(buf)
			p.mu.Lock()
			p.stats.Discarded += int64(n)
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
	s, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		return // the client sees its connection closed, as with a refused port
	}
	if !l.connect(s) {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pump(l, Up, l.client, s) }()
	go func() { defer wg.Done(); p.pump(l, Down, s, l.client) }()
	wg.Wait()
}

// chunk is bytes due to be written at a time.
type chunk struct {
	b   []byte
	due time.Time
}

// pump copies one direction, applying the faults chunk by chunk. A writer
// goroutine delivers chunks at their due times, in order.
func (p *Proxy) pump(l *link, d Direction, src, dst net.Conn) {
	queue := make(chan chunk, 1024)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for c := range queue {
			if wait := time.Until(c.due); wait > 0 {
				time.Sleep(wait)
			}
			if _, err := dst.Write(c.b); err != nil {
				l.reset()
				for range queue { // drain so the reader never blocks
				}
				return
			}
		}
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // pass the half-close on
		}
	}()
	defer func() {
		close(queue)
		<-writerDone
	}()
	var last time.Time
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			f := p.faults
			lose := f.Loss > 0 && p.rng.Float64() < f.Loss
			var jitter time.Duration
			if f.Jitter > 0 {
				jitter = time.Duration(p.rng.Int63n(int64(f.Jitter) + 1))
			}
			switch {
			case lose:
				p.stats.Reset++
			case f.Block[d]:
				l.poisoned = true
				p.stats.Discarded += int64(n)
			default:
				p.stats.Forwarded += int64(n)
			}
			p.mu.Unlock()
			if lose {
				l.reset()
				return
			}
			if !f.Block[d] {
				due := time.Now().Add(f.Delay + jitter)
				if due.Before(last) {
					due = last
				}
				last = due
				queue <- chunk{b: append([]byte(nil), buf[:n]...), due: due}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				l.reset()
			}
			return
		}
	}
}
