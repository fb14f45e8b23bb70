package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

func openMem(t testing.TB) *DB {
	t.Helper()
	db, err := Open(DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// simple is a small table: title, body (text), year (uint), tags (multi).
func simple() Schema {
	return Schema{Name: "Docs", Columns: []Column{
		{Name: "title", Type: TypeText, Indexed: true, Stored: true},
		{Name: "body", Type: TypeText, Indexed: true, Stored: true},
		{Name: "year", Type: TypeUint},
		{Name: "tags", Type: TypeMulti},
	}}
}

func doc(id uint64, title, body string, year int64) Document {
	return Document{ID: id, Values: []Value{title, body, year, []int64{year % 3}}}
}

func newTableT(t testing.TB, db *DB, s Schema) *Table {
	t.Helper()
	require.NoError(t, db.CreateTable(s))
	tb, err := db.Table(s.Name)
	require.NoError(t, err)
	return tb
}

func insert(t testing.TB, tb *Table, docs ...Document) []uint64 {
	t.Helper()
	var ids []uint64
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		var err error
		ids, err = w.Insert(docs)
		return err
	}))
	return ids
}

// reopen closes db and opens the database in dir again, with its table name.
func reopen(t *testing.T, db *DB, dir, name string) (*DB, *Table) {
	t.Helper()
	require.NoError(t, db.Close())
	db, err := Open(DefaultOptions(dir))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	tb, err := db.Table(name)
	require.NoError(t, err)
	return db, tb
}

// ids lists the live ids of a snapshot in Scan order.
func ids(t testing.TB, s *Snapshot) []uint64 {
	t.Helper()
	var out []uint64
	require.NoError(t, s.Scan(ctx, func(ref DocRef) bool {
		out = append(out, s.ID(ref))
		return true
	}))
	return out
}

func search(t testing.TB, s *Snapshot, text string) []uint64 {
	t.Helper()
	q, err := query.Parse(text, tokenize.Default())
	require.NoError(t, err)
	ms, err := s.Search(ctx, q)
	require.NoError(t, err)
	out := []uint64{}
	for _, m := range ms {
		out = append(out, s.ID(m.Ref))
		require.Positive(t, m.Weight)
	}
	return out
}

func TestCatalog(t *testing.T) {
	db := openMem(t)
	require.NoError(t, db.CreateTable(simple()))
	require.ErrorIs(t, db.CreateTable(Schema{Name: "DOCS"}), ErrTableExists)
	require.NoError(t, db.CreateTable(Schema{Name: "alpha"}))
	require.Equal(t, []string{"Docs", "alpha"}, db.TableNames())

	tb, err := db.Table("docs")
	require.NoError(t, err)
	require.Equal(t, "Docs", tb.Schema().Name)
	_, err = db.Table("nope")
	require.ErrorIs(t, err, ErrNoSuchTable)

	for name, s := range map[string]Schema{
		"no name":        {},
		"duplicate":      {Name: "x", Columns: []Column{{Name: "a"}, {Name: "A"}}},
		"id column":      {Name: "x", Columns: []Column{{Name: "id", Type: TypeBigint}}},
		"indexed attr":   {Name: "x", Columns: []Column{{Name: "a", Type: TypeUint, Indexed: true}}},
		"unknown type":   {Name: "x", Columns: []Column{{Name: "a", Type: 99}}},
		"empty col name": {Name: "x", Columns: []Column{{Type: TypeUint}}},
	} {
		t.Run(name, func(t *testing.T) { require.ErrorIs(t, db.CreateTable(s), ErrBadSchema) })
	}
}

