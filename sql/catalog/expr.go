package catalog

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// evalCtx is what an expression sees: a row of the FROM clause and, in a
// grouped statement, the values of the group's aggregates.
type evalCtx struct {
	row  []any
	aggs []any
}

// expr is a compiled expression.
type expr func(c *evalCtx) (any, error)

// typed is a compiled expression with its static type; known is false when
// the type depends on the values (IF, CASE, ...).
type typed struct {
	eval  expr
	typ   Type
	known bool
}

// scopeCol is a column a name can refer to.
type scopeCol struct {
	table string // the table's name or alias
	name  string
	typ   Type
}

// scope is what names mean while compiling.
type scope struct {
	ctx  context.Context
	env  *Env
	cols []scopeCol
	// aggs collects the aggregates of a select list, HAVING and ORDER BY;
	// nil where aggregates are not allowed (WHERE, ON, GROUP BY).
	aggs *[]*aggregate
	// aliases are the select list, whose aliases HAVING and ORDER BY may
	// name where no column of FROM has the name; expanding marks the ones
	// being compiled, so that an alias naming itself is an error.
	aliases   []*ast.SelectField
	expanding map[string]bool
	// outer is the row of the enclosing query of a subquery, whose columns
	// its names may refer to (a correlated subquery).
	outer *outerRow
	depth int // of the compile calls under way (MaxExprDepth)
	// claim, in a Scalar, takes the nodes that are its caller's (see
	// CompileScalar).
	claim Claim
}

// where is what an error of an unsupported construct says it is
// unsupported in.
func (sc *scope) where() string {
	if sc.claim != nil {
		return ""
	}
	return " in information_schema queries"
}

// outerRow is the current row of a query that runs a subquery per row.
type outerRow struct {
	cols   []scopeCol
	row    []any // set before each run of the subquery
	parent *outerRow
	used   bool // the subquery read it: its result depends on the row
}

// outerColumn resolves a name in the enclosing queries, innermost first.
func (sc *scope) outerColumn(table, name string) (typed, bool) {
	for o := sc.outer; o != nil; o = o.parent {
		inner := &scope{cols: o.cols}
		i, err := inner.resolve(table, name)
		if err != nil {
			continue
		}
		o.used = true
		o := o
		return typed{eval: func(*evalCtx) (any, error) {
			if i >= len(o.row) {
				return nil, nil // the enclosing group has no row
			}
			return o.row[i], nil
		}, typ: o.cols[i].typ, known: true}, true
	}
	return typed{}, false
}

// aggregate is one aggregate call; its value for a group is aggs[slot].
type aggregate struct {
	name      string // count, min, max, sum, avg, group_concat
	distinct  bool
	star      bool // COUNT(*)
	args      []expr
	separator string
	order     []orderExpr // GROUP_CONCAT(... ORDER BY ...)
}

func constant(v any) typed {
	t, known := String, true
	switch v.(type) {
	case int64:
		t = Int
	case uint64:
		t = Uint
	case float64:
		t = Float
	case nil:
		known = false
	}
	return typed{eval: func(*evalCtx) (any, error) { return v, nil }, typ: t, known: known}
}

func dynamic(e expr) typed { return typed{eval: e} }

func numeric(e expr, t Type) typed { return typed{eval: e, typ: t, known: true} }

// resolve finds a column by optional table and name, case-insensitively.
func (sc *scope) resolve(table, name string) (int, error) {
	found := -1
	for i, c := range sc.cols {
		if !strings.EqualFold(c.name, name) || table != "" && !strings.EqualFold(c.table, table) {
			continue
		}
		if found >= 0 {
			return 0, errorf(CodeNoSuchColumn, "column '%s' is ambiguous: name its table", name)
		}
		found = i
	}
	if found < 0 {
		if table != "" {
			return 0, errorf(CodeNoSuchColumn, "unknown column '%s.%s'", table, name)
		}
		return 0, errorf(CodeNoSuchColumn, "unknown column '%s'", name)
	}
	return found, nil
}

