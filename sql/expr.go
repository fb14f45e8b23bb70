package sql

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// expr is a compiled expression, evaluated once per row.
type expr interface {
	eval(r *row) (any, error)
}

// row is what an expression sees of one document.
type row struct {
	snap   *index.Snapshot
	ref    index.DocRef
	weight int64
	text   map[int]string // stored text of text columns, filled after LIMIT
	layout map[int]string // their encoded word layouts, for the columns in scope.usesLayout
	grp    *groupRow      // in a grouped SELECT: the group the row stands for
	// fallback: the row is past the highlighting work budget, and its
	// highlighting expressions show the beginning of its text (budget.go).
	fallback bool
}

// highlightText records that highlighting reads the stored text of column
// col and, when the column is indexed, its layout.
func (sc *scope) highlightText(col int, indexed bool) {
	sc.usesText[col] = true
	if indexed {
		if sc.usesLayout == nil {
			sc.usesLayout = map[int]bool{}
		}
		sc.usesLayout[col] = true
	}
}

// scope is what names mean while compiling: a table's columns (nil when the
// statement has no FROM), and which constructs the clause allows.
type scope struct {
	schema    *index.Schema
	alias     string // the table's alias in FROM (FROM books AS b), if any
	sess      *Session
	allowText bool // text columns may be read (select list, after LIMIT)
	allowAgg  bool // COUNT(*) may appear
	match     *matchExpr
	usesText  map[int]bool
	// usesLayout: text columns whose words are matched by a highlighter,
	// which reads their stored layouts too (index.Snapshot.StoredWithLayouts).
	usesLayout map[int]bool
	usesMatch  bool
	depth      int // of the compile calls under way (catalog.MaxExprDepth)
	// group collects the aggregate calls of a grouped SELECT (nil when the
	// statement is not grouped); keys are its GROUP BY keys, which a column
	// of the same name reads; aliases are the select list's, for HAVING and
	// ORDER BY; docReads counts the compiled reads of a document's columns.
	group    *[]*aggSpec
	keys     []groupKey
	aliases  map[string]expr
	docReads int

	highlights []*highlightExpr // HIGHLIGHT() calls, which the planner gives the MATCH() query

	// resolve, when set, compiles the nodes it knows before compile does
	// (ok: it did): a distributed table's HAVING reads merged groups.
	resolve func(n ast.ExprNode) (e expr, ok bool, err error)
}

// columnIndex finds a column by name, case-insensitively (-1 when none, or
// no table: s nil).
func columnIndex(s *index.Schema, name string) int {
	if s == nil {
		return -1
	}
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

type constExpr struct{ v any }

func (e constExpr) eval(*row) (any, error) { return e.v, nil }

type idExpr struct{}

func (idExpr) eval(r *row) (any, error) {
	if r.snap == nil { // the implicit group of no match
		return nil, nil
	}
	return r.snap.ID(r.ref), nil
}

type attrExpr struct{ col int }

func (e attrExpr) eval(r *row) (any, error) {
	if r.snap == nil {
		return nil, nil
	}
	return r.snap.Attr(r.ref, e.col), nil
}

type textExpr struct{ col int }

func (e textExpr) eval(r *row) (any, error) { return r.text[e.col], nil }

type weightExpr struct{}

func (weightExpr) eval(r *row) (any, error) {
	if r.snap == nil {
		return nil, nil
	}
	return r.weight, nil
}

// matchExpr is MATCH('query') in WHERE: true for documents the query matched.
// The planner fills matched before rows are evaluated.
type matchExpr struct {
	query    string
	node     query.Node // with parsed: the query, built by a request (query is then its words)
	parsed   bool
	opts     index.SearchOptions    // OPTION ranker and field_weights
	required bool                   // candidates are the matched documents only
	matched  map[index.DocRef]int64 // when not required: the matched documents
	// result is the search's result, once it has run; held is the page a
	// held snapshot's search kept for this one (dist_snapshot.go), or nil.
	result *index.SearchResult
	held   *heldPage
}

// parse is the query tree for a snapshot's table.
func (e *matchExpr) parse(snap *index.Snapshot) (query.Node, error) {
	if e.parsed {
		return e.node, nil
	}
	return snap.ParseQuery(e.query)
}

func (e *matchExpr) eval(r *row) (any, error) {
	if e.required {
		return int64(1), nil
	}
	_, ok := e.matched[r.ref]
	return boolValue(ok), nil
}

type notExpr struct{ x expr }

func (e notExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil || v == nil {
		return nil, err
	}
	return boolValue(!truthy(v)), nil
}

type negExpr struct{ x expr }

func (e negExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		if x == math.MinInt64 {
			return uint64(1 << 63), nil // -x would wrap to itself
		}
		return -x, nil
	case uint64:
		switch {
		case x <= math.MaxInt64:
			return -int64(x), nil
		case x == 1<<63:
			return int64(math.MinInt64), nil // the literal -9223372036854775808, exactly
		}
		return nil, Errorf(CodeOutOfRange, "BIGINT value is out of range in '-(%d)'", x)
	case float64:
		return -x, nil
	}
	return nil, Errorf(CodeWrongValue, "cannot negate %s", describe(v))
}

