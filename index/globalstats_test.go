package index_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/stretchr/testify/require"
)

// searchTable makes a table "name" holding one document per text (ids
// from first) in two writes, so that it has two segments.
func searchTable(t *testing.T, db *index.DB, name string, first uint64, texts []string) *index.Table {
	t.Helper()
	require.NoError(t, db.CreateTable(index.Schema{Name: name, Columns: []index.Column{
		{Name: "body", Type: index.TypeText, Indexed: true, Stored: true}}}))
	tb, err := db.Table(name)
	require.NoError(t, err)
	half := len(texts) / 2
	for _, part := range [][]string{texts[:half], texts[half:]} {
		require.NoError(t, tb.Write(context.Background(), func(w *index.Writer) error {
			docs := make([]index.Document, len(part))
			for i, text := range part {
				docs[i] = index.Document{ID: first, Values: []index.Value{text}}
				first++
			}
			_, err := w.Insert(docs)
			return err
		}))
	}
	return tb
}

func weights(ms []index.Match, snap *index.Snapshot) map[uint64]int64 {
	out := map[uint64]int64{}
	for _, m := range ms {
		out[snap.ID(m.Ref)] = m.Weight
	}
	return out
}

// TestGlobalStats: a table that is part of a collection, searched with the
// collection's statistics, weighs its documents as one table holding the
// whole collection does.
func TestGlobalStats(t *testing.T) {
	ctx := context.Background()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true).WithMergeFactor(-1))
	require.NoError(t, err)
	defer db.Close()
	var texts []string
	for i := range 40 {
		texts = append(texts, fmt.Sprintf("common word%d %s", i%7, map[bool]string{true: "rare thing", false: "other"}[i%9 == 0]))
	}
	whole := searchTable(t, db, "whole", 1, texts)
	part := searchTable(t, db, "part", 1, texts[:12])
	q, err := query.Parse("common rare", whole.Tokenizer())
	require.NoError(t, err)
	wsnap, psnap := whole.Snapshot(), part.Snapshot()
	all, err := wsnap.SearchWith(ctx, q, index.SearchOptions{})
	require.NoError(t, err)
	local, err := psnap.SearchWith(ctx, q, index.SearchOptions{})
	require.NoError(t, err)
	g := &index.GlobalStats{Docs: int64(wsnap.Count()), TermDocs: map[string]int64{}}
	for _, st := range all.Terms {
		g.TermDocs[st.Term] = st.Docs
	}
	global, err := psnap.SearchWith(ctx, q, index.SearchOptions{Global: g})
	require.NoError(t, err)
	want := weights(all.Matches, wsnap)
	got := weights(global.Matches, psnap)
	require.NotEmpty(t, got)
	for id, w := range got {
		require.Equal(t, want[id], w, "id %d", id)
	}
	require.NotEqual(t, weights(local.Matches, psnap), got, "the part's own statistics weigh differently")
	require.Equal(t, local.Terms, global.Terms, "SHOW META's counts stay the table's")
}

// TestSearchOnly: SearchOptions.Only evaluates only the given documents,
// with the weights and keyword counts of the whole search.
func TestSearchOnly(t *testing.T) {
	ctx := context.Background()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true).WithMergeFactor(-1))
	require.NoError(t, err)
	defer db.Close()
	var texts []string
	for i := range 30 {
		texts = append(texts, fmt.Sprintf("alpha beta%d gamma", i%4))
	}
	tb := searchTable(t, db, "t", 1, texts)
	snap := tb.Snapshot()
	q, err := query.Parse("alpha gamma", tb.Tokenizer())
	require.NoError(t, err)
	all, err := snap.SearchWith(ctx, q, index.SearchOptions{})
	require.NoError(t, err)
	only, err := snap.SearchWith(ctx, q, index.SearchOptions{Only: []uint64{3, 17, 29, 999}})
	require.NoError(t, err)
	want := weights(all.Matches, snap)
	got := weights(only.Matches, snap)
	require.Equal(t, map[uint64]int64{3: want[3], 17: want[17], 29: want[29]}, got)
	require.Equal(t, all.Terms, only.Terms)
	none, err := snap.SearchWith(ctx, q, index.SearchOptions{Only: []uint64{}})
	require.NoError(t, err)
	require.Empty(t, none.Matches)
}