// alias returns the select-list item with the alias name, if any.
func (sc *scope) alias(name string) *ast.SelectField {
	if sc.expanding[name] {
		return nil
	}
	for _, f := range sc.aliases {
		if f.AsName.L == name {
			return f
		}
	}
	return nil
}

// compile turns an expression into a typed expr within sc.
func (sc *scope) compile(n ast.ExprNode) (typed, error) {
	if sc.depth++; sc.depth > MaxExprDepth {
		return typed{}, errorf(CodeSyntax, "%s", TooDeep)
	}
	defer func() { sc.depth-- }()
	if sc.claim != nil {
		slot, t, err := sc.claim(n)
		if err != nil || slot >= 0 {
			return typed{eval: func(c *evalCtx) (any, error) { return c.row[slot], nil }, typ: t.Type, known: t.Known}, err
		}
	}
	switch x := n.(type) {
	case ast.ValueExpr:
		v, err := Literal(x.GetValue())
		if err != nil {
			return typed{}, err
		}
		return constant(v), nil
	case *ast.ParenthesesExpr:
		return sc.compile(x.Expr)
	case *ast.ColumnNameExpr:
		i, err := sc.resolve(x.Name.Table.O, x.Name.Name.O)
		if err != nil {
			if t, ok := sc.outerColumn(x.Name.Table.O, x.Name.Name.O); ok {
				return t, nil
			}
		}
		if err != nil && x.Name.Table.O == "" {
			if f := sc.alias(x.Name.Name.L); f != nil {
				if sc.expanding == nil {
					sc.expanding = map[string]bool{}
				}
				sc.expanding[x.Name.Name.L] = true
				defer delete(sc.expanding, x.Name.Name.L)
				return sc.compile(f.Expr)
			}
		}
		if err != nil {
			return typed{}, err
		}
		return typed{eval: func(c *evalCtx) (any, error) { return c.row[i], nil }, typ: sc.cols[i].typ, known: true}, nil
	case *ast.VariableExpr:
		if x.Value != nil {
			// @name := value, which connectors' catalog queries use to
			// carry a value from one column of a row to the next.
			if x.IsSystem || sc.env.SetVariable == nil {
				return typed{}, errorf(CodeUnsupported, "only user variables can be assigned in a query (@%s := ...)", x.Name)
			}
			v, err := sc.compile(x.Value)
			if err != nil {
				return typed{}, err
			}
			name := x.Name
			return typed{eval: func(c *evalCtx) (any, error) {
				val, err := v.eval(c)
				if err == nil {
					sc.env.SetVariable(name, val)
				}
				return val, err
			}, typ: v.typ, known: v.known}, nil
		}
		if !x.IsSystem {
			// Read when evaluated: an assignment earlier in the row may
			// have changed it.
			name := x.Name
			return dynamic(func(*evalCtx) (any, error) { return sc.env.variable(name, false, false) }), nil
		}
		v, err := sc.env.variable(x.Name, x.IsSystem, x.IsGlobal)
		if err != nil {
			return typed{}, err
		}
		return constant(v), nil
	case *ast.UnaryOperationExpr:
		return sc.unary(x)
	case *ast.BinaryOperationExpr:
		return sc.binary(x)
	case *ast.IsNullExpr:
		v, err := sc.compile(x.Expr)
		if err != nil {
			return typed{}, err
		}
		return numeric(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			return boolValue((a == nil) != x.Not), err
		}, Int), nil
	case *ast.IsTruthExpr:
		v, err := sc.compile(x.Expr)
		if err != nil {
			return typed{}, err
		}
		return numeric(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			is := a != nil && truthy(a) == (x.True != 0)
			return boolValue(is != x.Not), err
		}, Int), nil
	case *ast.BetweenExpr:
		return sc.between(x)
	case *ast.PatternInExpr:
		return sc.in(x)
	case *ast.PatternLikeOrIlikeExpr:
		return sc.like(x)
	case *ast.CaseExpr:
		return sc.caseExpr(x)
	case *ast.FuncCastExpr:
		return sc.cast(x)
	case *ast.SetCollationExpr:
		return sc.compile(x.Expr)
	case *ast.FuncCallExpr:
		return sc.function(x)
	case *ast.AggregateFuncExpr:
		return sc.aggregate(x)
	case *ast.SubqueryExpr:
		return sc.scalarSubquery(x)
	case *ast.ExistsSubqueryExpr:
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return typed{}, errorf(CodeUnsupported, "EXISTS takes a subquery")
		}
		run, err := sc.subquery(sub)
		if err != nil {
			return typed{}, err
		}
		return numeric(func(c *evalCtx) (any, error) {
			res, err := run(c)
			if err != nil {
				return nil, err
			}
			return boolValue((len(res.Rows) > 0) != x.Not), nil
		}, Int), nil
	}
	return typed{}, errorf(CodeUnsupported, "expression %s is not supported%s", text(n), sc.where())
}

