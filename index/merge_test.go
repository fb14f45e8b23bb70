package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

func TestPickMerge(t *testing.T) {
	// Each segment as "n" or "n-d" (n documents, d of them deleted).
	cases := []struct {
		name   string
		factor int
		segs   []string
		lo, hi int
	}{
		{"none", 4, nil, 0, 0},
		{"fewer than the factor", 4, []string{"10", "10", "10"}, 0, 0},
		{"a run of one level", 4, []string{"10", "10", "10", "10", "10"}, 0, 4},
		{"a run of level 0 whole", 4, []string{"10", "1", "2", "3", "1", "1", "2", "10"}, 1, 7},
		{"a run of level 0 up to F*F", 2, []string{"1", "1", "1", "1", "1", "1"}, 0, 4},
		{"levels by live documents", 4, []string{"100", "5", "6", "7", "4"}, 1, 5},
		{"runs are of neighbours", 4, []string{"5", "5", "5", "100", "5"}, 0, 0},
		{"the first run that is long enough", 2, []string{"100", "1", "1", "20", "20"}, 1, 3},
		{"a mostly deleted segment alone", 4, []string{"10", "10-6", "100"}, 1, 2},
		{"a mostly deleted segment with a neighbour of its level", 4, []string{"10", "10-6", "10"}, 1, 3},
		{"an empty segment alone", 4, []string{"10", "3-3"}, 1, 2},
		{"neighbours while the level holds", 4, []string{"10", "3-3", "2-2", "1", "4-3", "1", "10", "1-1"}, 1, 6},
		{"healthy neighbours too", 4, []string{"10", "4-3", "2", "20-12", "1-1"}, 1, 3},
		{"from a higher level", 4, []string{"40-30", "1", "4-4", "3", "10"}, 0, 4},
		{"a neighbour past the level", 2, []string{"1-1", "2", "1"}, 0, 1},
		{"half deleted stays", 4, []string{"10", "10-5"}, 0, 0},
		{"off", 0, []string{"1", "1", "1"}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var segs []*segment
			for _, d := range c.segs {
				var n, del int
				if _, err := fmt.Sscanf(d, "%d-%d", &n, &del); err != nil {
					del = 0
				}
				s := &segment{ids: make([]uint64, n)}
				if del > 0 {
					s.deleted = roaring.New()
					s.deleted.AddRange(0, uint64(del))
				}
				segs = append(segs, s)
			}
			lo, hi := pickMerge(segs, c.factor)
			require.Equal(t, [2]int{c.lo, c.hi}, [2]int{lo, hi})
		})
	}
}

func TestMergeLevel(t *testing.T) {
	for _, c := range []struct{ live, level int }{{0, 0}, {7, 0}, {8, 1}, {63, 1}, {64, 2}, {1000, 3}, {1 << 20, 6}} {
		require.Equal(t, c.level, mergeLevel(c.live, 8), c.live)
	}
}

// mergeWords make documents whose lists are of every kind: words in one
// document, words in many (posting lists inline in a block and with their own
// keys), and many positions in a document.
var mergeWords = strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu " +
	"nu xi omicron pi rho sigma tau upsilon phi chi psi omega")

func mergeDoc(r *rand.Rand, id uint64) Document {
	var title, body []string
	for range 1 + r.IntN(3) {
		title = append(title, mergeWords[r.IntN(len(mergeWords))])
	}
	for range 5 + r.IntN(60) {
		body = append(body, mergeWords[r.IntN(len(mergeWords))], "common")
	}
	body = append(body, fmt.Sprintf("only%d", id))
	return doc(id, strings.Join(title, " "), strings.Join(body, " "), int64(1990+r.IntN(30)))
}

var mergeQueries = []string{"alpha", "common", "alpha beta", `"alpha common"`, "@title omega", "pi | rho",
	"common -sigma", "only7", "only12", "only40", "zeta*", "nosuchword", `"common tau"~3`, "@body only3"}

