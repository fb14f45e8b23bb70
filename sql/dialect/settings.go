package dialect

import (
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// tail is a list of settings cut off a statement (OPTION a=1, b=2 or the
// settings after CREATE TABLE's column list), written as one SELECT for TiDB to
// parse the values: SELECT __glint_map('a', 1, 'b', 2).
type tail struct {
	label string
	sql   *output
	items []settingItem
	// literals: every value is one literal (lit set), so the values are
	// known without the TiDB parser (the usual OPTION max_matches=20,
	// ranker='bm25', a coordinator's snapshot='...').
	literals bool
}

// settingItem is one name=value of a tail.
type settingItem struct {
	name string // as written
	pos  int    // source offset of the name
	list bool   // the value is in parentheses: a row even with one element
	lit  any    // the value when it is one literal: an integer (int64, or uint64 past it) or a string; else nil
	text string // the number as written, when the value is one (with or without a sign)
}

// settings reads the name=value pairs of s[from:]. With commas, pairs are
// separated by commas (OPTION); without, commas between them are optional
// (CREATE TABLE).
func (r *rewriter) settings(label string, from int, commas bool) (*tail, error) {
	n := len(r.s)
	if from == n {
		return nil, r.errorAtToken(from, n, "%s: expected name=value", label)
	}
	tl := &tail{label: label}
	b := &builder{src: r.src}
	b.insert("SELECT "+callOptionMap, r.s[from].start)
	for i := from; i < n; {
		name, ok := r.name(i)
		if !ok {
			return nil, r.errorAtToken(i, n, "%s: expected name=value", label)
		}
		eq := i + 1 // the '='
		if !commas {
			name, eq = r.mysqlTableOption(i, name)
		}
		if !r.punct(eq, '=') {
			return nil, r.errorAtToken(eq, n, "%s: expected '=' after '%s'", label, name)
		}
		end, err := r.value(label, name, eq+1)
		if err != nil {
			return nil, err
		}
		if i > from {
			b.insert(", ", r.s[i].start)
		}
		b.insert(quoteString(name)+", ", r.s[i].start)
		b.copy(r.s[eq+1].start, r.s[end-1].end)
		it := settingItem{name: name, pos: r.s[i].start, list: r.punct(eq+1, '('), lit: r.literal(eq+1, end)}
		if t := r.s[end-1]; t.kind == tokNumber {
			it.text = r.text(t)
		}
		tl.items = append(tl.items, it)
		i = end
		switch {
		case i == n:
		case r.punct(i, ','):
			if i++; i == n {
				return nil, r.errorAtToken(i, n, "%s: expected name=value after ','", label)
			}
		case commas:
			return nil, r.errorAtToken(i, n, "%s: expected ',' after the value of '%s'", label, name)
		}
	}
	b.insert(")", r.s[n-1].end)
	tl.sql = b.output(r.s[n-1].end)
	tl.literals = true
	for _, it := range tl.items {
		tl.literals = tl.literals && it.lit != nil
	}
	return tl, nil
}

// literal is the value of s[i:end] when it is one literal that TiDB reads
// as a plain value: an integer in decimal digits (int64, or uint64 when
// larger) or a string not glued to another; nil for anything else.
func (r *rewriter) literal(i, end int) any {
	if end != i+1 {
		return nil
	}
	if r.plainInteger(i) {
		return integerOf(r.text(r.s[i]))
	}
	if t := r.s[i]; t.kind == tokString && !t.unterminated && !r.gluedLiteral(i) {
		return t.value
	}
	return nil
}

// value returns the end of the setting value at s[i]: a number with an optional
// sign, a string, a ? placeholder, a name, a function call f(...), or a list in
// parentheses.
func (r *rewriter) value(label, name string, i int) (int, error) {
	n := len(r.s)
	if i >= n {
		return 0, r.errorAtToken(i, n, "%s: missing value for '%s'", label, name)
	}
	switch t := r.s[i]; {
	case r.punct(i, '-') || r.punct(i, '+'):
		if i+1 < n && r.s[i+1].kind == tokNumber {
			return i + 2, nil
		}
	case t.kind == tokNumber || t.kind == tokString || t.kind == tokQuoted || r.punct(i, '?'):
		return i + 1, nil
	case t.kind == tokWord:
		if r.punct(i+1, '(') {
			if end := r.closing(i+1, n); end >= 0 {
				return end + 1, nil
			}
			return 0, r.errorAtToken(i+1, n, "%s: '(' without ')' in the value of '%s'", label, name)
		}
		return i + 1, nil
	case r.punct(i, '('):
		if end := r.closing(i, n); end >= 0 {
			return end + 1, nil
		}
		return 0, r.errorAtToken(i, n, "%s: '(' without ')' in the value of '%s'", label, name)
	}
	return 0, r.errorAtToken(i, n, "%s: expected a value for '%s'", label, name)
}

// parse parses the values of the tail with p.
func (tl *tail) parse(p *parser.Parser, src string) ([]Setting, error) {
	if tl.literals {
		// The values TiDB would make of them, without parsing.
		cs := literalCharset()
		settings := make([]Setting, len(tl.items))
		for i, it := range tl.items {
			settings[i] = Setting{Name: strings.ToLower(it.name), Value: ast.NewValueExpr(it.lit, cs[0], cs[1]), Pos: it.pos, Text: it.text}
		}
		return settings, nil
	}
	return tl.parseAll(p, src)
}

// literalCharset is the character set and collation the TiDB parser gives
// the literals it reads (as Parse calls it), learnt from one.
var literalCharset = sync.OnceValue(func() [2]string {
	stmts, _, err := parser.New().Parse("SELECT 'x'", "", "")
	if err != nil {
		panic("dialect: the TiDB parser cannot read SELECT 'x': " + err.Error())
	}
	v := stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr.(ast.ValueExpr)
	return [2]string{v.GetType().GetCharset(), v.GetType().GetCollate()}
})

// parseAll is parse with the TiDB parser, for any values.
func (tl *tail) parseAll(p *parser.Parser, src string) ([]Setting, error) {
	node, err := parseOne(p, tl.sql, src)
	if err != nil {
		return nil, err
	}
	var args []ast.ExprNode
	if sel, ok := node.(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) == 1 {
		if call, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr); ok {
			args = call.Args
		}
	}
	if len(args) != 2*len(tl.items) {
		return nil, errorAt(src, tl.items[0].pos, "%s: cannot read the values", tl.label)
	}
	settings := make([]Setting, len(tl.items))
	for i, it := range tl.items {
		value := args[2*i+1]
		if paren, ok := value.(*ast.ParenthesesExpr); ok && it.list {
			value = &ast.RowExpr{Values: []ast.ExprNode{paren.Expr}}
		}
		settings[i] = Setting{Name: strings.ToLower(it.name), Value: value, Pos: it.pos, Text: it.text}
	}
	return settings, nil
}

// mysqlTableOption reads the names of MySQL's table options that take more
// than one word, as SHOW CREATE TABLE of MySQL writes them: DEFAULT CHARSET,
// [DEFAULT] CHARACTER SET, DEFAULT COLLATE. It returns the option's one-word
// name (charset, collate) and the index of the '=' after it; other names are
// returned as they are, with the '=' right after them.
func (r *rewriter) mysqlTableOption(i int, name string) (string, int) {
	j := i
	if r.word(j, "DEFAULT") && (r.word(j+1, "CHARSET") || r.word(j+1, "CHARACTER") || r.word(j+1, "COLLATE")) {
		j++
	}
	switch {
	case r.word(j, "CHARACTER") && r.word(j+1, "SET"):
		return "charset", j + 2
	case j > i:
		return strings.ToLower(r.text(r.s[j])), j + 1
	}
	return name, i + 1
}