type logicExpr struct {
	and  bool
	l, r expr
}

func (e logicExpr) eval(r *row) (any, error) {
	a, err := e.l.eval(r)
	if err != nil {
		return nil, err
	}
	if e.and && a != nil && !truthy(a) {
		return int64(0), nil
	}
	if !e.and && truthy(a) {
		return int64(1), nil
	}
	b, err := e.r.eval(r)
	if err != nil {
		return nil, err
	}
	if e.and {
		if b != nil && !truthy(b) {
			return int64(0), nil
		}
		if a == nil || b == nil {
			return nil, nil
		}
		return int64(1), nil
	}
	if truthy(b) {
		return int64(1), nil
	}
	if a == nil || b == nil {
		return nil, nil
	}
	return int64(0), nil
}

// evalBoth evaluates the two operands of a binary operator.
func evalBoth(l, r expr, row *row) (a, b any, err error) {
	if a, err = l.eval(row); err != nil {
		return nil, nil, err
	}
	if b, err = r.eval(row); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

type cmpExpr struct {
	op   opcode.Op
	l, r expr
	coll collation // of strings
}

func (e cmpExpr) eval(r *row) (any, error) {
	a, b, err := evalBoth(e.l, e.r, r)
	if err != nil || a == nil || b == nil {
		return nil, err
	}
	if set, ok := a.([]int64); ok { // multi = v: any element
		return boolValue(anyElement(set, e.op, b)), nil
	}
	c, ok := compare(e.coll, a, b)
	if !ok {
		return nil, Errorf(CodeWrongValue, "cannot compare %s with %s", describe(a), describe(b))
	}
	return boolValue(catalog.Holds(e.op, c)), nil
}

func anyElement(set []int64, op opcode.Op, v any) bool {
	for _, n := range set {
		if c, ok := compare(collBinary, n, v); ok && catalog.Holds(op, c) {
			return true
		}
	}
	return false
}

// arithSymbol writes an arithmetic operator in errors.
var arithSymbol = map[opcode.Op]string{opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.IntDiv: "DIV", opcode.Mod: "%"}

type arithExpr struct {
	op   opcode.Op
	l, r expr
}

func (e arithExpr) eval(r *row) (any, error) {
	a, b, err := evalBoth(e.l, e.r, r)
	if err != nil || a == nil || b == nil {
		return nil, err
	}
	x, okx := a.(int64)
	y, oky := b.(int64)
	if okx && oky {
		// Exactly; past 64 bits an error, as MySQL's, never wrapped.
		if v, ok := catalog.IntArith(e.op, x, y); ok {
			return v, nil
		}
		if e.op != opcode.Div {
			return nil, Errorf(CodeOutOfRange, "BIGINT value is out of range in '%d %s %d'", x, arithSymbol[e.op], y)
		}
	} else if e.op != opcode.Div {
		if v, ok, err := bigIntArith(e.op, a, b); ok {
			return v, err
		}
	}
	f, ok1 := toFloat(a)
	g, ok2 := toFloat(b)
	if !ok1 || !ok2 {
		return nil, Errorf(CodeWrongValue, "arithmetic on %s and %s", describe(a), describe(b))
	}
	switch e.op {
	case opcode.Plus:
		return f + g, nil
	case opcode.Minus:
		return f - g, nil
	case opcode.Mul:
		return f * g, nil
	case opcode.Div:
		if g == 0 {
			return nil, nil
		}
		return f / g, nil
	case opcode.IntDiv:
		if g == 0 {
			return nil, nil
		}
		if q := math.Trunc(f / g); q > math.MinInt64 && q < math.MaxInt64 {
			return int64(q), nil
		} else {
			return q, nil
		}
	case opcode.Mod:
		if g == 0 {
			return nil, nil
		}
		return math.Mod(f, g), nil
	}
	return nil, Errorf(CodeUnsupported, "operator %s is not supported", e.op)
}

// bigIntArith is integer arithmetic where an operand is a uint64 (an id,
// a literal past 2^63): exact, and a result outside BIGINT's range is an
// error, as the int64 arithmetic's; through a float, 1*9223372036854775807
// rounded to 2^63 and showed as its negative. ok is false when an operand
// is not an integer.
func bigIntArith(op opcode.Op, a, b any) (v any, ok bool, err error) {
	toBig := func(v any) (*big.Int, bool) {
		switch x := v.(type) {
		case int64:
			return big.NewInt(x), true
		case uint64:
			return new(big.Int).SetUint64(x), true
		}
		return nil, false
	}
	x, okx := toBig(a)
	y, oky := toBig(b)
	if !okx || !oky {
		return nil, false, nil
	}
	z := new(big.Int)
	switch op {
	case opcode.Plus:
		z.Add(x, y)
	case opcode.Minus:
		z.Sub(x, y)
	case opcode.Mul:
		z.Mul(x, y)
	case opcode.IntDiv, opcode.Mod:
		if y.Sign() == 0 {
			return nil, true, nil
		}
		if op == opcode.IntDiv {
			z.Quo(x, y) // (truncated, as MySQL's DIV)
		} else {
			z.Rem(x, y)
		}
	default:
		return nil, false, nil
	}
	if !z.IsInt64() {
		return nil, true, Errorf(CodeOutOfRange, "BIGINT value is out of range in '%s %s %s'", x, arithSymbol[op], y)
	}
	return z.Int64(), true, nil
}

// inExpr is x [NOT] IN (list). A list of integer constants (the common
// id IN (...) or year IN (...)) is compiled once into a hash set, so a row
// costs one lookup however long the list; any other list is compared item by
// item.
type inExpr struct {
	x    expr
	list []expr
	set  *intSet // the list's integers, when every item is an integer constant
	not  bool
	coll collation // of strings
}

// newInExpr compiles x [NOT] IN (list), strings compared under coll.
func newInExpr(x expr, list []expr, not bool, coll collation) inExpr {
	return inExpr{x: x, list: list, set: newIntSet(list), not: not, coll: coll}
}

func (e inExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil || v == nil {
		return nil, err
	}
	if e.set != nil {
		if found, ok := e.set.contains(v); ok {
			return boolValue(found != e.not), nil
		}
	}
	found := false
	for _, le := range e.list {
		w, err := le.eval(r)
		if err != nil {
			return nil, err
		}
		if set, ok := v.([]int64); ok {
			if setContains(set, w) {
				found = true
				break
			}
			continue
		}
		if c, ok := compare(e.coll, v, w); ok && c == 0 {
			found = true
			break
		}
	}
	return boolValue(found != e.not), nil
}

type betweenExpr struct {
	x, lo, hi expr
	not       bool
	coll      collation // of strings
}

func (e betweenExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil {
		return nil, err
	}
	lo, err := e.lo.eval(r)
	if err != nil {
		return nil, err
	}
	hi, err := e.hi.eval(r)
	if err != nil {
		return nil, err
	}
	if v == nil || lo == nil || hi == nil {
		return nil, nil
	}
	c1, ok1 := compare(e.coll, v, lo)
	c2, ok2 := compare(e.coll, v, hi)
	if !ok1 || !ok2 {
		return nil, Errorf(CodeWrongValue, "cannot compare %s in BETWEEN", describe(v))
	}
	return boolValue((c1 >= 0 && c2 <= 0) != e.not), nil
}

type isNullExpr struct {
	x   expr
	not bool
}

func (e isNullExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil {
		return nil, err
	}
	return boolValue((v == nil) != e.not), nil
}

// compile turns a TiDB expression into an expr within scope sc.
// collation is how the statement compares strings: the session's.
func (sc *scope) collation() collation {
	if sc == nil {
		return collLibcCI
	}
	return sc.sess.collation()
}

// collationOf is how a comparison of the operands ops compares strings:
// the collation an operand names (x COLLATE utf8mb4_bin), else the
// statement's. Two operands naming two collations are MySQL's error 1267.
func (sc *scope) collationOf(ops ...ast.ExprNode) (collation, error) {
	named, name := false, ""
	var c collation
	for _, op := range ops {
		for {
			p, ok := op.(*ast.ParenthesesExpr)
			if !ok {
				break
			}
			op = p.Expr
		}
		x, ok := op.(*ast.SetCollationExpr)
		if !ok {
			continue
		}
		oc, ok := parseCollation(x.Collate)
		if !ok {
			return 0, Errorf(CodeUnknownCollation, "COLLATE: unknown collation '%s' (glint takes libc_ci, libc_cs, utf8_general_ci, binary and MySQL's utf8mb4 names)", x.Collate)
		}
		if named && oc != c {
			return 0, Errorf(CodeCollationMix, "Illegal mix of collations (%s) and (%s) for a comparison", name, x.Collate)
		}
		named, name, c = true, x.Collate, oc
	}
	if !named {
		return sc.collation(), nil
	}
	return c, nil
}

func (sc *scope) compile(n ast.ExprNode) (expr, error) {
	if sc.depth++; sc.depth > catalog.MaxExprDepth { // compiling and evaluating recurse
		return nil, Errorf(CodeSyntax, "%s", catalog.TooDeep)
	}
	defer func() { sc.depth-- }()
	if sc.resolve != nil {
		if e, ok, err := sc.resolve(n); ok || err != nil {
			return e, err
		}
	}
	switch x := n.(type) {
	case ast.ValueExpr:
		v, err := catalog.Literal(dialect.Value(x))
		if err != nil {
			return nil, Errorf(CodeSyntax, "%v", err)
		}
		return constExpr{v}, nil
	case *ast.ParenthesesExpr:
		return sc.compile(x.Expr)
	case *ast.ColumnNameExpr:
		if e, ok := sc.aliases[strings.ToLower(x.Name.Name.O)]; ok && x.Name.Table.O == "" {
			return e, nil
		}
		if x.Name.Table.O != "" && sc.schema != nil {
			if columnIndex(sc.schema, x.Name.Name.O) < 0 && !strings.EqualFold(x.Name.Name.O, "id") {
				return nil, unknownColumn(sc.schema, "", x.Name)
			}
			if err := sc.checkQualifier(x.Name); err != nil {
				return nil, err
			}
		}
		return sc.column(x.Name.Name.O)
	case *ast.UnaryOperationExpr:
		inner, err := sc.compile(x.V)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case opcode.Not, opcode.Not2:
			return notExpr{inner}, nil
		case opcode.Minus:
			if c, ok := inner.(constExpr); ok {
				if u, ok := c.v.(uint64); ok && u > 1<<63 {
					// A literal below BIGINT's range: a float, which
					// the statement using it judges (an INSERT names
					// the column it does not fit).
					return constExpr{-float64(u)}, nil
				}
				v, err := negExpr{c}.eval(nil)
				return constExpr{v}, err
			}
			return negExpr{inner}, nil
		case opcode.Plus:
			return inner, nil
		}
		return nil, Errorf(CodeUnsupported, "operator %s is not supported", x.Op)
	case *ast.BinaryOperationExpr:
		l, err := sc.compile(x.L)
		if err != nil {
			return nil, err
		}
		r, err := sc.compile(x.R)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case opcode.LogicAnd:
			return logicExpr{and: true, l: l, r: r}, nil
		case opcode.LogicOr:
			return logicExpr{and: false, l: l, r: r}, nil
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE:
			l, r = sc.asSeconds(l, r), sc.asSeconds(r, l)
			if err := notANumber(sc.schema, l, r, ""); err != nil {
				return nil, err
			}
			if err := notANumber(sc.schema, r, l, ""); err != nil {
				return nil, err
			}
			coll, err := sc.collationOf(x.L, x.R)
			if err != nil {
				return nil, err
			}
			return cmpExpr{op: x.Op, l: l, r: r, coll: coll}, nil
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
			return arithExpr{op: x.Op, l: l, r: r}, nil
		}
		return nil, Errorf(CodeUnsupported, "operator %s is not supported", x.Op)
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return nil, Errorf(CodeUnsupported, "subqueries are not supported")
		}
		v, err := sc.compile(x.Expr)
		if err != nil {
			return nil, err
		}
		list := make([]expr, len(x.List))
		for i, le := range x.List {
			if list[i], err = sc.compile(le); err != nil {
				return nil, err
			}
			// Each item as = would take it: a string column with a
			// number, a numeric column with a word, are errors.
			list[i] = sc.asSeconds(list[i], v) // (a date for a timestamp, as = takes it)
			if err := notANumber(sc.schema, v, list[i], ""); err != nil {
				return nil, err
			}
		}
		coll, err := sc.collationOf(append([]ast.ExprNode{x.Expr}, x.List...)...)
		if err != nil {
			return nil, err
		}
		return newInExpr(v, list, x.Not, coll), nil
	case *ast.BetweenExpr:
		v, err := sc.compile(x.Expr)
		if err != nil {
			return nil, err
		}
		lo, err := sc.compile(x.Left)
		if err != nil {
			return nil, err
		}
		hi, err := sc.compile(x.Right)
		if err != nil {
			return nil, err
		}
		lo, hi = sc.asSeconds(lo, v), sc.asSeconds(hi, v)
		for _, bound := range []expr{lo, hi} {
			if err := notANumber(sc.schema, v, bound, ""); err != nil {
				return nil, err
			}
		}
		coll, err := sc.collationOf(x.Expr, x.Left, x.Right)
		if err != nil {
			return nil, err
		}
		return betweenExpr{x: v, lo: lo, hi: hi, not: x.Not, coll: coll}, nil
	case *ast.SetCollationExpr:
		// The value as it is; the comparison it is an operand of takes
		// the collation (collationOf).
		if _, ok := parseCollation(x.Collate); !ok {
			return nil, Errorf(CodeUnknownCollation, "COLLATE: unknown collation '%s' (glint takes libc_ci, libc_cs, utf8_general_ci, binary and MySQL's utf8mb4 names)", x.Collate)
		}
		return sc.compile(x.Expr)
	case *ast.IsNullExpr:
		v, err := sc.compile(x.Expr)
		if err != nil {
			return nil, err
		}
		return isNullExpr{x: v, not: x.Not}, nil
	case *ast.VariableExpr:
		if x.Value != nil {
			return nil, Errorf(CodeUnsupported, "assigning a variable in a query (@%s := ...) is not supported", x.Name)
		}
		if !x.IsSystem {
			return constExpr{sc.sess.userVars[strings.ToLower(x.Name)]}, nil // NULL when never set, as in MySQL
		}
		v, err := sc.sess.scopedVariable(x.Name, x.IsGlobal)
		if err != nil {
			return nil, err
		}
		return constExpr{v}, nil
	case *ast.AggregateFuncExpr:
		return sc.aggregate(x)
	case *ast.FuncCallExpr:
		return sc.function(x)
	}
	return sc.scalar(n)
}

