package index

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

// writeBlocks cuts entries (in term order) into blocks and returns the
// blocks by key and the index.
func writeBlocks(t *testing.T, entries []blockEntry) (map[string][]byte, blockIndex) {
	t.Helper()
	blocks := map[string][]byte{}
	var mem arena
	w := blockWriter{key: []byte("prefix:"), mem: &mem, put: func(k, v []byte) error {
		blocks[string(k)] = v
		return nil
	}}
	for _, e := range entries {
		require.NoError(t, w.add(e.term, e.posting, e.own))
	}
	require.NoError(t, w.flush())
	return blocks, w.index
}

func TestTermBlocks(t *testing.T) {
	var many []blockEntry
	for i := range 500 {
		e := blockEntry{term: fmt.Appendf(nil, "term%04d", i), posting: bytes.Repeat([]byte{byte(i)}, i%(inlineMax+1))}
		if i%7 == 0 {
			e.posting, e.own = nil, true
		}
		many = append(many, e)
	}
	cases := []struct {
		name    string
		entries []blockEntry
		blocks  int // 0: more than one
	}{
		{"none", nil, -1},
		{"one inline", []blockEntry{{term: []byte("a"), posting: []byte{1, 2, 3}}}, 1},
		{"one own", []blockEntry{{term: []byte("a"), own: true}}, 1},
		{"empty inline list", []blockEntry{{term: []byte("a"), posting: []byte{}}, {term: []byte("b"), own: true}}, 1},
		{"long terms", []blockEntry{
			{term: bytes.Repeat([]byte("x"), 128), posting: bytes.Repeat([]byte{7}, inlineMax)},
			{term: bytes.Repeat([]byte("y"), 128), own: true},
			{term: []byte("\xff\xfe"), posting: []byte{0}},
		}, 1},
		{"many", many, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			blocks, index := writeBlocks(t, c.entries)
			switch c.blocks {
			case -1:
				require.Empty(t, blocks)
			case 0:
				require.Greater(t, len(blocks), 1)
			default:
				require.Len(t, blocks, c.blocks)
			}
			require.Equal(t, len(blocks), index.len())

			// The blocks, in index order, hold every entry in order; none is
			// over the target unless it holds one entry.
			var got []blockEntry
			for i := range index.len() {
				b, ok := blocks["prefix:"+string(index.first(i))]
				require.True(t, ok, "block %d", i)
				n := 0
				for rest := b; len(rest) > 0; n++ {
					e, r, err := nextEntry(rest)
					require.NoError(t, err)
					if n == 0 {
						require.Equal(t, index.first(i), e.term)
					}
					got = append(got, e)
					rest = r
				}
				require.True(t, len(b) <= blockTarget || n == 1, "block %d: %d bytes, %d entries", i, len(b), n)
			}
			require.Equal(t, len(c.entries), len(got))
			for i, e := range c.entries {
				require.Equal(t, e.term, got[i].term)
				require.Equal(t, e.own, got[i].own)
				if !e.own {
					require.Equal(t, len(e.posting), len(got[i].posting))
					require.Equal(t, string(e.posting), string(got[i].posting))
				}
			}

			// Every term is found through the index, and nothing else is.
			lookup := func(term []byte) (blockEntry, bool) {
				i := index.find(term)
				if i < 0 {
					return blockEntry{}, false
				}
				e, ok, err := lookupBlock(blocks["prefix:"+string(index.first(i))], term)
				require.NoError(t, err)
				return e, ok
			}
			for _, e := range c.entries {
				found, ok := lookup(e.term)
				require.True(t, ok, "%q", e.term)
				require.Equal(t, e.own, found.own)
				require.Equal(t, string(e.posting), string(found.posting))
				_, ok = lookup(append(slices.Clone(e.term), 0))
				require.False(t, ok, "%q + NUL", e.term)
			}
			for _, absent := range []string{"", "0", "A", "term", "term0001x", "zzz", "\xff\xff"} {
				_, ok := lookup([]byte(absent))
				require.False(t, ok, "%q", absent)
			}
		})
	}
}

func TestBlockIndexFind(t *testing.T) {
	var x blockIndex
	for _, term := range []string{"b", "d", "da", "f"} {
		x.add([]byte(term))
	}
	cases := []struct {
		term string
		want int
	}{
		{"", -1}, {"a", -1}, {"b", 0}, {"c", 0}, {"d", 1}, {"d\x00", 1}, {"da", 2}, {"e", 2}, {"f", 3}, {"zz", 3},
	}
	for _, c := range cases {
		require.Equal(t, c.want, x.find([]byte(c.term)), "%q", c.term)
	}
	var empty blockIndex
	require.Equal(t, -1, empty.find([]byte("a")))

	var y blockIndex
	y.add([]byte("g"))
	y.add([]byte("h"))
	x.appendIndex(&y)
	require.Equal(t, 6, x.len())
	require.Equal(t, "g", string(x.first(4)))
	require.Equal(t, "h", string(x.first(5)))
	require.Equal(t, 5, x.find([]byte("hh")))
}