func TestWrites(t *testing.T) {
	type step struct {
		fn      func(w *Writer) error
		wantErr any // nil, or a pointer to the wanted error type
	}
	cases := []struct {
		name    string
		steps   []step
		wantIDs []uint64
		check   func(t *testing.T, s *Snapshot)
	}{
		{
			name: "insert explicit and auto ids",
			steps: []step{{fn: func(w *Writer) error {
				got, err := w.Insert([]Document{doc(10, "a", "b", 1), doc(0, "c", "d", 2), doc(5, "e", "f", 3)})
				if err == nil && fmt.Sprint(got) != "[10 11 5]" {
					err = fmt.Errorf("ids %v", got)
				}
				return err
			}}},
			wantIDs: []uint64{5, 10, 11},
		},
		{
			name: "auto ids stay above explicit ones across statements",
			steps: []step{
				{fn: func(w *Writer) error { _, err := w.Insert([]Document{doc(0, "a", "", 1)}); return err }},
				{fn: func(w *Writer) error { _, err := w.Insert([]Document{doc(100, "a", "", 1)}); return err }},
				{fn: func(w *Writer) error { _, err := w.Insert([]Document{doc(0, "a", "", 1)}); return err }},
			},
			wantIDs: []uint64{1, 100, 101},
		},
		{
			name: "duplicate id in the table",
			steps: []step{
				{fn: func(w *Writer) error { _, err := w.Insert([]Document{doc(1, "a", "", 1)}); return err }},
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(2, "a", "", 1), doc(1, "b", "", 1)})
					return err
				}, wantErr: new(*DuplicateIDError)},
			},
			wantIDs: []uint64{1},
		},
		{
			name: "duplicate id in one statement",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(3, "a", "", 1), doc(3, "b", "", 1)})
					return err
				}, wantErr: new(*DuplicateIDError)},
			},
			wantIDs: nil,
		},
		{
			name: "duplicate id across Insert calls",
			steps: []step{
				{fn: func(w *Writer) error {
					if _, err := w.Insert([]Document{doc(3, "a", "", 1)}); err != nil {
						return err
					}
					_, err := w.Insert([]Document{doc(3, "b", "", 1)})
					return err
				}, wantErr: new(*DuplicateIDError)},
			},
		},
		{
			name: "wrong value type stages nothing",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(1, "a", "", 1), {ID: 2, Values: []Value{"x", "y", "1999"}}})
					return err
				}, wantErr: new(*ValueError)},
			},
		},
		{
			name: "too many values",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{{ID: 2, Values: []Value{"", "", int64(1), nil, nil}}})
					return err
				}, wantErr: new(*ValueError)},
			},
		},
		{
			name: "an error after staging leaves nothing",
			steps: []step{
				{fn: func(w *Writer) error { _, err := w.Insert([]Document{doc(1, "keep", "", 1)}); return err }},
				{fn: func(w *Writer) error {
					if _, err := w.Insert([]Document{doc(2, "a", "", 1)}); err != nil {
						return err
					}
					if _, err := w.Delete([]uint64{1}); err != nil {
						return err
					}
					if _, err := w.Update(1, map[int]Value{2: int64(77)}); err != nil {
						return err
					}
					return errors.New("boom")
				}, wantErr: "boom"},
			},
			wantIDs: []uint64{1},
			check: func(t *testing.T, s *Snapshot) {
				ref, _ := s.Lookup(1)
				require.Equal(t, int64(1), s.Attr(ref, 2))
			},
		},
		{
			name: "replace keeps one document per id, last wins",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(1, "old", "", 1), doc(2, "two", "", 2)})
					return err
				}},
				{fn: func(w *Writer) error {
					_, err := w.Replace([]Document{doc(1, "new", "", 5), doc(3, "x", "", 1), doc(3, "three", "", 3)})
					return err
				}},
			},
			wantIDs: []uint64{1, 2, 3},
			check: func(t *testing.T, s *Snapshot) {
				require.Equal(t, []uint64{}, search(t, s, "old"))
				require.Equal(t, []uint64{1}, search(t, s, "new"))
				require.Equal(t, []uint64{3}, search(t, s, "three"))
				require.Equal(t, []uint64{}, search(t, s, "x"))
				ref, ok := s.Lookup(1)
				require.True(t, ok)
				require.Equal(t, int64(5), s.Attr(ref, 2))
			},
		},
		{
			name: "delete counts existing ids once",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(1, "a", "", 1), doc(2, "b", "", 1), doc(3, "c", "", 1)})
					return err
				}},
				{fn: func(w *Writer) error {
					n, err := w.Delete([]uint64{1, 3, 3, 99})
					if err == nil && n != 2 {
						err = fmt.Errorf("deleted %d", n)
					}
					return err
				}},
			},
			wantIDs: []uint64{2},
		},
		{
			name: "delete and update of documents staged in the same statement",
			steps: []step{
				{fn: func(w *Writer) error {
					if _, err := w.Insert([]Document{doc(1, "a", "", 1), doc(2, "b", "", 1)}); err != nil {
						return err
					}
					if n, _ := w.Delete([]uint64{1}); n != 1 {
						return errors.New("not deleted")
					}
					ok, err := w.Update(2, map[int]Value{2: int64(9), 3: []int64{5, 4}})
					if !ok {
						return errors.New("not updated")
					}
					return err
				}},
			},
			wantIDs: []uint64{2},
			check: func(t *testing.T, s *Snapshot) {
				ref, _ := s.Lookup(2)
				require.Equal(t, int64(9), s.Attr(ref, 2))
				require.Equal(t, []int64{4, 5}, s.Attr(ref, 3))
				require.Equal(t, []uint64{}, search(t, s, "a"))
			},
		},
		{
			name: "update attributes of stored documents",
			steps: []step{
				{fn: func(w *Writer) error {
					_, err := w.Insert([]Document{doc(1, "a", "", 1), doc(2, "b", "", 1)})
					return err
				}},
				{fn: func(w *Writer) error {
					ok, err := w.Update(2, map[int]Value{2: int64(2024)})
					if err == nil && !ok {
						err = errors.New("not found")
					}
					if ok, _ := w.Update(99, map[int]Value{2: int64(1)}); ok {
						err = errors.New("found 99")
					}
					return err
				}},
				{fn: func(w *Writer) error { _, err := w.Update(1, map[int]Value{0: "text"}); return err }, wantErr: new(*ValueError)},
				{fn: func(w *Writer) error { _, err := w.Update(1, map[int]Value{2: int64(-1)}); return err }, wantErr: new(*ValueError)},
				{fn: func(w *Writer) error { _, err := w.Update(1, map[int]Value{9: int64(1)}); return err }, wantErr: new(*ValueError)},
			},
			wantIDs: []uint64{1, 2},
			check: func(t *testing.T, s *Snapshot) {
				r1, _ := s.Lookup(1)
				r2, _ := s.Lookup(2)
				require.Equal(t, int64(1), s.Attr(r1, 2))
				require.Equal(t, int64(2024), s.Attr(r2, 2))
				require.Nil(t, s.Attr(r2, 0))
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openMem(t)
			tb := newTableT(t, db, simple())
			for i, st := range c.steps {
				err := tb.Write(ctx, st.fn)
				switch want := st.wantErr.(type) {
				case nil:
					require.NoError(t, err, "step %d", i)
				case string:
					require.EqualError(t, err, want, "step %d", i)
				default:
					require.ErrorAs(t, err, want, "step %d", i)
				}
			}
			s := tb.Snapshot()
			require.Equal(t, c.wantIDs, ids(t, s))
			require.Equal(t, len(c.wantIDs), s.Count())
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

func TestWriterOutsideWritePanics(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	var kept *Writer
	require.NoError(t, tb.Write(ctx, func(w *Writer) error { kept = w; return nil }))
	require.Panics(t, func() { kept.Insert(nil) })
}

func TestCancelledWrite(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	c, cancel := context.WithCancel(ctx)
	err := tb.Write(c, func(w *Writer) error {
		_, err := w.Insert([]Document{doc(1, "a", "b", 1)})
		cancel()
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, tb.Snapshot().Count())
}

func TestSearch(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb,
		doc(5, "The quick brown fox", "jumps over the lazy dog", 1),
		doc(2, "Lazy afternoon", "a dog sleeps; the fox watches", 2),
		doc(9, "Brown bread", "bread bread bread and butter", 3),
	)
	insert(t, tb, doc(1, "Fox news", "nothing about dogs", 4), doc(7, "Привет МИР", "東京 タワー", 5))
	s := tb.Snapshot()
	cases := []struct {
		query string
		want  []uint64
	}{
		{"fox", []uint64{1, 2, 5}},
		{"FOX dog", []uint64{2, 5}},
		{"brown", []uint64{5, 9}},
		{"lazy dog fox", []uint64{2, 5}},
		{"bread butter", []uint64{9}},
		{"dog butter", []uint64{}},
		{"missing", []uint64{}},
		{"", []uint64{}},
		{"мир", []uint64{7}},
		{"東京", []uint64{7}},
		{"dogs", []uint64{1}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			require.Equal(t, c.want, search(t, s, c.query))
		})
	}

	t.Run("weights prefer more occurrences", func(t *testing.T) {
		db := openMem(t)
		tb := newTableT(t, db, simple())
		insert(t, tb, doc(1, "bread", "x y z", 1), doc(2, "bread", "bread bread", 1), doc(3, "other", "words", 1),
			doc(4, "more", "words", 1), doc(5, "and", "more", 1))
		q, _ := query.Parse("bread", tokenize.Default())
		ms, err := tb.Snapshot().Search(ctx, q)
		require.NoError(t, err)
		require.Len(t, ms, 2)
		require.Greater(t, ms[1].Weight, ms[0].Weight)
	})

	t.Run("deleted documents do not match", func(t *testing.T) {
		require.NoError(t, tb.Write(ctx, func(w *Writer) error { _, err := w.Delete([]uint64{2}); return err }))
		require.Equal(t, []uint64{1, 5}, search(t, tb.Snapshot(), "fox"))
		require.Equal(t, []uint64{1, 2, 5}, search(t, s, "fox"), "an older snapshot is unchanged")
	})

	t.Run("ParseQuery uses the table tokenizer", func(t *testing.T) {
		q, err := s.ParseQuery("Brown BREAD")
		require.NoError(t, err)
		ms, err := s.Search(ctx, q)
		require.NoError(t, err)
		require.Len(t, ms, 1)
		require.Equal(t, uint64(9), s.ID(ms[0].Ref))
	})

	t.Run("unsupported node", func(t *testing.T) {
		type other struct{ query.Node }
		_, err := s.Search(ctx, query.And{Children: []query.Node{query.Keyword{Term: "zzz"}, other{}}})
		require.Error(t, err)
	})

	t.Run("term stats", func(t *testing.T) {
		q, _ := query.Parse("bread fox nothing", tokenize.Default())
		st, err := s.TermStats(ctx, q)
		require.NoError(t, err)
		require.Equal(t, []TermStat{{"bread", "bread", 1, 4}, {"fox", "fox", 3, 3}, {"nothing", "nothing", 1, 1}}, st)
	})
}

func TestStored(t *testing.T) {
	db := openMem(t)
	sc := testSchema()
	tb := newTableT(t, db, sc)
	vals := []Value{"Title", "Body text", "a note", "hidden", 1.5, int64(2000), int64(-3), int64(1), int64(1700000000), "Ann", []int64{3, 1}, []int64{-1}, `{"k":1}`}
	insert(t, tb, Document{ID: 1, Values: vals}, Document{ID: 2})
	s := tb.Snapshot()
	r1, _ := s.Lookup(1)
	r2, _ := s.Lookup(2)
	got, err := s.Stored(ctx, []DocRef{r2, r1}, []int{1, 0, 2, 3, 4})
	require.NoError(t, err)
	require.Equal(t, [][]string{{"", "", "", "", ""}, {"Body text", "Title", "a note", "", ""}}, got)
	for col := 4; col < len(vals); col++ {
		want := vals[col]
		if col == 10 {
			want = []int64{1, 3}
		}
		require.Equal(t, want, s.Attr(r1, col), sc.Columns[col].Name)
	}
	require.Equal(t, []uint64{1}, search(t, s, "hidden"), "indexed, not stored")
	require.Equal(t, []uint64{}, search(t, s, "note"), "stored, not indexed")
}

func TestScanOrder(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(50, "a", "", 1), doc(10, "a", "", 1), doc(30, "a", "", 1))
	insert(t, tb, doc(20, "a", "", 1), doc(60, "a", "", 1))
	insert(t, tb, doc(0, "a", "", 1))
	require.NoError(t, tb.Write(ctx, func(w *Writer) error { _, err := w.Delete([]uint64{30}); return err }))
	s := tb.Snapshot()
	require.Equal(t, []uint64{10, 20, 50, 60, 61}, ids(t, s))
	require.Equal(t, []uint64{10, 20, 50, 60, 61}, search(t, s, "a"))

	var n int
	require.NoError(t, s.Scan(ctx, func(DocRef) bool { n++; return n < 2 }))
	require.Equal(t, 2, n)
	c, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, s.Scan(c, func(DocRef) bool { return true }), context.Canceled)
}

