package tokenize

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestParseCharList(t *testing.T) {
	all := listSyntax{mappings: true, aliases: true}
	cases := []struct {
		name, in, canon string
	}{
		{"single", "a", "a"},
		{"sphinx default", "0..9, A..Z->a..z, _, a..z, U+410..U+42F->U+430..U+44F, U+430..U+44F",
			"0..9, A..Z->a..z, U+005F, a..z, U+0410..U+042F->U+0430..U+044F, U+0430..U+044F"},
		{"white space around operators", " A .. Z -> a .. z ,b ", "A..Z->a..z, b"},
		{"lower-case u+", "u+41->u+61", "A->a"},
		{"literal punctuation", "-, +, ., >, U+2C", "U+002D, U+002B, U+002E, U+003E, U+002C"},
		{"dash mapped", "-->_", "U+002D->U+005F"},
		{"dot range", "...:", "U+002E..U+003A"},
		{"literal non-ASCII", "é, ё->е", "U+00E9, U+0451->U+0435"},
		{"aliases in any case", "English, RUSSIAN, non_cjk, cjk", "english, russian, non_cjk, cjk"},
		{"largest", "U+10FFFF", "U+10FFFF"},
		{"empty", "  ", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items, err := parseCharList(c.in, all)
			require.NoError(t, err)
			require.Equal(t, c.canon, formatCharList(items))
			again, err := parseCharList(c.canon, all)
			require.NoError(t, err)
			require.Equal(t, items, again)
		})
	}
}

func TestParseCharListErrors(t *testing.T) {
	all := listSyntax{mappings: true, aliases: true}
	cases := []struct {
		name, in string
		syn      listSyntax
		want     string
	}{
		{"reversed range", "0..9, a..z, z..a", all, "range 'z..a' ends before it starts (at offset 12)"},
		{"reversed destination", "a..c->z..x", all, "range 'z..x' ends before it starts (at offset 6)"},
		{"lengths differ", "A..Z->a..y", all, "'A..Z->a..y' maps a range of 26 characters to a range of 25 (at offset 0)"},
		{"range to one", "A..Z->a", all, "'A..Z->a' maps a range to one character; map each character or use two ranges of the same length (at offset 0)"},
		{"one to range", "a->b..c", all, "'a->b..c' maps one character to a range (at offset 0)"},
		{"empty entry", "a,,b", all, "empty entry (a literal ',' is written U+2C) (at offset 2)"},
		{"trailing comma", "a, b,", all, "list ends with ',' (at offset 5)"},
		{"missing end", "a..", all, "missing character at the end (at offset 3)"},
		{"missing before comma", "a->, b", all, "missing character before ',' (at offset 3)"},
		{"bad hex", "U+zz", all, "'U+' must be followed by hexadecimal digits (at offset 0)"},
		{"beyond Unicode", "U+110000", all, "U+110000 is beyond Unicode (U+10FFFF) (at offset 0)"},
		{"too many digits", "a, U+1234567", all, "'U+1234567' is beyond Unicode (U+10FFFF) (at offset 3)"},
		{"surrogate", "U+D800", all, "U+D800 is a surrogate, not a character (at offset 0)"},
		{"control", "a, U+1->a", all, "U+0001 is a control character or space: those always separate words (at offset 3)"},
		{"control destination", "a->U+0", all, "U+0000 is a control character or space: those always separate words (at offset 3)"},
		{"space range", "U+0..U+20", all, "U+0000 is a control character or space: those always separate words (at offset 0)"},
		{"C1 control", "U+85", all, "U+0085 is a control character or space: those always separate words (at offset 0)"},
		{"chained mapping", "A->a->b", all, "unexpected '->b' after 'A->a' (at offset 4)"},
		{"two characters", "ab", all, "unexpected 'b' after 'a' (at offset 1)"},
		{"unknown alias", "a, latin", all, "unknown alias 'latin' (the aliases are english, russian, non_cjk and cjk; characters are one to an entry, separated by ',') (at offset 3)"},
		{"Manticore's alias", "non_cont, U+00E4", all, "unknown alias 'non_cont': glint has non_cjk and cjk, not Manticore's continuous-script sets (at offset 0)"},
		{"three characters where aliases are not allowed", "abc", listSyntax{}, "unexpected 'bc' after 'a' (at offset 1)"},
		{"lone >", "a>b", all, "unexpected '>' (a mapping is written '->') (at offset 1)"},
		{"mapping not allowed", "a, b->c", listSyntax{}, "mappings ('->') are not allowed here (at offset 4)"},
		{"alias not allowed", "a, cjk", listSyntax{mappings: true}, "alias 'cjk' is not allowed here (at offset 3)"},
		{"invalid UTF-8", "a, \xff", all, "invalid UTF-8 (at offset 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseCharList(c.in, c.syn)
			require.EqualError(t, err, c.want)
		})
	}
}

// FuzzCharsetTable checks the charset_table parser: no panics; what it
// accepts it writes in a canonical form that parses to the same entries and
// builds a table in which every character has one class.
func FuzzCharsetTable(f *testing.F) {
	for _, s := range []string{
		"0..9, A..Z->a..z, _, a..z, U+410..U+42F->U+430..U+44F, U+430..U+44F",
		"non_cjk, cjk", "english, russian, U+2D->_", "a..z, z..a", "-->a", "...", "U+10FFFF", "a,,b", "u+0041..u+5a->a..z",
	} {
		f.Add(s)
	}
	all := listSyntax{mappings: true, aliases: true}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := parseCharList(s, all)
		if err != nil {
			var le *listError
			require.ErrorAs(t, err, &le)
			require.GreaterOrEqual(t, le.Offset, 0)
			require.LessOrEqual(t, le.Offset, len(s))
			return
		}
		canon := formatCharList(items)
		again, err := parseCharList(canon, all)
		require.NoError(t, err, "canonical %q of %q", canon, s)
		require.Equal(t, items, again)
		require.Equal(t, canon, formatCharList(again))
		if len(items) == 0 || len(s) > 64 { // building big tables is slow
			return
		}
		c := Config{CharsetTable: canon}
		tab, err := c.charTable()
		require.NoError(t, err)
		for _, it := range items {
			if it.alias != aliasNone {
				continue
			}
			for _, r := range []rune{it.lo, it.hi} {
				cl, to := tab.class(r)
				require.Equal(t, cWord, cl, "%U in %q", r, s)
				require.True(t, utf8.ValidRune(to) && !reservedRune(to), "%U folds to %U", r, to)
			}
		}
	})
}
