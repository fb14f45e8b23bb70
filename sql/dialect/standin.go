package dialect

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Long string literals (the documents of an INSERT, the texts of CALL
// SNIPPETS) cost the TiDB lexer a copy byte by byte. The rewrite hands the
// parser a short stand-in literal for each instead, and the parsed tree gets
// the literal's value back: the value TiDB would have read, which the lexer
// decoded by the same rules while it found the literal's end (scanString).
//
// Only literals that TiDB would read as plain values are replaced: not one
// glued to another literal (TiDB concatenates 'a' 'b'), not one after a word
// that could be a charset introducer (_utf8mb4 'x', N'x', X'4142'), not one
// whose bytes are not valid UTF-8. A literal TiDB keeps somewhere other than
// a value (an alias, a table comment) leaves its stand-in unrestored, and
// Parse then parses the statement again without stand-ins: the stand-ins
// change how fast a statement parses, never what it means.

// longLiteral is the length from which a string literal gets a stand-in.
const longLiteral = 256

// standInPrefix starts every stand-in: the byte 0x1f and a nonce drawn when
// the process starts, which no statement can know in advance.
var standInPrefix = func() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "\x1fglint" + hex.EncodeToString(b[:]) + ":"
}()

// standInNumber is the first number that stands in for a LIMIT's numbers
// (LIMIT takes no string): literal i's is standInNumber+i. It is drawn when
// the process starts, between 10^18 and about 3.3 * 10^18 (61 random bits),
// so no statement can know it in advance either.
var standInNumber = func() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return 1e18 + binary.LittleEndian.Uint64(b[:])>>3
}()

// standInNumbers are the first numbers' stand-ins as text, made once.
var standInNumbers = func() (texts [8]string) {
	for i := range texts {
		texts[i] = strconv.FormatUint(standInNumber+uint64(i), 10)
	}
	return texts
}()

// standInNumberText is the text of literal i's stand-in, a number.
func standInNumberText(i int) string {
	if i < len(standInNumbers) {
		return standInNumbers[i]
	}
	return strconv.FormatUint(standInNumber+uint64(i), 10)
}

// standInKeys are the first stand-ins, made once.
var standInKeys = func() (keys [64]string) {
	for i := range keys {
		keys[i] = standInPrefix + strconv.Itoa(i)
	}
	return keys
}()

// standInKey is the stand-in of literal i (without quotes).
func standInKey(i int) string {
	if i < len(standInKeys) {
		return standInKeys[i]
	}
	return standInPrefix + strconv.Itoa(i)
}

// standInQuoted are the first stand-ins quoted, as the rewrite writes
// them, made once.
var standInQuoted = func() (quoted [len(standInKeys)]string) {
	for i, k := range standInKeys {
		quoted[i] = "'" + k + "'"
	}
	return quoted
}()

// standInQuotedKey is the stand-in of literal i, quoted.
func standInQuotedKey(i int) string {
	if i < len(standInQuoted) {
		return standInQuoted[i]
	}
	return "'" + standInKey(i) + "'"
}

