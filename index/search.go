package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

// SearchOptions change how a search ranks its matches.
type SearchOptions struct {
	Ranker Ranker
	// FieldWeights weighs the indexed text fields by lower-case name; a
	// field that is not named weighs 1.
	FieldWeights map[string]int
	// Global, if set, are the statistics of the collection the table is a
	// part of, which ranking uses instead of the table's (globalstats.go).
	Global *GlobalStats
	// Only, if not nil, limits the matches to the documents of these ids
	// (a coordinator's fetch of a page's rows): the others are not
	// evaluated. Weights and keyword statistics are those of the whole
	// table.
	Only []uint64
}

// SearchResult is what a search found.
type SearchResult struct {
	Matches  []Match    // in ascending id order
	Terms    []TermStat // one per distinct query keyword, in query order
	Warnings []string   // how the query was understood where it may surprise (e.g. a wildcard searched as a plain word)
}

// TermStat is what the index knows of one query keyword, for SHOW META.
type TermStat struct {
	Keyword string // the keyword as written in the query (a wildcard with its '*')
	Term    string // the indexed form
	Docs    int64  // live documents that contain it (any expansion, any field)
	Hits    int64  // its occurrences in all documents (deleted ones included)
}

// QueryError is a query the table cannot answer: an unknown field, an
// operator that needs a setting the table lacks, a wildcard that expands too
// far. Pos is the byte offset in the query text.
type QueryError struct {
	Pos int
	Msg string
}

func (e *QueryError) Error() string { return fmt.Sprintf("%s (at offset %d)", e.Msg, e.Pos) }

// maxExpansions bounds the distinct terms one wildcard may expand to.
const maxExpansions = 100000

// Search returns the live documents that match q with the default ranker.
func (s *Snapshot) Search(ctx context.Context, q query.Node) ([]Match, error) {
	r, err := s.SearchWith(ctx, q, SearchOptions{})
	if err != nil {
		return nil, err
	}
	return r.Matches, nil
}

// TermStats returns the document and hit counts of the keywords of q.
func (s *Snapshot) TermStats(ctx context.Context, q query.Node) ([]TermStat, error) {
	p, err := s.compile(q)
	if err != nil {
		return nil, err
	}
	if err := s.fetch(ctx, p); err != nil {
		return nil, err
	}
	return p.stats(), nil
}

// SearchWith returns the live documents that match q, each with its weight
// (see Ranker), and the statistics of the query's keywords. A nil q matches
// nothing (the SQL layer gives MATCH(”) its own meaning).
func (s *Snapshot) SearchWith(ctx context.Context, q query.Node, opts SearchOptions) (*SearchResult, error) {
	p, err := s.compile(q)
	if err != nil {
		return nil, err
	}
	p.weights = make([]int64, len(s.layout.indexed))
	for f, col := range s.layout.indexed {
		p.weights[f] = 1
		if w, ok := opts.FieldWeights[strings.ToLower(s.schema.Columns[col].Name)]; ok {
			p.weights[f] = int64(w)
		}
	}
	p.ranker = opts.Ranker
	p.global = opts.Global
	if opts.Only != nil {
		p.only = s.onlyOrdinals(opts.Only)
	}
	if err := s.fetch(ctx, p); err != nil {
		return nil, err
	}
	res := &SearchResult{Terms: p.stats(), Warnings: p.warnings}
	if p.root == nil || s.live == 0 {
		return res, nil
	}
	p.prepareRanking(s)
	db := s.t.db
	db.searching.Add(1)
	defer db.searching.Add(-1)
	cands, total, work := s.candidates(p)
	matches, ids, err := s.evaluate(ctx, p, splitCandidates(cands, total, db.searchWorkers(work)), total)
	if err != nil {
		return nil, err
	}
	res.Matches = matches
	if !slices.IsSorted(ids) {
		perm := make([]int, len(ids))
		for i := range perm {
			perm[i] = i
		}
		slices.SortFunc(perm, func(a, b int) int {
			switch {
			case ids[a] < ids[b]:
				return -1
			case ids[a] > ids[b]:
				return 1
			}
			return 0
		})
		sorted := make([]Match, len(res.Matches))
		for i, x := range perm {
			sorted[i] = res.Matches[x]
		}
		res.Matches = sorted
	}
	return res, nil
}