func TestManySegmentsLookup(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	for i := 0; i < 3*maxUnmappedSegments; i++ {
		insert(t, tb, doc(uint64(1000-i), "w", "", 1), doc(uint64(2000+i), "w", "", 1))
		if i%5 == 0 {
			require.NoError(t, tb.Write(ctx, func(w *Writer) error {
				_, err := w.Replace([]Document{doc(uint64(1000-i/2), "r", "", 2)})
				return err
			}))
		}
	}
	s := tb.Snapshot()
	require.Equal(t, 6*maxUnmappedSegments, s.Count())
	for i := 0; i < 3*maxUnmappedSegments; i++ {
		for _, id := range []uint64{uint64(1000 - i), uint64(2000 + i)} {
			ref, ok := s.Lookup(id)
			require.True(t, ok, id)
			require.Equal(t, id, s.ID(ref))
		}
	}
	_, ok := s.Lookup(1)
	require.False(t, ok)
	all := ids(t, s)
	require.Len(t, all, s.Count())
	require.IsIncreasing(t, all)
}

// TestLookupAfterChurn: single-row inserts, replaces and deletes, many
// more than the id map leaves outside it, so that the map is extended
// (overlay and base) and rebuilt on the way; every id is found where it
// lives now, and no deleted one is found.
func TestLookupAfterChurn(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	// Enough live documents that a few thousand writes extend the map
	// rather than rebuild it.
	var base []Document
	for id := uint64(1); id <= 3*minUnmappedDocs; id++ {
		base = append(base, doc(id, "w", "", 0))
	}
	insert(t, tb, base...)
	want := map[uint64]int64{}
	for _, d := range base {
		want[d.ID] = 0
	}
	rng := rand.New(rand.NewPCG(27, 2))
	check := func(step int) {
		s := tb.Snapshot()
		require.Equal(t, len(want), s.Count(), "step %d", step)
		for id := uint64(1); id <= 4*minUnmappedDocs; id++ {
			ref, ok := s.Lookup(id)
			year, live := want[id]
			require.Equal(t, live, ok, "step %d: id %d", step, id)
			if ok {
				require.Equal(t, id, s.ID(ref), "step %d", step)
				require.Equal(t, year, s.Attr(ref, 2), "step %d: id %d", step, id)
			}
		}
	}
	for step := 1; step <= 80*maxUnmappedSegments; step++ {
		id := 1 + uint64(rng.IntN(4*minUnmappedDocs))
		switch rng.IntN(3) {
		case 0: // a few neighbours at once, so that the overlay fills
			var docs []Document
			for k := range uint64(8) {
				if id+k <= 4*minUnmappedDocs {
					docs = append(docs, doc(id+k, "r", "", int64(step)))
					want[id+k] = int64(step)
				}
			}
			require.NoError(t, tb.Write(ctx, func(w *Writer) error {
				_, err := w.Replace(docs)
				return err
			}))
		case 1:
			require.NoError(t, tb.Write(ctx, func(w *Writer) error { _, err := w.Delete([]uint64{id}); return err }))
			delete(want, id)
		default: // one statement deletes one document and replaces another
			other := id%uint64(4*minUnmappedDocs) + 1
			require.NoError(t, tb.Write(ctx, func(w *Writer) error {
				if _, err := w.Delete([]uint64{other}); err != nil {
					return err
				}
				_, err := w.Replace([]Document{doc(id, "r", "", int64(step))})
				return err
			}))
			delete(want, other)
			want[id] = int64(step)
		}
		if step%(maxUnmappedSegments*4) == 0 {
			check(step)
		}
	}
}

