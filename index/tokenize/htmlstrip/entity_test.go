package htmlstrip

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decode decodes every character reference in s with entityAt.
func decode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '&' {
			if dec, n := entityAt(s[i:]); n > 0 {
				b.WriteString(dec)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

var entitySeeds = []string{
	"&amp;", "&amp", "&ampx", "&amp=", "&AMP;", "&notit;", "&notin;", "&not", "&noti",
	"&fjlig;", "&semi;", "&eacute", "&#65", "&#65;", "&#x41", "&#X41;", "&#", "&#x", "&#;", "&#xg",
	"&#0;", "&#31;", "&#32;", "&#128;", "&#xD800;", "&#1114112;", "&#99999999999999999;",
	"&", "&&amp;", "&;", "&a", "&copy2024", "&lt&gt", "&apos;", "&nbsp;&nbsp", "&thetasym;",
	"&ThisIsNotAnEntityAtAll;",
}

// The reference's rules: HTML 4.01 names with ';' (and apos), case as
// written, &nbsp; a plain space; numeric references with ';' above 31,
// else dropped with their digits; anything else is text.
func TestEntityAt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"&amp;x", "&x"},
		{"&amp x", "&amp x"},
		{"&AMP;", "&AMP;"},
		{"&apos;", "'"},
		{"caf&eacute;", "café"},
		{"&thetasym;", "ϑ"},
		{"&notin;", "∉"},
		{"&notit;", "&notit;"},
		{"&semi;", "&semi;"}, // (HTML5 only)
		{"a&nbsp;b", "a b"},
		{"&#65;&#x42;&#X43;", "ABC"},
		{"x&#65 y", "x y"},
		{"x&#31;y", "x;y"}, // (the ';' is not taken)
		{"x&#32;y", "x y"},
		{"&#xD800;", "\uFFFD"},
		{"&#1114177;", "A"}, // (0x110000 + 65: cut to Unicode's range)
		{"&#;", ";"},
		{"&#x;", ";"},
		{"& x", "& x"},
		{"&", "&"},
		{"&#", ""},
	} {
		assert.Equal(t, c.want, decode(c.in), "%q", c.in)
	}
}

// FuzzEntities: any text decodes without a panic, each reference replaces
// bytes of its own ending with ';' (or is dropped), and valid UTF-8 stays
// valid.
func FuzzEntities(f *testing.F) {
	for _, s := range entitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] != '&' {
				continue
			}
			dec, n := entityAt(s[i:])
			require.LessOrEqual(t, n, len(s)-i)
			if dec != "" {
				require.Equal(t, byte(';'), s[i+n-1], "%q", s[i:])
				require.True(t, utf8.ValidString(dec), "%q", s[i:])
			}
		}
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(decode(s)), "%q", s)
		}
	})
}