// standInNumberOf is the number of the stand-in key (standInKey(i) is
// key), or -1 when key is not one: the prefix, then the number in
// decimal as strconv writes it (no sign, no leading zero).
func standInNumberOf(key []byte) int {
	if len(key) <= len(standInPrefix) || string(key[:len(standInPrefix)]) != standInPrefix {
		return -1
	}
	digits := key[len(standInPrefix):]
	if len(digits) > 9 || len(digits) > 1 && digits[0] == '0' {
		return -1
	}
	n := 0
	for _, c := range digits {
		if !isDigit(c) {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// literalKind is what a literal that a stand-in replaced is, and so how
// its value is put back.
type literalKind byte

const (
	literalString literalKind = iota // a string
	literalInt                       // an integer of a WHERE clause: int64, or uint64 past it
	literalLimit                     // a LIMIT's number, whose stand-in is a number too: uint64
)

// standIns are the literals of one statement that stand-ins replaced. A
// string literal's stand-in is standInKey of its number, which Enter
// reads back.
type standIns struct {
	values   []string                 // by number: the literal's value (an integer's digits)
	kinds    []literalKind            // by number: what the literal is
	nbare    int                      // how many are a LIMIT's numbers
	raw      []string                 // by number: the literal as written
	nodes    []*test_driver.ValueExpr // by number: where restore put the value
	restored int
	// names are the select-list items whose text (their column's name)
	// holds a stand-in: restore writes the literal back into it, and the
	// tree cannot be kept by its shape (another statement of the shape
	// would show this one's literal).
	names []*ast.SelectField

	// Room for the first literals' values, kinds and texts, in the one
	// allocation of the standIns (a CALL has four or five literals).
	valuesRoom [6]string
	rawRoom    [6]string
	kindsRoom  [6]literalKind
}

// standIns replaces literals among s[:cut] (the part of the statement that
// is parsed as a whole) with stand-ins: the string literals of at least
// from bytes, in s[lo:hi] (a SELECT's WHERE clause, see whereClause) every
// string literal and every integer written in decimal digits, and the
// numbers of LIMIT clauses (limitNumber): those in s[lo:hi] (a subquery's)
// and those after the statement's own LIMIT, s[limit] (0: none). nil if
// there are none.
func (r *rewriter) standIns(cut, from, lo, hi, limit int) *standIns {
	var si *standIns
	// The edits made before: a literal inside one keeps its text. (The
	// stand-ins' own edits are of distinct tokens: they never overlap.)
	before, k := newEditIndex(r.edits), len(r.edits)
	for i := 0; i < cut; i++ {
		t := r.s[i]
		inWhere := i >= lo && i < hi
		// A LIMIT's number, the statement's own or a subquery's, stands
		// in as a number: TiDB takes no string there.
		bare := (inWhere || limit > 0 && i > limit) && r.plainInteger(i) && r.limitNumber(i)
		isInt := bare || inWhere && r.plainInteger(i)
		switch {
		case isInt:
		case t.kind != tokString || t.unterminated || (t.end-t.start < from && !inWhere) || r.gluedLiteral(i):
			continue
		}
		if before.overlaps(t) || !utf8.ValidString(r.text(t)) {
			continue
		}
		value := t.value // decoded by the lexer
		if isInt {
			value = r.text(t)
		}
		if si == nil {
			si = &standIns{}
			si.values, si.raw, si.kinds = si.valuesRoom[:0], si.rawRoom[:0], si.kindsRoom[:0]
		}
		n := len(si.values)
		si.values = append(si.values, value)
		si.raw = append(si.raw, r.text(t))
		switch {
		case bare:
			si.kinds = append(si.kinds, literalLimit)
			si.nbare++
			r.replace(t, standInNumberText(n))
			continue
		case isInt:
			si.kinds = append(si.kinds, literalInt)
		default:
			si.kinds = append(si.kinds, literalString)
		}
		r.replace(t, standInQuotedKey(n))
	}
	mergeEdits(r.edits, k)
	return si
}

// limitNumber reports whether the integer s[i] is a number of a LIMIT
// clause, told by the words before it: LIMIT i, LIMIT n, i, or OFFSET i
// (MySQL has OFFSET only in LIMIT n OFFSET m). Its stand-in is a number:
// a LIMIT's numbers are values, which TiDB reads as unsigned integers. (A
// LIMIT of another form, or followed by what does not belong there, makes
// a tree that does not take its values back: the statement is then parsed
// as written; see Shapes.)
func (r *rewriter) limitNumber(i int) bool {
	return r.word(i-1, "LIMIT") || r.word(i-1, "OFFSET") ||
		i >= 3 && r.punct(i-1, ',') && r.plainInteger(i-2) && r.word(i-3, "LIMIT")
}

// plainInteger reports whether s[i] is an integer literal that TiDB reads
// as a plain value: decimal digits only (not 1.5, 1e3, 0x1F or 0b1), small
// enough for 64 bits, and not part of a word (MySQL names may start with
// digits: 1abc, t.1x).
func (r *rewriter) plainInteger(i int) bool {
	t := r.s[i]
	if t.kind != tokNumber {
		return false
	}
	text := r.text(t)
	for j := 0; j < len(text); j++ {
		if !isDigit(text[j]) {
			return false
		}
	}
	if _, err := strconv.ParseUint(text, 10, 64); err != nil {
		return false
	}
	if t.start > 0 && (isWordByte(r.src[t.start-1]) || r.src[t.start-1] == '.') {
		return false
	}
	return t.end == len(r.src) || !isWordByte(r.src[t.end]) && r.src[t.end] != '.'
}

// whereClause returns the tokens [lo, hi) of the WHERE clause of the SELECT
// in s[:cut], without the word WHERE: from it to the first GROUP, HAVING,
// WINDOW, ORDER, LIMIT, FOR, LOCK, INTO or set operator outside brackets.
// (0, 0) when there is none. Its literals may all get stand-ins: TiDB shows
// the text of nothing there (a select list's text names its columns). It
// also returns the token of the word LIMIT outside brackets (0: none).
func (r *rewriter) whereClause(cut int) (lo, hi, limit int) {
	depth := 0
	for i := 1; i < cut; i++ {
		switch {
		case r.opens(i):
			depth++
		case r.closes(i):
			depth--
		case depth != 0 || r.punct(i-1, '.'):
		case r.word(i, "LIMIT"):
			limit = i
			if lo != 0 && hi == 0 {
				hi = i
			}
		case lo == 0 && r.word(i, "WHERE"):
			lo = i + 1
		case lo == 0 || hi != 0:
		case r.word(i, "GROUP"), r.word(i, "HAVING"), r.word(i, "WINDOW"), r.word(i, "ORDER"),
			r.word(i, "FOR"), r.word(i, "LOCK"), r.word(i, "INTO"), r.word(i, "UNION"), r.word(i, "EXCEPT"), r.word(i, "INTERSECT"):
			hi = i
		}
	}
	switch {
	case lo == 0:
		return 0, 0, limit
	case hi == 0:
		return lo, cut, limit
	}
	return lo, hi, limit
}

// gluedLiteral reports whether the literal s[i] is read together with a
// token next to it: another literal, or a word before it that may be a
// charset introducer or a literal prefix (N, X, B).
func (r *rewriter) gluedLiteral(i int) bool {
	if i+1 < len(r.s) && r.s[i+1].kind == tokString {
		return true
	}
	if i == 0 {
		return false
	}
	prev := r.s[i-1]
	switch {
	case prev.kind == tokString:
		return true
	case prev.kind != tokWord:
		return false
	case prev.end == r.s[i].start:
		return true // N'x', X'41', _binary'x'
	}
	return strings.HasPrefix(r.text(prev), "_")
}

// editIndex finds the edits that touch a token in O(log n), so that a
// statement of many literals (an IN list of 100,000 ids) is rewritten in
// O(n log n). A few edits (a CALL's) are looked through one by one, which
// costs less than sorting and indexing them.
type editIndex struct {
	few    []edit // the edits, when there are at most fewEdits; else nil
	starts []int  // the edits' starts, ascending
	maxEnd []int  // maxEnd[k]: the furthest end of the edits starts[:k+1] are of
}

// fewEdits is the most edits an editIndex looks through one by one.
const fewEdits = 16

func newEditIndex(edits []edit) editIndex {
	if len(edits) <= fewEdits {
		return editIndex{few: edits}
	}
	sorted := slices.SortedFunc(slices.Values(edits), func(a, b edit) int { return a.start - b.start })
	x := editIndex{starts: make([]int, len(sorted)), maxEnd: make([]int, len(sorted))}
	end := -1
	for k, e := range sorted {
		end = max(end, e.end)
		x.starts[k], x.maxEnd[k] = e.start, end
	}
	return x
}

// overlaps reports whether an edit touches the inside of t: one that starts
// before t ends and ends after it starts (an insertion at t's start is
// fine, one inside it is not).
func (x editIndex) overlaps(t token) bool {
	if x.starts == nil {
		for _, e := range x.few {
			if e.start < t.end && e.end > t.start {
				return true
			}
		}
		return false
	}
	k, _ := slices.BinarySearch(x.starts, t.end) // starts[:k] are before t.end
	return k > 0 && x.maxEnd[k-1] > t.start
}

// restore gives every stand-in in node its literal's value back, and
// reports whether all of them were found as values.
func (si *standIns) restore(node ast.Node) bool {
	si.nodes = make([]*test_driver.ValueExpr, len(si.values))
	node.Accept(si)
	if len(si.names) > 0 {
		pairs := make([]string, 0, 2*len(si.values))
		for i, raw := range si.raw {
			pairs = append(pairs, standInQuotedKey(i), raw)
		}
		written := strings.NewReplacer(pairs...)
		for _, f := range si.names {
			f.SetText(nil, written.Replace(f.OriginalText()))
		}
	}
	return si.restored == len(si.values)
}

// Enter implements ast.Visitor.
func (si *standIns) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.SelectField); ok && strings.Contains(f.OriginalText(), standInPrefix) {
		si.names = append(si.names, f)
	}
	if v, ok := n.(*test_driver.ValueExpr); ok && si.nbare > 0 && v.Kind() == test_driver.KindUint64 {
		if i := v.GetUint64() - standInNumber; i < uint64(len(si.values)) && si.kinds[i] == literalLimit && si.nodes[i] == nil {
			si.set(int(i), v)
			si.nodes[i] = v
			si.restored++
		}
		return n, false
	}
	if v, ok := n.(*test_driver.ValueExpr); ok && v.Kind() == test_driver.KindString {
		if i := standInNumberOf(v.GetBytes()); i >= 0 && i < len(si.values) && si.kinds[i] != literalLimit && si.nodes[i] == nil {
			si.set(i, v)
			si.nodes[i] = v
			si.restored++
		}
	}
	return n, false
}

// set gives v the value of literal i: its text, or the integer TiDB reads
// from its digits (an int64, or a uint64 when it is larger; a LIMIT's, a
// uint64).
func (si *standIns) set(i int, v *test_driver.ValueExpr) {
	switch si.kinds[i] {
	case literalString:
		setString(v, si.values[i])
	case literalLimit:
		n, _ := strconv.ParseUint(si.values[i], 10, 64) // (plainInteger checked it)
		v.SetValue(n)
	default:
		v.SetValue(integerOf(si.values[i]))
	}
}

// integerOf is the integer TiDB reads from the digits of a literal
// plainInteger accepted: an int64, or a uint64 when it is larger.
func integerOf(digits string) any {
	if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
		return n
	}
	n, _ := strconv.ParseUint(digits, 10, 64) // plainInteger checked the range
	return n
}