func TestTruncateDrop(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(0, "a", "", 1), doc(0, "b", "", 1))
	require.NoError(t, db.TruncateTable("DOCS"))
	require.Zero(t, tb.Snapshot().Count())
	require.Equal(t, []uint64{}, search(t, tb.Snapshot(), "a"))
	ids := insert(t, tb, doc(0, "c", "", 1))
	require.Equal(t, []uint64{3}, ids, "auto ids continue after truncate")
	require.Equal(t, []uint64{3}, search(t, tb.Snapshot(), "c"))

	require.NoError(t, db.DropTable("docs"))
	require.ErrorIs(t, db.DropTable("docs"), ErrNoSuchTable)
	require.ErrorIs(t, db.TruncateTable("docs"), ErrNoSuchTable)
	require.ErrorIs(t, tb.Write(ctx, func(*Writer) error { return nil }), ErrNoSuchTable)
	require.Empty(t, db.TableNames())
	requireNoKeys(t, db, []byte{prefixTable})

	tb2 := newTableT(t, db, simple())
	require.Zero(t, tb2.Snapshot().Count())
	require.Equal(t, []uint64{1}, insert(t, tb2, doc(0, "x", "", 1)))
}

func requireNoKeys(t *testing.T, db *DB, prefix []byte) {
	t.Helper()
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		return iteratePrefix(txn, prefix, false, func(key, _ []byte) error {
			return fmt.Errorf("key %q left", key)
		})
	}))
}