// Literal converts a TiDB literal value to the engines' values: nil, int64,
// uint64, float64 or string (decimals become float64).
func Literal(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, uint64, float64, string:
		return x, nil
	case float32:
		return float64(x), nil
	case []byte:
		return string(x), nil
	case fmt.Stringer: // decimals and the like
		if f, ok := toNumber(x.String()); ok {
			return f, nil
		}
		return x.String(), nil
	}
	return nil, errorf(CodeUnsupported, "a literal of type %T is not supported", v)
}

func (sc *scope) unary(x *ast.UnaryOperationExpr) (typed, error) {
	v, err := sc.compile(x.V)
	if err != nil {
		return typed{}, err
	}
	switch x.Op {
	case opcode.Not, opcode.Not2:
		return numeric(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			if a == nil || err != nil {
				return nil, err
			}
			return boolValue(!truthy(a)), nil
		}, Int), nil
	case opcode.Plus:
		return v, nil
	case opcode.Minus:
		return dynamic(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			if a == nil || err != nil {
				return nil, err
			}
			switch n := a.(type) {
			case int64:
				if n != math.MinInt64 {
					return -n, nil
				}
			case uint64:
				if n <= math.MaxInt64 {
					return -int64(n), nil
				}
			}
			f, _ := toFloat(a)
			return -f, nil
		}), nil
	}
	return typed{}, errorf(CodeUnsupported, "operator %s is not supported%s", x.Op, sc.where())
}

func (sc *scope) binary(x *ast.BinaryOperationExpr) (typed, error) {
	l, err := sc.compile(x.L)
	if err != nil {
		return typed{}, err
	}
	r, err := sc.compile(x.R)
	if err != nil {
		return typed{}, err
	}
	both := func(c *evalCtx) (a, b any, err error) {
		if a, err = l.eval(c); err != nil {
			return nil, nil, err
		}
		b, err = r.eval(c)
		return a, b, err
	}
	switch x.Op {
	case opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
		op := x.Op
		return numeric(func(c *evalCtx) (any, error) {
			a, err := l.eval(c)
			if err != nil {
				return nil, err
			}
			switch {
			case op == opcode.LogicAnd && a != nil && !truthy(a):
				return int64(0), nil
			case op == opcode.LogicOr && a != nil && truthy(a):
				return int64(1), nil
			}
			b, err := r.eval(c)
			if err != nil {
				return nil, err
			}
			switch {
			case op == opcode.LogicAnd && b != nil && !truthy(b):
				return int64(0), nil
			case op == opcode.LogicOr && b != nil && truthy(b):
				return int64(1), nil
			case a == nil || b == nil:
				return nil, nil
			case op == opcode.LogicXor:
				return boolValue(truthy(a) != truthy(b)), nil
			}
			return boolValue(op == opcode.LogicAnd), nil
		}, Int), nil
	case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
		op := x.Op
		return numeric(func(c *evalCtx) (any, error) {
			a, b, err := both(c)
			if err != nil {
				return nil, err
			}
			if op == opcode.NullEQ {
				return boolValue(a == nil && b == nil || a != nil && b != nil && compare(a, b) == 0), nil
			}
			if a == nil || b == nil {
				return nil, nil
			}
			return boolValue(Holds(op, compare(a, b))), nil
		}, Int), nil
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
		op := x.Op
		return dynamic(func(c *evalCtx) (any, error) {
			a, b, err := both(c)
			if a == nil || b == nil || err != nil {
				return nil, err
			}
			return arith(op, a, b), nil
		}), nil
	}
	return typed{}, errorf(CodeUnsupported, "operator %s is not supported%s", x.Op, sc.where())
}

