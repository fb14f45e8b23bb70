package dialect

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// rewritten is one statement after the rewrite.
type rewritten struct {
	main     *output      // the statement as TiDB reads it
	tail     *tail        // the OPTION tail or the CREATE TABLE settings, or nil
	facets   []*output    // the FACET clauses of a SELECT, each a SELECT of its own
	within   *output      // WITHIN GROUP ORDER BY of a SELECT, as SELECT ... ORDER BY, or nil
	standIns *standIns    // the long literals main has stand-ins for, or nil
	cluster  *ClusterStmt // a cluster statement, which has no main: TiDB does not read it
}

// rewriter rewrites one statement. It works on the significant tokens (white
// space and comments are copied with the bytes around them) and collects edits
// of the source text.
type rewriter struct {
	src   string
	s     []token // significant tokens of the statement, without a trailing ';'
	edits []edit
}

// rewriteScratch is the storage of rewrite's significant tokens and
// edits, which live as long as the rewrite (nothing it returns holds
// them): it is reused from one statement to the next.
type rewriteScratch struct {
	s     []token
	edits []edit
}

var scratchPool = sync.Pool{New: func() any {
	return &rewriteScratch{s: make([]token, 0, 64), edits: make([]edit, 0, 16)}
}}

// rewrite turns one statement of the dialect into text the TiDB parser reads:
// see the package documentation for what it changes. The cut-off tail of
// settings, if any, is returned apart. Literals of the main part of at
// least standInFrom bytes get stand-ins (see standIns; < 0: none). toks are src's tokens
// (lex(src)).
func rewrite(src string, toks []token, standInFrom int) (*rewritten, error) {
	for i := range toks {
		t := &toks[i]
		if t.unterminated {
			return nil, errorAt(src, t.start, "unterminated %s", unterminatedName[t.kind])
		}
		if t.kind == tokNumber {
			if n := mantissaDigits(src[t.start:t.end]); n > maxNumberDigits {
				return nil, errorAt(src, t.start, "a number of %d digits: a number literal has at most %d (write a longer one with an exponent, like 1.5e80)", n, maxNumberDigits)
			}
		}
		if t.kind != tokString && t.kind != tokComment && t.kind != tokSpace && !utf8.ValidString(src[t.start:t.end]) {
			// A name (or a stray byte) that is not UTF-8 would reach
			// the parser as '?' and become part of a table's or a
			// column's name.
			bad := t.start
			for k, r := range src[t.start:t.end] {
				if r == utf8.RuneError {
					bad = t.start + k
					break
				}
			}
			return nil, errorAt(src, bad, "byte 0x%02X is not UTF-8: names and keywords are UTF-8 text", src[bad])
		}
		if kind := binaryLiteral(src, toks, i); kind != "" {
			return nil, errorAt(src, t.start, "%s literals are not supported: write a number in decimal, a text in quotes", kind)
		}
	}
	sc := scratchPool.Get().(*rewriteScratch)
	s := appendSignificant(sc.s[:0], toks)
	r := &rewriter{src: src, edits: sc.edits[:0]}
	defer func() {
		clear(s) // (no strings held past the statement)
		clear(r.edits)
		sc.s, sc.edits = s[:0], r.edits[:0]
		scratchPool.Put(sc)
	}()
	for len(s) > 0 && isPunct(src, s[len(s)-1], ';') {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return nil, errorAt(src, 0, "empty statement")
	}
	for i := range s {
		if t := &s[i]; isPunct(src, *t, ';') {
			return nil, errorAt(src, t.start, "only one statement is allowed here, and ';' ends it")
		}
	}
	if isClusterStatement(src, s) {
		c, err := parseCluster(src, s)
		if err != nil {
			return nil, err
		}
		return &rewritten{cluster: c}, nil
	}
	r.s = s
	if err := r.hugeLimits(); err != nil {
		return nil, err
	}
	r.clusterTables()
	cut := len(s) // the tokens from cut on are the tail of settings
	var tl *tail
	var facets []*output
	var within *output
	var err error
	switch {
	case r.word(0, "CREATE"):
		cut, tl, err = r.createTable()
	case r.word(0, "SELECT"):
		// SELECT ... [OPTION ...] [FACET ...]: the facets come last.
		fc := r.facetStart()
		if fc < len(s) {
			if facets, err = r.facets(fc); err != nil {
				return nil, err
			}
		}
		r.s = s[:fc]
		cut, tl, err = r.optionTail()
		r.s = s
		if err == nil {
			within, err = r.withinGroup(cut)
		}
	case r.word(0, "UPDATE") || r.word(0, "DELETE"):
		cut, tl, err = r.optionTail()
		if r.word(0, "UPDATE") {
			r.emptyLists(cut)
		}
	case r.word(0, "INSERT") || r.word(0, "REPLACE"):
		r.emptyLists(len(s))
	case r.word(0, "SHOW") && r.word(1, "META"):
		err = r.showMeta()
	case r.word(0, "SHOW") && r.word(1, "TABLE") && len(s) == 4 && (r.word(3, "STATUS") || r.word(3, "SETTINGS")):
		r.showTable()
	case r.word(0, "CALL"):
		err = r.callArgs()
	}
	if err != nil {
		return nil, err
	}
	if err := r.functionsAndMaps(cut); err != nil {
		return nil, err
	}
	for i := range toks {
		// TiDB reads every /*! */ as code and /*T! */ too: it sees the
		// versioned comments as lex cut them, as spaces.
		if t := &toks[i]; t.blank && t.end <= s[cut-1].end {
			r.edits = append(r.edits, edit{start: t.start, end: t.end, text: " "})
		}
	}
	var si *standIns
	if standInFrom >= 0 {
		// The parsed trees of CALLs and SELECTs are kept by their shapes
		// (Shapes): every literal of a CALL stands in (a query, a short
		// text), and every literal of a SELECT's WHERE clause (MATCH()'s
		// query, the ids of an IN list) and its LIMIT's numbers, so that
		// statements differing only in them share one shape.
		lo, hi, limit := 0, 0, 0
		switch {
		case r.word(0, "CALL"):
			standInFrom = min(standInFrom, 1)
		case r.word(0, "SELECT") && facets == nil && within == nil && len(src) <= maxShape:
			// (A longer statement is not kept by its shape: its short
			// literals would stand in for nothing.) The numbers of LIMIT
			// stand in too: pages of one search share a shape.
			lo, hi, limit = r.whereClause(cut)
		}
		si = r.standIns(cut, standInFrom, lo, hi, limit)
	}
	main, err := applyEdits(src, 0, s[cut-1].end, r.edits)
	if err != nil {
		return nil, &SyntaxError{Msg: err.Error()} // a bug of this package, not of the statement
	}
	if cut < len(s) {
		main.end = s[cut].start // an error at the end points at the tail
	}
	return &rewritten{main: main, tail: tl, facets: facets, within: within, standIns: si}, nil
}

