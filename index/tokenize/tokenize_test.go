package tokenize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func tk(term string, pos, start, end int) Token {
	return Token{Term: term, Pos: pos, Start: start, End: end}
}

func TestAppend(t *testing.T) {
	long := strings.Repeat("ab", 100)
	cases := []struct {
		name string
		text string
		want []Token
	}{
		{"empty", "", nil},
		{"separators only", " \t\n,.;-!?", nil},
		{"ascii", "Hello, World!", []Token{tk("hello", 1, 0, 5), tk("world", 2, 7, 12)}},
		{"digits", "route 66 and 2024a", []Token{tk("route", 1, 0, 5), tk("66", 2, 6, 8), tk("and", 3, 9, 12), tk("2024a", 4, 13, 18)}},
		{"apostrophe splits", "don't", []Token{tk("don", 1, 0, 3), tk("t", 2, 4, 5)}},
		{"underscore splits", "snake_case", []Token{tk("snake", 1, 0, 5), tk("case", 2, 6, 10)}},
		{"latin accents", "Ünïcödé café", []Token{tk("ünïcödé", 1, 0, 11), tk("café", 2, 12, 17)}},
		{"cyrillic", "Привет, МИР", []Token{tk("привет", 1, 0, 12), tk("мир", 2, 14, 20)}},
		{"greek", "ΑΘΗΝΑ", []Token{tk("αθηνα", 1, 0, 10)}},
		{"cjk run is one word", "東京 タワー", []Token{tk("東京", 1, 0, 6), tk("タワー", 2, 7, 16)}},
		{"combining mark inside word", "e\u0301t\u00e9", []Token{tk("e\u0301té", 1, 0, 6)}},
		{"combining mark cannot start a word", "\u0301ab", []Token{tk("ab", 1, 2, 4)}},
		{"invalid utf8 separates", "ab\xffcd", []Token{tk("ab", 1, 0, 2), tk("cd", 2, 3, 5)}},
		{"nbsp and punctuation separate", "a\u00a0b\u2014c", []Token{tk("a", 1, 0, 1), tk("b", 2, 3, 4), tk("c", 3, 7, 8)}},
		{"long word is cut", long + " x", []Token{tk(long[:MaxTermLen], 1, 0, 200), tk("x", 2, 201, 202)}},
	}
	tok, err := New(Config{})
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tok.Append(nil, c.text)
			require.Equal(t, c.want, got)
			for _, g := range got { // offsets cut the original word
				require.Equal(t, strings.ToLower(c.text[g.Start:g.End])[:len(g.Term)], g.Term)
			}
		})
	}
}

func TestTokensStops(t *testing.T) {
	var got []string
	Default().Tokens("a b c d", func(tok Token) bool {
		got = append(got, tok.Term)
		return len(got) < 2
	})
	require.Equal(t, []string{"a", "b"}, got)
}

func TestIterReuse(t *testing.T) {
	var it Iter
	tok := Default()
	for _, text := range []string{"One two", "THREE"} {
		it.Reset(tok, text)
		var terms []string
		for it.Next() {
			terms = append(terms, string(it.Term()))
		}
		require.NotEmpty(t, terms)
	}
	it.Reset(tok, "")
	require.False(t, it.Next())
}

func TestTermIsSubstringWhenUnchanged(t *testing.T) {
	text := "plain words"
	toks := Default().Append(nil, text)
	require.Len(t, toks, 2)
	// No folding needed: the Term shares the text's memory (no allocation).
	require.LessOrEqual(t, testingAllocs(func() { Default().Tokens(text, func(Token) bool { return true }) }), 1, "only the term buffer")
}

func testingAllocs(f func()) int { return int(testing.AllocsPerRun(10, f)) }

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "Hello World", "Привет мир", "東京", "a\xffb", "e\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		for i, tok := range Default().Append(nil, s) {
			if tok.Pos != i+1 || tok.Start < prev || tok.End <= tok.Start || tok.End > len(s) || tok.Term == "" {
				t.Fatalf("bad token %+v after %d in %q", tok, prev, s)
			}
			prev = tok.End
		}
	})
}