// Holds tells whether a comparison whose three-way result is c satisfies
// the comparison operator op (=, <>, <, <=, >, >=).
func Holds(op opcode.Op, c int) bool {
	switch op {
	case opcode.EQ:
		return c == 0
	case opcode.NE:
		return c != 0
	case opcode.LT:
		return c < 0
	case opcode.LE:
		return c <= 0
	case opcode.GT:
		return c > 0
	case opcode.GE:
		return c >= 0
	}
	return false
}

// IntArith computes x op y for +, -, *, DIV and % of two integers, exactly:
// ok is false when the result would not fit in 64 bits (or op is /), for
// the caller to compute it as float instead; a DIV or % by zero is NULL
// (nil), as in MySQL.
func IntArith(op opcode.Op, x, y int64) (v any, ok bool) {
	switch op {
	case opcode.Plus:
		if s := x + y; (s > x) == (y > 0) {
			return s, true
		}
	case opcode.Minus:
		if d := x - y; (d < x) == (y > 0) {
			return d, true
		}
	case opcode.Mul:
		if x == 0 || (x*y)/x == y && !(x == -1 && y == math.MinInt64) {
			return x * y, true
		}
	case opcode.IntDiv:
		if y == 0 {
			return nil, true
		}
		if !(x == math.MinInt64 && y == -1) {
			return x / y, true
		}
	case opcode.Mod:
		if y == 0 {
			return nil, true
		}
		if y == -1 {
			return int64(0), true
		}
		return x % y, true
	}
	return nil, false
}

// arith computes a op b: exactly for integers (+, -, *, DIV, %), as float
// otherwise; a division by zero is NULL, as in MySQL.
func arith(op opcode.Op, a, b any) any {
	x, xInt := a.(int64)
	y, yInt := b.(int64)
	if xInt && yInt {
		if v, ok := IntArith(op, x, y); ok {
			return v
		}
	}
	f, _ := toFloat(a)
	g, _ := toFloat(b)
	switch op {
	case opcode.Plus:
		return f + g
	case opcode.Minus:
		return f - g
	case opcode.Mul:
		return f * g
	case opcode.Div:
		if g == 0 {
			return nil
		}
		return f / g
	case opcode.IntDiv:
		if g == 0 {
			return nil
		}
		return math.Trunc(f / g)
	}
	if g == 0 {
		return nil
	}
	return math.Mod(f, g)
}

func (sc *scope) between(x *ast.BetweenExpr) (typed, error) {
	var es [3]typed
	for i, n := range []ast.ExprNode{x.Expr, x.Left, x.Right} {
		var err error
		if es[i], err = sc.compile(n); err != nil {
			return typed{}, err
		}
	}
	return numeric(func(c *evalCtx) (any, error) {
		var vs [3]any
		for i, e := range es {
			v, err := e.eval(c)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, nil
			}
			vs[i] = v
		}
		in := compare(vs[0], vs[1]) >= 0 && compare(vs[0], vs[2]) <= 0
		return boolValue(in != x.Not), nil
	}, Int), nil
}

