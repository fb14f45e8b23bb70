package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
)

// The lexer turns query text into tokens: words (with their =, ^, $ and ^N
// decorations), whole phrases (with ~N or /N), parentheses and operators.
// It needs the table's tokenizer to know which characters make words.

type tokKind int

const (
	tEOF tokKind = iota
	tWord
	tPhrase
	tLParen
	tRParen
	tOr
	tNot
	tBefore
	tNear
	tNotNear
	tMaybe
	tSentence
	tParagraph
	tField
	tZone
)

var tokNames = [...]string{
	tEOF: "end of query", tWord: "word", tPhrase: "phrase", tLParen: "'('", tRParen: "')'", tOr: "'|'",
	tNot: "'-'", tBefore: "'<<'", tNear: "NEAR", tNotNear: "NOTNEAR", tMaybe: "MAYBE",
	tSentence: "SENTENCE", tParagraph: "PARAGRAPH", tField: "field limit", tZone: "ZONE",
}

// lexWord is one word as written: its text with escapes resolved.
type lexWord struct {
	text     string
	pos      int
	wildcard bool // an unescaped '*', '?' or '%'
	regex    bool // REGEX(/pattern/): text is the pattern
	exact    bool // =word
	start    bool // ^word
	end      bool // word$
	boost    float64
	mark     byte // in a phrase: '(', '|' or ')' of a group of alternatives (no word)
}

type token struct {
	kind tokKind
	pos  int
	text string // as written, for errors

	word lexWord // tWord

	words    []lexWord // tPhrase
	phraseOp byte      // tPhrase: 0, '~' (proximity) or '/' (quorum)
	num      int       // ~N, /N, NEAR/N, NOTNEAR/N
	frac     float64   // /0.5

	names  []string // tField, tZone (lower case)
	negate bool     // tField: @!
	maxPos int      // tField: @f[N]
	span   bool     // tZone: ZONESPAN
}

type lexer struct {
	text string
	tok  *tokenize.Tokenizer
	i    int
}

func errAt(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func (l *lexer) peek(off int) (rune, int) {
	if l.i+off >= len(l.text) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.text[l.i+off:])
}

// isWordRune tells the characters that continue a word: the table's word
// characters and the wildcards.
func (l *lexer) isWordRune(r rune) bool {
	return r >= 0 && (r == '*' || r == '?' || r == '%' || l.tok.IsWordRune(r))
}

// operatorBlend reports whether r is both a query operator character and
// one of the table's blend_chars: outside quotes it stays the operator at
// the start of a word ("@title", "-spam"), as in the reference, whose query
// lexer gives the operator the character unless it is escaped.
func (l *lexer) operatorBlend(r rune) bool {
	return strings.ContainsRune(`()|-!@"<~/^=$`, r) && l.tok.IsBlendRune(r)
}

// operator keywords, recognized only in upper case and at a word start.
var opWords = []struct {
	word string
	kind tokKind
	num  bool // followed by /N
}{
	{"NOTNEAR/", tNotNear, true},
	{"NEAR/", tNear, true},
	{"MAYBE", tMaybe, false},
	{"SENTENCE", tSentence, false},
	{"PARAGRAPH", tParagraph, false},
	{"ZONESPAN:", tZone, false},
	{"ZONE:", tZone, false},
}

func (l *lexer) next() (token, error) {
	for {
		t, ok, err := l.scan()
		if ok || err != nil {
			return t, err
		}
	}
}

// scan reads one token; ok is false when it only skipped a separator.
func (l *lexer) scan() (token, bool, error) {
	t, err := l.scan1()
	if err == errSkip {
		return t, false, nil
	}
	return t, true, err
}

// errSkip is scan1's signal that it consumed a separator and made no token.
var errSkip = &Error{Msg: "skip"}

