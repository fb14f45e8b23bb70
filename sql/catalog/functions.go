package catalog

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// function compiles a call of a scalar function.
func (sc *scope) function(x *ast.FuncCallExpr) (typed, error) {
	name := x.FnName.L
	argc := func(lo, hi int) error {
		if len(x.Args) < lo || hi >= 0 && len(x.Args) > hi {
			return errorf(CodeSyntax, "%s() takes %s argument(s), got %d", strings.ToUpper(name), arity(lo, hi), len(x.Args))
		}
		return nil
	}
	switch name {
	case "database", "schema":
		if err := argc(0, 0); err != nil {
			return typed{}, err
		}
		if sc.env.Database == "" {
			return typed{eval: constant(nil).eval, typ: String, known: true}, nil
		}
		return constant(sc.env.Database), nil
	case "user", "current_user", "session_user", "system_user":
		return constant(sc.env.User + "@localhost"), nil
	case "version":
		return constant(sc.env.Version), nil
	case "connection_id":
		return constant(sc.env.ConnectionID), nil
	}
	var args []typed
	for _, a := range x.Args {
		if name == "convert" && len(args) == 1 {
			break // CONVERT(x USING charset): the charset changes nothing here
		}
		t, err := sc.compile(a)
		if err != nil {
			return typed{}, err
		}
		args = append(args, t)
	}
	values := func(c *evalCtx) ([]any, error) {
		vs := make([]any, len(args))
		for i, a := range args {
			v, err := a.eval(c)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		return vs, nil
	}
	// strict: NULL in, NULL out.
	strict := func(f func(vs []any) any) expr {
		return func(c *evalCtx) (any, error) {
			vs, err := values(c)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				if v == nil {
					return nil, nil
				}
			}
			return f(vs), nil
		}
	}
	switch name {
	case "if":
		if err := argc(3, 3); err != nil {
			return typed{}, err
		}
		return dynamic(func(c *evalCtx) (any, error) {
			cond, err := args[0].eval(c)
			if err != nil {
				return nil, err
			}
			if truthy(cond) {
				return args[1].eval(c)
			}
			return args[2].eval(c)
		}), nil
	case "ifnull", "coalesce":
		if name == "ifnull" {
			if err := argc(2, 2); err != nil {
				return typed{}, err
			}
		} else if err := argc(1, -1); err != nil {
			return typed{}, err
		}
		return dynamic(func(c *evalCtx) (any, error) {
			for _, a := range args {
				v, err := a.eval(c)
				if v != nil || err != nil {
					return v, err
				}
			}
			return nil, nil
		}), nil
	case "nullif":
		if err := argc(2, 2); err != nil {
			return typed{}, err
		}
		return dynamic(func(c *evalCtx) (any, error) {
			vs, err := values(c)
			if err != nil {
				return nil, err
			}
			if vs[0] != nil && vs[1] != nil && compare(vs[0], vs[1]) == 0 {
				return nil, nil
			}
			return vs[0], nil
		}), nil
	case "concat":
		return stringExpr(strict(func(vs []any) any {
			var b strings.Builder
			for _, v := range vs {
				b.WriteString(toString(v))
			}
			return b.String()
		})), nil
	case "repeat":
		if err := argc(2, 2); err != nil {
			return typed{}, err
		}
		return stringExpr(func(c *evalCtx) (any, error) {
			vs, err := values(c)
			if err != nil || vs[0] == nil || vs[1] == nil {
				return nil, err
			}
			str := toString(vs[0])
			n, ok := toInt(vs[1])
			if !ok {
				return nil, errorf(CodeWrongValue, "REPEAT(): the count %s is not a number", quoted(vs[1]))
			}
			if n <= 0 || str == "" {
				return "", nil
			}
			// (A bound, as MySQL's max_allowed_packet bounds it: a small
			// statement must not make gigabytes.)
			if n > maxRepeat || int64(len(str))*n > maxRepeat {
				return nil, errorf(CodeWrongValue, "REPEAT(): the result would be over %d MB", maxRepeat>>20)
			}
			return strings.Repeat(str, int(n)), nil
		}), nil
	case "concat_ws":
		if err := argc(1, -1); err != nil {
			return typed{}, err
		}
		return stringExpr(func(c *evalCtx) (any, error) {
			vs, err := values(c)
			if err != nil || vs[0] == nil {
				return nil, err
			}
			var parts []string
			for _, v := range vs[1:] {
				if v != nil {
					parts = append(parts, toString(v))
				}
			}
			return strings.Join(parts, toString(vs[0])), nil
		}), nil
	case "upper", "ucase", "lower", "lcase":
		if err := argc(1, 1); err != nil {
			return typed{}, err
		}
		up := name == "upper" || name == "ucase"
		return stringExpr(strict(func(vs []any) any {
			if up {
				return strings.ToUpper(toString(vs[0]))
			}
			return strings.ToLower(toString(vs[0]))
		})), nil
	case "length", "octet_length", "char_length", "character_length":
		if err := argc(1, 1); err != nil {
			return typed{}, err
		}
		chars := strings.HasPrefix(name, "char")
		return numeric(strict(func(vs []any) any {
			s := toString(vs[0])
			if chars {
				return int64(utf8.RuneCountInString(s))
			}
			return int64(len(s))
		}), Int), nil
	case "substring", "substr", "mid":
		if err := argc(2, 3); err != nil {
			return typed{}, err
		}
		return stringExpr(strict(func(vs []any) any {
			r := []rune(toString(vs[0]))
			pos, _ := toInt(vs[1])
			n := int64(len(r))
			if len(vs) == 3 {
				n, _ = toInt(vs[2])
			}
			switch {
			case pos > 0:
				pos--
			case pos < 0:
				pos += int64(len(r))
			default:
				return ""
			}
			if pos < 0 || pos >= int64(len(r)) || n <= 0 {
				return ""
			}
			end := min(pos+n, int64(len(r)))
			return string(r[pos:end])
		})), nil
	case "left", "right":
		if err := argc(2, 2); err != nil {
			return typed{}, err
		}
		return stringExpr(strict(func(vs []any) any {
			r := []rune(toString(vs[0]))
			n, _ := toInt(vs[1])
			n = max(0, min(n, int64(len(r))))
			if name == "left" {
				return string(r[:n])
			}
			return string(r[int64(len(r))-n:])
		})), nil
	case "replace":
		if err := argc(3, 3); err != nil {
			return typed{}, err
		}
		return stringExpr(strict(func(vs []any) any {
			if toString(vs[1]) == "" {
				return toString(vs[0])
			}
			return strings.ReplaceAll(toString(vs[0]), toString(vs[1]), toString(vs[2]))
		})), nil
	case "trim", "ltrim", "rtrim":
		if err := argc(1, 1); err != nil {
			return typed{}, errorf(CodeUnsupported, "%s() with a direction or a remove string is not supported here", strings.ToUpper(name))
		}
		return stringExpr(strict(func(vs []any) any {
			s := toString(vs[0])
			switch name {
			case "ltrim":
				return strings.TrimLeft(s, " ")
			case "rtrim":
				return strings.TrimRight(s, " ")
			}
			return strings.Trim(s, " ")
		})), nil
	case "locate", "instr":
		if err := argc(2, 2); err != nil {
			return typed{}, err
		}
		return numeric(strict(func(vs []any) any {
			hay, needle := toString(vs[1]), toString(vs[0])
			if name == "instr" {
				hay, needle = needle, hay
			}
			i := strings.Index(strings.ToLower(hay), strings.ToLower(needle))
			if i < 0 {
				return int64(0)
			}
			return int64(utf8.RuneCountInString(hay[:i]) + 1)
		}), Int), nil
	case "find_in_set":
		if err := argc(2, 2); err != nil {
			return typed{}, err
		}
		return numeric(strict(func(vs []any) any {
			for i, s := range strings.Split(toString(vs[1]), ",") {
				if strings.EqualFold(s, toString(vs[0])) {
					return int64(i + 1)
				}
			}
			return int64(0)
		}), Int), nil
	case "greatest", "least":
		if err := argc(2, -1); err != nil {
			return typed{}, err
		}
		return dynamic(strict(func(vs []any) any {
			best := vs[0]
			for _, v := range vs[1:] {
				if c := compare(v, best); name == "greatest" && c > 0 || name == "least" && c < 0 {
					best = v
				}
			}
			return best
		})), nil
	case "abs":
		if err := argc(1, 1); err != nil {
			return typed{}, err
		}
		return dynamic(strict(func(vs []any) any {
			switch n := vs[0].(type) {
			case int64:
				if n < 0 && n != -n {
					return -n
				}
				return n
			case uint64:
				return n
			}
			f, _ := toFloat(vs[0])
			if f < 0 {
				return -f
			}
			return f
		})), nil
	case "floor", "ceil", "ceiling", "round":
		// Integers stay integers; a float rounds as MySQL rounds an
		// approximate value (half away from zero for ROUND, to d decimals).
		hi := 1
		if name == "round" {
			hi = 2
		}
		if err := argc(1, hi); err != nil {
			return typed{}, err
		}
		return dynamic(strict(func(vs []any) any {
			d := int64(0)
			if len(vs) == 2 {
				d, _ = toInt(vs[1])
			}
			switch vs[0].(type) {
			case int64, uint64:
				if d >= 0 {
					return vs[0]
				}
			}
			f, _ := toFloat(vs[0])
			switch name {
			case "floor":
				f = math.Floor(f)
			case "ceil", "ceiling":
				f = math.Ceil(f)
			default:
				scale := math.Pow(10, float64(max(min(d, 30), -30)))
				f = math.Round(f*scale) / scale
			}
			if d <= 0 && f >= math.MinInt64 && f < math.MaxInt64 {
				return int64(f) // a whole number, as MySQL gives it
			}
			return f
		})), nil
	case "char_func":
		// CHAR(n, ...): TiDB passes the USING charset last (NULL without one).
		return stringExpr(func(c *evalCtx) (any, error) {
			vs, err := values(c)
			if err != nil {
				return nil, err
			}
			var b []byte
			for _, v := range vs[:len(vs)-1] {
				if v == nil {
					continue
				}
				n, _ := toInt(v)
				var bs []byte
				for u := uint32(n); u > 0; u >>= 8 {
					bs = append([]byte{byte(u)}, bs...)
				}
				if len(bs) == 0 {
					bs = []byte{0}
				}
				b = append(b, bs...)
			}
			return string(b), nil
		}), nil
	case "convert":
		if len(args) != 1 {
			return typed{}, errorf(CodeSyntax, "CONVERT() takes an expression and USING charset")
		}
		return args[0], nil
	}
	if t, ok, err := timeFunction(name, args, argc, sc.env.now, sc.env.zone()); ok || err != nil {
		return t, err
	}
	return typed{}, errorf(CodeUnsupported, "function %s() is not supported%s", strings.ToUpper(x.FnName.O), sc.where())
}