func (sc *scope) in(x *ast.PatternInExpr) (typed, error) {
	v, err := sc.compile(x.Expr)
	if err != nil {
		return typed{}, err
	}
	var list []expr
	var run func(c *evalCtx) (*Result, error)
	if x.Sel != nil {
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return typed{}, errorf(CodeUnsupported, "IN takes a list or a subquery")
		}
		if run, err = sc.subquery(sub); err != nil {
			return typed{}, err
		}
	}
	for _, n := range x.List {
		e, err := sc.compile(n)
		if err != nil {
			return typed{}, err
		}
		list = append(list, e.eval)
	}
	return numeric(func(c *evalCtx) (any, error) {
		a, err := v.eval(c)
		if a == nil || err != nil {
			return nil, err
		}
		items := list
		if run != nil {
			res, err := run(c)
			if err != nil {
				return nil, err
			}
			if len(res.Columns) != 1 {
				return nil, errorf(CodeWrongValue, "the subquery of IN must return one column, not %d", len(res.Columns))
			}
			items = make([]expr, len(res.Rows))
			for i, row := range res.Rows {
				items[i] = constant(row[0]).eval
			}
		}
		sawNull := false
		for _, e := range items {
			b, err := e(c)
			if err != nil {
				return nil, err
			}
			if b == nil {
				sawNull = true
			} else if compare(a, b) == 0 {
				return boolValue(!x.Not), nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return boolValue(x.Not), nil
	}, Int), nil
}

func (sc *scope) like(x *ast.PatternLikeOrIlikeExpr) (typed, error) {
	v, err := sc.compile(x.Expr)
	if err != nil {
		return typed{}, err
	}
	p, err := sc.compile(x.Pattern)
	if err != nil {
		return typed{}, err
	}
	esc := rune(x.Escape)
	return numeric(func(c *evalCtx) (any, error) {
		a, err := v.eval(c)
		if err != nil {
			return nil, err
		}
		b, err := p.eval(c)
		if a == nil || b == nil || err != nil {
			return nil, err
		}
		return boolValue(like(toString(a), toString(b), esc) != x.Not), nil
	}, Int), nil
}

func (sc *scope) caseExpr(x *ast.CaseExpr) (typed, error) {
	var value *typed
	if x.Value != nil {
		v, err := sc.compile(x.Value)
		if err != nil {
			return typed{}, err
		}
		value = &v
	}
	type when struct{ cond, result typed }
	whens := make([]when, len(x.WhenClauses))
	for i, w := range x.WhenClauses {
		var err error
		if whens[i].cond, err = sc.compile(w.Expr); err != nil {
			return typed{}, err
		}
		if whens[i].result, err = sc.compile(w.Result); err != nil {
			return typed{}, err
		}
	}
	var elseExpr *typed
	if x.ElseClause != nil {
		e, err := sc.compile(x.ElseClause)
		if err != nil {
			return typed{}, err
		}
		elseExpr = &e
	}
	return dynamic(func(c *evalCtx) (any, error) {
		var v any
		if value != nil {
			var err error
			if v, err = value.eval(c); err != nil {
				return nil, err
			}
		}
		for _, w := range whens {
			cv, err := w.cond.eval(c)
			if err != nil {
				return nil, err
			}
			hit := value == nil && truthy(cv) || value != nil && v != nil && cv != nil && compare(v, cv) == 0
			if hit {
				return w.result.eval(c)
			}
		}
		if elseExpr != nil {
			return elseExpr.eval(c)
		}
		return nil, nil
	}), nil
}

func (sc *scope) cast(x *ast.FuncCastExpr) (typed, error) {
	v, err := sc.compile(x.Expr)
	if err != nil {
		return typed{}, err
	}
	tp := x.Tp.GetType()
	unsigned := mysql.HasUnsignedFlag(x.Tp.GetFlag())
	switch tp {
	case mysql.TypeLonglong, mysql.TypeLong, mysql.TypeInt24, mysql.TypeShort, mysql.TypeTiny:
		if unsigned {
			return numeric(func(c *evalCtx) (any, error) {
				a, err := v.eval(c)
				if a == nil || err != nil {
					return nil, err
				}
				if u, ok := a.(uint64); ok {
					return u, nil
				}
				n, _ := toInt(a)
				return uint64(n), nil
			}, Uint), nil
		}
		return numeric(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			if a == nil || err != nil {
				return nil, err
			}
			n, _ := toInt(a)
			return n, nil
		}, Int), nil
	case mysql.TypeDouble, mysql.TypeFloat, mysql.TypeNewDecimal:
		return numeric(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			if a == nil || err != nil {
				return nil, err
			}
			f, _ := toFloat(a)
			return f, nil
		}, Float), nil
	case mysql.TypeDate, mysql.TypeDatetime, mysql.TypeTimestamp, mysql.TypeDuration:
		return stringExpr(func(c *evalCtx) (any, error) {
			a, err := v.eval(c)
			if a == nil || err != nil {
				return nil, err
			}
			return castTemporal(toString(a), tp), nil
		}), nil
	}
	return stringExpr(func(c *evalCtx) (any, error) {
		a, err := v.eval(c)
		if a == nil || err != nil {
			return nil, err
		}
		return toString(a), nil
	}), nil
}

