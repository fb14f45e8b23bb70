package dialect

import (
	"strings"
	"unicode"
)

// tokenKind classifies a token of the lexer.
type tokenKind uint8

const (
	tokSpace   tokenKind = iota // a run of white space
	tokComment                  // -- comment, # comment, /* comment */
	tokString                   // 'string' or "string"
	tokQuoted                   // `quoted identifier`
	tokNumber                   // 12, 1.5, .5, 1e-3, 0x1F
	tokWord                     // an identifier or a keyword
	tokPunct                    // one byte of anything else: ( ) { } , ; = ? - ...
)

var kindNames = [...]string{"space", "comment", "string", "quoted", "number", "word", "punct"}

func (k tokenKind) String() string { return kindNames[k] }

// token is one lexeme: the bytes text[start:end] of the lexed text.
//
// (The fields are ordered so that a token takes 40 bytes, not 56: the
// rewrite copies tokens around.)
type token struct {
	start, end   int
	value        string // a terminated string's value, decoded as TiDB reads it (scanString)
	kind         tokenKind
	unterminated bool // a string, quoted identifier or block comment that runs to the end of the text
	// blank: a comment TiDB must not read as code, which the rewrite turns
	// into a space: the markers of an executed versioned comment (its
	// content is lexed as code) and a versioned comment MySQL ignores.
	blank bool
	// marker is markOpen or markClose for the markers of an executed
	// versioned comment, 0 otherwise.
	marker uint8
}

const (
	markOpen  = 1
	markClose = 2
)

// trivia reports whether the token is white space or a comment.
func (t token) trivia() bool { return t.kind == tokSpace || t.kind == tokComment }

// lex cuts text into tokens covering every byte of it, in order. It agrees with
// the TiDB lexer (and so with MySQL with the default sql_mode) on where literals,
// identifiers and comments start and end, which is all the rewrite needs:
//
//	'a''b\'c'   "a""b\"c"   a string: a doubled quote or one after a backslash does not end it
//	`a``b`                  a quoted identifier: a doubled backquote does not end it
//
// and
//
//   - "-- " (two dashes and white space, or the end of the text), "#" and "/* */"
//     start comments; "/*+ */" (hints) and "/*M! */" (MariaDB's code) are
//     comments too;
//   - "/*! ... */" and "/*!NNNNN ... */" are versioned comments, read as MySQL
//     reads them (see VersionID): when NNNNN is at most VersionID, or absent, the
//     markers are comments and what lies between them is lexed as code (the
//     comment ends at the first "*/" outside a literal); otherwise, and for
//     TiDB's "/*T! */", the whole is a comment. Both kinds are blank;
//   - white space is what TiDB skips: the bytes for which unicode.IsSpace holds.
//
// lex never fails: an unterminated literal or comment runs to the end of the text
// and is marked unterminated.
func lex(text string) []token {
	// Room for the tokens of a short statement at once, rather than
	// growing through 1, 2, 4, ... (a token is 40 bytes).
	toks := make([]token, 0, min(32, len(text)/2+1))
	var escs []int   // scratch of scanString
	prev := tokSpace // the kind of the token just before, trivia included
	opened := -1     // the index in toks of the open marker of the versioned comment lexed, or -1
	for i := 0; i < len(text); {
		start := i
		kind, unterminated, value, blank, marker := tokPunct, false, "", false, uint8(0)
		c := text[i]
		comment := c == '/' || c == '*' // (cases the common tokens skip at once)
		switch {
		case comment && opened >= 0 && strings.HasPrefix(text[i:], "*/"):
			kind, blank, marker, opened = tokComment, true, markClose, -1
			i += 2
		case comment && strings.HasPrefix(text[i:], "/*!") && opened < 0:
			kind, blank = tokComment, true
			var executed bool
			if i, executed = versionedOpen(text, i); executed {
				opened, marker = len(toks), markOpen
			} else if n := strings.Index(text[i:], "*/"); n >= 0 {
				i += n + 2
			} else {
				i, unterminated = len(text), true
			}
		case comment && strings.HasPrefix(text[i:], "/*T!"):
			kind, blank = tokComment, true
			if n := strings.Index(text[i+2:], "*/"); n >= 0 {
				i += 2 + n + 2
			} else {
				i, unterminated = len(text), true
			}
		case isSpace(c):
			kind = tokSpace
			for i < len(text) && isSpace(text[i]) {
				i++
			}
		case c == '\'' || c == '"':
			kind = tokString
			i, unterminated, value = scanString(text, i, c, &escs)
		case c == '`':
			kind = tokQuoted
			i, unterminated = scanQuoted(text, i, c)
		case c == '#' || startsDashComment(text, i):
			kind = tokComment
			i = lineEnd(text, i)
		case strings.HasPrefix(text[i:], "/*"):
			kind = tokComment
			if n := strings.Index(text[i+2:], "*/"); n >= 0 {
				i += 2 + n + 2
			} else {
				i, unterminated = len(text), true
			}
		case isDigit(c) || (c == '.' && i+1 < len(text) && isDigit(text[i+1]) && !endsOperand(prev)):
			kind = tokNumber
			i = scanNumber(text, i)
		case isWordByte(c):
			kind = tokWord
			for i < len(text) && isWordByte(text[i]) {
				i++
			}
		default:
			i++
		}
		toks = append(toks, token{kind: kind, start: start, end: i, unterminated: unterminated, value: value, blank: blank, marker: marker})
		prev = kind
	}
	if opened >= 0 {
		toks[opened].unterminated = true
	}
	return toks
}

// ServerVersion is the MySQL version glint announces (the server's version
// string starts with it), and VersionID the same as MySQL's versioned
// comments write it: /*!80036 ... */ is code here, /*!80037 ... */ a comment.
const (
	ServerVersion = "8.0.36"
	VersionID     = 80036
)