func (l *lexer) scan1() (token, error) {
	for l.i < len(l.text) {
		r, size := l.peek(0)
		if !unicode.IsSpace(r) {
			break
		}
		l.i += size
	}
	start := l.i
	if l.i >= len(l.text) {
		return token{kind: tEOF, pos: start}, nil
	}
	if t, ok := l.exception(start); ok {
		return t, nil
	}
	r, size := l.peek(0)
	rest := l.text[l.i:]
	if strings.HasPrefix(rest, regexOpen) {
		return l.word(start, false) // (rawWord reads the pattern)
	}
	for _, op := range opWords {
		if !strings.HasPrefix(rest, op.word) {
			continue
		}
		after := len(op.word)
		if !op.num && op.kind != tZone {
			if r2, _ := utf8.DecodeRuneInString(rest[after:]); after < len(rest) && l.isWordRune(r2) {
				continue // MAYBEE is a word
			}
		}
		l.i += after
		t := token{kind: op.kind, pos: start, text: strings.TrimRight(op.word, "/:")}
		switch {
		case op.num:
			n, ok := l.number()
			if !ok || n < 1 {
				return t, errAt(l.i, "%s needs a positive whole number of words after '/', as in %s3", t.text, op.word)
			}
			t.num = n
		case op.kind == tZone:
			t.span = op.word == "ZONESPAN:"
			names, err := l.nameList(t.text)
			if err != nil {
				return t, err
			}
			t.names = names
		}
		return t, nil
	}
	if r == '\\' {
		r2, size2 := l.peek(size)
		if r2 < 0 {
			return token{}, errAt(l.i, "'\\' at the end of the query escapes nothing")
		}
		if !l.tok.IsWordRune(r2) {
			l.i += size + size2 // "\-": a literal separator
			return token{}, errSkip
		}
		return l.word(start, false)
	}
	if l.isWordRune(r) && !l.operatorBlend(r) {
		return l.word(start, false)
	}
	switch r {
	case '(':
		l.i += size
		return token{kind: tLParen, pos: start, text: "("}, nil
	case ')':
		l.i += size
		return token{kind: tRParen, pos: start, text: ")"}, nil
	case '|':
		l.i += size
		return token{kind: tOr, pos: start, text: "|"}, nil
	case '-', '!':
		prev, _ := utf8.DecodeLastRuneInString(l.text[:l.i])
		l.i += size
		if r2, _ := l.peek(0); r2 < 0 || unicode.IsSpace(r2) || l.i > size && l.isWordRune(prev) {
			// A lone '-' is punctuation, and so is one inside a word:
			// "well-known" is two words.
			return token{}, errSkip
		}
		return token{kind: tNot, pos: start, text: string(r)}, nil
	case '<':
		if r2, _ := l.peek(size); r2 == '<' {
			l.i += 2
			return token{kind: tBefore, pos: start, text: "<<"}, nil
		}
	case '"':
		return l.phrase(start)
	case '@':
		return l.field(start)
	case '=', '^':
		if r2, _ := l.peek(size); l.isWordRune(r2) || r2 == '\\' {
			l.i += size
			t, err := l.word(start, false)
			if r == '=' {
				t.word.exact = true
			} else {
				t.word.start = true
			}
			return t, err
		}
	}
	// Any other character separates words.
	l.i += size
	return token{}, errSkip
}

// exception reads, at start, the source of one of the table's exceptions
// that holds a character that is not a word character (":)", "AT&T", "MS
// Windows") as one word: the tokenizer finds exceptions before it looks at
// operators and separators. A source made of word characters only is read
// as an ordinary word (and still mapped when the word is tokenized).
func (l *lexer) exception(start int) (token, bool) {
	end, ok := l.tok.ExceptionAt(l.text, start)
	if !ok {
		return token{}, false
	}
	src := l.text[start:end]
	if strings.IndexFunc(src, func(r rune) bool { return !l.tok.IsWordRune(r) }) < 0 {
		return token{}, false
	}
	l.i = end
	return token{kind: tWord, pos: start, text: src, word: lexWord{text: src, pos: start}}, true
}

// number reads a run of ASCII digits.
func (l *lexer) number() (int, bool) {
	j := l.i
	for j < len(l.text) && l.text[j] >= '0' && l.text[j] <= '9' {
		j++
	}
	if j == l.i || j-l.i > 9 {
		l.i = j
		return 0, false
	}
	n, _ := strconv.Atoi(l.text[l.i:j])
	l.i = j
	return n, true
}

// decimal reads digits with an optional fraction: 3, 0.5, .5.
func (l *lexer) decimal() (string, bool) {
	j := l.i
	dot := false
	for j < len(l.text) && (l.text[j] >= '0' && l.text[j] <= '9' || l.text[j] == '.' && !dot) {
		dot = dot || l.text[j] == '.'
		j++
	}
	s := l.text[l.i:j]
	l.i = j
	return s, s != "" && s != "."
}