// candidates returns the candidates of p in each segment that has any,
// their number and an estimate of the work of evaluating them.
func (s *Snapshot) candidates(p *plan) (cands []segCandidates, total, work int) {
	for pos, seg := range s.segs {
		e := newSegEval(s, p, pos)
		cand := e.candidates(p.root)
		if cand == nil || cand.IsEmpty() {
			continue
		}
		if seg.deleted != nil {
			cand = roaring.AndNot(cand, seg.deleted)
		}
		if p.only != nil {
			cand = roaring.And(cand, orEmpty(p.only[pos]))
		}
		n := int(cand.GetCardinality())
		cands = append(cands, segCandidates{pos: pos, e: e, cand: cand, n: n})
		total += n
		work += candidateWork * n
		if !p.counts {
			for _, lt := range p.leaves {
				for _, fp := range lt.segs[pos].postings {
					work += int(fp.p.hits)
				}
			}
		}
	}
	return cands, total, work
}

// evaluate evaluates p over the total candidates of groups, a goroutine
// per group, and returns the matches and their ids in candidate order.
func (s *Snapshot) evaluate(ctx context.Context, p *plan, groups [][]piece, total int) ([]Match, []uint64, error) {
	outs := make([]evalOut, len(groups))
	// When every candidate matches, each group appends to its own part of
	// one pair of arrays, and the parts end up side by side.
	var matches []Match
	var ids []uint64
	if p.exact {
		matches, ids = make([]Match, total), make([]uint64, total)
	}
	off := 0
	for i, g := range groups {
		n := 0
		for _, pc := range g {
			n += pc.n
		}
		if p.exact {
			outs[i].matches, outs[i].ids = matches[off:off:off+n], ids[off:off:off+n]
			off += n
		} else {
			n = min(n, 1024) // candidates that may not match
			outs[i].matches, outs[i].ids = make([]Match, 0, n), make([]uint64, 0, n)
		}
	}
	// The calling goroutine evaluates the first group itself: one
	// goroutine fewer to start, and one wakeup fewer to wait for.
	var wg sync.WaitGroup
	for i, g := range groups[1:] {
		wg.Go(func() { s.evalPieces(ctx, p, g, &outs[i+1]) })
	}
	s.evalPieces(ctx, p, groups[0], &outs[0])
	wg.Wait()
	n := 0
	for _, o := range outs {
		if o.err != nil {
			return nil, nil, o.err
		}
		n += len(o.matches)
	}
	switch {
	case p.exact && n == total:
		return matches, ids, nil
	case len(outs) == 1:
		return outs[0].matches, outs[0].ids, nil
	}
	matches, ids = make([]Match, 0, n), make([]uint64, 0, n)
	for _, o := range outs {
		matches = append(matches, o.matches...)
		ids = append(ids, o.ids...)
	}
	return matches, ids, nil
}

// Parallel evaluation: a search whose candidates are many, on a server with
// idle CPUs, splits them among goroutines (the matches come out in the same
// order). Sphinx evaluates a query on one thread; at low concurrency the
// other CPUs would idle while one long query (a phrase of frequent words
// over every document) holds the client.

// A search's work is estimated by the positions its ranker reads (every
// occurrence of its terms in the segments with candidates, when it needs
// positions) and its candidates, each counted as candidateWork positions.
// searchParallelWork is the least work worth a goroutine of its own: about
// 0.1 ms (the goroutine, the cursors it walks to reach its candidates, and
// the wait cost more than they save below it).
const (
	candidateWork      = 8
	searchParallelWork = 8192
)

// searchWorkers returns how many goroutines should evaluate a search of
// the given work: one per CPU that no other search is using, at most one
// per searchParallelWork.
func (db *DB) searchWorkers(work int) int {
	if n := db.knobs.searchWorkers; n > 0 {
		return n
	}
	idle := runtime.GOMAXPROCS(0) - int(db.searching.Load()) + 1
	return max(1, min(idle, work/searchParallelWork))
}

// segCandidates is a segment's candidate ordinals for a plan.
type segCandidates struct {
	pos  int
	e    *segEval // the evaluator that computed them, for the piece that starts at 0
	cand *roaring.Bitmap
	n    int // cand's cardinality
}

