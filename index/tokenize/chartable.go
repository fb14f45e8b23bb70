package tokenize

import (
	"fmt"
	"sync"
	"unicode"
)

// cls is the role of a character under a table's settings.
type cls uint8

const (
	cSep    cls = iota // separates words
	cWord              // word character (charset_table)
	cMark              // combining mark (default rules): continues a word, cannot start one
	cIgnore            // ignore_chars: dropped, does not separate
	cBlend             // blend_chars: both a separator and a word character
	cNgram             // ngram_chars: a word of its own
	cBound             // phrase_boundary: a separator that adds phrase_boundary_step
)

// An entry packs a class and the offset from a character to its folded form:
// delta<<3 | class. The zero entry means "not listed".
type entry int32

func mkEntry(c cls, r, to rune) entry { return entry((to-r)<<3) | entry(c) }

func (e entry) cls() cls                  { return cls(e & 7) }
func (e entry) fold(r rune) rune          { return r + rune(e>>3) }
func (e entry) decode(r rune) (cls, rune) { return cls(e & 7), r + rune(e>>3) }

// Fallback classes: the Unicode rules that aliases non_cjk and cjk (and the
// absence of charset_table) stand for. Explicit entries take precedence.
const (
	fbNonCJK   = 1 << iota // letters and digits outside CJK are word characters, lower-cased
	fbCJK                  // CJK letters are word characters
	fbNgramCJK             // CJK letters are ngram characters
)

type page [256]entry

// charTable is the role of every character under a table's settings.
type charTable struct {
	ascii [128]entry // resolved, fallback included
	fast  [256]byte  // an ASCII word character that folds to ASCII: its folded form; else 0
	pages [(0x10FFFF >> 8) + 1]*page
	fb    uint8

	hasNgram, hasBound bool // some character is an ngram character, a phrase boundary
}

// lookup returns the class and folded form of r (valid, not ASCII).
func (t *charTable) lookup(r rune) (cls, rune) {
	if p := t.pages[r>>8]; p != nil {
		if e := p[r&0xff]; e != 0 {
			return e.decode(r)
		}
	}
	return t.fallback(r)
}

// class returns the class and folded form of any rune.
func (t *charTable) class(r rune) (cls, rune) {
	if r < 0x80 {
		if r < 0 {
			return cSep, r
		}
		return t.ascii[r].decode(r)
	}
	if r > unicode.MaxRune {
		return cSep, r
	}
	return t.lookup(r)
}

func (t *charTable) fallback(r rune) (cls, rune) {
	if t.fb == 0 {
		return cSep, r
	}
	var k uint8
	if r < 0x10000 {
		k = bmpClass()[r]
	} else {
		k = classify(r)
	}
	cjk := isCJK(r)
	if k == runeSep && !(cjk && unicode.Is(unicode.Nl, r)) {
		return cSep, r
	}
	if k != runeMark && cjk {
		switch {
		case t.fb&fbNgramCJK != 0:
			return cNgram, r
		case t.fb&fbCJK == 0:
			return cSep, r
		}
	} else if t.fb&fbNonCJK == 0 {
		return cSep, r
	}
	switch k {
	case runeFold:
		return cWord, unicode.ToLower(r)
	case runeMark:
		return cMark, r
	}
	return cWord, r
}

// cjkTables are the scripts of the cjk alias, and the letters of no script
// of their own that only those scripts use: the kana iteration marks
// U+3031..U+3035 and the prolonged sound mark U+30FC (ー) with its
// half-width forms, which are script Common for Unicode. Of them, the
// letters (and Han's number letters, 〇 U+3007 and the Hangzhou numerals)
// are cjk characters.
var cjkTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo, kanaCommon}

var kanaCommon = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x3031, Hi: 0x3035, Stride: 1},
	{Lo: 0x30FC, Hi: 0x30FC, Stride: 1},
	{Lo: 0xFF70, Hi: 0xFF70, Stride: 1},
	{Lo: 0xFF9E, Hi: 0xFF9F, Stride: 1},
}}

// cjkBMP is a bit set of the CJK letters of the Basic Multilingual Plane.
var cjkBMP = sync.OnceValue(func() *[0x10000 / 64]uint64 {
	var b [0x10000 / 64]uint64
	for r := rune(0); r < 0x10000; r++ {
		if unicode.IsOneOf(cjkTables, r) {
			b[r>>6] |= 1 << (r & 63)
		}
	}
	return &b
})

func isCJK(r rune) bool {
	if r < 0x10000 {
		return cjkBMP()[r>>6]&(1<<(r&63)) != 0
	}
	return unicode.IsOneOf(cjkTables, r)
}

// tableBuilder fills a charTable from the character lists of the settings.
type tableBuilder struct {
	t      *charTable
	hasCS  bool // charset_table given (else the default rules)
	unique map[page]*page
}

func (b *tableBuilder) get(r rune) entry {
	if p := b.t.pages[r>>8]; p != nil {
		return p[r&0xff]
	}
	return 0
}

