package sql

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCollationKeyAgrees: under every collation, two strings are one map
// key exactly when they compare equal, and the order is antisymmetric and
// transitive, on strings of letters that fold (ASCII, accented, ß), other
// bytes and bytes that are not UTF-8.
func TestCollationKeyAgrees(t *testing.T) {
	pieces := []string{"a", "A", "z", "Z", "é", "É", "e", "E", "ß", "s", "S", "1", " ", "_", "\x00", "\xff", "\xc3", "Ω", "ω", "𝔸"}
	rnd := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b []byte
		for range rnd.IntN(4) {
			b = append(b, pieces[rnd.IntN(len(pieces))]...)
		}
		return string(b)
	}
	for _, c := range []collation{collLibcCI, collLibcCS, collUTF8CI, collBinary} {
		for range 20000 {
			a, b, d := word(), word(), word()
			ab, ba := c.compare(a, b), c.compare(b, a)
			require.Equal(t, sign(ab), -sign(ba), "%s: %q vs %q", c, a, b)
			require.Equal(t, ab == 0, c.key(a) == c.key(b), "%s: %q vs %q", c, a, b)
			if ab <= 0 && c.compare(b, d) <= 0 {
				require.LessOrEqual(t, c.compare(a, d), 0, "%s: %q <= %q <= %q", c, a, b, d)
			}
		}
	}
}

func TestCollationRules(t *testing.T) {
	for _, x := range []struct {
		c    collation
		a, b string
		want int
	}{
		{collLibcCI, "abc", "ABC", 0},
		{collLibcCI, "ab", "ABC", -1},     // equal as far as the shorter goes: it comes first
		{collLibcCI, "Zebra", "apple", 1}, // z after a, whatever the case
		{collLibcCI, "é", "É", 1},         // only ASCII folds
		{collLibcCS, "Zebra", "apple", -1},
		{collBinary, "abc", "ABC", 1},
		{collUTF8CI, "é", "É", 0},
		{collUTF8CI, "Élan", "elan", 0},
		{collUTF8CI, "straße", "STRASE", 0},
		{collUTF8CI, "é", "f", -1},
	} {
		require.Equal(t, x.want, sign(x.c.compare(x.a, x.b)), "%s: %q vs %q", x.c, x.a, x.b)
	}
	for name, want := range map[string]collation{
		"libc_ci": collLibcCI, "LIBC_CS": collLibcCS, "utf8_general_ci": collUTF8CI, "binary": collBinary,
		"utf8mb4_general_ci": collLibcCI, "utf8mb4_0900_ai_ci": collLibcCI, "utf8mb4_bin": collBinary,
		"utf8mb4_0900_as_cs": collLibcCS, "latin1_swedish_ci": collLibcCI,
	} {
		c, ok := parseCollation(name)
		require.True(t, ok, name)
		require.Equal(t, want, c, name)
	}
	for _, name := range []string{"", "ci", "klingon_ci", "utf8mb4", "utf8mb4_general", "cp1251_general_ci"} {
		_, ok := parseCollation(name)
		require.False(t, ok, name)
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
