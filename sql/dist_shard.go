package sql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Remote runs statements on agents: the MySQL listeners of other glintd
// servers. cmd/glintd gives the engine one (package agent); without one, a
// distributed table can only have local shards.
type Remote interface {
	// Query runs stmts in order on one connection to addr (host:port),
	// connecting within connect, and returns one Result each. It returns
	// when ctx ends, with ctx's error. An error the agent answered (the
	// statement is wrong there: an unknown column, a bad query) is an
	// *AgentError; any other error means the agent could not be reached
	// or did not answer, and another mirror may be asked.
	Query(ctx context.Context, addr string, connect time.Duration, stmts ...string) ([]*Result, error)
}

// AgentError is an error an agent answered to a statement: its MySQL
// error number and message.
type AgentError struct {
	Number  uint16
	Message string
}

func (e *AgentError) Error() string { return fmt.Sprintf("error %d: %s", e.Number, e.Message) }

// ErrConnectTimeout is what a Remote's error wraps when no connection (or
// no MySQL handshake) came within agent_connect_timeout: a time limit, as
// agent_query_timeout is (a JSON answer says timed_out).
var ErrConnectTimeout = errors.New("agent_connect_timeout")

// SetRemote gives the engine the client it asks agents with.
func (e *Engine) SetRemote(r Remote) { e.remote = r }

// deadMirrorPause is how long a mirror that failed is skipped before it is
// asked again (the Sphinx family's ha_period_karma is a minute; a restarted
// glintd is back within seconds).
const deadMirrorPause = 5 * time.Second

// mirrorHealth is what the engine remembers of the mirrors it asked: when
// each failed last, so that the next searches skip it for a while; and a
// round-robin counter per shard.
type mirrorHealth struct {
	mu     sync.Mutex
	deadAt map[string]time.Time // by addr: the last failure
	rr     map[string]*atomic.Uint64
}

func (h *mirrorHealth) failed(addr string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.deadAt == nil {
		h.deadAt = map[string]time.Time{}
	}
	h.deadAt[addr] = now
}

func (h *mirrorHealth) succeeded(addr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.deadAt, addr)
}

func (h *mirrorHealth) dead(addr string, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.deadAt[addr]
	return ok && now.Sub(at) < deadMirrorPause
}

func (h *mirrorHealth) next(shard string) uint64 {
	h.mu.Lock()
	if h.rr == nil {
		h.rr = map[string]*atomic.Uint64{}
	}
	c, ok := h.rr[shard]
	if !ok {
		c = &atomic.Uint64{}
		h.rr[shard] = c
	}
	h.mu.Unlock()
	return c.Add(1) - 1
}

// shard is one part of a distributed table: a local table, or an agent
// with its mirrors.
type shard struct {
	name    string       // for messages: local 't1' or agent 'h:p:t|...'
	local   string       // the local table, or ""
	mirrors []distMirror // an agent's mirrors
	// asked is the mirror that answered phase one (an index into
	// mirrors), which phase two asks again.
	asked int
	// timedOut: the shard gave no answer, and a mirror was given up for
	// agent_query_timeout (the result lacks what it holds).
	timedOut bool
}

func (d *distTable) shards() []*shard {
	var out []*shard
	for _, l := range d.locals {
		out = append(out, &shard{name: "local '" + l + "'", local: l})
	}
	for _, a := range d.agents {
		out = append(out, &shard{name: "agent '" + a.text + "'", mirrors: a.mirrors})
	}
	return out
}

// mirrorOrder is the order in which the mirrors of sh are tried: by the
// table's ha_strategy, live ones first, those that failed lately last.
func (s *Session) mirrorOrder(d *distTable, sh *shard, now time.Time) []int {
	n := len(sh.mirrors)
	if n == 1 {
		return []int{0} // asked whether it is marked dead or not
	}
	first := 0
	switch d.ha {
	case "roundrobin":
		first = int(s.engine.health.next(d.name+"\x00"+sh.name) % uint64(n))
	default:
		first = rand.IntN(n)
	}
	var live, dead []int
	for i := range n {
		m := (first + i) % n
		if s.engine.health.dead(sh.mirrors[m].addr, now) {
			dead = append(dead, m)
		} else {
			live = append(live, m)
		}
	}
	return append(live, dead...)
}

// errNoRemote is the error of a search of an agent by an engine without a
// Remote.
var errNoRemote = errors.New("this server has no client for agents")