// contents is everything a reader sees of a table: documents in id order
// with their lookup, attributes and stored text, and each query's matches
// with their weights and keyword statistics.
func contents(t *testing.T, s *Snapshot) string {
	t.Helper()
	var b strings.Builder
	all := ids(t, s)
	fmt.Fprintf(&b, "%d documents\n", s.Count())
	refs := make([]DocRef, len(all))
	for i, id := range all {
		ref, ok := s.Lookup(id)
		require.True(t, ok, id)
		refs[i] = ref
	}
	stored, err := s.Stored(ctx, refs, []int{0, 1})
	require.NoError(t, err)
	for i, id := range all {
		fmt.Fprintf(&b, "%d: %v %v %q\n", id, s.Attr(refs[i], 2), s.Attr(refs[i], 3), stored[i])
	}
	for _, text := range mergeQueries {
		q, err := s.ParseQuery(text)
		require.NoError(t, err)
		res, err := s.SearchWith(ctx, q, SearchOptions{})
		require.NoError(t, err)
		fmt.Fprintf(&b, "%s:", text)
		for _, m := range res.Matches {
			fmt.Fprintf(&b, " %d/%d", s.ID(m.Ref), m.Weight)
		}
		for _, st := range res.Terms {
			fmt.Fprintf(&b, " [%s %d]", st.Term, st.Docs)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeMergeHistory writes a table in many statements: inserts of a few
// documents, one segment without term blocks, deletions (a whole segment's
// too), updates and replacements.
func writeMergeHistory(t *testing.T, tb *Table) {
	r := rand.New(rand.NewPCG(1, 2))
	id := uint64(1)
	var third []uint64 // the ids of the third statement's segment
	for i := range 12 {
		var docs []Document
		for range 1 + r.IntN(5) {
			docs = append(docs, mergeDoc(r, id))
			id++
		}
		tb.db.knobs.noTermBlocks = i == 4
		added := insert(t, tb, docs...)
		tb.db.knobs.noTermBlocks = false
		if i == 2 {
			third = added
		}
	}
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		_, err := w.Delete([]uint64{2, 3, 9, 10, 11, 20})
		if err != nil {
			return err
		}
		if _, err := w.Update(5, map[int]Value{2: int64(1800)}); err != nil {
			return err
		}
		_, err = w.Replace([]Document{mergeDoc(r, 7), mergeDoc(r, 100)})
		return err
	}))
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		_, err := w.Delete(third)
		return err
	}))
	insert(t, tb, mergeDoc(r, id))
}

// historyTable opens a database with o (background merges off) and
// writes writeMergeHistory to a new table of it.
func historyTable(t *testing.T, o Options) (*DB, *Table) {
	t.Helper()
	db, err := Open(o.WithMergeFactor(-1))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	tb := newTableT(t, db, simple())
	writeMergeHistory(t, tb)
	return db, tb
}

func TestOptimize(t *testing.T) {
	dir := t.TempDir()
	db, tb := historyTable(t, DefaultOptions(dir))
	before := tb.Snapshot()
	want := contents(t, before)
	require.Greater(t, len(before.segs), 10)

	require.NoError(t, tb.Optimize(ctx))
	after := tb.Snapshot()
	require.Len(t, after.segs, 1)
	require.Nil(t, after.segs[0].deleted)
	require.Equal(t, want, contents(t, after))
	require.Equal(t, want, contents(t, before), "an older snapshot reads its segments still")
	require.EqualValues(t, 1, db.Merges())

	require.NoError(t, tb.Optimize(ctx))
	require.Same(t, after, tb.Snapshot(), "one segment without deletions is left as it is")

	db, tb = reopen(t, db, dir, "docs")
	require.Equal(t, want, contents(t, tb.Snapshot()))
	// (The old segments' keys were still there at the stop, held by
	// before: the start leaves their removal to the background.)
	require.Eventually(t, func() bool {
		for _, s := range before.segs {
			for _, kind := range []byte{kindSeg, kindAttr, kindDeleted, kindBlock, kindPosting, kindPending, kindRetired} {
				left := db.bdb.View(func(txn *badger.Txn) error {
					return iteratePrefix(txn, segKey(tb.tid, kind, s.seg), false, func([]byte, []byte) error { return errors.New("left") })
				})
				if left != nil {
					return false
				}
			}
		}
		return true
	}, 10*time.Second, time.Millisecond, "the retired segments' keys are removed after the start")
	require.Equal(t, recordKeys(tb.Snapshot()), keysUnder(t, db, kindKey(tb.tid, kindDoc)),
		"the records of the documents left, no others")
	// Writes after the merge.
	insert(t, tb, doc(500, "alpha", "fresh", 1))
	require.Equal(t, []uint64{500}, search(t, tb.Snapshot(), "fresh"))
}