func isCountStar(x *ast.AggregateFuncExpr) bool {
	if len(x.Args) != 1 {
		return false
	}
	v, ok := x.Args[0].(ast.ValueExpr)
	return ok && v.GetValue() != nil // COUNT(*) parses as COUNT(1)
}

// asSeconds returns e, or, when e is a constant date and time
// ('YYYY-MM-DD HH:MM:SS', as FROM_UNIXTIME() gives) compared with a
// timestamp attribute, its seconds since 1970, which the attribute holds:
// Grafana's $__timeFilter(published) is published BETWEEN
// FROM_UNIXTIME(a) AND FROM_UNIXTIME(b). The text is read in the
// session's time zone, in which FROM_UNIXTIME() writes it.
func (sc *scope) asSeconds(e, other expr) expr {
	a, isAttr := other.(attrExpr)
	c, isConst := e.(constExpr)
	if !isAttr || !isConst || sc.schema.Columns[a.col].Type != index.TypeTimestamp {
		return e
	}
	text, isText := c.v.(string)
	if !isText {
		return e
	}
	var loc *time.Location
	if sc.sess != nil {
		loc = sc.sess.zone()
	}
	if n, ok := timestampText(text, loc); ok {
		return constExpr{n}
	}
	return e
}

// notANumber refuses, when a statement is planned, a comparison of a
// numeric or multi column (or id) with a string that is no number. Row by
// row it failed at the first row compared, naming that row's value, or
// matched nothing without a word (a multi, a table with no rows). path is
// the place in a JSON request ("" in SQL).
func notANumber(schema *index.Schema, col, value expr, path string) error {
	c, ok := value.(constExpr)
	if !ok {
		return nil
	}
	text, ok := c.v.(string)
	if !ok {
		return notAString(schema, col, c.v, path)
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
		return nil
	}
	name, typ := "id", "bigint unsigned"
	switch x := col.(type) {
	case idExpr:
	case attrExpr:
		if schema == nil {
			return nil
		}
		sc := schema.Columns[x.col]
		switch sc.Type {
		case index.TypeString, index.TypeJSON, index.TypeText:
			return nil
		}
		name, typ = sc.Name, typeName(sc)
	default:
		return nil
	}
	if path != "" {
		path += ": "
	}
	what := "a number"
	if typ == "timestamp" {
		what = "a number or a date ('2024-05-01' or '2024-05-01 12:30:00')"
	}
	return Errorf(CodeWrongValue, "%scolumn '%s' (%s) is compared with string %s, which is not %s", path, name, typ, quoteForError(text), what)
}

