package jepsen

import (
	"bufio"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer answers every line with the same line, and keeps what it
// received.
type echoServer struct {
	ln   net.Listener
	mu   sync.Mutex
	got  []string
	wg   sync.WaitGroup
	conn chan net.Conn
}

func startEcho(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &echoServer{ln: ln, conn: make(chan net.Conn, 16)}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.conn <- c
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					e.mu.Lock()
					e.got = append(e.got, sc.Text())
					e.mu.Unlock()
					if _, err := c.Write([]byte(sc.Text() + "\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(e.conn)
		for c := range e.conn {
			c.Close()
		}
		e.wg.Wait()
	})
	return e
}

func (e *echoServer) received() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

func startProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := NewProxy("127.0.0.1:0", target, 1)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func dial(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, line string) {
	t.Helper()
	_, err := c.Write([]byte(line + "\n"))
	require.NoError(t, err)
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, line+"\n", got)
}

// eventually polls cond (state reached by other goroutines) until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "never: %s", what)
	}
}

func TestProxyForwards(t *testing.T) {
	e := startEcho(t)
	p := startProxy(t, e.ln.Addr().String())
	c, r := dial(t, p)
	for _, line := range []string{"one", "two", "three"} {
		roundTrip(t, c, r, line)
	}
	assert.Equal(t, []string{"one", "two", "three"}, e.received())
	st := p.Stats()
	assert.Equal(t, 1, st.Accepted)
	assert.Equal(t, int64(2*len("one\ntwo\nthree\n")), st.Forwarded)
	assert.Zero(t, st.Discarded)
}

// TestProxyDelay: a delay holds each chunk at least that long, and order
// survives jitter.
func TestProxyDelay(t *testing.T) {
	e := startEcho(t)
	p := startProxy(t, e.ln.Addr().String())
	require.NoError(t, p.SetFaults(Faults{Delay: 30 * time.Millisecond, Jitter: 20 * time.Millisecond}))
	c, r := dial(t, p)
	start := time.Now()
	roundTrip(t, c, r, "slow")
	assert.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond, "30 ms each way")
	var lines []string
	for i := range 50 {
		lines = append(lines, string(rune('a'+i%26))+"x")
	}
	for _, l := range lines {
		_, err := c.Write([]byte(l + "\n"))
		require.NoError(t, err)
	}
	for _, l := range lines {
		got, err := r.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, l+"\n", got)
	}
}

// TestProxyOneWayCut: with Up blocked, the client's bytes are lost while the
// server's still arrive; Heal resets the connection that lost bytes, and a
// new one works.
func TestProxyOneWayCut(t *testing.T) {
	e := startEcho(t)
	p := startProxy(t, e.ln.Addr().String())
	c, r := dial(t, p)
	roundTrip(t, c, r, "before")
	server := <-e.conn // the proxy's connection to the echo server

	p.Block(Up)
	_, err := c.Write([]byte("lost\n"))
	require.NoError(t, err)
	eventually(t, "the proxy discards the 5 bytes", func() bool { return p.Stats().Discarded == 5 })
	_, err = server.Write([]byte("from the server\n"))
	require.NoError(t, err)
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "from the server\n", got, "down is open")
	assert.Equal(t, []string{"before"}, e.received(), "up is cut")

	p.Heal()
	_, err = r.ReadString('\n')
	assert.Error(t, err, "the connection that lost bytes is reset at heal")
	c2, r2 := dial(t, p)
	roundTrip(t, c2, r2, "after")
	assert.Equal(t, []string{"before", "after"}, e.received())
}

// TestProxyPartition: a connection made during a partition is held, never
// reaching the server, and reset at Heal.
func TestProxyPartition(t *testing.T) {
	e := startEcho(t)
	p := startProxy(t, e.ln.Addr().String())
	p.Partition()
	c, r := dial(t, p)
	_, err := c.Write([]byte("hello\n"))
	require.NoError(t, err)
	eventually(t, "the held connection swallows 6 bytes", func() bool { return p.Stats().Discarded == 6 })
	assert.Equal(t, 1, p.Stats().Held)
	assert.Empty(t, e.received())
	p.Heal()
	_, err = r.ReadString('\n')
	assert.Error(t, err)
	c2, r2 := dial(t, p)
	roundTrip(t, c2, r2, "healed")
}

func TestProxyLossAndDrop(t *testing.T) {
	e := startEcho(t)
	p := startProxy(t, e.ln.Addr().String())

	c, r := dial(t, p)
	roundTrip(t, c, r, "up")
	p.Drop()
	_, err := r.ReadString('\n')
	assert.Error(t, err, "Drop resets open connections")

	require.NoError(t, p.SetFaults(Faults{Loss: 1}))
	c2, r2 := dial(t, p)
	_, err = c2.Write([]byte("gone\n"))
	require.NoError(t, err)
	_, err = r2.ReadString('\n')
	assert.Error(t, err, "loss 1 resets at the first chunk")
	assert.Equal(t, 2, p.Stats().Reset)
	assert.Empty(t, e.received()[1:])

	require.NoError(t, p.SetFaults(Faults{}))
	c3, r3 := dial(t, p)
	roundTrip(t, c3, r3, "fine")
}

func TestProxySetTarget(t *testing.T) {
	e1, e2 := startEcho(t), startEcho(t)
	p := startProxy(t, e1.ln.Addr().String())
	c, r := dial(t, p)
	roundTrip(t, c, r, "to one")
	p.SetTarget(e2.ln.Addr().String())
	c2, r2 := dial(t, p)
	roundTrip(t, c2, r2, "to two")
	roundTrip(t, c, r, "still one")
	assert.Equal(t, []string{"to one", "still one"}, e1.received())
	assert.Equal(t, []string{"to two"}, e2.received())
}

func TestFaultsValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		f   Faults
		err string
	}{
		"negative delay": {Faults{Delay: -1}, "must not be negative"},
		"loss above 1":   {Faults{Loss: 1.5}, "not a probability"},
		"loss below 0":   {Faults{Loss: -0.1}, "not a probability"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorContains(t, tc.f.Validate(), tc.err)
		})
	}
	assert.NoError(t, Faults{Delay: time.Millisecond, Loss: 0.5, Block: [2]bool{true, false}}.Validate())
}
