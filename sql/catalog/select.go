package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Env is what a statement can see besides its tables' rows.
type Env struct {
	Database     string // the current database (DATABASE()); "" for none
	User         string
	Version      string
	ConnectionID int64
	// Table returns the table schema.name; schema is "" when the statement
	// does not name one (the current database).
	Table func(schema, name string) (*Table, error)
	// Variable returns the value of @@name (system; global for
	// @@global.name) or @name.
	Variable func(name string, system, global bool) (any, error)
	// SetVariable sets @name (@name := value in a query); nil forbids it.
	SetVariable func(name string, value any)
	// Now is when the statement began, which NOW() and the like return
	// however often a statement calls them; zero: the moment of the call.
	Now time.Time
	// Zone is the session's time zone (@@time_zone), in which NOW(),
	// FROM_UNIXTIME() and the like show times and UNIX_TIMESTAMP() reads
	// them; nil: UTC.
	Zone *time.Location
}

// zone is the session's time zone.
func (env *Env) zone() *time.Location {
	if env.Zone == nil {
		return time.UTC
	}
	return env.Zone
}

// now is the statement's time, in the session's time zone.
func (env *Env) now() time.Time {
	if env.Now.IsZero() {
		return time.Now().In(env.zone())
	}
	return env.Now.In(env.zone())
}

func (env *Env) variable(name string, system, global bool) (any, error) {
	if env.Variable == nil {
		return nil, nil
	}
	return env.Variable(name, system, global)
}

// maxRows bounds what a join may build: the catalog is small, and a cross
// join of its tables with themselves is not.
const maxRows = 1 << 20

// relation is the rows of a FROM clause and what their columns are called.
type relation struct {
	cols []scopeCol
	rows [][]any
}

type orderExpr struct {
	eval expr
	desc bool
}

// Select evaluates a SELECT whose tables are all in-memory Tables of env.
func Select(ctx context.Context, n *ast.SelectStmt, env *Env) (*Result, error) {
	return selectIn(ctx, n, env, nil)
}

// maxQueryDepth bounds how deep subqueries and derived tables nest, and
// MaxExprDepth how deep an expression does (here and in sql's compiler):
// both are compiled and run by recursion, and a statement of a few
// megabytes could otherwise nest deep enough to overflow the stack.
const (
	maxQueryDepth = 64
	MaxExprDepth  = 1000
)

// TooDeep is the message of an expression nested deeper than MaxExprDepth.
var TooDeep = fmt.Sprintf("expression nested deeper than %d levels (parentheses, operators or function calls)", MaxExprDepth)

// queryDepthKey holds, in a context, how many queries enclose the one at hand.
type queryDepthKey struct{}