var unterminatedName = map[tokenKind]string{
	tokString:  "string literal",
	tokQuoted:  "quoted identifier",
	tokComment: "comment",
}

// functionsAndMaps rewrites MATCH( into `MATCH`( and {k=v, ...} into
// __glint_map('k', v, ...) in the tokens s[:n], maps inside maps included.
func (r *rewriter) functionsAndMaps(n int) error {
	type frame struct{ open, depth int } // a '{' and the paren depth at it
	var maps []frame
	depth := 0
	for i := 0; i < n; i++ {
		t := &r.s[i]
		if t.kind != tokWord && t.kind != tokPunct {
			continue // (nothing below is of another kind)
		}
		inMap := len(maps) > 0 && maps[len(maps)-1].depth == depth
		switch {
		case r.word(i, "MATCH") && r.punct(i+1, '(') && !r.punct(i-1, '.'):
			r.replace(*t, "`"+r.text(*t)+"`")
		case r.word(i, "QUERY") && r.punct(i+1, '(') && !r.punct(i-1, '.'):
			r.replace(*t, quoted(FuncQuery))
		case r.punct(i, '(') || r.punct(i, '['):
			depth++
		case r.punct(i, ')') || r.punct(i, ']'):
			if inMap {
				return errorAt(r.src, t.start, "expected ',' or '}' in option map, found '%s'", r.text(*t))
			}
			depth--
		case r.punct(i, '{'):
			r.replace(*t, callOptionMap)
			maps = append(maps, frame{open: i, depth: depth})
			if r.punct(i+1, '}') {
				continue // {}
			}
			if err := r.mapEntry(i+1, n); err != nil {
				return err
			}
			i += 2 // name =
		case r.punct(i, ',') && inMap:
			if err := r.mapEntry(i+1, n); err != nil {
				return err
			}
			i += 2
		case r.punct(i, '}'):
			if !inMap {
				return errorAt(r.src, t.start, "unexpected '}'")
			}
			r.replace(*t, ")")
			maps = maps[:len(maps)-1]
		}
	}
	if len(maps) > 0 {
		return errorAt(r.src, r.s[maps[len(maps)-1].open].start, "option map without its closing '}'")
	}
	return nil
}

