// Package tokenize splits text into normalized words. It is the one tokenizer of
// glint: the indexer, the query parser and the highlighter all use it, so a word
// matches and is highlighted exactly when it was indexed.
package tokenize

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Token is one word of a text.
type Token struct {
	Term  string // the normalized form that is indexed and searched
	Pos   int    // 1-based word position in the field
	Start int    // byte offset of the first byte of the word in the text
	End   int    // byte offset just past the word
}

// MaxTermLen is the longest normalized term in bytes. A longer word is still one
// token (Start and End cover all of it), but its Term is cut to at most MaxTermLen
// bytes at a character boundary.
const MaxTermLen = 128

// Tokenizer splits text into tokens. It is immutable and safe for concurrent use.
//
// The default rules (the zero Config): a word is a maximal run of Unicode
// letters and digits (plus combining marks following a letter or digit);
// everything else separates words. Terms are lower-cased with
// unicode.ToLower. Invalid UTF-8 separates words. A run of CJK ideographs
// without separators is one word (ngram_chars splits it). The settings that
// change these rules are described in the package documentation.
type Tokenizer struct {
	config Config
	r      *rules     // nil: the default rules, on the fast path
	query  *Tokenizer // Query, if it differs from t
	texts  *Tokenizer // Texts, if it differs from t
}

// Default is a Tokenizer with the zero Config.
func Default() *Tokenizer { return &Tokenizer{} }

// Byte classes of the ASCII fast path.
const (
	clsSep   = 0
	clsWord  = 1 // lower-case letter or digit: kept as is
	clsUpper = 2 // upper-case letter: folded
	clsMulti = 3 // first byte of a multi-byte sequence: decode
)

var asciiClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			t[c] = clsWord
		case c >= 'A' && c <= 'Z':
			t[c] = clsUpper
		case c >= 0x80:
			t[c] = clsMulti
		}
	}
	return
}()

// Iter walks the tokens of one text without allocating (after its buffers
// have grown; stemming allocates for words it has not seen). The zero Iter
// is not usable: call Reset. An Iter is not safe for concurrent use, but may
// be reused for any number of texts and tokenizers.
//
//	var it tokenize.Iter
//	it.Reset(tok, text)
//	for it.Next() {
//		use(it.Term(), it.Pos(), it.Start(), it.End())
//	}
//
// Tokens come in text order with non-decreasing positions. Several tokens
// may share a position: a word and its exact form (index_exact_words), a
// blended token and its first part, a reserved term (IsReserved) and the
// word it stands before or after. Reserved terms never advance positions. A
// word that gives no term (a stopword, a word shorter than min_word_len)
// still takes its position. After Next returns false, Pos is the position of
// the last token that is not a reserved term (0 if there was none): the
// length of the field, the position a "word$" query looks for.
type Iter struct {
	tab     *[0x10000]uint8
	text    string
	i       int // next byte to look at
	pos     int
	start   int
	end     int
	term    []byte
	same    bool // term equals text[start:end] byte for byte
	blended bool
	full    bool      // the general path (t has settings)
	x       *fullIter // its state, kept across Resets
	stops   bool      // KeepStopwords

	// The block scan of the default rules: the word bytes (ASCII letters
	// and digits) and the upper-case letters of the 64 bytes of text
	// before blockEnd, one bit per byte, when those bytes are all ASCII.
	// No block is tried before noBlock (a non-ASCII byte, or the start of
	// a word longer than a block, lies just before it).
	blockEnd, noBlock int
	words, upper      uint64
}

// Reset starts the iteration over text.
func (it *Iter) Reset(t *Tokenizer, text string) {
	it.text = text
	it.i = 0
	it.pos = 0
	it.start, it.end = 0, 0
	it.term = it.term[:0]
	it.same, it.blended = false, false
	it.blockEnd, it.noBlock = 0, 0
	it.full = t.r != nil
	if it.full {
		if it.x == nil {
			it.x = new(fullIter)
		}
		it.x.reset(t.r, text)
		it.x.keepStops = it.stops
		it.i = len(text)
		return
	}
	if it.tab == nil {
		it.tab = bmpClass()
	}
}