func TestBlockIndexCorrupt(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"count over the bytes", []byte{5, 1, 'a'}},
		{"term over the bytes", []byte{1, 5, 'a'}},
		{"out of order", []byte{2, 1, 'b', 1, 'a'}},
		{"repeated", []byte{2, 1, 'a', 1, 'a'}},
	}
	for _, c := range cases {
		r := byteReader{b: c.b}
		_, err := decodeBlockIndex(&r)
		require.ErrorIs(t, err, errCorrupt, c.name)
	}
}

func TestBlockEntryCorrupt(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty term", []byte{0, 0}},
		{"term over the end", []byte{5, 'a'}},
		{"no tag", []byte{1, 'a'}},
		{"list over the end", []byte{1, 'a', 4, 1, 2}},
		{"bad varint", []byte{1, 'a', 0xff}},
	}
	for _, c := range cases {
		_, _, err := nextEntry(c.b)
		require.ErrorIs(t, err, errCorrupt, c.name)
		_, _, err = lookupBlock(c.b, []byte("b"))
		require.ErrorIs(t, err, errCorrupt, c.name)
	}
}

// FuzzTermBlock reads arbitrary bytes as a block and as a block index: no
// panic, and every entry's slices lie inside the input.
func FuzzTermBlock(f *testing.F) {
	var mem arena
	var seeds [][]byte
	w := blockWriter{mem: &mem, put: func(_, v []byte) error { seeds = append(seeds, v); return nil }}
	_ = w.add([]byte("apple"), []byte{1, 2, 3}, false)
	_ = w.add([]byte("kiwi"), nil, true)
	_ = w.flush()
	seeds = append(seeds, w.index.encode(nil), []byte{1, 'a', 0}, []byte{})
	for _, s := range seeds {
		f.Add(s, []byte("kiwi"))
	}
	f.Fuzz(func(t *testing.T, b, term []byte) {
		b = b[:len(b):len(b)]
		in := func(s []byte) bool {
			if len(s) == 0 {
				return true
			}
			start := len(b) - cap(s) // s is a subslice of b reaching to b's end of capacity
			return start >= 0 && start+len(s) <= len(b)
		}
		for rest := b; len(rest) > 0; {
			e, r, err := nextEntry(rest)
			if err != nil {
				break
			}
			if !in(e.term) || !in(e.posting) || len(r) >= len(rest) {
				t.Fatalf("entry outside its block or no progress: %q", b)
			}
			rest = r
		}
		_, _, _ = lookupBlock(b, term)
		r := byteReader{b: b}
		if x, err := decodeBlockIndex(&r); err == nil {
			for i := 1; i < x.len(); i++ {
				if bytes.Compare(x.first(i-1), x.first(i)) >= 0 {
					t.Fatalf("index out of order: %q", b)
				}
			}
			_ = x.find(term)
		}
	})
}

func TestTermOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 4} {
		for _, n := range []int{0, 1, 5, 300} {
			d := newTermDict(0)
			var starts []uint32
			var terms []string
			for i := range n {
				term := fmt.Sprintf("%c%d", "tsabx\xffz"[i%7], i*7919%1000)
				if i%50 == 0 {
					term = strings.Repeat("t", 1+i%3)
				}
				if int(d.id([]byte(term))) == len(terms) {
					terms = append(terms, term)
				}
			}
			total := uint32(0)
			for i := range terms {
				starts = append(starts, total)
				total += uint32(1 + i%4)
			}
			starts = append(starts, total)

			order, cuts := termOrder(d, starts, workers)
			require.Len(t, cuts, workers+1)
			require.Equal(t, 0, cuts[0])
			require.Equal(t, len(terms), cuts[workers])
			var sorted []string
			for w := range workers {
				require.LessOrEqual(t, cuts[w], cuts[w+1])
				ids := order[cuts[w]:cuts[w+1]]
				sortTerms(d, ids)
				for _, id := range ids {
					sorted = append(sorted, string(d.term(id)))
				}
			}
			want := slices.Clone(terms)
			slices.Sort(want)
			require.Equal(t, want, sorted, "workers %d, %d terms", workers, n)
		}
	}
}