// emptyLists rewrites () where a value goes into __glint_empty(): the
// empty set of a multi column, as the reference reads it, in the rows of
// INSERT and REPLACE (VALUES (1, ())) and in UPDATE's SET (tags = ()),
// both in s[:n]. A whole row () keeps MySQL's meaning (no values), and a
// call's () stays a call (NOW()).
func (r *rewriter) emptyLists(n int) {
	depth, values, set := 0, false, false
	for i := 0; i < n; i++ {
		switch {
		case depth == 0 && (r.word(i, "VALUES") || r.word(i, "VALUE")):
			values = true
		case depth == 0 && r.word(i, "SET"):
			set = true
		case depth == 0 && r.word(i, "WHERE"):
			set = false
		case r.punct(i, '(') && r.punct(i+1, ')') && i+1 < n &&
			(values && depth > 0 && (r.punct(i-1, '(') || r.punct(i-1, ',')) || set && depth == 0 && r.punct(i-1, '=')):
			r.edits = append(r.edits, edit{start: r.s[i].start, end: r.s[i+1].end, text: emptyCall})
			i++
		case r.punct(i, '('):
			depth++
		case r.punct(i, ')'):
			depth--
		}
	}
}

// mapEntry rewrites the "name =" of the option map entry at s[i] into "'name', ".
func (r *rewriter) mapEntry(i, n int) error {
	name, ok := r.name(i)
	if i >= n || !ok {
		return r.errorAtToken(i, n, "expected name=value in option map")
	}
	if i+1 >= n || !r.punct(i+1, '=') {
		return r.errorAtToken(i+1, n, "expected '=' after '%s' in option map", name)
	}
	if i+2 >= n || r.punct(i+2, ',') || r.punct(i+2, '}') {
		return r.errorAtToken(i+2, n, "missing value for '%s' in option map", name)
	}
	r.edits = append(r.edits, edit{start: r.s[i].start, end: r.s[i+2].start, text: quoteStringBetween("", name, ", ")})
	if v := r.s[i+2]; v.kind == tokWord && (r.punct(i+3, ',') || r.punct(i+3, '}')) && !literalWord[strings.ToUpper(r.text(v))] {
		r.replace(v, quoteStringBetween(wordCall, r.text(v), ")")) // {html_strip_mode=strip}
	}
	return nil
}

// literalWord are the words that stay themselves as option map values: TiDB
// reads them as literals.
var literalWord = map[string]bool{"TRUE": true, "FALSE": true, "NULL": true}

// callArgs rewrites the top-level arguments "expr AS name" of CALL f(...) into
// __glint_as(expr, 'name').
func (r *rewriter) callArgs() error {
	open := 1
	for open < len(r.s) && !r.punct(open, '(') {
		open++
	}
	if r.punct(open+1, '(') && r.punct(open+2, ')') {
		// (TiDB has no empty row: its error would point at the ')'.)
		return r.errorAtToken(open+1, len(r.s), "an empty list (): give at least one text")
	}
	depth, first := 0, open+1
	for i := open + 1; i < len(r.s); i++ {
		c := r.punctByte(i) // (0: not punctuation, which changes nothing here)
		closes := c == ')' || c == ']' || c == '}'
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
		case closes && depth > 0:
			depth--
		case (closes || c == ',') && depth == 0:
			r.asArg(first, i)
			if closes {
				return nil
			}
			first = i + 1
		}
	}
	return nil
}