// KeepStopwords makes the iteration give each stopword as a token, with
// the term StopwordTerm, from the next Reset on: what a Layout for a
// highlighter records (stopwords count as words in snippets). Tokens for
// an index never include them.
func (it *Iter) KeepStopwords(on bool) { it.stops = on }

// Term is the normalized form of the current token. It is valid until the
// next call of Next or Reset.
func (it *Iter) Term() []byte { return it.term }

// Pos is the 1-based position of the current token.
func (it *Iter) Pos() int { return it.pos }

// Start is the byte offset of the current token in the text. With
// html_strip it is an offset into the HTML as given; a reserved term has
// Start == End.
func (it *Iter) Start() int { return it.start }

// End is the byte offset just past the current token.
func (it *Iter) End() int { return it.end }

// Blended reports whether the current token is a blended token (blend_chars)
// as a whole, or one of its blend_mode variants, rather than a word. A
// blended token comes before its parts, which are ordinary words; the first
// part has the blended token's position.
func (it *Iter) Blended() bool { return it.blended }

// Token returns the current token as a Token that owns its Term (a substring
// of the text when folding changed nothing, else a new string).
func (it *Iter) Token() Token {
	var term string
	if it.same || it.full && it.end-it.start == len(it.term) && string(it.term) == it.text[it.start:it.end] {
		term = it.text[it.start:it.end]
	} else {
		term = string(it.term)
	}
	return Token{Term: term, Pos: it.pos, Start: it.start, End: it.end}
}

// Classes of runes above ASCII.
const (
	runeSep   = 0 // separator
	runeWord  = 1 // letter or digit, unchanged by folding
	runeFold  = 2 // letter that folding changes
	runeMark  = 3 // combining mark: continues a word, cannot start one
	runeLarge = 4 // outside the table: ask package unicode
)

// bmpClass caches the class of every rune of the Basic Multilingual Plane.
var bmpClass = sync.OnceValue(func() *[0x10000]uint8 {
	var t [0x10000]uint8
	for r := rune(0); r < 0x10000; r++ {
		t[r] = classify(r)
	}
	return &t
})

func classify(r rune) uint8 {
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		if unicode.ToLower(r) != r {
			return runeFold
		}
		return runeWord
	case unicode.Is(unicode.M, r):
		return runeMark
	}
	return runeSep
}

// runeClass returns the class of r, which is not ASCII and not RuneError.
func runeClass(tab *[0x10000]uint8, r rune) uint8 {
	if r < 0x10000 {
		return tab[r]
	}
	return classify(r)
}