// notAString refuses a string or json column compared with a number:
// which rows could be compared would depend on what they hold (a number
// written as text, or not), and the error would show a stored value.
func notAString(schema *index.Schema, col expr, v any, path string) error {
	x, ok := col.(attrExpr)
	if !ok || schema == nil {
		return nil
	}
	typ := schema.Columns[x.col].Type
	if typ != index.TypeString && typ != index.TypeJSON {
		return nil
	}
	switch v.(type) {
	case int64, uint64, float64:
	default:
		return nil
	}
	if path != "" {
		path += ": "
	}
	sc := schema.Columns[x.col]
	if typ == index.TypeJSON {
		return Errorf(CodeWrongValue, "%scolumn '%s' (json) is compared with the number %s: a json column is compared as its text (paths into it are not supported); compare it with a string ('%s')", path, sc.Name, formatNumber(v), formatNumber(v))
	}
	return Errorf(CodeWrongValue, "%scolumn '%s' (string) is compared with the number %s: compare it with a string ('%s')", path, sc.Name, formatNumber(v), formatNumber(v))
}

// unknownColumn is the error for a column schema does not have, named as
// written (prefix says where): a qualified name whose qualifier is a json
// column (meta.pages, the reference's path into it) says that glint reads
// the column whole.
func unknownColumn(schema *index.Schema, prefix string, n *ast.ColumnName) error {
	name := n.Name.O
	if q := n.Table.O; q != "" {
		name = q + "." + name
		if i := columnIndex(schema, q); i >= 0 && schema.Columns[i].Type == index.TypeJSON {
			return Errorf(CodeNoSuchColumn, "%sunknown column '%s' in table '%s': '%s' is a json column, read whole (paths into JSON are not supported)", prefix, name, schema.Name, schema.Columns[i].Name)
		}
	}
	return Errorf(CodeNoSuchColumn, "%sunknown column '%s' in table '%s'", prefix, name, schema.Name)
}