// piece is the n candidates of one segment in the ordinals [from, to).
type piece struct {
	c        *segCandidates
	from, to uint64
	n        int
}

// splitCandidates cuts the candidates into w groups of consecutive pieces
// of about the same size (fewer when there are fewer candidates).
func splitCandidates(cands []segCandidates, total, w int) [][]piece {
	per := max(1, (total+w-1)/w)
	groups := make([][]piece, 1, w)
	room := per
	for i := range cands {
		c := &cands[i]
		from, done := uint64(0), 0
		for done < c.n {
			if room == 0 {
				groups = append(groups, nil)
				room = per
			}
			take := min(c.n-done, room)
			to := uint64(1) << 32
			if done+take < c.n {
				// The first candidate of the next piece (Select fails only
				// past the cardinality).
				next, _ := c.cand.Select(uint32(done + take))
				to = uint64(next)
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], piece{c: c, from: from, to: to, n: take})
			from, done, room = to, done+take, room-take
		}
	}
	return groups
}

// evalOut is what one group of pieces found: matches and their ids in
// evaluation order.
type evalOut struct {
	matches []Match
	ids     []uint64
	err     error
}

// evalPieces evaluates p over the candidates of pieces, appending to out.
func (s *Snapshot) evalPieces(ctx context.Context, p *plan, pieces []piece, out *evalOut) {
	n := 0
	for _, pc := range pieces {
		e := pc.c.e
		if pc.from > 0 { // another goroutine may evaluate the start of the segment
			e = newSegEval(s, p, pc.c.pos)
		}
		seg := s.segs[pc.c.pos]
		it := pc.c.cand.Iterator()
		it.AdvanceIfNeeded(uint32(pc.from))
		for it.HasNext() && uint64(it.PeekNext()) < pc.to {
			ord := it.Next()
			if n++; n%1024 == 0 && ctx.Err() != nil {
				out.err = ctx.Err()
				return
			}
			e.startDoc(ord)
			if !p.exact && !e.match(p.root) {
				continue
			}
			out.matches = append(out.matches, Match{Ref: DocRef{Seg: uint32(pc.c.pos), Ord: ord}, Weight: e.weight()})
			out.ids = append(out.ids, seg.ids[ord])
		}
	}
}

// plan is a query compiled against one snapshot: the distinct index terms
// it reads (leafTerms) and a tree of operator nodes over them.
type plan struct {
	root     node // nil: matches nothing
	exact    bool // the candidate bitmaps are exactly the matches (no positional check)
	leaves   []*leafTerm
	keywords []*leaf // every keyword node in query order (negated ones too)
	warnings []string

	sentence, paragraph int // leafTerm index of the boundary terms, or -1
	units               int // the strongest unit operator in the query (unitSentence, ...), 0 for none

	ranker  Ranker
	weights []int64   // per indexed field
	nwords  int       // distinct positive keywords, for the rankers
	span    int       // query positions from the first positive keyword to the last
	idf     []float64 // per leafTerm
	boost   []float64 // per leafTerm: the largest boost of its keywords
	counts  bool      // rank from occurrence counts (countsOnly)
	sparse  bool      // rank from counts the documents whose fields hold one keyword each (sparseCounts)

	global *GlobalStats            // SearchOptions.Global: N and df for the idf, or nil
	only   map[int]*roaring.Bitmap // SearchOptions.Only: ordinals per segment position, or nil
}

// leafTerm is one thing the index is asked for: a word, or a wildcard with
// its expansions. Keywords that ask for the same thing share it.
type leafTerm struct {
	term     string // the indexed form or the folded pattern
	wildcard bool
	text     string      // as written, for SHOW META
	pattern  termMatcher // wildcard only (a glob or a REGEX)
	prefix   string      // wildcard only: the literal start of the pattern
	stat     bool        // reported by SHOW META (not a reserved term)

	segs []leafSeg // per snapshot segment position
	docs int64
	hits int64
}

// leafSeg are the postings of a leafTerm in one segment: one per (field, term).
type leafSeg struct {
	postings []fieldPosting
	any      *roaring.Bitmap // union over all fields; nil when none
	byField  []*roaring.Bitmap
}

type fieldPosting struct {
	field int
	p     posting
}