// TestSegmentsWithoutTermBlocks: segments written before term blocks (every
// term under its own 'P' key) are read as before, next to segments with
// blocks, before and after a restart: exact words, a word whose list has its
// own key within blocks, and wildcards over both.
func TestSegmentsWithoutTermBlocks(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(DefaultOptions(dir))
	require.NoError(t, err)
	cfg, err := tokenize.ParseSettings([]tokenize.Setting{{Name: "min_prefix_len", Value: "2"}}, nil)
	require.NoError(t, err)
	schema := simple()
	schema.Tokenization = cfg
	tb := newTableT(t, db, schema)

	db.knobs.noTermBlocks = true
	insert(t, tb, doc(1, "old", "running common", 1), doc(2, "old", "runner", 1))
	db.knobs.noTermBlocks = false
	var docs []Document
	for id := uint64(100); id < 300; id++ {
		docs = append(docs, doc(id, "new", "common word", 1))
	}
	docs = append(docs, doc(300, "new", "run common", 1), doc(301, "new", "rerun", 1))
	insert(t, tb, docs...)

	wild := func(p string) query.Node { return query.Keyword{Text: p, Term: p, Wildcard: true, QPos: 1} }
	check := func(s *Snapshot) {
		require.Nil(t, s.segs[0].blocks)
		require.NotNil(t, s.segs[1].blocks)
		require.NoError(t, s.t.db.bdb.View(func(txn *badger.Txn) error {
			e, found, err := s.findInBlock(txn, s.segs[1], 1, []byte("common"))
			require.True(t, found)
			require.True(t, e.own, "the list of 'common' has a key of its own")
			return err
		}))
		require.Equal(t, []uint64{1, 300}, sortedIDs(search(t, s, "running | run")))
		require.Equal(t, 202, len(search(t, s, "common")))
		got, _ := searchTree(t, s, wild("run*"), SearchOptions{})
		require.Equal(t, []uint64{1, 2, 300}, sortedIDs(got))
		got, _ = searchTree(t, s, wild("com*"), SearchOptions{})
		require.Len(t, got, 202)
		require.Empty(t, search(t, s, "absent"))
	}
	check(tb.Snapshot())
	_, tb = reopen(t, db, dir, "docs")
	check(tb.Snapshot())
}

func sortedIDs(ids []uint64) []uint64 {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}

func TestTermFilter(t *testing.T) {
	for _, n := range []int{0, 1, 10, 5000} {
		f := newTermFilter(n)
		for i := range n {
			f.add(fmt.Appendf(nil, "in%d", i))
		}
		for i := range n {
			require.True(t, f.mayContain(fmt.Appendf(nil, "in%d", i)), "no false negatives")
		}
		if n >= 1000 {
			passed := 0
			for i := range 10000 {
				if f.mayContain(fmt.Appendf(nil, "out%d", i)) {
					passed++
				}
			}
			require.Less(t, passed, 200, "absent terms that pass, of 10,000") // ~1% expected; the hash is fixed, so this is deterministic
		}

		// Halves built apart and joined hold everything.
		a, b := newTermFilter(n), newTermFilter(n)
		for i := range n {
			if i%2 == 0 {
				a.add(fmt.Appendf(nil, "in%d", i))
			} else {
				b.add(fmt.Appendf(nil, "in%d", i))
			}
		}
		a.or(b)
		require.Equal(t, f, a)

		r := byteReader{b: f.encode(nil)}
		got, err := decodeTermFilter(&r)
		require.NoError(t, err)
		require.Equal(t, f, got)
		require.Empty(t, r.b)
	}
	require.Equal(t, uint64(0x7e540b81b5a16ea1), termHash([]byte("glint")), "stored filters need a hash that never changes")
	for _, bad := range [][]byte{nil, {0}, {2, 1, 2, 3, 4, 5, 6, 7, 8}} {
		r := byteReader{b: bad}
		_, err := decodeTermFilter(&r)
		require.ErrorIs(t, err, errCorrupt, "%x", bad)
	}
}

// TestSortTerms sorts terms that tie in their first 8 bytes, are shorter
// than 8 bytes, or end in zero bytes, as bytes.Compare orders them.
func TestSortTerms(t *testing.T) {
	terms := []string{"internationally", "international", "internal", "intern", "in", "i", "", "ab", "ab\x00", "ab\x00c",
		"abcdefgh", "abcdefg", "abcdefgh\x00", "abcdefghi", "zz", "\xff\xff", "caf\xc3\xa9", "cafe"}
	d := newTermDict(4)
	var ids []uint32
	for _, term := range terms {
		ids = append(ids, d.id([]byte(term)))
	}
	sortTerms(d, ids)
	var got []string
	for _, id := range ids {
		got = append(got, string(d.term(id)))
	}
	want := slices.Clone(terms)
	slices.Sort(want)
	require.Equal(t, want, got)
}