func (b *tableBuilder) set(r rune, c cls, to rune) {
	p := b.t.pages[r>>8]
	if p == nil {
		p = new(page)
		b.t.pages[r>>8] = p
	}
	p[r&0xff] = mkEntry(c, r, to)
	switch c {
	case cNgram:
		b.t.hasNgram = true
	case cBound:
		b.t.hasBound = true
	}
}

// addWords adds charset_table (or ngram_chars, with c == cNgram) entries; later
// entries override earlier ones. english and russian expand to their entries;
// non_cjk and cjk switch on fallback rules, below every explicit entry.
func (b *tableBuilder) addWords(items []charItem, c cls) {
	for _, it := range items {
		switch it.alias {
		case aliasNone:
			for r := it.lo; r <= it.hi; r++ {
				b.set(r, c, it.to+(r-it.lo))
			}
		case aliasEnglish, aliasRussian:
			b.addWords(aliasItems[it.alias], c)
		case aliasNonCJK:
			if c == cNgram {
				b.addNgramFallback(false)
			} else {
				b.t.fb |= fbNonCJK
			}
		case aliasCJK:
			if c == cNgram {
				b.addNgramFallback(true)
			} else {
				b.t.fb |= fbCJK
			}
		}
	}
}

// addNgramFallback makes the CJK letters (cjk) or the other letters and digits
// (non_cjk) ngram characters.
func (b *tableBuilder) addNgramFallback(cjk bool) {
	if cjk {
		b.t.fb |= fbNgramCJK
		return
	}
	// Rare: every non-CJK letter is an ngram character. Listed explicitly.
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		k := uint8(runeSep)
		if r < 0x10000 {
			k = bmpClass()[r]
		} else if unicode.IsLetter(r) || unicode.IsDigit(r) {
			k = classify(r)
		}
		if (k == runeWord || k == runeFold) && !isCJK(r) && b.get(r) == 0 {
			b.set(r, cNgram, unicode.ToLower(r))
		}
	}
	for r := rune('0'); r < 0x80; r++ {
		if k := classify(r); (k == runeWord || k == runeFold) && b.get(r) == 0 {
			b.set(r, cNgram, unicode.ToLower(r))
		}
	}
}

// owner names the setting that gives r its current role, or "" if r is a separator.
func (b *tableBuilder) owner(r rune) string {
	c, _ := b.current(r)
	switch c {
	case cWord, cMark:
		if b.hasCS {
			return "charset_table"
		}
		return "the default charset (letters and digits)"
	case cIgnore:
		return "ignore_chars"
	case cBlend:
		return "blend_chars"
	case cNgram:
		return "ngram_chars"
	case cBound:
		return "phrase_boundary"
	}
	return ""
}

func (b *tableBuilder) current(r rune) (cls, rune) {
	if e := b.get(r); e != 0 {
		return e.decode(r)
	}
	return b.t.fallback(r)
}

// addSpecial adds the entries of ignore_chars, blend_chars or phrase_boundary
// (setting names the list). A character may have one role only, except that a
// combining mark of the default rules may be ignored, blended or a boundary.
func (b *tableBuilder) addSpecial(setting string, items []charItem, c cls) error {
	for _, it := range items {
		for r := it.lo; r <= it.hi; r++ {
			cur, _ := b.current(r)
			if cur != cSep && !(cur == cMark && b.get(r) == 0) {
				if cur == c {
					return fmt.Errorf("%s: %s is listed twice", setting, describeRune(r))
				}
				return fmt.Errorf("%s: %s is also in %s", setting, describeRune(r), b.owner(r))
			}
			b.set(r, c, it.to+(r-it.lo))
		}
	}
	return nil
}

// asciiDefault reports whether t classes and folds the ASCII characters
// as the default rules do: letters and digits are word characters, folded
// to lower case, and the others separate words.
func (t *charTable) asciiDefault() bool {
	for c := range 0x80 {
		var want byte
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			want = byte(c)
		case 'A' <= c && c <= 'Z':
			want = byte(c) + 'a' - 'A'
		}
		if cl := t.ascii[c].cls(); t.fast[c] != want || want != 0 && cl != cWord || want == 0 && cl != cSep {
			return false
		}
	}
	return true
}

// finish resolves the ASCII table and shares identical pages.
func (b *tableBuilder) finish() {
	t := b.t
	for r := rune(0); r < 0x80; r++ {
		c, to := b.current(r)
		t.ascii[r] = mkEntry(c, r, to)
		if c == cWord && to > 0 && to < 0x80 {
			t.fast[r] = byte(to)
		}
	}
	for i, p := range t.pages {
		if p == nil {
			continue
		}
		if *p == (page{}) {
			t.pages[i] = nil
			continue
		}
		if q, ok := b.unique[*p]; ok {
			t.pages[i] = q
		} else {
			b.unique[*p] = p
		}
	}
	b.unique = nil
}

func newTableBuilder(hasCharset bool) *tableBuilder {
	b := &tableBuilder{t: new(charTable), hasCS: hasCharset, unique: map[page]*page{}}
	if !hasCharset {
		b.t.fb = fbNonCJK | fbCJK
	}
	return b
}