func TestClose(t *testing.T) {
	db, err := Open(DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(1, "a", "", 1))
	s := tb.Snapshot()
	require.NoError(t, db.Close())
	require.NoError(t, db.Close())
	require.ErrorIs(t, tb.Write(ctx, func(*Writer) error { return nil }), ErrClosed)
	require.ErrorIs(t, db.CreateTable(Schema{Name: "x"}), ErrClosed)
	_, err = s.Stored(ctx, []DocRef{{}}, []int{0})
	require.ErrorIs(t, err, ErrClosed)
}

func TestRestart(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir))
	require.NoError(t, err)
	tb := newTableT(t, db, testSchema())
	vals := []Value{"Title one", "Body", "note", "secret", 2.5, int64(7), int64(-7), int64(1), int64(99), "auth", []int64{1, 2}, []int64{-2}, "{}"}
	insert(t, tb, Document{ID: 1, Values: vals}, Document{ID: 2, Values: []Value{"Title two"}})
	insert(t, tb, Document{ID: 0, Values: []Value{"third title"}})
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		if _, err := w.Delete([]uint64{2}); err != nil {
			return err
		}
		_, err := w.Update(1, map[int]Value{5: int64(8)})
		return err
	}))
	other := newTableT(t, db, simple())
	insert(t, other, doc(1, "gone", "", 1))
	require.NoError(t, db.TruncateTable("docs"))
	require.NoError(t, db.CreateTable(Schema{Name: "dropped"}))
	require.NoError(t, db.DropTable("dropped"))
	before := tb.Snapshot()
	require.NoError(t, db.Close())

	db, err = Open(DefaultOptions(dir))
	require.NoError(t, err)
	defer db.Close()
	require.Equal(t, []string{"Books", "Docs"}, db.TableNames())
	tb, err = db.Table("books")
	require.NoError(t, err)
	s := tb.Snapshot()
	require.Equal(t, []uint64{1, 3}, ids(t, s))
	require.Equal(t, []uint64{1, 3}, search(t, s, "title"))
	require.Equal(t, []uint64{1}, search(t, s, "secret"))
	ref, ok := s.Lookup(1)
	require.True(t, ok)
	for col := 4; col < len(vals); col++ {
		want := vals[col]
		if col == 5 {
			want = int64(8)
		}
		require.Equal(t, want, s.Attr(ref, col))
	}
	got, err := s.Stored(ctx, []DocRef{ref}, []int{0, 1, 2})
	require.NoError(t, err)
	require.Equal(t, [][]string{{"Title one", "Body", "note"}}, got)
	require.Equal(t, before.live, s.live)
	require.Equal(t, before.liveLen, s.liveLen)
	require.Equal(t, []uint64{4}, insert(t, tb, Document{}), "auto ids continue")

	other, err = db.Table("docs")
	require.NoError(t, err)
	require.Zero(t, other.Snapshot().Count())
	require.Equal(t, []uint64{2}, insert(t, other, doc(0, "x", "", 1)), "auto id floor survives truncate and restart")
}

func TestCrashLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(1, "kept", "", 1))
	// Stage a segment as a statement would, and "crash" before registering it.
	tb.mu.Lock()
	seg := tb.nextSeg
	tb.nextSeg++
	docs := []pendingDoc{{id: 2, vals: []Value{"lost", "words", int64(1), []int64(nil)}}}
	staged, err := tb.stage(ctx, seg, func(put func(k, v []byte) error) (*segment, error) {
		return buildSegment(ctx, tb, seg, docs, 3, put)
	})
	tb.mu.Unlock()
	require.NoError(t, err)
	require.NotEmpty(t, staged.keys)
	tid := tb.tid
	// A dropped table whose data removal did not happen.
	require.NoError(t, db.bdb.Update(func(txn *badger.Txn) error {
		return txn.Set(append(tableKey(tid+100), kindDoc), []byte("orphan"))
	}))
	db, tb = reopen(t, db, dir, "docs")
	require.Equal(t, []uint64{1}, ids(t, tb.Snapshot()))
	require.NoError(t, db.bdb.View(func(txn *badger.Txn) error {
		for _, k := range staged.keys {
			if _, err := txn.Get(k); !errors.Is(err, badger.ErrKeyNotFound) {
				return fmt.Errorf("staged key %q survived: %v", k, err)
			}
		}
		return nil
	}))
	requireNoKeys(t, db, segKey(tid, kindPending, seg))
	requireNoKeys(t, db, tableKey(tid+100))
	require.Greater(t, db.nextTable, tid+100, "table ids are never reused")
	require.Equal(t, []uint64{1}, search(t, tb.Snapshot(), "kept"))
	require.Equal(t, []uint64{}, search(t, tb.Snapshot(), "lost"))
	insert(t, tb, doc(2, "new", "", 1))
	require.Equal(t, []uint64{2}, search(t, tb.Snapshot(), "new"))
}