// asArg rewrites the argument s[from:to] if it is "expr AS name".
func (r *rewriter) asArg(from, to int) {
	if to-from < 3 || !r.word(to-2, "AS") {
		return
	}
	name, ok := r.name(to - 1)
	if !ok {
		return
	}
	r.edits = append(r.edits,
		edit{start: r.s[from].start, end: r.s[from].start, text: callAs},
		edit{start: r.s[to-3].end, end: r.s[to-1].end, text: quoteStringBetween(", ", name, ")")})
}

// showTable rewrites the reference's SHOW TABLE t STATUS and SHOW TABLE t
// SETTINGS into SELECT __glint_show_table('t', 'status' | 'settings')
// (MySQL's SHOW TABLE STATUS has no name between its words).
func (r *rewriter) showTable() {
	name, ok := r.name(2)
	if !ok {
		return // (TiDB's parser says what is wrong)
	}
	what := strings.ToLower(r.src[r.s[3].start:r.s[3].end])
	r.edits = append(r.edits, edit{start: r.s[0].start, end: r.s[3].end,
		text: "SELECT " + quoted(FuncShowTable) + "(" + quoteStringBetween("", name, "") + ", '" + what + "')"})
}

// showMeta rewrites SHOW META [LIKE 'pattern'] into SELECT
// __glint_show_meta(['pattern']). Anything after it is an error (it would
// be the SELECT's alias).
func (r *rewriter) showMeta() error {
	call := "SELECT " + quoted(FuncShowMeta) + "("
	if r.word(2, "LIKE") && len(r.s) > 3 {
		if len(r.s) > 4 {
			return r.errorAtToken(4, len(r.s), "SHOW META takes only LIKE 'pattern'")
		}
		r.edits = append(r.edits,
			edit{start: r.s[0].start, end: r.s[3].start, text: call},
			edit{start: r.s[3].end, end: r.s[3].end, text: ")"})
		return nil
	}
	if r.word(2, "LIKE") && len(r.s) == 3 {
		return r.errorAtToken(3, len(r.s), "SHOW META LIKE needs a 'pattern'")
	}
	if len(r.s) > 2 {
		return r.errorAtToken(2, len(r.s), "SHOW META takes only LIKE 'pattern'")
	}
	r.edits = append(r.edits, edit{start: r.s[0].start, end: r.s[1].end, text: call + ")"})
	return nil
}

// optionTail finds the OPTION tail of a SELECT (UPDATE, DELETE): the word
// OPTION outside parentheses and everything after it.
func (r *rewriter) optionTail() (int, *tail, error) {
	depth := 0
	for i := 1; i < len(r.s); i++ {
		switch {
		case r.opens(i):
			depth++
		case r.closes(i):
			depth--
		case depth == 0 && r.word(i, "OPTION") && !r.punct(i-1, '.'):
			tl, err := r.settings("OPTION", i+1, true)
			return i, tl, err
		}
	}
	return len(r.s), nil, nil
}

// replace replaces the token t with text.
func (r *rewriter) replace(t token, text string) {
	r.edits = append(r.edits, edit{start: t.start, end: t.end, text: text})
}

func (r *rewriter) text(t token) string { return r.src[t.start:t.end] }

// word reports whether s[i] is the word w, in any case.
// hugeLimits refuses a LIMIT's offset or count past 64 bits, which the
// parser would answer with a bare syntax error, as the planner words one
// past its range.
func (r *rewriter) hugeLimits() error {
	for i := range r.s {
		if !r.word(i, "LIMIT") {
			continue
		}
		what := [3]string{"count", "", "count"} // LIMIT n | LIMIT m, n | LIMIT n OFFSET m
		if r.punct(i+2, ',') {
			what[0] = "offset"
		} else if r.word(i+2, "OFFSET") {
			what[2] = "offset"
		}
		for k, w := range what {
			j := i + 1 + k
			if w == "" || j >= len(r.s) || r.s[j].kind != tokNumber {
				continue
			}
			text := r.text(r.s[j])
			if _, err := strconv.ParseUint(text, 10, 64); errors.Is(err, strconv.ErrRange) { // (digits past 64 bits)
				return errorAt(r.src, r.s[j].start, "LIMIT %s must be an integer from 0 to 2147483647, not %s", w, text)
			}
		}
	}
	return nil
}