func TestBackgroundMerges(t *testing.T) {
	ref := newTableT(t, openMem(t), simple())
	writeMergeHistory(t, ref)
	want := contents(t, ref.Snapshot())

	db, err := Open(DefaultOptions("").WithInMemory(true).WithMergeFactor(2))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	tb := newTableT(t, db, simple())
	writeMergeHistory(t, tb)
	waitMerges(t, db)
	s := tb.Snapshot()
	require.Equal(t, want, contents(t, s))
	require.Positive(t, db.Merges())
	levels := map[int]int{}
	for _, seg := range s.segs {
		require.GreaterOrEqual(t, 2*seg.live(), seg.n(), "mostly deleted segments are rewritten")
		levels[mergeLevel(seg.live(), 2)]++
	}
	lo, hi := pickMerge(s.segs, 2)
	require.Equal(t, lo, hi, "nothing left to merge: %v", levels)

	// Merged segments of merged segments find their records where the
	// first statements wrote them; the records of the deleted documents
	// that the merges left out are removed with the merged-away segments.
	var origins int
	for _, seg := range s.segs {
		if seg.origin != nil {
			origins++
		}
	}
	require.Positive(t, origins)
	records := recordKeys(s)
	removed := func() bool {
		return countKeys(t, db, kindKey(tb.tid, kindRetired)) == 0 &&
			slices.Equal(records, keysUnder(t, db, kindKey(tb.tid, kindDoc)))
	}
	runtime.GC()
	for deadline := time.Now().Add(time.Minute); !removed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the merged-away segments and the records of the documents they left out were not removed")
		}
		runtime.GC()
	}
}

// waitMerges waits until db has no merges to make.
func waitMerges(t *testing.T, db *DB) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); db.MergesPending() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the merges did not end")
		}
	}
}

// TestMergeCarriesWrites commits deletions and updates of the sources'
// documents between a merge's staging and its commit.
func TestMergeCarriesWrites(t *testing.T) {
	db, tb := historyTable(t, DefaultOptions("").WithInMemory(true))

	db.wmu.RLock()
	segs := tb.Snapshot().segs
	ms, n := planMerge(segs, true)
	tb.mu.Lock()
	num := tb.nextSeg
	tb.nextSeg++
	tb.mu.Unlock()
	staged, err := tb.stage(ctx, num, func(put func(k, v []byte) error) (*segment, error) {
		return buildMerged(ctx, tb, num, ms, n, put)
	})
	db.wmu.RUnlock()
	require.NoError(t, err)

	r := rand.New(rand.NewPCG(3, 4))
	live := ids(t, tb.Snapshot())
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		n, err := w.Delete([]uint64{live[0], live[3], live[len(live)/2]})
		require.Equal(t, 3, n)
		if err != nil {
			return err
		}
		for _, id := range []uint64{live[1], live[len(live)-1]} {
			ok, err := w.Update(id, map[int]Value{2: int64(1700), 3: []int64{9, 8}})
			require.True(t, ok)
			if err != nil {
				return err
			}
		}
		_, err = w.Insert([]Document{mergeDoc(r, 300)})
		return err
	}))
	want := contents(t, tb.Snapshot())
	require.NoError(t, tb.commitMerge(ms, staged))
	s := tb.Snapshot()
	require.Len(t, s.segs, 2, "the merged segment and the one written meanwhile")
	require.Equal(t, want, contents(t, s))
}

func TestMergedKeysRemoved(t *testing.T) {
	dir := t.TempDir()
	db, tb := historyTable(t, DefaultOptions(dir))
	var retired []uint32
	for _, s := range tb.Snapshot().segs {
		retired = append(retired, s.seg)
	}
	segmentKeysLeft := func() bool {
		found := false
		for _, seg := range retired {
			for _, kind := range []byte{kindBlock, kindPosting, kindRetired} {
				found = found || countKeys(t, db, segKey(tb.tid, kind, seg)) > 0
			}
		}
		records := keysUnder(t, db, kindKey(tb.tid, kindDoc))
		return found || !slices.Equal(records, recordKeys(tb.Snapshot()))
	}
	require.NoError(t, tb.Optimize(ctx))
	runtime.GC()
	// Nothing holds the old segments now: their keys go.
	for deadline := time.Now().Add(time.Minute); segmentKeysLeft(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the keys of the merged segments were not removed")
		}
		runtime.GC()
	}

	// A snapshot that holds the sources keeps their keys until the server
	// stops; the next start removes them.
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 3 {
		insert(t, tb, mergeDoc(r, uint64(1000+i)))
	}
	held := tb.Snapshot()
	retired = retired[:0]
	for _, s := range held.segs {
		retired = append(retired, s.seg)
	}
	want := contents(t, held)
	require.NoError(t, tb.Optimize(ctx))
	runtime.GC()
	require.True(t, segmentKeysLeft())
	require.Equal(t, want, contents(t, held))
	db, tb = reopen(t, db, dir, "docs")
	require.Equal(t, want, contents(t, tb.Snapshot()))
	// The background removes them (restart_test.go: Open does not wait).
	for deadline := time.Now().Add(time.Minute); segmentKeysLeft(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the keys of the segments merged before the stop were not removed after the start")
		}
	}
	require.Equal(t, want, contents(t, tb.Snapshot()))
	runtime.KeepAlive(held)
}

