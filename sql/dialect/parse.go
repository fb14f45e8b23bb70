package dialect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the parser
)

// Parse rewrites one statement's text and parses it with p. A syntax error is a
// *SyntaxError whose position is in the original text.
//
// text holds one statement; a trailing ';' is allowed. Every error Parse returns is
// a *SyntaxError, also for an empty text. p is not safe for concurrent use; a nil
// p means a new parser.
func Parse(p *parser.Parser, text string) (*Statement, error) {
	st, _, err := parse(p, text, lex(text), longLiteral, nil)
	return st, err
}

// ParsePiece is Parse of a statement Split cut out, with the tokens Split
// found.
func ParsePiece(p *parser.Parser, piece Piece) (*Statement, error) {
	if piece.toks == nil {
		return Parse(p, piece.Text)
	}
	st, _, err := parse(p, piece.Text, piece.toks, longLiteral, nil)
	return st, err
}

// errAsIs stands for the error of a statement whose shape does not parse
// with stand-ins (Shapes.refuse): it is parsed as written.
var errAsIs = errors.New("dialect: parsed as written")

// parse is Parse of text, whose tokens are toks, with stand-ins for the
// literals of at least standInFrom bytes, and shapes (nil: none; see
// ParseShaped for release).
func parse(p *parser.Parser, text string, toks []token, standInFrom int, shapes *Shapes) (st *Statement, release func(), err error) {
	if p == nil {
		p = parser.New()
	}
	rw, err := rewrite(text, toks, standInFrom)
	if err != nil {
		return nil, nil, err
	}
	if rw.cluster != nil {
		return &Statement{Cluster: rw.cluster, Text: text}, nil, nil
	}
	shaped := shapes.shaped(rw)
	var node ast.StmtNode
	switch {
	case shaped && shapes.parsedAsIs(rw.main.text):
		err = errAsIs
	case shaped:
		st, release, err := shapes.fromShape(p, rw, text)
		if st != nil || err != nil {
			return st, release, err
		}
		fallthrough
	default:
		node, err = parseOne(p, rw.main, text)
	}
	if rw.standIns != nil && (err != nil || !rw.standIns.restore(node)) {
		// A literal TiDB does not keep as a value, or an error that should
		// quote the statement as written: parse it as it is (and the
		// next statements of its shape too).
		if shaped && err != errAsIs {
			shapes.refuse(rw.main.text)
		}
		if rw, err = rewrite(text, toks, -1); err != nil {
			return nil, nil, err
		}
		node, err = parseOne(p, rw.main, text)
		shaped = false
	}
	if rw.standIns != nil && len(rw.standIns.names) > 0 {
		shaped = false // a column's name holds one of its literals
	}
	if err != nil {
		return nil, nil, err
	}
	if shaped {
		release = shapes.keep(rw, node)
	}
	st, err = finish(p, rw, node, text)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, nil, err
	}
	if release != nil {
		st.Shape = rw.shape()
	}
	return st, release, nil
}

// finish makes the Statement of node, parsed from rw, a rewrite of text:
// it parses the parts cut off (WITHIN GROUP, FACET, the settings).
func finish(p *parser.Parser, rw *rewritten, node ast.StmtNode, text string) (*Statement, error) {
	st := &Statement{Node: node, Text: text}
	if rw.within != nil {
		node, err := parseOne(p, rw.within, text)
		if err != nil {
			return nil, err
		}
		st.WithinGroup = node.(*ast.SelectStmt).OrderBy
	}
	for _, f := range rw.facets {
		node, err := parseOne(p, f, text)
		if err != nil {
			return nil, err
		}
		sel, ok := node.(*ast.SelectStmt)
		if !ok {
			return nil, errorAt(text, f.origin(0), "FACET: expected an expression list")
		}
		st.Facets = append(st.Facets, sel)
	}
	if rw.tail != nil {
		var err error
		if st.Settings, err = rw.tail.parse(p, text); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// parseOne parses out, a rewrite of src, which must hold one statement.
func parseOne(p *parser.Parser, out *output, src string) (node ast.StmtNode, err error) {
	defer func() {
		// A statement that makes the TiDB parser panic is a bad statement, not a
		// reason to take the connection (or the server) down.
		if v := recover(); v != nil {
			node, err = nil, &SyntaxError{Msg: fmt.Sprintf("the SQL parser failed on this statement: %v", v)}
		}
	}()
	stmts, _, err := p.Parse(out.text, "", "")
	if err != nil {
		return nil, tidbError(err, out, src)
	}
	if len(stmts) != 1 {
		return nil, errorAt(src, 0, "expected one statement, found %d", len(stmts))
	}
	return stmts[0], nil
}

// tidbError converts an error of the TiDB parser on out into a SyntaxError at
// the matching place of src. TiDB's message reads
//
//	line L column C near "<the text from the start of the last token read>" [(total length N)]
//
// where L and C are where the lexer stopped, after the token it looked ahead at.
func tidbError(err error, out *output, src string) *SyntaxError {
	off, ok := tidbOffset(err.Error(), out.text)
	if !ok {
		return tidbValueError(err.Error(), out, src)
	}
	return errorAt(src, out.origin(off), "syntax error")
}

// tidbValueError words an error of the TiDB parser that has no position:
// one about a literal's value, such as "[types:1367]Illegal double '1e400'
// value found during parsing". The "[class:code]" prefix is TiDB's own and
// means nothing to a client; the quoted value, when the text holds it once,
// gives the place.
func tidbValueError(msg string, out *output, src string) *SyntaxError {
	if strings.HasPrefix(msg, "[") {
		if _, rest, ok := strings.Cut(msg, "]"); ok {
			msg = rest
		}
	}
	v, ok := strings.CutPrefix(msg, "Illegal double '")
	if ok {
		v, ok = strings.CutSuffix(v, "' value found during parsing")
	}
	if !ok {
		return &SyntaxError{Msg: msg}
	}
	msg = fmt.Sprintf("number %s is beyond the range of a double (about 1.8e308)", v)
	if strings.Count(out.text, v) != 1 {
		return &SyntaxError{Msg: msg}
	}
	return errorAt(src, out.origin(strings.Index(out.text, v)), "%s", msg)
}

// tidbOffset finds the offset in text of the error message msg of the TiDB
// parser: the start of its "near" text, or, if that cannot be found, the
// lexer's position.
func tidbOffset(msg, text string) (int, bool) {
	head, near, ok := strings.Cut(msg, ` near "`)
	if !ok {
		return 0, false
	}
	if i := strings.LastIndex(near, "(total length "); i >= 0 {
		// The near text was cut at 2048 bytes; N is its whole length.
		if n, err := strconv.Atoi(strings.TrimSuffix(near[i+len("(total length "):], ")")); err == nil && n <= len(text) {
			return len(text) - n, true
		}
	}
	if val, ok := strings.CutSuffix(near, `" `); ok && strings.HasSuffix(text, val) {
		return len(text) - len(val), true
	}
	var line, col int
	i := strings.LastIndex(head, "line ")
	if i < 0 {
		return 0, false
	}
	if _, err := fmt.Sscanf(head[i:], "line %d column %d", &line, &col); err != nil || line < 1 {
		return 0, false
	}
	// The lexer counts columns from 0 on line 1 and from 1 on later lines.
	start := 0
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(text[start:], '\n')
		if nl < 0 {
			return 0, false
		}
		start += nl + 1
	}
	if line > 1 {
		col--
	}
	return max(0, min(start+col, len(text))), true
}