// castTemporal is CAST(s AS DATE | DATETIME | TIME) of a date and time
// ('2024-01-02 10:00:00', as FROM_UNIXTIME() gives), a date or (for TIME)
// a time: the date, the date and time, or the time, as MySQL writes them;
// NULL (MySQL's answer, with a warning there) when s is none of them.
func castTemporal(s string, tp byte) any {
	if tm, ok := parseDateTime(s); ok {
		switch tp {
		case mysql.TypeDate:
			return tm.Format("2006-01-02")
		case mysql.TypeDuration:
			return tm.Format("15:04:05")
		}
		return tm.Format(dateTimeLayout)
	}
	if d, ok := timeValue(s); ok && tp == mysql.TypeDuration {
		return formatDuration(d)
	}
	return nil
}

func stringExpr(e expr) typed { return typed{eval: e, typ: String, known: true} }

func (sc *scope) scalarSubquery(x *ast.SubqueryExpr) (typed, error) {
	run, err := sc.subquery(x)
	if err != nil {
		return typed{}, err
	}
	return dynamic(func(c *evalCtx) (any, error) {
		res, err := run(c)
		if err != nil {
			return nil, err
		}
		if len(res.Columns) != 1 {
			return nil, errorf(CodeWrongValue, "a subquery used as a value must return one column, not %d", len(res.Columns))
		}
		switch len(res.Rows) {
		case 0:
			return nil, nil
		case 1:
			return res.Rows[0][0], nil
		}
		return nil, errorf(CodeWrongValue, "a subquery used as a value returned %d rows, not one", len(res.Rows))
	}), nil
}

// subquery returns what runs a subquery for the row of an evaluation: once
// when it does not read the enclosing row, else once per row.
func (sc *scope) subquery(x *ast.SubqueryExpr) (func(c *evalCtx) (*Result, error), error) {
	sel, ok := x.Query.(*ast.SelectStmt)
	if !ok {
		return nil, errorf(CodeUnsupported, "only a SELECT is supported as a subquery")
	}
	o := &outerRow{cols: sc.cols, parent: sc.outer}
	var cached *Result
	return func(c *evalCtx) (*Result, error) {
		if cached != nil {
			return cached, nil
		}
		o.row = c.row
		res, err := selectIn(sc.ctx, sel, sc.env, o)
		if err != nil {
			return nil, err
		}
		if !o.used {
			cached = res
		}
		return res, nil
	}, nil
}

// text renders an expression back to SQL, for column names and errors.
func text(n ast.Node) string {
	var b strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordUppercase|format.RestoreNameBackQuotes, &b)
	if err := n.Restore(ctx); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return b.String()
}
