package lend

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLendsOnce(t *testing.T) {
	c := New[int](4, 16)
	e := c.Add("a", 1)
	require.NotNil(t, e)
	require.Nil(t, c.Lend("a"), "lent to whoever added it")
	require.Nil(t, c.Add("a", 2), "kept already")
	c.Give(e)
	e2 := c.Lend("a")
	require.Same(t, e, e2)
	require.Equal(t, 1, e2.Value)
	require.Nil(t, c.Lend("a"))
	c.Give(e2)
	require.Nil(t, c.Lend("b"))
}

func TestBounds(t *testing.T) {
	c := New[int](2, 10) // 2 entries, 20 bytes of keys
	for _, k := range []string{"a", "b", "c"} {
		c.Give(c.Add(k, 0))
	}
	require.Equal(t, 2, c.Len())
	require.Nil(t, c.Lend("a"), "the least recently used went first")
	c.Give(c.Lend("b")) // b is now the most recent
	c.Give(c.Add(strings.Repeat("x", 15), 0))
	require.Equal(t, 2, c.Len(), "b and the long key: 16 bytes")
	require.Nil(t, c.Lend("c"))
	require.Nil(t, c.Add(strings.Repeat("y", 21), 0), "over the whole budget")
	require.Equal(t, 0, c.Len())
	require.Equal(t, 0, c.Bytes())
}

func TestNil(t *testing.T) {
	c := New[int](0, 10)
	require.Nil(t, c)
	require.Nil(t, c.Add("a", 1))
	require.Nil(t, c.Lend("a"))
	c.Give(nil)
	require.Equal(t, 0, c.Len())
}