// selectIn is Select of a subquery of the query whose current row is outer.
func selectIn(ctx context.Context, n *ast.SelectStmt, env *Env, outer *outerRow) (*Result, error) {
	depth, _ := ctx.Value(queryDepthKey{}).(int)
	if depth >= maxQueryDepth {
		return nil, errorf(CodeSyntax, "subqueries nested deeper than %d levels", maxQueryDepth)
	}
	ctx = context.WithValue(ctx, queryDepthKey{}, depth+1)
	if n.Kind != ast.SelectStmtKindSelect || n.With != nil || n.SelectIntoOpt != nil || n.WindowSpecs != nil {
		return nil, errorf(CodeUnsupported, "this form of SELECT is not supported in information_schema queries")
	}
	from := &relation{rows: [][]any{{}}}
	if n.From != nil {
		var err error
		if from, err = fromClause(ctx, n.From.TableRefs, env); err != nil {
			return nil, err
		}
	}
	rows := from.rows
	if n.Where != nil {
		sc := &scope{ctx: ctx, env: env, cols: from.cols, outer: outer}
		cond, err := sc.compile(n.Where)
		if err != nil {
			return nil, err
		}
		if rows, err = filter(ctx, rows, cond.eval); err != nil {
			return nil, err
		}
	}

	// The select list, HAVING and ORDER BY see the FROM's columns and the
	// aggregates.
	var aggs []*aggregate
	sc := &scope{ctx: ctx, env: env, cols: from.cols, aggs: &aggs, outer: outer}
	type outCol struct {
		name string
		t    typed
	}
	var out []outCol
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			table := f.WildCard.Table.O
			found := false
			for i, c := range from.cols {
				if table != "" && !strings.EqualFold(c.table, table) {
					continue
				}
				found = true
				out = append(out, outCol{c.name, typed{eval: func(c *evalCtx) (any, error) { return c.row[i], nil }, typ: c.typ, known: true}})
			}
			if !found {
				if table != "" {
					return nil, errorf(CodeNoSuchTable, "unknown table '%s' in %s.*", table, table)
				}
				return nil, errorf(CodeSyntax, "SELECT * needs a table in FROM")
			}
			continue
		}
		t, err := sc.compile(f.Expr)
		if err != nil {
			return nil, err
		}
		out = append(out, outCol{fieldName(f), t})
	}
	var having expr
	if n.Having != nil {
		h, err := sc.compileWithAliases(n.Having.Expr, n.Fields.Fields)
		if err != nil {
			return nil, err
		}
		having = h.eval
	}
	var orderBy []orderExpr
	var orderItems []*ast.ByItem
	if n.OrderBy != nil {
		orderItems = n.OrderBy.Items
	}
	for _, item := range orderItems {
		if pos, ok := item.Expr.(*ast.PositionExpr); ok {
			if pos.P != nil || pos.N < 1 || pos.N > len(out) {
				return nil, errorf(CodeNoSuchColumn, "ORDER BY %d: the select list has %d column(s)", pos.N, len(out))
			}
			t := out[pos.N-1].t
			orderBy = append(orderBy, orderExpr{eval: t.eval, desc: item.Desc})
			continue
		}
		t, err := sc.compileWithAliases(item.Expr, n.Fields.Fields)
		if err != nil {
			return nil, err
		}
		orderBy = append(orderBy, orderExpr{eval: t.eval, desc: item.Desc})
	}

	// Groups: with GROUP BY, or one group of every row when the statement
	// has aggregates.
	var groups []evalCtx
	if n.GroupBy != nil || len(aggs) > 0 {
		var keys []expr
		if n.GroupBy != nil && n.GroupBy.Rollup {
			return nil, errorf(CodeUnsupported, "GROUP BY ... WITH ROLLUP is not supported")
		}
		if n.GroupBy != nil {
			gsc := &scope{ctx: ctx, env: env, cols: from.cols, outer: outer}
			for _, item := range n.GroupBy.Items {
				if pos, ok := item.Expr.(*ast.PositionExpr); ok {
					if pos.P != nil || pos.N < 1 || pos.N > len(out) {
						return nil, errorf(CodeNoSuchColumn, "GROUP BY %d: the select list has %d column(s)", pos.N, len(out))
					}
					keys = append(keys, out[pos.N-1].t.eval)
					continue
				}
				t, err := gsc.compileWithAliases(item.Expr, n.Fields.Fields)
				if err != nil {
					return nil, err
				}
				keys = append(keys, t.eval)
			}
		}
		var err error
		if groups, err = group(ctx, rows, keys, aggs, n.GroupBy == nil); err != nil {
			return nil, err
		}
	} else {
		groups = make([]evalCtx, len(rows))
		for i, r := range rows {
			groups[i] = evalCtx{row: r}
		}
	}
	if having != nil {
		kept := groups[:0]
		for i := range groups {
			v, err := having(&groups[i])
			if err != nil {
				return nil, err
			}
			if truthy(v) {
				kept = append(kept, groups[i])
			}
		}
		groups = kept
	}

	type outRow struct {
		vals []any
		keys []any
	}
	res := make([]outRow, 0, len(groups))
	seen := map[string]bool{}
	for i := range groups {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		g := &groups[i]
		vals := make([]any, len(out))
		for j, o := range out {
			v, err := o.t.eval(g)
			if err != nil {
				return nil, err
			}
			vals[j] = v
		}
		if n.Distinct {
			var key strings.Builder
			for _, v := range vals {
				key.WriteString(groupKey(v) + "\x01")
			}
			if seen[key.String()] {
				continue
			}
			seen[key.String()] = true
		}
		r := outRow{vals: vals}
		for _, o := range orderBy {
			k, err := o.eval(g)
			if err != nil {
				return nil, err
			}
			r.keys = append(r.keys, k)
		}
		res = append(res, r)
	}
	if len(orderBy) > 0 {
		sortStable(len(res), func(i, j int) bool { return less(res[i].keys, res[j].keys, orderBy) },
			func(i, j int) { res[i], res[j] = res[j], res[i] })
	}
	offset, count, err := limit(n.Limit, env)
	if err != nil {
		return nil, err
	}
	res = res[min(offset, len(res)):]
	if count >= 0 && count < len(res) {
		res = res[:count]
	}

	result := &Result{Columns: make([]Column, len(out)), Rows: make([][]any, len(res))}
	for i, r := range res {
		result.Rows[i] = r.vals
	}
	for j, o := range out {
		result.Columns[j] = Column{Name: o.name, Type: columnType(o.t, result.Rows, j)}
		convertColumn(result.Rows, j, result.Columns[j].Type)
	}
	return result, nil
}

