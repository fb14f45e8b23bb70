package tokenize

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Character lists: the values of charset_table, ignore_chars, blend_chars,
// ngram_chars and phrase_boundary. The syntax is Sphinx's:
//
//	list  = entry { "," entry }
//	entry = alias | char [ ".." char ] [ "->" char [ ".." char ] ]
//	char  = "U+" hex digits | any single character but "," and white space
//	alias = "english" | "russian" | "non_cjk" | "cjk"
//
// White space around entries, "..", and "->" is ignored. A literal comma is
// written U+2C. "A..Z->a..z" maps each character of a range to the character at
// the same offset in the other range, so both ranges must have the same length.

// charAlias names a predefined set of characters.
type charAlias uint8

const (
	aliasNone    charAlias = iota
	aliasEnglish           // A..Z->a..z, a..z
	aliasRussian           // U+410..U+42F->U+430..U+44F, U+430..U+44F, U+401->U+451, U+451
	aliasNonCJK            // every Unicode letter and digit outside cjk, lower-cased (the default rules without CJK)
	aliasCJK               // Han, Hiragana, Katakana, Hangul and Bopomofo letters
)

var aliasNames = [...]string{
	aliasEnglish: "english",
	aliasRussian: "russian",
	aliasNonCJK:  "non_cjk",
	aliasCJK:     "cjk",
}

// charItem is one entry of a character list: an alias, or the characters
// lo..hi mapped to to..to+(hi-lo) (to == lo when the entry maps nothing).
type charItem struct {
	alias  charAlias
	lo, hi rune
	to     rune
}

// aliasItems are the entries that english and russian stand for.
var aliasItems = map[charAlias][]charItem{
	aliasEnglish: {{lo: 'A', hi: 'Z', to: 'a'}, {lo: 'a', hi: 'z', to: 'a'}},
	aliasRussian: {
		{lo: 0x410, hi: 0x42F, to: 0x430}, {lo: 0x430, hi: 0x44F, to: 0x430},
		{lo: 0x401, hi: 0x401, to: 0x451}, {lo: 0x451, hi: 0x451, to: 0x451},
	},
}

// listSyntax says which forms a character list may use.
type listSyntax struct {
	mappings bool // "A->a"
	aliases  bool // "english", "cjk", ...
}

// listError is a mistake in a character list; Offset is a byte offset in the
// value as written.
type listError struct {
	Offset int
	Msg    string
}

func (e *listError) Error() string { return fmt.Sprintf("%s (at offset %d)", e.Msg, e.Offset) }

// parseCharList parses a character list. An empty (or all white space) list
// has no entries.
func parseCharList(s string, syn listSyntax) ([]charItem, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var items []charItem
	for at := 0; ; {
		end := strings.IndexByte(s[at:], ',')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		item, err := parseCharItem(s, at, end, syn)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
		if end == len(s) {
			return items, nil
		}
		at = end + 1
	}
}

// itemParser reads one entry, s[i:end].
type itemParser struct {
	s      string
	i, end int
}