// namesTable reports whether q, a qualifier, is the statement's table: its
// name or its FROM alias.
func (sc *scope) namesTable(q string) bool {
	return strings.EqualFold(q, sc.schema.Name) || sc.alias != "" && strings.EqualFold(q, sc.alias)
}

// checkQualifier refuses a column qualified by another table than the one
// the statement reads (its name or its alias), or by another database:
// books.title in a statement on notes would otherwise read notes.title.
func (sc *scope) checkQualifier(n *ast.ColumnName) error {
	q := n.Table.O
	name := q + "." + n.Name.O
	if n.Schema.O != "" {
		name = n.Schema.O + "." + name
		if !strings.EqualFold(n.Schema.O, Database) {
			return Errorf(CodeNoSuchColumn, "unknown column '%s': the statement reads table '%s' of database '%s'", name, sc.schema.Name, Database)
		}
	}
	if sc.namesTable(q) {
		return nil
	}
	reads := "'" + sc.schema.Name + "'"
	if sc.alias != "" {
		reads += " (as '" + sc.alias + "')"
	}
	return Errorf(CodeNoSuchColumn, "unknown column '%s': the statement reads table %s, not '%s'", name, reads, q)
}

// column resolves a column name in scope.
func (sc *scope) column(name string) (expr, error) {
	if sc.schema == nil {
		return nil, Errorf(CodeNoSuchColumn, "unknown column '%s' (the statement has no table)", name)
	}
	i := columnIndex(sc.schema, name)
	var e expr
	if strings.EqualFold(name, "id") {
		e = idExpr{}
	} else if i < 0 {
		return nil, Errorf(CodeNoSuchColumn, "unknown column '%s' in table '%s'", name, sc.schema.Name)
	} else if t := sc.schema.Columns[i].Type; t != index.TypeText {
		e = attrExpr{i}
	}
	if e != nil {
		for k, key := range sc.keys {
			// A multi attribute key shows the group's one value.
			if key.e == e {
				return groupKeyExpr{i: k, typ: key.typ}, nil
			}
		}
		sc.docReads++
		return e, nil
	}
	if !sc.allowText {
		return nil, Errorf(CodeWrongValue, "column '%s' is a full-text field: search it with MATCH()", name)
	}
	if !sc.schema.Columns[i].Stored {
		return nil, Errorf(CodeWrongValue, "column '%s' is indexed but not stored, so its text cannot be returned", name)
	}
	sc.usesText[i] = true
	sc.docReads++
	return textExpr{i}, nil
}

