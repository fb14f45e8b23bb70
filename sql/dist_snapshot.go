package sql

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/glint-search/glint/index"
)

// A distributed search reads each shard twice: phase one finds the ids of
// the page, phase two reads their stored text and highlights them. So that
// both read the same documents, phase one asks the shard to hold the
// snapshot it searched (OPTION hold_snapshot=1) and SHOW META answers a
// token for it (row snapshot); phase two names it (OPTION snapshot='...')
// and reads that snapshot, whatever was written to the table in between.
// A held snapshot is taken by the first statement that names it, or
// dropped snapshotHold after it was held (a shard with no row in the page
// is not asked again). It keeps the segments it holds from being reclaimed
// meanwhile, as any search does while it runs.

// snapshotHold is how long a shard holds a snapshot for phase two.
const snapshotHold = 5 * time.Second

// maxHeldSnapshots bounds the snapshots held at once. Past it, a search
// asked to hold its snapshot does not, and says so in a warning: its
// coordinator's phase two reads the table as it is then (its rows that
// are gone by then are left out, and said so).
const maxHeldSnapshots = 100_000

// heldSnapshots are the snapshots the engine holds for phase two, by token.
type heldSnapshots struct {
	mu sync.Mutex
	m  map[string]heldSnapshot
}

type heldSnapshot struct {
	table *index.Table
	snap  *index.Snapshot
	until time.Time
}

// hold keeps snap of table for snapshotHold and returns its token, or ""
// when maxHeldSnapshots are held already.
func (h *heldSnapshots) hold(table *index.Table, snap *index.Snapshot, now time.Time) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", asError(err)
	}
	token := hex.EncodeToString(b[:])
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]heldSnapshot{}
	}
	if len(h.m) >= maxHeldSnapshots {
		h.sweep(now)
		if len(h.m) >= maxHeldSnapshots {
			return "", nil
		}
	}
	h.m[token] = heldSnapshot{table: table, snap: snap, until: now.Add(snapshotHold)}
	return token, nil
}

// take returns the snapshot of table held under token and stops holding
// it; false when there is none (never held, expired, taken, or of another
// table).
func (h *heldSnapshots) take(token string, table *index.Table, now time.Time) (*index.Snapshot, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	held, ok := h.m[token]
	if !ok || held.table != table || now.After(held.until) {
		h.sweep(now)
		return nil, false
	}
	delete(h.m, token)
	h.sweep(now)
	return held.snap, true
}

// sweep drops the snapshots held past their time. h.mu is held.
func (h *heldSnapshots) sweep(now time.Time) {
	for token, held := range h.m {
		if now.After(held.until) {
			delete(h.m, token)
		}
	}
}

// snapshotOf is the snapshot a search of p reads: the table's current
// one, or the one OPTION snapshot names; with OPTION hold_snapshot=1, it
// is held and p.heldToken says its token (SHOW META).
func (s *Session) snapshotOf(p *selectPlan) (*index.Snapshot, error) {
	now := time.Now()
	snap := p.table.Snapshot()
	if p.opts.snapshot != "" {
		var ok bool
		if snap, ok = s.engine.held.take(p.opts.snapshot, p.table, now); !ok {
			return nil, Errorf(CodeBadOption, "OPTION snapshot='%s': table '%s' holds no snapshot with this token (a snapshot is held %s after the query that asked for it, for one statement)",
				p.opts.snapshot, p.table.Schema().Name, snapshotHold)
		}
	}
	if p.opts.holdSnapshot {
		token, err := s.engine.held.hold(p.table, snap, now)
		if err != nil {
			return nil, err
		}
		if token == "" {
			s.pending = append(s.pending, warning{level: "Warning", code: CodeRowsDropped,
				msg: fmt.Sprintf("OPTION hold_snapshot: %d snapshots are held already; this one is not, and the fetch reads table '%s' as it is then", maxHeldSnapshots, p.table.Schema().Name)})
		}
		p.heldToken = token
	}
	return snap, nil
}