func arity(lo, hi int) string {
	switch {
	case lo == hi:
		return itoa(lo)
	case hi < 0:
		return "at least " + itoa(lo)
	}
	return itoa(lo) + " to " + itoa(hi)
}

func itoa(n int) string { return toString(int64(n)) }

// aggregate compiles an aggregate call into a read of its slot.
func (sc *scope) aggregate(x *ast.AggregateFuncExpr) (typed, error) {
	name := strings.ToLower(x.F)
	if sc.aggs == nil {
		return typed{}, errorf(CodeSyntax, "%s() is not allowed here (only in the select list, HAVING and ORDER BY)", strings.ToUpper(name))
	}
	a := &aggregate{name: name, distinct: x.Distinct, separator: ","}
	inner := &scope{ctx: sc.ctx, env: sc.env, cols: sc.cols} // no aggregates inside aggregates
	args := x.Args
	switch name {
	case "count":
		if len(args) == 1 {
			if v, ok := args[0].(ast.ValueExpr); ok && !x.Distinct && v.GetValue() != nil {
				a.star = true // COUNT(*) and COUNT(1)
				args = nil
			}
		}
	case "min", "max", "sum", "avg":
		if len(args) != 1 {
			return typed{}, errorf(CodeSyntax, "%s() takes one argument", strings.ToUpper(name))
		}
	case "group_concat":
		if len(args) < 2 {
			return typed{}, errorf(CodeSyntax, "GROUP_CONCAT() takes at least one argument")
		}
		// TiDB puts the separator last.
		sep, ok := args[len(args)-1].(ast.ValueExpr)
		if !ok {
			return typed{}, errorf(CodeSyntax, "GROUP_CONCAT(): the separator must be a string")
		}
		a.separator = toString(sep.GetValue())
		args = args[:len(args)-1]
		if x.Order != nil {
			for _, item := range x.Order.Items {
				e, err := inner.compile(item.Expr)
				if err != nil {
					return typed{}, err
				}
				a.order = append(a.order, orderExpr{eval: e.eval, desc: item.Desc})
			}
		}
	default:
		return typed{}, errorf(CodeUnsupported, "aggregate %s() is not supported%s", strings.ToUpper(name), sc.where())
	}
	var argType typed
	for _, n := range args {
		e, err := inner.compile(n)
		if err != nil {
			return typed{}, err
		}
		argType = e
		a.args = append(a.args, e.eval)
	}
	slot := len(*sc.aggs)
	*sc.aggs = append(*sc.aggs, a)
	read := func(c *evalCtx) (any, error) { return c.aggs[slot], nil }
	switch name {
	case "count":
		return numeric(read, Int), nil
	case "avg":
		return numeric(read, Float), nil
	case "group_concat":
		return stringExpr(read), nil
	case "sum":
		if argType.known && argType.typ == Float || argType.known && argType.typ == String {
			return numeric(read, Float), nil
		}
		return dynamic(read), nil
	}
	return typed{eval: read, typ: argType.typ, known: argType.known}, nil
}