func (r *rewriter) word(i int, w string) bool {
	if i < 0 || i >= len(r.s) || r.s[i].kind != tokWord || r.s[i].end-r.s[i].start != len(w) {
		return false
	}
	text := r.text(r.s[i])
	return (text[0]|0x20) == (w[0]|0x20) && strings.EqualFold(text, w) // (a word starts with a letter, _, $ or a digit)
}

// punct reports whether s[i] is the punctuation c.
func (r *rewriter) punct(i int, c byte) bool { return r.punctByte(i) == c }

// punctByte is the character of s[i] if it is punctuation, 0 otherwise.
func (r *rewriter) punctByte(i int) byte {
	if i < 0 || i >= len(r.s) || r.s[i].kind != tokPunct {
		return 0
	}
	return r.src[r.s[i].start]
}

func (r *rewriter) opens(i int) bool {
	c := r.punctByte(i)
	return c == '(' || c == '[' || c == '{'
}

func (r *rewriter) closes(i int) bool {
	c := r.punctByte(i)
	return c == ')' || c == ']' || c == '}'
}

// closing returns the index of the bracket that closes the one at s[i], or -1.
func (r *rewriter) closing(i, n int) int {
	depth := 0
	for j := i; j < n; j++ {
		switch {
		case r.opens(j):
			depth++
		case r.closes(j):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// name returns the name s[i] stands for if it is a word or a quoted identifier.
func (r *rewriter) name(i int) (string, bool) {
	if i < 0 || i >= len(r.s) {
		return "", false
	}
	switch t := r.s[i]; t.kind {
	case tokWord:
		return r.text(t), true
	case tokQuoted:
		return strings.ReplaceAll(r.src[t.start+1:t.end-1], "``", "`"), true
	}
	return "", false
}

// errorAtToken returns a SyntaxError at s[i], or at the end of s[:n] when i >= n.
func (r *rewriter) errorAtToken(i, n int, format string, args ...any) *SyntaxError {
	off := r.s[n-1].end
	if i < n {
		off = r.s[i].start
	}
	return errorAt(r.src, off, format, args...)
}

func isPunct(src string, t token, c byte) bool { return t.kind == tokPunct && src[t.start] == c }

// maxNumberDigits bounds the digits of a decimal number literal, as
// MySQL's DECIMAL does (TiDB's parser gives up beyond 81).
const maxNumberDigits = 65

// binaryLiteral names the kind of literal toks[i] starts when it is one
// that MySQL reads as bytes, "" otherwise: hexadecimal (0x1F, X'1F') or bit
// (0b101, B'101'). The reference's lexer has neither, and the executor
// would read their bytes as a number or a text of its own choosing.
// Glued to other word bytes (0x1G, 0b12) they are names, as in MySQL.
func binaryLiteral(src string, toks []token, i int) string {
	t := toks[i]
	text := src[t.start:t.end]
	switch t.kind {
	case tokNumber:
		if len(text) < 3 || text[0] != '0' {
			return ""
		}
		digits := text[2:]
		switch text[1] {
		case 'x':
			if strings.Trim(digits, "0123456789abcdefABCDEF") == "" {
				return "hexadecimal"
			}
		case 'b':
			if strings.Trim(digits, "01") == "" {
				return "bit"
			}
		}
	case tokWord:
		if len(text) != 1 || i+1 == len(toks) || toks[i+1].kind != tokString || toks[i+1].start != t.end {
			return ""
		}
		switch text[0] {
		case 'x', 'X':
			return "hexadecimal"
		case 'b', 'B':
			return "bit"
		}
	}
	return ""
}

// mantissaDigits counts the digits of a decimal number literal before its
// exponent; 0 for a hexadecimal or binary one (0x1F, 0b101).
func mantissaDigits(num string) int {
	if len(num) > 1 && num[0] == '0' && strings.ContainsRune("xXbB", rune(num[1])) {
		return 0
	}
	n := 0
	for i := 0; i < len(num); i++ {
		switch c := num[i]; {
		case isDigit(c):
			n++
		case c == '.':
		default:
			return n
		}
	}
	return n
}