// word reads one word and its decorations ($ after it, ^N after it).
func (l *lexer) word(start int, inPhrase bool) (token, error) {
	w, err := l.rawWord(start, inPhrase)
	if err != nil {
		return token{}, err
	}
	t := token{kind: tWord, pos: start, word: w}
	if r, size := l.peek(0); r == '$' {
		if r2, _ := l.peek(size); !l.isWordRune(r2) {
			l.i += size
			t.word.end = true
		}
	}
	if r, size := l.peek(0); r == '^' && !inPhrase {
		if r2, _ := l.peek(size); r2 >= '0' && r2 <= '9' || r2 == '.' {
			l.i += size
			at := l.i
			s, ok := l.decimal()
			b, err := strconv.ParseFloat(s, 64)
			if !ok || err != nil || b <= 0 {
				return t, errAt(at, "boost '^%s' must be a positive number", s)
			}
			t.word.boost = b
		}
	}
	t.text = l.text[start:l.i]
	return t, nil
}

// rawWord reads the characters of a word: word characters, wildcards and
// escaped characters.
func (l *lexer) rawWord(start int, inPhrase bool) (lexWord, error) {
	var b strings.Builder
	w := lexWord{pos: start}
	if strings.HasPrefix(l.text[l.i:], regexOpen) {
		return l.regex(w)
	}
	for l.i < len(l.text) {
		r, size := l.peek(0)
		if r == '\\' {
			r2, size2 := l.peek(size)
			if r2 < 0 {
				return w, errAt(l.i, "'\\' at the end of the query escapes nothing")
			}
			if !l.tok.IsWordRune(r2) {
				break // an escaped separator is no operator, but still separates words
			}
			b.WriteRune(r2)
			l.i += size + size2
			continue
		}
		if !l.isWordRune(r) {
			break
		}
		if !inPhrase && l.i > start && l.operatorBlend(r) {
			// An operator character that is a blend character continues
			// a word only as '-', '@' or '/' between word characters
			// ("well-known", "x@y"), as the reference reads it.
			if r2, _ := l.peek(size); !(r == '-' || r == '@' || r == '/') || !l.isWordRune(r2) || l.operatorBlend(r2) {
				break
			}
		}
		if r == '*' || r == '?' || r == '%' {
			if !l.tok.IsWordRune(r) {
				w.wildcard = true
			}
		}
		b.WriteRune(r)
		l.i += size
	}
	w.text = b.String()
	return w, nil
}

// regexOpen starts the REGEX operator, written in upper case and with no
// blank before its parenthesis, as the reference reads it.
const regexOpen = "REGEX("

// regex reads REGEX(/pattern/) at l.i as one word whose text is the
// pattern. The delimiter is the character after the parenthesis ('/' as a
// rule, any one will do) and the pattern runs to the first delimiter that a
// ')' follows: there is no escape, the pattern goes to the regular
// expression as written.
func (l *lexer) regex(w lexWord) (lexWord, error) {
	at := l.i + len(regexOpen)
	delim, size := utf8.DecodeRuneInString(l.text[at:])
	if at >= len(l.text) || unicode.IsSpace(delim) || delim == ')' {
		return w, errAt(w.pos, "REGEX needs a pattern between delimiters, as in REGEX(/te.*/)")
	}
	close := string(delim) + ")"
	end := strings.Index(l.text[at+size:], close)
	if end < 0 {
		return w, errAt(w.pos, "REGEX(%c...: the pattern has no closing %q", delim, close)
	}
	w.text, w.regex = l.text[at+size:at+size+end], true
	l.i = at + size + end + len(close)
	if w.text == "" {
		return w, errAt(w.pos, "REGEX(%c%s: the pattern is empty", delim, close)
	}
	return w, nil
}