// recordKeys returns the keys of the docstore records of every ordinal of
// s's segments, sorted.
func recordKeys(s *Snapshot) []string {
	var keys []string
	for _, seg := range s.segs {
		for ord := range uint32(seg.n()) {
			num, at := seg.record(ord)
			keys = append(keys, string(appendDocKey(nil, s.tid, num, at)))
		}
	}
	slices.Sort(keys)
	return keys
}

// keysUnder returns the keys under prefix, sorted.
func keysUnder(t *testing.T, db *DB, prefix []byte) []string {
	t.Helper()
	var keys []string
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		return iteratePrefix(txn, prefix, false, func(k, _ []byte) error { keys = append(keys, string(k)); return nil })
	}))
	return keys
}

func countKeys(t *testing.T, db *DB, prefix []byte) int {
	t.Helper()
	n := 0
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		return iteratePrefix(txn, prefix, false, func([]byte, []byte) error { n++; return nil })
	}))
	return n
}

func TestMergeFactorOne(t *testing.T) {
	_, err := Open(DefaultOptions("").WithInMemory(true).WithMergeFactor(1))
	require.ErrorContains(t, err, "merge factor 1")
}

// TestMergeSortsSegmentsAtOpen: a merged segment has the newest number but
// the place of its sources, which a restart keeps.
func TestMergeKeepsOrder(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir).WithMergeFactor(-1))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	for i := range 5 {
		insert(t, tb, doc(uint64(10*i+1), "a", "", 1), doc(uint64(10*i+2), "b", "", 1))
	}
	require.NoError(t, tb.mergeWith(ctx, false, func([]*segment) (int, int) { return 1, 3 }))
	order := func(s *Snapshot) []uint64 {
		var out []uint64
		for _, seg := range s.segs {
			out = append(out, seg.minID)
		}
		return out
	}
	want := []uint64{1, 11, 31, 41}
	require.Equal(t, want, order(tb.Snapshot()))
	require.True(t, tb.Snapshot().disjoint())
	_, tb = reopen(t, db, dir, "docs")
	require.Equal(t, want, order(tb.Snapshot()))
	require.True(t, slices.IsSorted(ids(t, tb.Snapshot())))
}

// TestDDLInterruptsMerge: DROP TABLE and TRUNCATE TABLE do not wait for a
// background merge (of any table): it gives up and is made again after them.
func TestDDLInterruptsMerge(t *testing.T) {
	db, err := Open(DefaultOptions("").WithInMemory(true).WithMergeFactor(2))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	keep := newTableT(t, db, simple())
	newTableT(t, db, Schema{Name: "other", Columns: simple().Columns})

	for round, ddl := range []func() error{
		func() error { return db.TruncateTable("other") },
		func() error { return db.DropTable("other") },
	} {
		started := make(chan struct{})
		interrupted := make(chan error, 1)
		var again atomic.Bool
		db.knobs.beforeMergeStage = func(ctx context.Context) {
			if again.Swap(true) {
				return // the merge made again after the statement
			}
			close(started)
			select {
			case <-ctx.Done():
				interrupted <- nil
			case <-time.After(time.Minute):
				interrupted <- errors.New("the merge was not interrupted")
			}
		}
		insert(t, keep, doc(uint64(10*round+1), "a", "x", 1))
		insert(t, keep, doc(uint64(10*round+2), "b", "x", 1))
		<-started // a merge of keep holds the DB's shared write lock
		require.NoError(t, ddl())
		require.NoError(t, <-interrupted)
		waitMerges(t, db)
		db.knobs.beforeMergeStage = nil
		lo, hi := pickMerge(keep.Snapshot().segs, 2)
		require.Equal(t, lo, hi, "the merge was made after the statement")
	}
	_, err = db.Table("other")
	require.ErrorIs(t, err, ErrNoSuchTable)
	require.Equal(t, 4, keep.Snapshot().Count())
}