func TestConcurrentReadersAndWriters(t *testing.T) {
	db := openMem(t)
	tb := newTableT(t, db, simple())
	other := newTableT(t, db, Schema{Name: "other", Columns: simple().Columns})
	const writes = 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, _ := query.Parse("common", tokenize.Default())
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := tb.Snapshot()
				ms, err := s.Search(ctx, q)
				if err != nil {
					t.Error(err)
					return
				}
				// Every statement inserts 2 documents and deletes none: a
				// snapshot sees whole statements only.
				if len(ms) != s.Count() || s.Count()%2 != 0 {
					t.Errorf("search found %d of %d", len(ms), s.Count())
					return
				}
				refs := make([]DocRef, 0, len(ms))
				for _, m := range ms {
					refs = append(refs, m.Ref)
				}
				if _, err := s.Stored(ctx, refs, []int{0}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for _, target := range []*Table{tb, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				insert(t, target, doc(0, "common", fmt.Sprint("w", i), 1), doc(0, "common words", "", 2))
				if target == other && i%10 == 9 {
					if err := db.TruncateTable("other"); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	for tb.Snapshot().Count() < 2*writes {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	require.Equal(t, 2*writes, len(search(t, tb.Snapshot(), "common")))
}

// TestAutoIDsSurviveRemovedSegments: a merge that removes segments with no
// live document left keeps their floor of the next auto id, so that after
// a restart the ids handed out before (and deleted) are not handed out
// again.
func TestAutoIDsSurviveRemovedSegments(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir))
	require.NoError(t, err)
	tb := newTableT(t, db, simple())
	insert(t, tb, doc(50, "fifty", "", 1))
	require.Equal(t, []uint64{51}, insert(t, tb, doc(0, "next", "", 1)))
	require.NoError(t, tb.Write(ctx, func(w *Writer) error {
		_, err := w.Delete([]uint64{50, 51})
		return err
	}))
	require.NoError(t, tb.Optimize(ctx))
	require.Empty(t, tb.Snapshot().segs, "the segments went, nothing in their place")
	require.NoError(t, db.Close())

	db, err = Open(DefaultOptions(dir))
	require.NoError(t, err)
	defer db.Close()
	tb, err = db.Table(simple().Name)
	require.NoError(t, err)
	require.Equal(t, []uint64{52}, insert(t, tb, doc(0, "after", "", 1)))
}