// phrase reads "words"~N, "words"/N or "words".
func (l *lexer) phrase(start int) (token, error) {
	l.i++ // the opening quote
	t := token{kind: tPhrase, pos: start}
	for {
		for l.i < len(l.text) {
			r, size := l.peek(0)
			if r != '"' {
				if wt, ok := l.exception(l.i); ok {
					t.words = append(t.words, wt.word)
					continue
				}
			}
			if r == '"' || r == '\\' || l.isWordRune(r) || r == '^' || r == '=' {
				break
			}
			if r == '(' || r == '|' || r == ')' {
				t.words = append(t.words, lexWord{pos: l.i, mark: byte(r)})
			}
			l.i += size
		}
		if l.i >= len(l.text) {
			return t, errAt(start, "unbalanced '\"': the phrase has no closing quote")
		}
		r, size := l.peek(0)
		if r == '"' {
			l.i += size
			break
		}
		at := l.i
		if r == '\\' {
			r2, size2 := l.peek(size)
			if r2 < 0 {
				return t, errAt(l.i, "'\\' at the end of the query escapes nothing")
			}
			if !l.tok.IsWordRune(r2) {
				// An escaped separator ("\"" inside quotes) is no
				// quote and no operator, and separates words.
				l.i += size + size2
				continue
			}
		}
		exact, fstart := false, false
		if r == '^' || r == '=' {
			r2, _ := l.peek(size)
			if !l.isWordRune(r2) && r2 != '\\' {
				l.i += size
				continue
			}
			exact, fstart = r == '=', r == '^'
			l.i += size
		}
		wt, err := l.word(at, true)
		if err != nil {
			return t, err
		}
		if l.i == at {
			return t, errAt(at, "cannot read a word here") // a guard: never loop in place
		}
		if wt.word.text == "" {
			continue // "=" or "^" before an escaped separator: no word
		}
		wt.word.exact, wt.word.start = exact, fstart
		t.words = append(t.words, wt.word)
	}
	switch r, size := l.peek(0); r {
	case '~':
		l.i += size
		at := l.i
		n, ok := l.number()
		if !ok {
			return t, errAt(at, "proximity '~' needs a whole number of words, as in \"a b\"~5")
		}
		t.phraseOp, t.num = '~', n
	case '/':
		l.i += size
		at := l.i
		s, ok := l.decimal()
		if !ok {
			return t, errAt(at, "quorum '/' needs a number of words or a fraction, as in \"a b c\"/2 or \"a b c\"/0.5")
		}
		t.phraseOp = '/'
		if strings.Contains(s, ".") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f <= 0 || f > 1 {
				return t, errAt(at, "quorum fraction %s must be more than 0 and at most 1", s)
			}
			t.frac = f
		} else {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return t, errAt(at, "quorum %s must be at least 1", s)
			}
			t.num = n
		}
	}
	t.text = l.text[start:l.i]
	return t, nil
}

// field reads @name, @(a,b), @!name, @!(a,b), @* and a following [N].
func (l *lexer) field(start int) (token, error) {
	l.i++ // '@'
	t := token{kind: tField, pos: start}
	r, _ := l.peek(0)
	switch {
	case r == '*':
		l.i++
	default:
		if r == '!' {
			t.negate = true
			l.i++
		}
		names, err := l.nameList("@")
		if err != nil {
			return t, err
		}
		t.names = names
	}
	if r, _ := l.peek(0); r == '[' {
		l.i++
		at := l.i
		n, ok := l.number()
		if !ok || n < 1 {
			return t, errAt(at, "field position limit '[' needs a positive whole number, as in @title[50]")
		}
		if r, _ := l.peek(0); r != ']' {
			return t, errAt(l.i, "field position limit has no closing ']'")
		}
		l.i++
		t.maxPos = n
	}
	t.text = l.text[start:l.i]
	return t, nil
}

// nameList reads one name or a parenthesised, comma-separated list of names
// (field or zone names: letters, digits, '_', and a trailing '*' for zones).
func (l *lexer) nameList(op string) ([]string, error) {
	if r, _ := l.peek(0); r != '(' {
		name := l.name()
		if name == "" {
			return nil, errAt(l.i, "%s needs a name, as in %s", op, example(op))
		}
		return []string{name}, nil
	}
	open := l.i
	l.i++
	var names []string
	for {
		l.skipSpaces()
		name := l.name()
		if name == "" {
			return nil, errAt(l.i, "%s needs a name in its list, as in %s", op, example(op))
		}
		names = append(names, name)
		l.skipSpaces()
		r, _ := l.peek(0)
		if r == ',' {
			l.i++
			continue
		}
		if r == ')' {
			l.i++
			return names, nil
		}
		return nil, errAt(open, "unbalanced '(' in the name list of %s", op)
	}
}

func example(op string) string {
	if op == "@" {
		return "@title or @(title,body)"
	}
	return op + ":(h1,h2)"
}

func (l *lexer) skipSpaces() {
	for l.i < len(l.text) && (l.text[l.i] == ' ' || l.text[l.i] == '\t' || l.text[l.i] == '\n' || l.text[l.i] == '\r') {
		l.i++
	}
}

func (l *lexer) name() string {
	j := l.i
	for j < len(l.text) {
		r, size := utf8.DecodeRuneInString(l.text[j:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '*' && j > l.i) {
			break
		}
		j += size
	}
	name := strings.ToLower(l.text[l.i:j])
	l.i = j
	return name
}