// SWAR (SIMD within a register) helpers of the ASCII fast path: eight bytes
// of text in a uint64, a byte's high bit set in a result for the bytes that
// pass the test. inRange and wordBytes need bytes below 0x80.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load64 reads text[i:i+8], little-endian (the compiler makes it one load).
func load64(text string, i int) uint64 {
	b := text[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// inRange marks the bytes of x in [lo, hi]: adding 0x80-lo sets a byte's
// high bit when it is at least lo, adding 0x7f-hi when it is above hi; no
// carry crosses bytes below 0x80.
func inRange(x uint64, lo, hi byte) uint64 {
	return (x + (0x80-uint64(lo))*lowBits) &^ (x + (0x7f-uint64(hi))*lowBits) & highBits
}

// wordBytes marks the ASCII letters and digits of x.
func wordBytes(x uint64) uint64 {
	return inRange(x, 'a', 'z') | inRange(x, 'A', 'Z') | inRange(x, '0', '9')
}

// movemask gathers the high bits of x's bytes into the low byte, byte j's
// into bit j: the multiplier's bit 7k moves bit 8j+7 to bit 56+j when
// j+k = 7, and the partial products never meet.
func movemask(x uint64) uint64 {
	return (x & highBits) * 0x02040810204081 >> 56
}

// block reads the word bytes and the upper-case letters of the 64 bytes of
// text at i into bitmaps. It reports false, and notes where the next block
// may start, when one of them is not ASCII.
func (it *Iter) block(i int) bool {
	var words, upper uint64
	for k := 0; k < 64; k += 8 {
		x := load64(it.text, i+k)
		if hi := x & highBits; hi != 0 {
			it.noBlock = i + k + bits.TrailingZeros64(hi)>>3 + 1
			return false
		}
		up := inRange(x, 'A', 'Z')
		words |= movemask(up|inRange(x, 'a', 'z')|inRange(x, '0', '9')) << k
		upper |= movemask(up) << k
	}
	it.words, it.upper, it.blockEnd = words, upper, i+64
	return true
}

// nextInBlock is the default rules' fast path: the next word when it lies
// wholly inside a block of ASCII text. It reports false, with it.i moved
// past the separators it skipped, when the next word or the text's end is
// outside a block; Next scans on from there.
func (it *Iter) nextInBlock() bool {
	text := it.text
	for {
		i := it.i
		// A block is followed by 8 bytes of text, so that a word's last
		// bytes can be read eight at a time.
		if i >= it.blockEnd && (i < it.noBlock || i+72 > len(text) || !it.block(i)) {
			return false
		}
		base := it.blockEnd - 64
		off := uint(i - base)
		rest := it.words >> (off & 63)
		if rest == 0 {
			it.i = it.blockEnd
			continue
		}
		s := off + uint(bits.TrailingZeros64(rest))
		n := uint(bits.TrailingZeros64(^(it.words >> (s & 63)))) // the word's bytes in the block
		start := base + int(s)
		if s+n == 64 {
			// The word may go on past the block: the next block starts
			// with it, unless it fills this one (the byte scan takes it).
			it.i = start
			if s == 0 {
				return false
			}
			it.blockEnd = start
			continue
		}
		it.foldWord(s, start, start+int(n))
		it.i = it.end
		it.pos++
		return true
	}
}

// foldWord makes the word text[start:end], which lies in the current block
// at bit s, the current token's term and range.
func (it *Iter) foldWord(s uint, start, end int) {
	// Eight bytes at a time, folded; the bytes past the word are cut off
	// (past the block they need not be ASCII: inRange's carries from them
	// go only to later bytes).
	term := it.term[:0]
	for j := start; j < end; j += 8 {
		x := load64(it.text, j)
		term = binary.LittleEndian.AppendUint64(term, x|inRange(x, 'A', 'Z')>>2)
	}
	n := uint(end - start)
	it.term = term[:n]
	it.same = it.upper>>(s&63)&(1<<(n&63)-1) == 0
	it.start, it.end = start, end
}

// blockWord finds the next word at or after byte i that lies wholly
// inside a block of ASCII text (see block), as nextInBlock does, for the
// general path of rules whose ASCII words are the default rules' ones
// (rules.asciiBlocks): its bytes s..e. It reports false, with s the byte
// the byte scan goes on from, when the next word or the text's end is
// outside a block.
func (it *Iter) blockWord(i int) (s, e int, ok bool) {
	text := it.text
	for {
		if i >= it.blockEnd && (i < it.noBlock || i+72 > len(text) || !it.block(i)) {
			return i, 0, false
		}
		base := it.blockEnd - 64
		off := uint(i - base)
		rest := it.words >> (off & 63)
		if rest == 0 {
			i = it.blockEnd
			continue
		}
		b := off + uint(bits.TrailingZeros64(rest))
		n := uint(bits.TrailingZeros64(^(it.words >> (b & 63)))) // the word's bytes in the block
		start := base + int(b)
		if b+n == 64 {
			// The word may go on past the block: the next block starts
			// with it, unless it fills this one (the byte scan takes it).
			if b == 0 {
				return start, 0, false
			}
			it.blockEnd, i = start, start
			continue
		}
		return start, start + int(n), true
	}
}

// appendFoldedASCII appends text[start:end], ASCII letters and digits
// inside a block (followed by at least 8 bytes of text), lower-cased, to
// dst: eight bytes at a time, as foldWord does.
func appendFoldedASCII(dst []byte, text string, start, end int) []byte {
	n := len(dst) + end - start
	for j := start; j < end; j += 8 {
		x := load64(text, j)
		dst = binary.LittleEndian.AppendUint64(dst, x|inRange(x, 'A', 'Z')>>2)
	}
	return dst[:n]
}

// Next advances to the next token. It returns false at the end of the text.
func (it *Iter) Next() bool {
	// The default rules are scanned here. On the general path Reset has
	// put i at the end of the text, so that the branch that hands over to
	// the general path costs the default path nothing per word.
	if it.nextInBlock() {
		return true
	}
	return it.scan()
}

// scan is Next past the block scan: the general path, and the default
// rules' scan byte by byte from it.i.
func (it *Iter) scan() bool {
	text := it.text
	i := it.i
	n := len(text)
	tab := it.tab
	// Skip separators.
	for i < n {
		c := text[i]
		cls := asciiClass[c]
		if cls == clsWord || cls == clsUpper {
			break
		}
		if cls == clsMulti {
			r, size := utf8.DecodeRuneInString(text[i:])
			if r != utf8.RuneError {
				if c := runeClass(tab, r); c == runeWord || c == runeFold {
					break
				}
			}
			i += size
			continue
		}
		i++
	}
	if i >= n {
		if it.full {
			return it.x.next(it)
		}
		it.i = n
		return false
	}
	start := i
	term := it.term[:0]
	same := true
	// Words of ASCII letters and digits, eight bytes at a time: the bytes
	// up to the first separator are folded and appended at once.
	for i+8 <= n {
		x := load64(text, i)
		if x&highBits != 0 {
			break
		}
		upper := inRange(x, 'A', 'Z')
		k := bits.TrailingZeros64(^wordBytes(x)&highBits) >> 3 // word bytes before a separator
		if k < 8 {
			upper &= 1<<(8*k) - 1
		}
		same = same && upper == 0
		term = binary.LittleEndian.AppendUint64(term, x|upper>>2)[:len(term)+k]
		i += k
		if k < 8 {
			goto done
		}
	}
	for i < n {
		c := text[i]
		switch asciiClass[c] {
		case clsWord:
			term = append(term, c)
			i++
			continue
		case clsUpper:
			term = append(term, c+('a'-'A'))
			same = false
			i++
			continue
		case clsSep:
			goto done
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError {
			goto done
		}
		switch runeClass(tab, r) {
		case runeSep:
			goto done
		case runeFold:
			term = utf8.AppendRune(term, unicode.ToLower(r))
			same = false
		default:
			term = append(term, text[i:i+size]...)
		}
		i += size
	}
done:
	if len(term) > MaxTermLen {
		cut := MaxTermLen
		for cut > 0 && !utf8.RuneStart(term[cut]) {
			cut--
		}
		term = term[:cut]
		same = false
	}
	it.term = term
	it.same = same
	it.start, it.end = start, i
	it.i = i
	it.pos++
	return true
}

// Tokens calls fn for every word of text in order, until fn returns false.
func (t *Tokenizer) Tokens(text string, fn func(Token) bool) {
	var it Iter
	it.Reset(t, text)
	for it.Next() {
		if !fn(it.Token()) {
			return
		}
	}
}

// Append appends the words of text to dst and returns the extended slice.
func (t *Tokenizer) Append(dst []Token, text string) []Token {
	var it Iter
	it.Reset(t, text)
	for it.Next() {
		dst = append(dst, it.Token())
	}
	return dst
}

// IsWordRune reports whether r is a word character under the table's settings
// (charset_table, blend_chars, ngram_chars). Every other character separates
// words, and in a query may be an operator. Characters that words may contain
// without being word characters on their own (ignore_chars, combining marks
// under the default rules) count as word characters.
func (t *Tokenizer) IsWordRune(r rune) bool {
	if t.r == nil {
		if r < 0x80 {
			if r < 0 {
				return false
			}
			cls := asciiClass[r]
			return cls == clsWord || cls == clsUpper
		}
		if r > unicode.MaxRune {
			return false
		}
		c := classify(r)
		return c == runeWord || c == runeFold || c == runeMark
	}
	c, _ := t.r.tab.class(r)
	return c != cSep && c != cBound
}

// IsBlendRune reports whether r is one of the table's blend_chars: a
// separator and a word character both.
func (t *Tokenizer) IsBlendRune(r rune) bool {
	if t.r == nil {
		return false
	}
	c, _ := t.r.tab.class(r)
	return c == cBlend
}

// ExceptionAt reports whether the source of one of the table's exceptions
// starts at text[i:], and where it ends. The query lexer reads such a source
// as one word even when it holds separators or operator characters (":)",
// "AT&T", "MS Windows"), because the reference's tokenizer looks for
// exceptions before anything else, in queries as in documents.
func (t *Tokenizer) ExceptionAt(text string, i int) (end int, ok bool) {
	if t.r == nil || t.r.exc == nil || i < 0 || i >= len(text) {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	if r < utf8.RuneSelf && !t.r.exc.first[r] || r >= utf8.RuneSelf && t.r.exc.byFirst[r] == nil {
		return 0, false
	}
	k, j := t.r.exc.match(t.r.tab, text, i, r)
	if k < 0 {
		return 0, false
	}
	return j, true
}

// IsPhraseBoundary reports whether r is one of the table's phrase_boundary
// characters.
func (t *Tokenizer) IsPhraseBoundary(r rune) bool {
	if t.r == nil || r < 0 || r > unicode.MaxRune {
		return false
	}
	c, _ := t.r.tab.class(r)
	return c == cBound
}

// Fold maps word through the character mapping (charset_table folding, with
// ignore_chars dropped) and nothing else: no stemming, stopwords or
// wordforms. Wildcard patterns are folded with it; characters that are not
// word characters are kept as they are.
func (t *Tokenizer) Fold(word string) string {
	b := make([]byte, 0, len(word))
	if t.r == nil {
		for _, r := range word {
			if r < 0x80 {
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
			} else if c := classify(r); c == runeFold {
				r = unicode.ToLower(r)
			}
			b = utf8.AppendRune(b, r)
		}
		return string(b)
	}
	for i, r := range word {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(word[i:]); size == 1 {
				b = append(b, word[i])
				continue
			}
		}
		switch c, to := t.r.tab.class(r); c {
		case cIgnore:
		case cWord, cBlend, cNgram:
			b = utf8.AppendRune(b, to)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// Exact returns the term that =word searches for one word: ExactTerm of its
// folded form when the table indexes exact words (index_exact_words), else
// the word's ordinary term ("" when the word gives no term, e.g. a stopword).
// Exact forms are indexed only when morphology or wordforms can change a
// word (see Config.IndexExactWords).
func (t *Tokenizer) Exact(word string) string {
	var it Iter
	it.Reset(t.Query(), word)
	first := ""
	for it.Next() {
		term := it.Term()
		if len(term) > 0 && term[0] == exactMark {
			return string(term)
		}
		if first == "" && !IsReserved(string(term)) {
			first = string(term)
		}
	}
	return first
}

// Stopword reports whether folded (a word as Fold returns it) is a stopword
// of the table.
func (t *Tokenizer) Stopword(folded string) bool {
	if t.r == nil || t.r.stop == nil {
		return false
	}
	_, ok := t.r.stop[folded]
	return ok
}

// StopwordStep is the number of positions a stopword takes (stopword_step):
// 1, or 0 when the word after a stopword takes the stopword's position.
func (t *Tokenizer) StopwordStep() int {
	if t.r == nil {
		return 1
	}
	return t.r.stopPos
}
