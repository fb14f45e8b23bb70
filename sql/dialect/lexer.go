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
type token struct {
	kind         tokenKind
	start, end   int
	unterminated bool // a string, quoted identifier or block comment that runs to the end of the text
}

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
//     start comments; "/*! */" and "/*+ */" are comments too, whose content is never
//     rewritten;
//   - white space is what TiDB skips: the bytes for which unicode.IsSpace holds.
//
// lex never fails: an unterminated literal or comment runs to the end of the text
// and is marked unterminated.
func lex(text string) []token {
	var toks []token
	prev := tokSpace // the kind of the token just before, trivia included
	for i := 0; i < len(text); {
		start := i
		kind, unterminated := tokPunct, false
		c := text[i]
		switch {
		case isSpace(c):
			kind = tokSpace
			for i < len(text) && isSpace(text[i]) {
				i++
			}
		case c == '\'' || c == '"':
			kind = tokString
			i, unterminated = scanQuoted(text, i, c, true)
		case c == '`':
			kind = tokQuoted
			i, unterminated = scanQuoted(text, i, c, false)
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
		toks = append(toks, token{kind: kind, start: start, end: i, unterminated: unterminated})
		prev = kind
	}
	return toks
}

// significant returns the tokens that are neither white space nor comments.
func significant(toks []token) []token {
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		if !t.trivia() {
			out = append(out, t)
		}
	}
	return out
}

// scanQuoted returns the end of the literal opened by the quote q at text[i].
// A doubled quote never ends it; with backslash, neither does a quote after a
// backslash.
func scanQuoted(text string, i int, q byte, backslash bool) (end int, unterminated bool) {
	// Jump from quote to quote, looking for backslashes only up to the
	// next quote: every byte is looked at a bounded number of times.
	nextQ, nextB := -1, -1
	for i++; i < len(text); {
		if nextQ < i {
			nextQ = indexFrom(text, i, q)
		}
		if nextB < i {
			nextB = nextQ // none before the quote
			if backslash {
				if k := strings.IndexByte(text[i:nextQ], '\\'); k >= 0 {
					nextB = i + k
				}
			}
		}
		switch {
		case nextB < nextQ:
			i = nextB + 2 // skip the escaped byte
		case nextQ == len(text):
			return len(text), true
		case nextQ+1 < len(text) && text[nextQ+1] == q:
			i = nextQ + 2
		default:
			return nextQ + 1, false
		}
	}
	return len(text), true
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

func isSpace(c byte) bool    { return unicode.IsSpace(rune(c)) }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool { return c == '_' || c == '$' || c >= 0x80 || isDigit(c) || isLetter(c) }
func isLetter(c byte) bool   { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