// englishText returns about n bytes of English-like text.
func englishText(n int) string {
	words := strings.Fields(`The quick brown fox jumps over the lazy dog while Search engines
		index documents into inverted lists of terms and positions so that queries
		find every matching document quickly even when collections grow to millions of pages`)
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[(i*7+i/3)%len(words)])
		if i%11 == 10 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func BenchmarkTokenize(b *testing.B) {
	text := englishText(12 << 10)
	tok := Default()
	b.Run("Iter", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		var it Iter
		for b.Loop() {
			it.Reset(tok, text)
			for it.Next() {
			}
		}
	})
	b.Run("Append", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		var dst []Token
		for b.Loop() {
			dst = tok.Append(dst[:0], text)
		}
	})
	cyr := strings.Repeat("Съешь же ещё этих мягких французских булок, да выпей чаю. ", 200)
	b.Run("Cyrillic", func(b *testing.B) {
		b.SetBytes(int64(len(cyr)))
		var it Iter
		for b.Loop() {
			it.Reset(tok, cyr)
			for it.Next() {
			}
		}
	})
}

func TestMovemask(t *testing.T) {
	tests := []struct{ x, want uint64 }{
		{0, 0},
		{highBits, 0xff},
		{0x80, 1},
		{0x8000000000000000, 0x80},
		{0x0080008000800080, 0x55},
		{0x7f7f7f7f7f7f7f7f, 0}, // only the high bits count
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, movemask(tt.x), "%#x", tt.x)
	}
}

// blockTexts are texts whose words cross the fast path's 64-byte block
// ends and whose non-ASCII bytes sit around them.
var blockTexts = []string{
	strings.Repeat("The Quick brown FOX, 42 jumps. ", 12),
	strings.Repeat("a", 63) + " B" + strings.Repeat(" cD", 40),
	strings.Repeat("x", 64) + strings.Repeat(" Yz", 40),
	strings.Repeat("ab ", 21) + "é" + strings.Repeat(" CD", 30),
	strings.Repeat("word ", 13) + "Ünï" + strings.Repeat(" Ab", 30) + "ç",
	strings.Repeat("W", 200) + " end " + strings.Repeat("q ", 40),
}

// TestBlockPath checks the fast path's blocks against the general path.
func TestBlockPath(t *testing.T) {
	general, err := New(Config{CharsetTable: "non_cjk, cjk"})
	require.NoError(t, err)
	for _, text := range blockTexts {
		require.Equal(t, general.Append(nil, text), Default().Append(nil, text), "%q", text)
		require.Equal(t, withoutBlocks(general).Append(nil, text), Default().Append(nil, text), "%q", text)
	}
}

// withoutBlocks is tok with its general path's block scan turned off:
// every word found byte by byte.
func withoutBlocks(tok *Tokenizer) *Tokenizer {
	r := *tok.r
	r.asciiBlocks = false
	return &Tokenizer{config: tok.config, r: &r}
}

// TestGeneralBlocks checks the block scan of the general path
// (rules.asciiBlocks) against its byte scan: the same tokens, and the
// same layouts and candidates from NextCandidate.
func TestGeneralBlocks(t *testing.T) {
	seed := uint64(3)
	texts := append([]string{}, blockTexts...)
	pieces := []string{"The", "quick", "Brown", "42", " ", " ", ", ", ".", "é", "ünï", "X", "running", "cities'", "\n", strings.Repeat("w", 70), "日本"}
	for range 200 {
		var b strings.Builder
		for range 20 + int(seed>>60)*10 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[int(seed>>33)%len(pieces)])
		}
		texts = append(texts, b.String())
	}
	for _, c := range []Config{
		{CharsetTable: "non_cjk, cjk"},
		{MinWordLen: 3},
		{Stopwords: []string{"the", "42"}, StopwordsTakeNoPos: true},
		{Morphology: []string{"stem_en"}},
		{Morphology: []string{"stem_en"}, IndexExactWords: true, Stopwords: []string{"the"}},
	} {
		tok, err := New(c)
		require.NoError(t, err)
		require.True(t, tok.r.asciiBlocks, "%+v", c)
		slow := withoutBlocks(tok)
		for _, text := range texts {
			require.Equal(t, slow.Append(nil, text), tok.Append(nil, text), "%+v: %q", c, text)
			for _, f := range candidateFilters() {
				var want, got Layout
				var wantToks, gotToks []Token
				var it Iter
				for it.Reset(slow, text); it.NextCandidate(&want, f); {
					wantToks = append(wantToks, it.Token())
				}
				for it.Reset(tok, text); it.NextCandidate(&got, f); {
					gotToks = append(gotToks, it.Token())
				}
				require.Equal(t, want, got, "%+v: %q", c, text)
				require.Equal(t, wantToks, gotToks, "%+v: %q", c, text)
			}
		}
	}
}