// function compiles a function call.
func (sc *scope) function(x *ast.FuncCallExpr) (expr, error) {
	name := x.FnName.L
	argc := func(n int) error {
		if len(x.Args) != n {
			return Errorf(CodeSyntax, "%s() takes %d argument(s), got %d", strings.ToUpper(name), n, len(x.Args))
		}
		return nil
	}
	switch name {
	case "match":
		if err := argc(1); err != nil {
			return nil, err
		}
		if sc.schema == nil {
			return nil, Errorf(CodeSyntax, "MATCH() needs a table in FROM")
		}
		v, ok := x.Args[0].(ast.ValueExpr)
		q, isString := any(nil), false
		if ok {
			q = v.GetValue()
			_, isString = q.(string)
		}
		if !isString {
			return nil, Errorf(CodeSyntax, "MATCH() takes a quoted query string")
		}
		if sc.match != nil {
			return nil, Errorf(CodeSyntax, "only one MATCH() is allowed per query")
		}
		if sc.allowText {
			return nil, Errorf(CodeSyntax, "MATCH() is allowed only in WHERE")
		}
		sc.match = &matchExpr{query: q.(string)}
		sc.usesMatch = true
		return sc.match, nil
	case "weight":
		if err := argc(0); err != nil {
			return nil, err
		}
		if sc.schema == nil {
			return nil, Errorf(CodeSyntax, "WEIGHT() needs a table in FROM")
		}
		sc.docReads++
		return weightExpr{}, nil
	case "groupby", "facet":
		// FACET() is the facet's value in a FACET clause's ORDER BY.
		fn := strings.ToUpper(name)
		if err := argc(0); err != nil {
			return nil, err
		}
		if len(sc.keys) == 0 {
			return nil, Errorf(CodeSyntax, "%s() needs GROUP BY or FACET", fn)
		}
		if len(sc.keys) > 1 {
			return nil, Errorf(CodeUnsupported, "%s() with %d keys: it returns the key of a grouping by one", fn, len(sc.keys))
		}
		return groupKeyExpr{i: 0, typ: sc.keys[0].typ}, nil
	case "database", "schema":
		if err := argc(0); err != nil {
			return nil, err
		}
		return constExpr{sc.sess.db}, nil
	case "user", "current_user", "session_user", "system_user":
		return constExpr{sc.sess.user + "@localhost"}, nil
	case "version":
		return constExpr{sc.sess.engine.version()}, nil
	case "connection_id":
		return constExpr{int64(sc.sess.id)}, nil
	case "last_insert_id":
		return constExpr{sc.sess.lastInsertID}, nil
	case "highlight":
		return sc.highlightCall(x, false)
	case "highlight_offsets":
		return sc.highlightCall(x, true)
	case "snippet":
		return sc.snippetCall(x)
	case dialect.FuncQuery:
		return nil, Errorf(CodeSyntax, "QUERY() is allowed only as the query argument of HIGHLIGHT() or SNIPPET()")
	case "unix_timestamp":
		// A timestamp attribute holds seconds since 1970 already; other
		// arguments are the catalog's (a date and time, or none).
		if len(x.Args) == 1 {
			if c, ok := x.Args[0].(*ast.ColumnNameExpr); ok {
				if i := columnIndex(sc.schema, c.Name.Name.O); i >= 0 && sc.schema.Columns[i].Type == index.TypeTimestamp {
					return sc.compile(c)
				}
			}
		}
		return sc.scalar(x)
	case "to_string":
		if err := argc(1); err != nil {
			return nil, err
		}
		inner, err := sc.compile(x.Args[0])
		if err != nil {
			return nil, err
		}
		return toStringExpr{inner}, nil
	}
	return sc.scalar(x)
}

type toStringExpr struct{ x expr }

func (e toStringExpr) eval(r *row) (any, error) {
	v, err := e.x.eval(r)
	if err != nil || v == nil {
		return v, err
	}
	return displayString(v), nil
}

// exprText renders an expression back to SQL text, for column names and errors.
func exprText(n ast.Node) string {
	var b strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreStringWithoutCharset|format.RestoreKeyWordLowercase|format.RestoreNameLowercase, &b)
	if err := n.Restore(ctx); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return b.String()
}