// versionedOpen reads the open marker of the versioned comment at text[i:]
// ("/*!" and five digits, or "/*!" alone). It returns the end of the marker and
// whether the comment's content is code: no version, or one of at most
// VersionID. A sixth digit belongs to the version too, as MySQL reads it
// (mariadb-dump starts with /*!999999 ... */, meant to be skipped everywhere).
func versionedOpen(text string, i int) (end int, executed bool) {
	i += 3
	n := 0
	for n < 6 && i+n < len(text) && isDigit(text[i+n]) {
		n++
	}
	if n < 5 {
		return i, true
	}
	v := 0
	for _, c := range []byte(text[i : i+n]) {
		v = v*10 + int(c-'0')
	}
	return i + n, v <= VersionID
}

// appendSignificant appends to out the tokens of toks that are neither white
// space nor comments.
func appendSignificant(out, toks []token) []token {
	for i := range toks {
		if !toks[i].trivia() {
			out = append(out, toks[i])
		}
	}
	return out
}

// scanQuoted returns the end of the quoted identifier opened by the quote q
// at text[i]. A doubled quote does not end it.
func scanQuoted(text string, i int, q byte) (end int, unterminated bool) {
	for i++; i < len(text); {
		i = indexFrom(text, i, q)
		switch {
		case i == len(text):
		case i+1 < len(text) && text[i+1] == q:
			i += 2
		default:
			return i + 1, false
		}
	}
	return len(text), true
}

// scanString returns the end of the string literal opened by the quote q at
// text[i], and its value as TiDB's lexer reads it with the default sql_mode:
// a doubled quote is one quote; a backslash escapes the byte after it (so a
// quote after one does not end the literal), \n \t \r \b \0 \Z stand for
// control bytes, and \% and \_ keep their backslash. The value shares text's
// bytes unless the literal has an escape or a doubled quote; an unterminated
// literal has none.
//
// It jumps from quote to quote, and looks for backslashes only up to the next
// quote, noting in *escs where each escape or doubled quote is; then it
// copies the value between them. Each byte is looked at a bounded number of
// times, and the stand-ins of rewrite take their values from here instead of
// reading their literals again.
func scanString(text string, i int, q byte, escs *[]int) (end int, unterminated bool, value string) {
	body := i + 1
	*escs = (*escs)[:0]
	nextQ := -1
	for i = body; ; {
		if i >= len(text) {
			return len(text), true, ""
		}
		if nextQ < i {
			nextQ = indexFrom(text, i, q)
		}
		if k := strings.IndexByte(text[i:nextQ], '\\'); k >= 0 {
			*escs = append(*escs, i+k)
			i += k + 2
			continue
		}
		switch {
		case nextQ == len(text):
			return len(text), true, ""
		case nextQ+1 < len(text) && text[nextQ+1] == q:
			*escs = append(*escs, nextQ)
			i = nextQ + 2
			continue
		}
		break
	}
	end = nextQ + 1
	if len(*escs) == 0 {
		return end, false, text[body:nextQ]
	}
	size := nextQ - body
	for _, e := range *escs {
		size--
		if c := text[e+1]; text[e] == '\\' && (c == '%' || c == '_') {
			size++
		}
	}
	var b strings.Builder // its Grow does not zero the memory, as make would
	b.Grow(size)
	at := body
	for _, e := range *escs {
		b.WriteString(text[at:e])
		if text[e] == '\\' {
			writeEscaped(&b, text[e+1])
		} else {
			b.WriteByte(q)
		}
		at = e + 2
	}
	b.WriteString(text[at:nextQ])
	return end, false, b.String()
}

// writeEscaped writes the value of the escape sequence backslash c.
func writeEscaped(b *strings.Builder, c byte) {
	switch c {
	case 'n':
		c = '\n'
	case '0':
		c = 0
	case 'b':
		c = 8
	case 'Z':
		c = 26
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case '%', '_':
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// indexFrom is the offset of the first c in text[i:], or len(text).
func indexFrom(text string, i int, c byte) int {
	if j := strings.IndexByte(text[i:], c); j >= 0 {
		return i + j
	}
	return len(text)
}

// scanNumber returns the end of the number at text[i]: digits, a fraction, an
// exponent, and any identifier bytes glued to it (0x1F, 0b101, 1abc), which
// TiDB reads as one token too.
func scanNumber(text string, i int) int {
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	if i < len(text) && text[i] == '.' {
		i++
		for i < len(text) && isDigit(text[i]) {
			i++
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j < len(text) && isDigit(text[j]) {
			i = j
			for i < len(text) && isDigit(text[i]) {
				i++
			}
		}
	}
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	return i
}

// startsDashComment reports whether text[i:] starts a "-- " comment: two dashes
// followed by white space or the end of the text.
func startsDashComment(text string, i int) bool {
	if !strings.HasPrefix(text[i:], "--") {
		return false
	}
	return i+2 == len(text) || isSpace(text[i+2])
}

// lineEnd returns the offset of the next newline at or after i, or len(text).
func lineEnd(text string, i int) int {
	if n := strings.IndexByte(text[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(text)
}

// endsOperand reports whether a '.' right after a token of this kind is a
// qualifier (t.5 and `t`.5 name column 5 of t) rather than a decimal point.
func endsOperand(k tokenKind) bool { return k == tokWord || k == tokQuoted }

func isSpace(c byte) bool    { return spaceBytes[c] }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool { return c == '_' || c == '$' || c >= 0x80 || isDigit(c) || isLetter(c) }
func isLetter(c byte) bool   { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// spaceBytes are the bytes for which unicode.IsSpace holds, as a table.
var spaceBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = unicode.IsSpace(rune(c))
	}
	return t
}()