// setString makes v's value s. The value's bytes are shared, not copied:
// nothing changes the bytes of a parsed literal (see Value).
func setString(v *test_driver.ValueExpr, s string) {
	v.SetBytesAsString(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// Value is the value of a literal of a parsed statement, as GetValue gives
// it, but a string is not copied: it shares the literal's bytes, which
// nothing changes once the statement is parsed (GetValue copies them, and a
// long literal, a document of an INSERT or a text of CALL SNIPPETS, is
// worth not copying).
func Value(v ast.ValueExpr) any {
	if d, ok := v.(*test_driver.ValueExpr); ok && d.Kind() == test_driver.KindString {
		b := d.GetBytes()
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return v.GetValue()
}

// StringValue is Value of a literal that is a string, without putting the
// string in an interface (which costs an allocation per literal read): its
// value and true, or "" and false when the literal is not a string.
func StringValue(v ast.ValueExpr) (string, bool) {
	if d, ok := v.(*test_driver.ValueExpr); ok && d.Kind() == test_driver.KindString {
		b := d.GetBytes()
		return unsafe.String(unsafe.SliceData(b), len(b)), true
	}
	s, ok := v.GetValue().(string)
	return s, ok
}

// Leave implements ast.Visitor.
func (si *standIns) Leave(n ast.Node) (ast.Node, bool) { return n, true }