// value computes an aggregate over the rows of one group.
func (a *aggregate) value(rows [][]any) (any, error) {
	if a.star {
		return int64(len(rows)), nil
	}
	seen := map[string]bool{}
	type item struct {
		vals []any
		keys []any
	}
	var items []item
	for _, row := range rows {
		c := &evalCtx{row: row}
		vals := make([]any, len(a.args))
		null := false
		key := ""
		for i, e := range a.args {
			v, err := e(c)
			if err != nil {
				return nil, err
			}
			null = null || v == nil
			vals[i] = v
			key += groupKey(v) + "\x01"
		}
		if null {
			continue
		}
		if a.distinct {
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		it := item{vals: vals}
		for _, o := range a.order {
			k, err := o.eval(c)
			if err != nil {
				return nil, err
			}
			it.keys = append(it.keys, k)
		}
		items = append(items, it)
	}
	switch a.name {
	case "count":
		return int64(len(items)), nil
	case "group_concat":
		if len(items) == 0 {
			return nil, nil
		}
		if len(a.order) > 0 {
			sortStable(len(items), func(i, j int) bool {
				return less(items[i].keys, items[j].keys, a.order)
			}, func(i, j int) { items[i], items[j] = items[j], items[i] })
		}
		parts := make([]string, len(items))
		for i, it := range items {
			var b strings.Builder
			for _, v := range it.vals {
				b.WriteString(toString(v))
			}
			parts[i] = b.String()
		}
		return strings.Join(parts, a.separator), nil
	}
	if len(items) == 0 {
		return nil, nil
	}
	switch a.name {
	case "min", "max":
		best := items[0].vals[0]
		for _, it := range items[1:] {
			if c := compare(it.vals[0], best); a.name == "min" && c < 0 || a.name == "max" && c > 0 {
				best = it.vals[0]
			}
		}
		return best, nil
	}
	allInt := true
	var isum int64
	var fsum float64
	for _, it := range items {
		n, ok := it.vals[0].(int64)
		allInt = allInt && ok
		isum += n
		f, _ := toFloat(it.vals[0])
		fsum += f
	}
	if a.name == "avg" {
		return fsum / float64(len(items)), nil
	}
	if allInt {
		return isum, nil
	}
	return fsum, nil
}

// maxRepeat bounds the bytes REPEAT() makes.
const maxRepeat = 64 << 20
