package lend

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLendsOnce(t *testing.T) {
	c := New[int](4, 16, 1)
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
	c := New[int](2, 10, 1) // 2 entries, 20 bytes of keys
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
	c := New[int](0, 10, 1)
	require.Nil(t, c)
	require.Nil(t, c.Add("a", 1))
	require.Nil(t, c.Lend("a"))
	c.Give(nil)
	require.Equal(t, 0, c.Len())
}

// TestCopies: a key keeps up to copies values, each lent to one user; the
// key's bytes count once per value.
func TestCopies(t *testing.T) {
	c := New[int](4, 16, 2)
	a := c.Add("k", 1)
	require.NotNil(t, a)
	require.Nil(t, c.Lend("k"), "the one value is lent")
	b := c.Add("k", 2)
	require.NotNil(t, b, "a second value for a second user")
	require.Nil(t, c.Add("k", 3), "two values at most")
	require.Equal(t, 1, c.Len())
	require.Equal(t, 2, c.Bytes())
	c.Give(b)
	require.Same(t, b, c.Lend("k"))
	c.Give(a)
	require.Same(t, a, c.Lend("k"))
	require.Nil(t, c.Lend("k"))

	small := New[int](1, 3, 4) // 3 bytes of keys
	for range 3 {
		require.NotNil(t, small.Add("x", 0))
	}
	require.Nil(t, small.Add("x", 0), "a fourth copy is over the bytes: the key goes")
	require.Equal(t, 0, small.Len())
	require.Equal(t, 0, small.Bytes())
}