func (p *plan) addLeaf(lt leafTerm) int {
	for i, x := range p.leaves {
		if x.term == lt.term && x.wildcard == lt.wildcard {
			if lt.stat {
				x.stat = true
				if x.text == "" {
					x.text = lt.text
				}
			}
			return i
		}
	}
	p.leaves = append(p.leaves, &lt)
	return len(p.leaves) - 1
}

func (p *plan) stats() []TermStat {
	out := []TermStat{}
	for _, lt := range p.leaves {
		if lt.stat {
			out = append(out, TermStat{Keyword: lt.text, Term: lt.term, Docs: lt.docs, Hits: lt.hits})
		}
	}
	return out
}

// fetch reads the posting lists of every leafTerm in every segment, in one
// read transaction, expanding wildcards against each segment's terms.
func (s *Snapshot) fetch(ctx context.Context, p *plan) error {
	txn := readTxn{db: s.t.db.bdb}
	defer txn.discard()
	for _, lt := range p.leaves {
		lt.segs = make([]leafSeg, len(s.segs))
		terms := map[string]bool{}
		for pos := range s.segs {
			if err := ctx.Err(); err != nil {
				return s.fetchErr(err)
			}
			if err := s.fetchSeg(&txn, lt, pos, terms, true); err != nil {
				return s.fetchErr(err)
			}
		}
	}
	return nil
}

// fetchSegment reads the posting lists of every leafTerm of p in the
// segment at position pos only, without the bitmaps a search needs: what
// matching one document of the segment needs (TextMatcher.MatchStored).
// p.leaves[*].segs must be allocated; the caller makes sure that one
// goroutine fetches a segment once.
func (s *Snapshot) fetchSegment(p *plan, pos int) error {
	txn := readTxn{db: s.t.db.bdb}
	defer txn.discard()
	for _, lt := range p.leaves {
		if err := s.fetchSeg(&txn, lt, pos, map[string]bool{}, false); err != nil {
			return s.fetchErr(err)
		}
	}
	return nil
}

// readTxn is a badger read transaction begun when it is first needed: the
// posting lists of most searches are all in the DB's cache, and beginning
// a transaction costs a hand-off to badger's watermark goroutine. The
// snapshot keeps the keys of its segments (see retiredSegment), so a
// transaction begun later reads what one begun earlier would.
type readTxn struct {
	db  *badger.DB
	txn *badger.Txn
}

// get returns the transaction, beginning it on the first call.
func (r *readTxn) get() (*badger.Txn, error) {
	if r.txn == nil {
		if r.db.IsClosed() {
			return nil, badger.ErrDBClosed
		}
		r.txn = r.db.NewTransaction(false)
	}
	return r.txn, nil
}

func (r *readTxn) discard() {
	if r.txn != nil {
		r.txn.Discard()
	}
}

func (s *Snapshot) fetchErr(err error) error {
	if err != nil {
		var qe *QueryError
		if errors.As(err, &qe) {
			return qe
		}
		return fmt.Errorf("index: search %s: %w", s.schema.Name, dbErr(err))
	}
	return nil
}