// compileWithAliases compiles a HAVING, GROUP BY or ORDER BY expression, in
// which a name that is not a column of FROM may be a select-list alias.
func (sc *scope) compileWithAliases(n ast.ExprNode, fields []*ast.SelectField) (typed, error) {
	withAliases := *sc
	withAliases.aliases = fields
	return withAliases.compile(n)
}

// fieldName is a select-list item's column name: its alias, the column's
// name, or the expression's text.
func fieldName(f *ast.SelectField) string {
	if f.AsName.O != "" {
		return f.AsName.O
	}
	if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
		return c.Name.Name.O
	}
	if f.Text() != "" {
		return f.Text()
	}
	return text(f.Expr)
}

func filter(ctx context.Context, rows [][]any, cond expr) ([][]any, error) {
	var kept [][]any
	for i, r := range rows {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		v, err := cond(&evalCtx{row: r})
		if err != nil {
			return nil, err
		}
		if truthy(v) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// group groups rows by keys, in the order of their first row, and computes
// the aggregates of each group. all: one group of every row, even of none.
func group(ctx context.Context, rows [][]any, keys []expr, aggs []*aggregate, all bool) ([]evalCtx, error) {
	index := map[string]int{}
	var members [][][]any
	for i, r := range rows {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var key strings.Builder
		for _, k := range keys {
			v, err := k(&evalCtx{row: r})
			if err != nil {
				return nil, err
			}
			key.WriteString(groupKey(v) + "\x01")
		}
		g, ok := index[key.String()]
		if !ok {
			g = len(members)
			index[key.String()] = g
			members = append(members, nil)
		}
		members[g] = append(members[g], r)
	}
	if all && len(members) == 0 {
		members = append(members, nil)
	}
	groups := make([]evalCtx, len(members))
	for i, m := range members {
		g := evalCtx{aggs: make([]any, len(aggs))}
		if len(m) > 0 {
			g.row = m[0]
		}
		for j, a := range aggs {
			v, err := a.value(m)
			if err != nil {
				return nil, err
			}
			g.aggs[j] = v
		}
		groups[i] = g
	}
	return groups, nil
}

func less(a, b []any, order []orderExpr) bool {
	for i, o := range order {
		c := orderOf(a[i], b[i])
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return false
}

func orderOf(a, b any) int { return order(a, b) }

func sortStable(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Stable(sorter{n, less, swap})
}

type sorter struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (s sorter) Len() int           { return s.n }
func (s sorter) Less(i, j int) bool { return s.less(i, j) }
func (s sorter) Swap(i, j int)      { s.swap(i, j) }

// limit reads LIMIT [offset,] count; count is -1 without LIMIT.
func limit(l *ast.Limit, env *Env) (offset, count int, err error) {
	if l == nil {
		return 0, -1, nil
	}
	read := func(n ast.ExprNode, what string) (int, error) {
		if n == nil {
			return 0, nil
		}
		sc := &scope{ctx: context.Background(), env: env}
		t, err := sc.compile(n)
		if err != nil {
			return 0, err
		}
		v, err := t.eval(&evalCtx{})
		if err != nil {
			return 0, err
		}
		i, ok := toInt(v)
		if !ok || i < 0 {
			return 0, errorf(CodeWrongValue, "LIMIT: the %s must be a number of at least 0", what)
		}
		return int(min(i, maxRows)), nil
	}
	if offset, err = read(l.Offset, "offset"); err != nil {
		return 0, 0, err
	}
	if count, err = read(l.Count, "count"); err != nil {
		return 0, 0, err
	}
	return offset, count, nil
}

// columnType is the type of result column j: the expression's when known,
// else the one its values share (a string when they differ).
func columnType(t typed, rows [][]any, j int) Type {
	if t.known {
		return t.typ
	}
	typ, first := String, true
	for _, r := range rows {
		var vt Type
		switch r[j].(type) {
		case nil:
			continue
		case int64:
			vt = Int
		case uint64:
			vt = Uint
		case float64:
			vt = Float
		default:
			return String
		}
		switch {
		case first:
			typ, first = vt, false
		case typ != vt:
			typ = Float
		}
	}
	return typ
}

// convertColumn makes every value of column j of type t.
func convertColumn(rows [][]any, j int, t Type) {
	for _, r := range rows {
		v := r[j]
		if v == nil {
			continue
		}
		switch t {
		case String:
			r[j] = toString(v)
		case Int:
			if _, ok := v.(int64); !ok {
				r[j], _ = toInt(v)
			}
		case Uint:
			if _, ok := v.(uint64); !ok {
				n, _ := toInt(v)
				r[j] = uint64(max(n, 0))
			}
		case Float:
			r[j], _ = toFloat(v)
		}
	}
}

// Filter returns the rows of t for which the condition holds (SHOW ... WHERE).
func Filter(ctx context.Context, t *Table, cond ast.ExprNode, env *Env) ([][]any, error) {
	sc := &scope{ctx: ctx, env: env}
	for _, c := range t.Columns {
		sc.cols = append(sc.cols, scopeCol{table: t.Name, name: c.Name, typ: c.Type})
	}
	e, err := sc.compile(cond)
	if err != nil {
		return nil, err
	}
	return filter(ctx, t.Rows, e.eval)
}

// SelectSet evaluates a UNION [ALL] of SELECTs over env's tables: the rows
// of each in turn (the column names are the first's), without duplicates
// unless ALL, then the ORDER BY and LIMIT of the whole.
func SelectSet(ctx context.Context, n *ast.SetOprStmt, env *Env) (*Result, error) {
	if n.With != nil || n.SelectList == nil {
		return nil, errorf(CodeUnsupported, "this form of UNION is not supported in information_schema queries")
	}
	var out *Result
	seen := map[string]bool{}
	distinct := func(row []any) bool {
		var key strings.Builder
		for _, v := range row {
			key.WriteString(groupKey(v) + "\x01")
		}
		if seen[key.String()] {
			return false
		}
		seen[key.String()] = true
		return true
	}
	for i, node := range n.SelectList.Selects {
		sel, ok := node.(*ast.SelectStmt)
		if !ok {
			return nil, errorf(CodeUnsupported, "a UNION of nested UNIONs is not supported in information_schema queries")
		}
		res, err := Select(ctx, sel, env)
		if err != nil {
			return nil, err
		}
		all := sel.AfterSetOperator != nil && *sel.AfterSetOperator == ast.UnionAll
		if sel.AfterSetOperator != nil && *sel.AfterSetOperator != ast.Union && !all {
			return nil, errorf(CodeUnsupported, "%s is not supported in information_schema queries", sel.AfterSetOperator.String())
		}
		if i == 0 {
			out = &Result{Columns: res.Columns}
		} else if len(res.Columns) != len(out.Columns) {
			return nil, errorf(CodeWrongValue, "the SELECTs of a UNION have %d and %d columns", len(out.Columns), len(res.Columns))
		}
		if !all && i > 0 {
			// UNION (not ALL) removes duplicates among all rows so far.
			kept := out.Rows[:0]
			seen = map[string]bool{}
			for _, r := range out.Rows {
				if distinct(r) {
					kept = append(kept, r)
				}
			}
			out.Rows = kept
			for _, r := range res.Rows {
				if distinct(r) {
					out.Rows = append(out.Rows, r)
				}
			}
		} else {
			out.Rows = append(out.Rows, res.Rows...)
		}
		for j, c := range res.Columns {
			// Columns of different types become floats when both are
			// numbers, strings otherwise.
			if a := out.Columns[j].Type; a != c.Type {
				out.Columns[j].Type = String
				if a != String && c.Type != String {
					out.Columns[j].Type = Float
				}
			}
		}
	}
	for j, c := range out.Columns {
		convertColumn(out.Rows, j, c.Type)
	}
	if n.OrderBy != nil {
		t := &Table{Name: "union", Columns: out.Columns, Rows: out.Rows}
		sc := &scope{ctx: ctx, env: env}
		for _, c := range t.Columns {
			sc.cols = append(sc.cols, scopeCol{table: t.Name, name: c.Name, typ: c.Type})
		}
		var order []orderExpr
		for _, item := range n.OrderBy.Items {
			if pos, ok := item.Expr.(*ast.PositionExpr); ok && pos.P == nil && pos.N >= 1 && pos.N <= len(out.Columns) {
				k := pos.N - 1
				order = append(order, orderExpr{eval: func(c *evalCtx) (any, error) { return c.row[k], nil }, desc: item.Desc})
				continue
			}
			e, err := sc.compile(item.Expr)
			if err != nil {
				return nil, err
			}
			order = append(order, orderExpr{eval: e.eval, desc: item.Desc})
		}
		keys := make([][]any, len(out.Rows))
		for i, r := range out.Rows {
			for _, o := range order {
				k, err := o.eval(&evalCtx{row: r})
				if err != nil {
					return nil, err
				}
				keys[i] = append(keys[i], k)
			}
		}
		sortStable(len(out.Rows), func(i, j int) bool { return less(keys[i], keys[j], order) },
			func(i, j int) {
				out.Rows[i], out.Rows[j] = out.Rows[j], out.Rows[i]
				keys[i], keys[j] = keys[j], keys[i]
			})
	}
	offset, count, err := limit(n.Limit, env)
	if err != nil {
		return nil, err
	}
	out.Rows = out.Rows[min(offset, len(out.Rows)):]
	if count >= 0 && count < len(out.Rows) {
		out.Rows = out.Rows[:count]
	}
	return out, nil
}
