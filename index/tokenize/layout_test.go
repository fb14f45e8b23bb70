package tokenize

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layoutOf tokenizes text into a Layout, as the index and the highlighter do.
func layoutOf(tok *Tokenizer, text string) Layout {
	var l Layout
	l.Reset(len(text))
	var it Iter
	it.Reset(tok, text)
	for it.Next() {
		l.Add(it.Pos(), it.Start(), it.End(), it.Term())
	}
	return l
}

// requireSameLayout compares layouts, an empty slice equal to none.
func requireSameLayout(t *testing.T, want, got Layout) {
	t.Helper()
	require.Equal(t, slices.Clip(append([]Word{}, want.Words...)), slices.Clip(append([]Word{}, got.Words...)))
	require.Equal(t, append([]Bound{}, want.Bounds...), append([]Bound{}, got.Bounds...))
}

func TestLayoutEncoding(t *testing.T) {
	long := strings.Repeat("x", 40)
	cases := []struct {
		name     string
		settings []string
		text     string
		size     int  // expected encoded size, 0: not checked
		overlap  bool // the words overlap: Decode refuses the layout
	}{
		{name: "empty", text: "", size: 3},
		{name: "prose is a byte per word", text: "The quick brown fox, jumps over: the lazy dog.", size: 3 + 9},
		{name: "long word and wide gap", text: "a " + long + " \n\n\n\n\n\n\n\n b"},
		{name: "leading separators", text: "          word"},
		{name: "cyrillic and cjk", text: "Привет мир 漢字かな", settings: []string{"charset_table=non_cjk", "ngram_len=1", "ngram_chars=cjk"}},
		{name: "stopwords leave position gaps", text: "the cat of the house", settings: []string{"stopwords=the of"}},
		{name: "phrase boundaries step positions", text: "one. two? three", settings: []string{"phrase_boundary=., ?", "phrase_boundary_step=100"}},
		{name: "sentences and paragraphs", text: "<p>First one. Second one!</p><p>Third</p>", settings: []string{"html_strip=1", "index_sp=1"}},
		{name: "zones", text: "<h1>Title</h1><b>bold <i>both</i></b> plain", settings: []string{"html_strip=1", "index_zones=h1, b, i"}},
		{name: "blended words overlap the parts after them", text: "AT&T and x-ray", settings: []string{"blend_chars=&, -"}, overlap: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := newTok(t, c.settings...)
			want := layoutOf(tok, c.text)
			enc := want.AppendEncoded(nil)
			if c.size > 0 {
				require.Len(t, enc, c.size)
			}
			got := Layout{Words: make([]Word, 0, 1), Bounds: []Bound{{Kind: ZoneOpen, Zone: "stale"}}}
			err := got.Decode(enc, len(c.text))
			if c.overlap {
				require.ErrorIs(t, err, ErrBadLayout)
				return
			}
			require.NoError(t, err)
			requireSameLayout(t, want, got)
		})
	}
}

func TestLayoutDecodeRefusesCorruptInput(t *testing.T) {
	good := Layout{Words: []Word{{1, 0, 3}, {2, 4, 7}}, Bounds: []Bound{{Kind: ZoneOpen, Pos: 1, Zone: "b"}}}
	enc := good.AppendEncoded(nil)
	// An escaped word at the largest position, then a one-byte word.
	pastMaxPos := binary.AppendUvarint([]byte{layoutVersion, 2, wordEscape}, 1<<31-1)
	pastMaxPos = append(pastMaxPos, 0, 1, 1<<5|1, 0)
	cases := []struct {
		name    string
		b       []byte
		textLen int
	}{
		{"empty", nil, 10},
		{"unknown version", append([]byte{9}, enc[1:]...), 10},
		{"truncated", enc[:len(enc)-1], 10},
		{"trailing bytes", append(append([]byte{}, enc...), 0), 10},
		{"word past the end of the text", enc, 6},
		{"word count beyond the input", []byte{layoutVersion, 200, 1}, 10},
		{"overlapping words", (&Layout{Words: []Word{{1, 0, 5}, {2, 3, 7}}}).AppendEncoded(nil), 10},
		{"unknown bound kind", []byte{layoutVersion, 0, 1, 9, 0}, 10},
		{"zone name beyond the input", []byte{layoutVersion, 0, 1, byte(ZoneOpen), 0, 5, 'a'}, 10},
		{"escaped word with gap 0", []byte{layoutVersion, 1, wordEscape, 0, 0, 1, 0}, 10},
		// One-byte words are checked against the text once, at their end.
		{"one-byte words past the end of the text", []byte{layoutVersion, 3, 5, 1<<5 | 5, 1<<5 | 5, 0}, 16},
		{"one-byte word past the largest position", pastMaxPos, 10},
		{"escaped word starting beyond the text", []byte{layoutVersion, 1, wordEscape, 1, 40, 1, 0}, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l Layout
			require.ErrorIs(t, l.Decode(c.b, c.textLen), ErrBadLayout)
		})
	}
	var l Layout
	require.NoError(t, l.Decode(enc, 7))
}

// FuzzLayoutEncoding checks that the layout of any text under any settings
// survives encoding exactly, or (words that overlap) is refused, and that
// decoding arbitrary bytes never panics and never yields a word outside the
// text or out of order.
func FuzzLayoutEncoding(f *testing.F) {
	f.Add(uint32(0), "The quick brown fox.", []byte{layoutVersion, 1, 3, 0})
	f.Add(uint32(1<<15|1<<17), "<p>Hi there. <b>You</b></p>", []byte{})
	f.Fuzz(func(t *testing.T, sel uint32, text string, raw []byte) {
		if tok := fuzzTokenizer(sel); tok != nil {
			want := layoutOf(tok, text)
			var got Layout
			if err := got.Decode(want.AppendEncoded(nil), len(text)); err == nil {
				requireSameLayout(t, want, got)
			} else {
				overlap := false
				for i := 1; i < len(want.Words); i++ {
					overlap = overlap || want.Words[i].Start < want.Words[i-1].End
				}
				require.True(t, overlap, "a layout without overlaps was refused: %v", err)
			}
		}
		var l Layout
		if l.Decode(raw, len(text)) == nil {
			end := int32(0)
			for _, w := range l.Words {
				require.True(t, w.Start >= end && w.End >= w.Start && int(w.End) <= len(text))
				end = w.End
			}
		}
	})
}
