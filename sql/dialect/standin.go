package dialect

import (
	"crypto/rand"
	"encoding/hex"
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

// standIns are the literals of one statement that stand-ins replaced.
type standIns struct {
	index    map[string]int           // stand-in -> its number, from 0
	values   []string                 // by number: the literal's value
	nodes    []*test_driver.ValueExpr // by number: where restore put the value
	restored int
}

// standIns replaces the literals of at least from bytes among s[:cut] (the
// part of the statement that is parsed as a whole) with stand-ins; nil if
// there are none.
func (r *rewriter) standIns(cut, from int) *standIns {
	var si *standIns
	for i := 0; i < cut; i++ {
		t := r.s[i]
		if t.kind != tokString || t.unterminated || t.end-t.start < from || r.gluedLiteral(i) || r.overlapsEdit(t) {
			continue
		}
		if !utf8.ValidString(r.text(t)) {
			continue
		}
		value := t.value // decoded by the lexer
		if si == nil {
			si = &standIns{index: map[string]int{}}
		}
		key := standInPrefix + strconv.Itoa(len(si.values))
		si.index[key] = len(si.values)
		si.values = append(si.values, value)
		r.replace(t, "'"+key+"'")
	}
	return si
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

// overlapsEdit reports whether another edit of the rewrite touches the
// inside of t (an insertion at its start is fine).
func (r *rewriter) overlapsEdit(t token) bool {
	for _, e := range r.edits {
		if e.start < t.end && t.start < e.end || e.start > t.start && e.start < t.end {
			return true
		}
	}
	return false
}

// restore gives every stand-in in node its literal's value back, and
// reports whether all of them were found as values.
func (si *standIns) restore(node ast.Node) bool {
	si.nodes = make([]*test_driver.ValueExpr, len(si.values))
	node.Accept(si)
	return si.restored == len(si.values)
}

// Enter implements ast.Visitor.
func (si *standIns) Enter(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(*test_driver.ValueExpr); ok && v.Kind() == test_driver.KindString {
		if b := v.GetBytes(); len(b) > len(standInPrefix) && string(b[:len(standInPrefix)]) == standInPrefix {
			if i, ok := si.index[string(b)]; ok && si.nodes[i] == nil {
				setString(v, si.values[i])
				si.nodes[i] = v
				si.restored++
			}
		}
	}
	return n, false
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

// Leave implements ast.Visitor.
func (si *standIns) Leave(n ast.Node) (ast.Node, bool) { return n, true }