func (p *itemParser) skipSpace() {
	for p.i < p.end && isSpaceByte(p.s[p.i]) {
		p.i++
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (p *itemParser) rest() string { return p.s[p.i:p.end] }

func parseCharItem(s string, start, end int, syn listSyntax) (charItem, error) {
	p := itemParser{s: s, i: start, end: end}
	p.skipSpace()
	first := p.i
	last := end
	for last > first && isSpaceByte(s[last-1]) {
		last--
	}
	text := s[first:last]
	fail := func(at int, format string, args ...any) (charItem, error) {
		return charItem{}, &listError{Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	if text == "" {
		if end == len(s) {
			return fail(first, "list ends with ','")
		}
		return fail(first, "empty entry (a literal ',' is written U+2C)")
	}
	for a, name := range aliasNames {
		if name != "" && strings.EqualFold(text, name) {
			if !syn.aliases {
				return fail(first, "alias '%s' is not allowed here", name)
			}
			return charItem{alias: charAlias(a)}, nil
		}
	}
	if syn.aliases && looksLikeAlias(text) {
		msg := "unknown alias '%s' (the aliases are english, russian, non_cjk and cjk; characters are one to an entry, separated by ',')"
		switch strings.ToLower(text) {
		case "non_cont", "cont", "chinese":
			// Manticore's, which split the scripts written without
			// spaces otherwise (and segment Chinese with ICU or Jieba).
			msg = "unknown alias '%s': glint has non_cjk and cjk, not Manticore's continuous-script sets"
		}
		return fail(first, msg, text)
	}
	lo, err := p.char()
	if err != nil {
		return charItem{}, err
	}
	hi := lo
	p.skipSpace()
	if strings.HasPrefix(p.rest(), "..") {
		p.i += 2
		p.skipSpace()
		if hi, err = p.char(); err != nil {
			return charItem{}, err
		}
		if hi < lo {
			return fail(first, "range '%s' ends before it starts", rangeText(s, first, p.i))
		}
	}
	srcEnd := p.i
	item := charItem{lo: lo, hi: hi, to: lo}
	p.skipSpace()
	if strings.HasPrefix(p.rest(), "->") {
		if !syn.mappings {
			return fail(p.i, "mappings ('->') are not allowed here")
		}
		p.i += 2
		p.skipSpace()
		dstStart := p.i
		dlo, err := p.char()
		if err != nil {
			return charItem{}, err
		}
		dhi := dlo
		p.skipSpace()
		if strings.HasPrefix(p.rest(), "..") {
			p.i += 2
			p.skipSpace()
			if dhi, err = p.char(); err != nil {
				return charItem{}, err
			}
			if dhi < dlo {
				return fail(dstStart, "range '%s' ends before it starts", rangeText(s, dstStart, p.i))
			}
		}
		switch {
		case lo == hi && dlo != dhi:
			return fail(first, "'%s' maps one character to a range", text)
		case lo != hi && dlo == dhi:
			return fail(first, "'%s' maps a range to one character; map each character or use two ranges of the same length", text)
		case hi-lo != dhi-dlo:
			return fail(first, "'%s' maps a range of %d characters to a range of %d", text, hi-lo+1, dhi-dlo+1)
		}
		item.to = dlo
	}
	p.skipSpace()
	if p.i < p.end {
		if p.i == srcEnd && strings.HasPrefix(p.rest(), ">") {
			return fail(p.i, "unexpected '>' (a mapping is written '->')")
		}
		return fail(p.i, "unexpected '%s' after '%s'", p.rest(), strings.TrimSpace(s[first:p.i]))
	}
	return item, nil
}

// looksLikeAlias reports whether an entry is a name (three or more ASCII
// letters, digits or underscores, a letter first) rather than characters.
func looksLikeAlias(text string) bool {
	if len(text) < 3 || !('a' <= text[0]|0x20 && text[0]|0x20 <= 'z') {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// rangeText is s[from:to] with its white space dropped, for messages.
func rangeText(s string, from, to int) string {
	return strings.Join(strings.Fields(s[from:to]), "")
}

// char reads one character: U+hex or a literal.
func (p *itemParser) char() (rune, error) {
	at := p.i
	rest := p.rest()
	if rest == "" {
		if p.end == len(p.s) {
			return 0, &listError{Offset: at, Msg: "missing character at the end"}
		}
		return 0, &listError{Offset: at, Msg: "missing character before ','"}
	}
	var r rune
	if len(rest) >= 2 && (rest[0] == 'U' || rest[0] == 'u') && rest[1] == '+' {
		n := 2
		for n < len(rest) && isHex(rest[n]) {
			n++
		}
		if n == 2 {
			return 0, &listError{Offset: at, Msg: "'U+' must be followed by hexadecimal digits"}
		}
		if n-2 > 6 {
			return 0, &listError{Offset: at, Msg: fmt.Sprintf("'%s' is beyond Unicode (U+10FFFF)", rest[:n])}
		}
		v, _ := strconv.ParseUint(rest[2:n], 16, 32)
		r = rune(v)
		p.i += n
	} else {
		var size int
		r, size = utf8.DecodeRuneInString(rest)
		if r == utf8.RuneError && size <= 1 {
			return 0, &listError{Offset: at, Msg: "invalid UTF-8"}
		}
		p.i += size
	}
	if msg := checkListRune(r); msg != "" {
		return 0, &listError{Offset: at, Msg: msg}
	}
	return r, nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// checkListRune says what is wrong with r as a member of a character list ("" if nothing).
func checkListRune(r rune) string {
	switch {
	case r > utf8.MaxRune:
		return fmt.Sprintf("%s is beyond Unicode (U+10FFFF)", formatRune(r))
	case r >= 0xD800 && r <= 0xDFFF:
		return fmt.Sprintf("%s is a surrogate, not a character", formatRune(r))
	case reservedRune(r):
		return fmt.Sprintf("%s is a control character or space: those always separate words", formatRune(r))
	}
	return ""
}

// reservedRune reports whether r can never be a word character: controls
// (reserved terms start with one) and space.
func reservedRune(r rune) bool { return r <= ' ' || r >= 0x7F && r <= 0x9F }

// formatRune writes r as U+XXXX.
func formatRune(r rune) string { return fmt.Sprintf("U+%04X", r) }

// formatListRune writes r as it appears in a canonical list: ASCII letters
// and digits as themselves, everything else as U+XXXX.
func formatListRune(b *strings.Builder, r rune) {
	if r < 0x80 && (r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
		b.WriteRune(r)
		return
	}
	b.WriteString(formatRune(r))
}

// describeRune names r in a message: U+002D ('-').
func describeRune(r rune) string {
	if r > ' ' && r < utf8.RuneSelf || r > 0x9F && r <= utf8.MaxRune {
		return fmt.Sprintf("%s '%c'", formatRune(r), r)
	}
	return formatRune(r)
}

// formatCharList writes items in the canonical syntax that parseCharList reads back.
func formatCharList(items []charItem) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if it.alias != aliasNone {
			b.WriteString(aliasNames[it.alias])
			continue
		}
		formatListRune(&b, it.lo)
		if it.hi != it.lo {
			b.WriteString("..")
			formatListRune(&b, it.hi)
		}
		if it.to != it.lo {
			b.WriteString("->")
			formatListRune(&b, it.to)
			if it.hi != it.lo {
				b.WriteString("..")
				formatListRune(&b, it.to+(it.hi-it.lo))
			}
		}
	}
	return b.String()
}
