package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQueryCache: a text parsed once is answered with the same tree; the
// cache holds at most queryCacheSize trees, the oldest going first, keeps
// no long texts and no errors.
func TestQueryCache(t *testing.T) {
	tb := newTableT(t, openMem(t), simple())
	snap := tb.Snapshot()
	a, err := snap.ParseQuery("quick fox")
	require.NoError(t, err)
	kept, ok := tb.parsed.get("quick fox")
	require.True(t, ok)
	require.Equal(t, a, kept)
	b, err := snap.ParseQuery("quick fox")
	require.NoError(t, err)
	require.Equal(t, a, b, "the second parse is the kept tree")
	_, err = snap.ParseQuery("quick (fox")
	require.Error(t, err)
	_, ok = tb.parsed.get("quick (fox")
	require.False(t, ok, "an error is not kept")
	long := strings.Repeat("word ", queryCacheText/5+1)
	_, err = snap.ParseQuery(long)
	require.NoError(t, err)
	_, ok = tb.parsed.get(long)
	require.False(t, ok, "a long text is not kept")
	for i := range queryCacheSize {
		_, err := snap.ParseQuery(fmt.Sprintf("w%d", i))
		require.NoError(t, err)
	}
	_, ok = tb.parsed.get("quick fox")
	require.False(t, ok, "the oldest went")
	_, ok = tb.parsed.get(fmt.Sprintf("w%d", queryCacheSize-1))
	require.True(t, ok)
	require.Len(t, tb.parsed.trees, queryCacheSize)
}