// fetchSeg reads the posting lists of lt in the segment at position pos
// into lt.segs[pos], counting the wildcard expansions in terms (shared by
// the segments of one search) and, for a search, the statistics and the
// union bitmaps it needs (which touch lt itself: one goroutine at a time).
func (s *Snapshot) fetchSeg(rt *readTxn, lt *leafTerm, pos int, terms map[string]bool, search bool) error {
	nf := len(s.layout.indexed)
	seg := s.segs[pos]
	ls := &lt.segs[pos]
	var key []byte
	for f := 0; f < nf; f++ {
		add := func(term string, val []byte) error {
			post, err := decodePosting(val)
			if err != nil {
				return fmt.Errorf("segment %d term %q: %w", seg.seg, term, err)
			}
			ls.postings = append(ls.postings, fieldPosting{field: f, p: post})
			if search {
				lt.hits += int64(post.hits)
			}
			return nil
		}
		if !lt.wildcard {
			term := []byte(lt.term)
			key = appendPostingKey(key[:0], s.tid, seg.seg, byte(f), term)
			post, found, err := s.posting(rt, seg, f, term, key)
			if err != nil {
				return fmt.Errorf("segment %d term %q: %w", seg.seg, lt.term, err)
			}
			if found {
				ls.postings = append(ls.postings, fieldPosting{field: f, p: post})
				if search {
					lt.hits += int64(post.hits)
				}
			}
			continue
		}
		expand := func(term []byte) (bool, error) {
			t := string(term)
			if tokenize.IsReserved(t) != tokenize.IsReserved(lt.term) || !lt.pattern.match(t) {
				return false, nil
			}
			if !terms[t] {
				if len(terms) == maxExpansions {
					what := fmt.Sprintf("wildcard '%s'", lt.text)
					if _, ok := lt.pattern.(regexTerm); ok {
						what = fmt.Sprintf("REGEX(/%s/)", lt.text)
					}
					return false, &QueryError{Msg: fmt.Sprintf("%s expands to more than %d terms", what, maxExpansions)}
				}
				terms[t] = true
			}
			return true, nil
		}
		txn, err := rt.get()
		if err != nil {
			return err
		}
		if seg.blocks != nil {
			err := s.scanBlocks(txn, seg, f, []byte(lt.prefix), func(e blockEntry) error {
				ok, err := expand(e.term)
				if !ok || err != nil {
					return err
				}
				val := bytes.Clone(e.posting)
				if e.own {
					key = appendPostingKey(key[:0], s.tid, seg.seg, byte(f), e.term)
					if val, err = ownPosting(txn, key); err != nil {
						return err
					}
				}
				return add(string(e.term), val)
			})
			if err != nil {
				return err
			}
			continue
		}
		key = appendPostingKey(key[:0], s.tid, seg.seg, byte(f), []byte(lt.prefix))
		it := txn.NewIterator(badger.IteratorOptions{Prefix: key})
		n := len(key) - len(lt.prefix)
		for it.Rewind(); it.Valid(); it.Next() {
			term := it.Item().Key()[n:]
			ok, err := expand(term)
			if ok {
				var val []byte
				if val, err = it.Item().ValueCopy(nil); err == nil {
					err = add(string(term), val)
				}
			}
			if err != nil {
				it.Close()
				return err
			}
		}
		it.Close()
	}
	if len(ls.postings) == 0 || !search {
		return nil
	}
	ls.byField = make([]*roaring.Bitmap, nf)
	for _, fp := range ls.postings {
		if ls.byField[fp.field] == nil {
			ls.byField[fp.field] = fp.p.bm
		} else {
			ls.byField[fp.field] = roaring.Or(ls.byField[fp.field], fp.p.bm)
		}
	}
	for _, bm := range ls.byField {
		if bm == nil {
			continue
		}
		if ls.any == nil {
			ls.any = bm
		} else {
			ls.any = roaring.Or(ls.any, bm)
		}
	}
	n := int64(ls.any.GetCardinality())
	if seg.deleted != nil {
		n -= int64(ls.any.AndCardinality(seg.deleted))
	}
	lt.docs += n
	return nil
}

// posting reads the posting list of term in field f of segment seg, whose
// 'P' key is key, through the DB's cache.
func (s *Snapshot) posting(rt *readTxn, seg *segment, f int, term, key []byte) (posting, bool, error) {
	if seg.filters != nil && !seg.filters[f].mayContain(term) {
		return posting{}, false, nil
	}
	cache := s.t.db.cache
	if e, ok := cache.get(key); ok {
		return e.p, !e.absent, nil
	}
	txn, err := rt.get()
	if err != nil {
		return posting{}, false, err
	}
	var val []byte
	if seg.blocks != nil {
		e, found, err := s.findInBlock(txn, seg, f, term)
		if err != nil {
			return posting{}, false, err
		}
		if !found {
			cache.put(key, cacheEntry{absent: true}, 0)
			return posting{}, false, nil
		}
		val = e.posting
		if e.own {
			if val, err = ownPosting(txn, key); err != nil {
				return posting{}, false, err
			}
		}
	} else {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			cache.put(key, cacheEntry{absent: true}, 0)
			return posting{}, false, nil
		}
		if err != nil {
			return posting{}, false, err
		}
		if val, err = item.ValueCopy(nil); err != nil {
			return posting{}, false, err
		}
	}
	p, err := decodePosting(val)
	if err != nil {
		return posting{}, false, err
	}
	cache.put(key, cacheEntry{p: p}, len(val))
	return p, true, nil
}