// ask runs stmts on one shard (in-process for a local table, over the
// Remote for an agent) with the statement text made for its table by
// build. For an agent, it tries the mirrors in mirrorOrder, each failure
// marking the mirror dead for a while, through the table's retry count;
// phase two (fixed) asks only the mirror that answered phase one, then the
// others. An *AgentError or an error of a local table is the statement's
// error and is not retried. Each call has timeout from its start (not
// from the phase's: a call whose goroutine starts late, on a starved
// CPU, still gets all of it).
func (s *Session) ask(ctx context.Context, d *distTable, sh *shard, timeout time.Duration, fixed bool, build func(table string) []string) ([]*Result, error) {
	if sh.local != "" {
		local := s.engine.NewSession(s.user)
		stmts := build(sh.local)
		out := make([]*Result, 0, len(stmts))
		for _, st := range stmts {
			r, err := local.Exec(ctx, st)
			if err != nil {
				if _, dist := s.engine.db.DistributedTable(sh.local); dist {
					// Made distributed after this table named it (a
					// definition from before CREATE refused that): its
					// statements refused it as a coordinator's.
					return nil, Errorf(CodeBadOption, "'%s' is a distributed table now; a local shard is a table with documents of this server", sh.local)
				}
				return nil, err
			}
			out = append(out, r...)
		}
		return out, nil
	}
	if s.engine.remote == nil {
		return nil, errNoRemote
	}
	order := s.mirrorOrder(d, sh, time.Now())
	if fixed {
		order = append([]int{sh.asked}, without(order, sh.asked)...)
	}
	var lastErr error
	var errs []string // the last round's, one per mirror: the error names each
	for attempt := 0; attempt <= d.retryCount; attempt++ {
		errs = errs[:0]
		for _, m := range order {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			mirror := sh.mirrors[m]
			callCtx, cancel := context.WithTimeout(ctx, timeout)
			res, err := s.engine.remote.Query(callCtx, mirror.addr, d.connectTimeout, build(mirror.table)...)
			timedOut := callCtx.Err() != nil && ctx.Err() == nil
			cancel()
			if err == nil {
				s.engine.health.succeeded(mirror.addr)
				sh.asked = m
				return res, nil
			}
			var ae *AgentError
			if errors.As(err, &ae) {
				if len(sh.mirrors) > 1 {
					// Which of the mirrors said it (the others may not).
					named := *ae
					named.Message = fmt.Sprintf("mirror %s: %s", mirror, ae.Message)
					return nil, &named
				}
				return nil, err
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if timedOut {
				err = fmt.Errorf("no answer within agent_query_timeout (%d ms)", timeout.Milliseconds())
				sh.timedOut = true
			}
			if errors.Is(err, ErrConnectTimeout) {
				sh.timedOut = true
			}
			s.engine.health.failed(mirror.addr, time.Now())
			lastErr = fmt.Errorf("mirror %s: %w", mirror, err)
			errs = append(errs, lastErr.Error())
		}
	}
	if len(errs) > 1 {
		return nil, fmt.Errorf("%s; %w", strings.Join(errs[:len(errs)-1], "; "), lastErr)
	}
	return nil, lastErr
}

func without(list []int, x int) []int {
	out := make([]int, 0, len(list))
	for _, v := range list {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// shardError is the error of a shard's statement, naming the shard.
func shardError(d *distTable, sh *shard, err error) error {
	var ae *AgentError
	if errors.As(err, &ae) {
		return Errorf(codeOfMySQL(ae.Number), "distributed table '%s', %s: %s", d.name, sh.name, ae.Message)
	}
	var e *Error
	if errors.As(err, &e) {
		return Errorf(e.Code, "distributed table '%s', %s: %s", d.name, sh.name, e.Msg)
	}
	return Errorf(CodeShardFailed, "distributed table '%s', %s: %v", d.name, sh.name, err)
}

// codeOfMySQL is the Code of a MySQL error number an agent answered (the
// first Code with that number), or CodeShardFailed.
func codeOfMySQL(n uint16) Code {
	for c := range numCodes {
		if codes[c].number == n && c != CodeInternal {
			return c
		}
	}
	return CodeShardFailed
}

// isDeadShard reports whether err means that no mirror of a shard answered
// (rather than that the statement is wrong).
func isDeadShard(err error) bool {
	var ae *AgentError
	var e *Error
	return err != nil && !errors.As(err, &ae) && !errors.As(err, &e) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		!errors.Is(err, errNoRemote)
}
