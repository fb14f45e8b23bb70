package sql

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/glint-search/glint/index"
)

// A distributed search reads each shard twice: phase one finds the ids of
// the page, phase two reads their stored text and highlights them. So that
// both read the same documents, phase one asks the shard to hold the
// snapshot it searched (OPTION hold_snapshot) and SHOW META answers a
// token for it (row snapshot); phase two names it (OPTION snapshot='...')
// and reads that snapshot, whatever was written to the table in between.
// A held snapshot is taken by the first statement that names it, or
// dropped snapshotHold after it was held (a shard with no row in the page
// is not asked again). It keeps the segments it holds from being reclaimed
// meanwhile, as any search does while it runs.

// snapshotHold is the least time a shard holds a snapshot for phase two.
// A coordinator asks for longer when a slow shard could keep it from phase
// two longer than that (holdFor): the snapshot of a shard that answered
// must outlast the wait for the others.
const snapshotHold = 5 * time.Second

// maxHoldMillis bounds OPTION hold_snapshot (an hour).
const maxHoldMillis = 3_600_000

// holdFor is how long the shards of d hold the snapshots of phase one: the
// longest a coordinator can wait for phase one's slowest shard (every
// mirror tried, each round, for the connection and the answer), and then
// snapshotHold for phase two to reach them.
func (d *distTable) holdFor(timeout time.Duration) time.Duration {
	mirrors := 1
	for _, a := range d.agents {
		mirrors = max(mirrors, len(a.mirrors))
	}
	wait := time.Duration((1+d.retryCount)*mirrors) * (d.connectTimeout + timeout)
	return min(wait+snapshotHold, maxHoldMillis*time.Millisecond)
}

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
	page  *heldPage // what the holding search found for its page, or nil
}

// hold keeps snap of table for d (at least snapshotHold) and returns its
// token, or "" when maxHeldSnapshots are held already.
func (h *heldSnapshots) hold(table *index.Table, snap *index.Snapshot, now time.Time, d time.Duration) (string, error) {
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
	h.m[token] = heldSnapshot{table: table, snap: snap, until: now.Add(max(d, snapshotHold))}
	return token, nil
}

// keepPage records, with the snapshot held under token, what the search
// that held it found for its page.
func (h *heldSnapshots) keepPage(token string, page *heldPage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if held, ok := h.m[token]; ok {
		held.page = page
		h.m[token] = held
	}
}

// take returns the snapshot of table held under token, and the page its
// search found (or nil), and stops holding it; false when there is none
// (never held, expired, taken, or of another table).
func (h *heldSnapshots) take(token string, table *index.Table, now time.Time) (*index.Snapshot, *heldPage, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	held, ok := h.m[token]
	if !ok || held.table != table || now.After(held.until) {
		h.sweep(now)
		return nil, nil, false
	}
	delete(h.m, token)
	h.sweep(now)
	return held.snap, held.page, true
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
// one, or the one OPTION snapshot names; with OPTION hold_snapshot, it
// is held and p.heldToken says its token (SHOW META).
func (s *Session) snapshotOf(p *selectPlan) (*index.Snapshot, error) {
	now := time.Now()
	snap := p.table.Snapshot()
	if p.sc.match != nil {
		p.sc.match.held = nil
	}
	if p.opts.snapshot != "" {
		var ok bool
		var page *heldPage
		if snap, page, ok = s.engine.held.take(p.opts.snapshot, p.table, now); !ok {
			return nil, Errorf(CodeBadOption, "OPTION snapshot: table '%s' holds no snapshot with this token (a snapshot is held for the time OPTION hold_snapshot gave, at least %s, for one statement)",
				p.table.Schema().Name, snapshotHold)
		}
		if p.sc.match != nil {
			p.sc.match.held = page
		}
	}
	if p.opts.holdSnapshot > 0 {
		token, err := s.engine.held.hold(p.table, snap, now, p.opts.holdSnapshot)
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

// Phase two asks a shard for rows that its phase one found, on the same
// snapshot, with the same MATCH() and the same ranking options, adding
// only "AND id IN (those ids)". Searching again would give the same
// matches and weights: so phase one keeps, with the snapshot it holds, the
// matches of its page (at most offset+count of them, ids and weights), and
// phase two takes them instead of walking the posting lists again, when
// its search is the same and every id it asks for is among them. (A
// profile of a four-agent HIGHLIGHT() page had that second search at a
// fifth of an agent's phase-two CPU.) Anything else searches as usual.

// heldPage is what a search that held its snapshot found for its page.
type heldPage struct {
	search  searchKey
	terms   []index.TermStat
	warns   []string
	matches []index.Match // in ascending id order
	ids     []uint64      // the ids of matches
}

// searchKey is what decides a MATCH() search's matches and weights on a
// snapshot of a table, apart from the ids it is limited to.
type searchKey struct {
	query        string
	ranker       index.Ranker
	fieldWeights map[string]int
	global       *index.GlobalStats
}

func searchKeyOf(m *matchExpr) searchKey {
	return searchKey{query: m.query, ranker: m.opts.Ranker, fieldWeights: m.opts.FieldWeights, global: m.opts.Global}
}

func (k searchKey) equal(o searchKey) bool {
	if k.query != o.query || k.ranker != o.ranker || !maps.Equal(k.fieldWeights, o.fieldWeights) || (k.global == nil) != (o.global == nil) {
		return false
	}
	return k.global == nil || k.global.Docs == o.global.Docs && maps.Equal(k.global.TermDocs, o.global.TermDocs)
}

// maxKeptPage is the most rows of a page kept with a held snapshot (24
// bytes each): a deeper page (a large LIMIT offset) is not kept, and its
// phase two searches again.
const maxKeptPage = 1000

// keepPage records the matches of page, the rows a search that held its
// snapshot found (p.heldToken), for the phase two that will read it. Only
// a plain MATCH() search that every row must pass is kept.
func (s *Session) keepPage(p *selectPlan, page []candidate) {
	m := p.sc.match
	if p.heldToken == "" || m == nil || m.parsed || m.result == nil || !matchIsRequired(p.where, m) || len(page) > maxKeptPage {
		return
	}
	sorted := slices.Clone(page)
	slices.SortFunc(sorted, func(a, b candidate) int { return cmp.Compare(a.id, b.id) })
	hp := &heldPage{search: searchKeyOf(m), terms: m.result.Terms, warns: m.result.Warnings,
		matches: make([]index.Match, len(sorted)), ids: make([]uint64, len(sorted))}
	for i, c := range sorted {
		hp.matches[i] = index.Match{Ref: c.ref, Weight: c.weight}
		hp.ids[i] = c.id
	}
	s.engine.held.keepPage(p.heldToken, hp)
}

// heldResult is the search result of m limited to its ids (OPTION Only)
// as the page its snapshot's holder kept gives it; false when that page
// cannot stand for the search.
func (m *matchExpr) heldResult(where expr) (*index.SearchResult, bool) {
	hp := m.held
	if hp == nil || m.parsed || m.opts.Only == nil || !matchIsRequired(where, m) || !hp.search.equal(searchKeyOf(m)) {
		return nil, false
	}
	want := make(map[uint64]bool, len(m.opts.Only))
	for _, id := range m.opts.Only {
		want[id] = true
	}
	res := &index.SearchResult{Terms: hp.terms, Warnings: hp.warns, Matches: make([]index.Match, 0, len(want))}
	for i, id := range hp.ids {
		if want[id] {
			res.Matches = append(res.Matches, hp.matches[i])
		}
	}
	if len(res.Matches) != len(want) {
		return nil, false // an id the page did not hold: search
	}
	return res, true
}