// ownPosting reads the posting list that a block entry says has its own key.
func ownPosting(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: posting list of a block entry is missing", errCorrupt)
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// findInBlock finds the entry of term in field f of seg, if it has one; its
// inline posting list is a copy, its term is term.
func (s *Snapshot) findInBlock(txn *badger.Txn, seg *segment, f int, term []byte) (blockEntry, bool, error) {
	x := &seg.blocks[f]
	i := x.find(term)
	if i < 0 {
		return blockEntry{}, false, nil
	}
	item, err := txn.Get(append(appendBlockPrefix(nil, s.tid, seg.seg, byte(f)), x.first(i)...))
	if err != nil {
		return blockEntry{}, false, blockErr(err)
	}
	var e blockEntry
	found := false
	err = item.Value(func(b []byte) error {
		var err error
		e, found, err = lookupBlock(b, term)
		e.term, e.posting = term, bytes.Clone(e.posting)
		return err
	})
	return e, found, err
}

// scanBlocks calls fn with every entry of field f of seg whose term begins
// with prefix, in term order (the entry's slices are valid only during the
// call), until fn fails.
func (s *Snapshot) scanBlocks(txn *badger.Txn, seg *segment, f int, prefix []byte, fn func(blockEntry) error) error {
	x := &seg.blocks[f]
	var key []byte
	for i := max(x.find(prefix), 0); i < x.len(); i++ {
		first := x.first(i)
		if !bytes.HasPrefix(first, prefix) && bytes.Compare(first, prefix) > 0 {
			break
		}
		key = append(appendBlockPrefix(key[:0], s.tid, seg.seg, byte(f)), first...)
		item, err := txn.Get(key)
		if err != nil {
			return blockErr(err)
		}
		err = item.Value(func(b []byte) error {
			for len(b) > 0 {
				e, rest, err := nextEntry(b)
				if err != nil {
					return err
				}
				b = rest
				if bytes.HasPrefix(e.term, prefix) {
					if err := fn(e); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// blockErr is the error of reading a block that the block index names.
func blockErr(err error) error {
	if errors.Is(err, badger.ErrKeyNotFound) {
		return fmt.Errorf("%w: a block of the block index is missing", errCorrupt)
	}
	return err
}

// glob matches a folded wildcard pattern: '*' any run of characters, '?'
// exactly one, '%' zero or one.
// termMatcher tells the dictionary terms a wildcard or a REGEX expands to.
type termMatcher interface{ match(term string) bool }

type glob []rune

func (g glob) match(s string) bool { return globMatch(g, []rune(s)) }

// regexTerm matches whole terms with a REGEX's expression; with exact set,
// only the words as written (tokenize.ExactTerm), without their mark.
type regexTerm struct {
	re    *regexp.Regexp
	exact bool
}

// exactMark begins the words as written (tokenize.ExactTerm).
var exactMark = tokenize.ExactTerm("")

func (r regexTerm) match(term string) bool {
	if r.exact {
		if !strings.HasPrefix(term, exactMark) {
			return false
		}
		term = term[len(exactMark):]
	}
	return r.re.MatchString(term)
}

// globMatch runs the pattern over s as a set of reachable states, one row
// per pattern rune: O(len(g)*len(s)) whatever the pattern.
func globMatch(g, s []rune) bool {
	cur := make([]bool, len(s)+1) // cur[i]: the pattern so far can match s[:i]
	next := make([]bool, len(s)+1)
	cur[0] = true
	for _, c := range g {
		clear(next)
		for i, ok := range cur {
			if !ok {
				continue
			}
			switch c {
			case '*':
				for j := i; j <= len(s); j++ {
					next[j] = true
				}
			case '%':
				next[i] = true
				if i < len(s) {
					next[i+1] = true
				}
			case '?':
				if i < len(s) {
					next[i+1] = true
				}
			default:
				if i < len(s) && s[i] == c {
					next[i+1] = true
				}
			}
			if c == '*' {
				break
			}
		}
		cur, next = next, cur
	}
	return cur[len(s)]
}

func isWildcardRune(r rune) bool { return r == '*' || r == '?' || r == '%' }
