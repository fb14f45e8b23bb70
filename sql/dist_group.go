package sql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A grouped SELECT over a distributed table (GROUP BY, or aggregates
// without it; SELECT DISTINCT a, b is GROUP BY a, b, as on one table) asks
// every shard for all its groups, each with its keys, its aggregates, and
// its best document's WEIGHT() and id; the coordinator merges groups with
// equal keys (COUNT and SUM add up, MIN and MAX compare, AVG is the summed
// SUM over the summed COUNT, which the shards send as hidden columns),
// filters them by HAVING, orders them as one table would (ORDER BY, or by
// the best documents; ties by the keys) and cuts the LIMIT window.
//
// COUNT(DISTINCT x) and GROUP_CONCAT(x) do not add up from the shards'
// values: the shards group by x (for COUNT(DISTINCT x)) or by id (for
// GROUP_CONCAT) as well, so that the coordinator gets every distinct value,
// or every document's value, of each group and counts or joins them itself
// (GROUP_CONCAT in id order: one table's order of the matches, which
// index.SearchResult.Matches and Snapshot.Scan give in id order). WITHIN
// GROUP ORDER BY picks each group's best document, on the shards and then
// among theirs, which orders the groups without ORDER BY; a column of a
// group's best document is the value the shard with the best one gave
// (HIGHLIGHT() and SNIPPET() there are errors: the shards would run them
// for every group).

// distGroupLimit is how many groups a shard returns at most; past it, the
// merged counts of the groups a shard left out are short, and a warning
// says so (docs/distributed.md).
const distGroupLimit = 100_000

// distAgg is how one column of the shards' grouped statement merges.
type distAgg struct {
	fn       string // "" (a key), count, sum, min, max, avg, count_distinct, group_concat, best (the best document's)
	sum, cnt int    // avg: the hidden SUM and COUNT columns
	extra    int    // count_distinct: the extra GROUP BY key that is its argument
	sep      string // group_concat: the separator
}

// distGroup is one group as the shards' answers merge it.
type distGroup struct {
	vals   []any // the items' values: the select list, then HAVING's own aggregates
	key    []any // the GROUP BY values
	weight int64 // of the best document
	id     uint64
	within []any // the best document's WITHIN GROUP ORDER BY keys
	found  bool  // some shard had a match in the group
	sums   []any
	counts []int64
	sets   map[int]map[any]struct{} // count_distinct: the values seen, by item
	parts  map[int][]concatPart     // group_concat: each document's value, by item
	order  []any
}

// concatPart is one document's GROUP_CONCAT value.
type concatPart struct {
	id uint64
	v  any
}

// distGroupRef reads the group at hand's value of an item (key < 0) or of
// a GROUP BY key: what HAVING refers to.
type distGroupRef struct {
	cur       **distGroup
	item, key int
}

func (e distGroupRef) eval(*row) (any, error) {
	if e.key >= 0 {
		return (*e.cur).key[e.key], nil
	}
	return (*e.cur).vals[e.item], nil
}

func (s *Session) selectDistributedGroups(ctx context.Context, d *distTable, q *distQuery, within *ast.OrderByClause, do distOptions, timeout time.Duration, start time.Time) (*Result, error) {
	n := q.n
	if n.Distinct {
		// SELECT DISTINCT a, b is GROUP BY a, b, with one table's errors.
		if n.GroupBy != nil || hasAggregate(n.Fields, n.Having, n.OrderBy) {
			return nil, Errorf(CodeUnsupported, "SELECT DISTINCT with GROUP BY or aggregates is not supported")
		}
		distinct := *n
		distinct.Distinct, distinct.GroupBy = false, &ast.GroupByClause{}
		for i, f := range n.Fields.Fields {
			if f.WildCard != nil {
				return nil, Errorf(CodeUnsupported, "SELECT DISTINCT * is not supported: name the attributes")
			}
			distinct.GroupBy.Items = append(distinct.GroupBy.Items, &ast.ByItem{Expr: &ast.PositionExpr{N: i + 1}})
		}
		n = &distinct
	}
	if n.GroupBy == nil && !hasAggregate(n.Fields, n.Having, n.OrderBy) {
		return nil, Errorf(CodeSyntax, "HAVING needs GROUP BY or an aggregate")
	}
	// The GROUP BY keys as text, aliases and positions resolved.
	var keys []string
	if n.GroupBy != nil {
		for _, item := range n.GroupBy.Items {
			e := item.Expr
			if pos, ok := e.(*ast.PositionExpr); ok && pos.P == nil && pos.N >= 1 && pos.N <= len(n.Fields.Fields) {
				e = n.Fields.Fields[pos.N-1].Expr
			}
			text, err := restore(aliasTarget(e, n.Fields))
			if err != nil {
				return nil, err
			}
			keys = append(keys, text)
		}
	}
	isKey := map[string]bool{}
	for _, k := range keys {
		isKey[k] = true
	}
	// items are the shards' select list before the keys: the select list,
	// then the aggregates HAVING reads that it does not hold; extras are
	// GROUP BY keys of the shards only, hidden the AVGs' SUM and COUNT.
	var items, extras, hidden []string
	var aggs []distAgg
	extraAt := func(text string) int {
		for i, x := range extras {
			if x == text {
				return i
			}
		}
		extras = append(extras, text)
		return len(extras) - 1
	}
	aggregate := func(agg *ast.AggregateFuncExpr, name string) (distAgg, error) {
		fn := strings.ToLower(agg.F)
		switch {
		case agg.Order != nil:
			return distAgg{}, Errorf(CodeUnsupported, "%s over distributed table '%s': GROUP_CONCAT(... ORDER BY) is not supported; the values come in id order", name, d.name)
		case fn == "count" && agg.Distinct && len(agg.Args) == 1:
			arg, err := restore(agg.Args[0])
			if err != nil {
				return distAgg{}, err
			}
			return distAgg{fn: "count_distinct", extra: extraAt(arg)}, nil
		case agg.Distinct:
			return distAgg{}, Errorf(CodeUnsupported, "%s over distributed table '%s': DISTINCT is supported in COUNT() only", name, d.name)
		case fn == "count" || fn == "sum" || fn == "min" || fn == "max":
			return distAgg{fn: fn}, nil
		case fn == "avg" && len(agg.Args) == 1:
			arg, err := restore(agg.Args[0])
			if err != nil {
				return distAgg{}, err
			}
			a := distAgg{fn: fn, sum: len(hidden), cnt: len(hidden) + 1}
			hidden = append(hidden, "SUM("+arg+")", "COUNT("+arg+")")
			return a, nil
		case fn == "group_concat" && len(agg.Args) == 2:
			sep, ok := agg.Args[1].(ast.ValueExpr)
			if !ok {
				return distAgg{}, Errorf(CodeSyntax, "%s: the SEPARATOR must be a string", name)
			}
			extraAt("id")
			return distAgg{fn: fn, sep: displayString(sep.GetValue())}, nil
		}
		return distAgg{}, Errorf(CodeUnsupported, "%s over distributed table '%s' is not supported yet", name, d.name)
	}
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			return nil, Errorf(CodeUnsupported, "SELECT * with GROUP BY over distributed table '%s' is not supported: name the keys and aggregates", d.name)
		}
		text, err := restore(f)
		if err != nil {
			return nil, err
		}
		exprText, err := restore(f.Expr)
		if err != nil {
			return nil, err
		}
		var a distAgg
		agg, isAgg := f.Expr.(*ast.AggregateFuncExpr)
		switch {
		case !isAgg && isKey[exprText]:
		case !isAgg && !hasAggregate(f.Expr) && !highlights(f.Expr):
			// A column of the group's best document: the winning shard's.
			a = distAgg{fn: "best"}
		case !isAgg:
			return nil, Errorf(CodeUnsupported, "'%s' over distributed table '%s': a grouped select list holds its GROUP BY keys, COUNT, COUNT(DISTINCT), SUM, MIN, MAX, AVG and GROUP_CONCAT, and columns of each group's best document without aggregates, HIGHLIGHT() or SNIPPET()", fieldName(f), d.name)
		default:
			if a, err = aggregate(agg, fieldName(f)); err != nil {
				return nil, err
			}
		}
		items = append(items, text)
		aggs = append(aggs, a)
	}
	nVisible := len(items)
	var cur *distGroup
	var having expr
	if n.Having != nil {
		var err error
		if having, err = s.distHaving(d, n, keys, &cur, func(agg *ast.AggregateFuncExpr, text string) (int, error) {
			a, err := aggregate(agg, aggText(agg))
			if err != nil {
				return 0, err
			}
			items = append(items, text)
			aggs = append(aggs, a)
			return len(items) - 1, nil
		}); err != nil {
			return nil, err
		}
	}
	// ORDER BY names select-list items (by position, alias or text) or
	// GROUP BY keys (by text, or GROUPBY() and FACET() for the one key):
	// orderAt is the item's index, or -1-k for key k.
	var orderAt []int
	if n.OrderBy != nil {
		for _, item := range n.OrderBy.Items {
			at := nVisible
			switch e := item.Expr.(type) {
			case *ast.PositionExpr:
				if e.P == nil && e.N >= 1 && e.N <= nVisible {
					at = e.N - 1
				}
			case *ast.FuncCallExpr:
				if (e.FnName.L == "groupby" || e.FnName.L == "facet") && len(e.Args) == 0 && len(keys) == 1 {
					at = -1
				}
			default:
				target, err := restore(aliasTarget(e, n.Fields))
				if err != nil {
					return nil, err
				}
				for k, key := range keys {
					if key == target {
						at = -1 - k
					}
				}
				for i, f := range n.Fields.Fields {
					if t, err := restore(f.Expr); err == nil && t == target {
						at = i
						break
					}
				}
			}
			if at == nVisible {
				return nil, Errorf(CodeUnsupported, "ORDER BY of a grouped SELECT over distributed table '%s' must name a select-list item or a GROUP BY key", d.name)
			}
			orderAt = append(orderAt, at)
		}
	}

	// WITHIN GROUP ORDER BY goes to the shards, which pick each group's best
	// document by it and return its keys (before its WEIGHT() and id); the
	// coordinator picks the best of the shards' by the same order, then id.
	var withinKeys []string
	var withinOrder []orderKey
	withinText := ""
	if within != nil {
		var parts []string
		for _, item := range within.Items {
			text, err := restore(item.Expr)
			if err != nil {
				return nil, err
			}
			withinKeys = append(withinKeys, text)
			withinOrder = append(withinOrder, orderKey{desc: item.Desc, coll: s.collation()})
			dir := " ASC"
			if item.Desc {
				dir = " DESC"
			}
			parts = append(parts, text+dir)
		}
		withinText = " WITHIN GROUP ORDER BY " + strings.Join(parts, ", ")
	}
	nItems, nKeys, nExtras, nHidden, nWithin := len(items), len(keys), len(extras), len(hidden), len(withinKeys)
	list := append(append(append(append(append(append([]string{}, items...), keys...), extras...), hidden...), withinKeys...), "WEIGHT()", "id")
	groupBy := ""
	if n.GroupBy != nil {
		gb, err := restore(n.GroupBy)
		if err != nil {
			return nil, err
		}
		groupBy = " " + gb
	}
	if len(extras) > 0 {
		if groupBy == "" {
			groupBy = " GROUP BY " + strings.Join(extras, ", ")
		} else {
			groupBy += ", " + strings.Join(extras, ", ")
		}
	}
	stmt := func(table string) string {
		var b strings.Builder
		b.WriteString("SELECT " + strings.Join(list, ", ") + q.fromTable(table))
		if q.where != "" {
			b.WriteString(" WHERE " + q.where)
		}
		b.WriteString(groupBy + withinText)
		fmt.Fprintf(&b, " LIMIT 0, %d", distGroupLimit)
		b.WriteString(q.optionTail(distGroupLimit) + q.cutoff + ", hold_snapshot=0") // (a shard's statement: nestedError)
		return b.String()
	}
	round, err := s.firstRound(ctx, d, q, do, timeout, stmt)
	if err != nil {
		return nil, err
	}
	var columns []Column
	groups := map[string]*distGroup{}
	var order []*distGroup
	for i, res := range round.answers {
		if res == nil {
			continue
		}
		if columns == nil {
			columns = res[0].Columns[:nVisible]
			nameColumns(columns, q.n.Fields)
		}
		if found, _ := metaOf(res[2]); found > len(res[0].Rows) {
			s.pending = append(s.pending, warning{level: "Warning", code: CodeRowsDropped,
				msg: fmt.Sprintf("distributed table '%s': %s has %d groups and returned the first %d: the merged counts of the others are short", d.name, round.shards[i].name, found, len(res[0].Rows))})
		}
		for _, row := range res[0].Rows {
			key := row[nItems : nItems+nKeys]
			extra := row[nItems+nKeys : nItems+nKeys+nExtras]
			hid := row[nItems+nKeys+nExtras : nItems+nKeys+nExtras+nHidden]
			var kb strings.Builder
			for _, v := range key {
				if s, ok := v.(string); ok {
					v = q.coll.key(s) // (keys that compare equal are one group)
				}
				fmt.Fprintf(&kb, "%T:%v\x00", v, v)
			}
			weight, id := asInt(row[len(row)-2]), asUint(row[len(row)-1])
			found := row[len(row)-1] != nil
			wkeys := row[len(row)-2-nWithin : len(row)-2]
			g, ok := groups[kb.String()]
			if !ok {
				g = &distGroup{vals: append([]any(nil), row[:nItems]...), key: key, weight: weight, id: id, found: found, within: wkeys,
					sums: make([]any, nHidden), counts: make([]int64, nHidden),
					sets: map[int]map[any]struct{}{}, parts: map[int][]concatPart{}}
				for _, a := range aggs {
					if a.fn == "avg" {
						g.sums[a.sum], g.counts[a.cnt] = hid[a.sum], asInt(hid[a.cnt])
					}
				}
				groups[kb.String()] = g
				order = append(order, g)
			} else {
				for i, a := range aggs {
					v := row[i]
					switch a.fn {
					case "count":
						g.vals[i] = asInt(g.vals[i]) + asInt(v)
					case "sum":
						g.vals[i] = addValues(g.vals[i], v)
					case "min", "max":
						if v == nil {
							break
						}
						if g.vals[i] == nil {
							g.vals[i] = v
							break
						}
						if c, ok := compare(q.coll, v, g.vals[i]); ok && (a.fn == "min" && c < 0 || a.fn == "max" && c > 0) {
							g.vals[i] = v
						}
					case "avg":
						g.sums[a.sum] = addValues(g.sums[a.sum], hid[a.sum])
						g.counts[a.cnt] += asInt(hid[a.cnt])
					}
				}
				better := bestBefore(q.hasMatch, weight, id, g.weight, g.id)
				if within != nil {
					better = withinBefore(withinOrder, wkeys, g.within, func() bool { return id < g.id })
				}
				if found && (!g.found || better) {
					g.weight, g.id, g.found, g.within = weight, id, true, wkeys
					for i, a := range aggs {
						_, text := row[i].(string)
						if a.fn == "best" || a.fn == "" && text {
							// (a string key: its best document's spelling, as one table shows)
							g.vals[i] = row[i]
						}
					}
				}
			}
			for i, a := range aggs {
				switch a.fn {
				case "count_distinct":
					if g.sets[i] == nil {
						g.sets[i] = map[any]struct{}{}
					}
					if v := extra[a.extra]; v != nil {
						g.sets[i][collKey(q.coll, v)] = struct{}{}
					}
				case "group_concat":
					if found && row[i] != nil {
						g.parts[i] = append(g.parts[i], concatPart{id: id, v: row[i]})
					}
				}
			}
		}
	}
	if n.GroupBy == nil && len(order) == 0 && columns != nil {
		// The implicit group of no match, which shards grouping by an extra
		// key do not return: COUNTs are 0, the other aggregates NULL.
		g := &distGroup{vals: make([]any, nItems), sums: make([]any, nHidden), counts: make([]int64, nHidden),
			sets: map[int]map[any]struct{}{}, parts: map[int][]concatPart{}}
		for i, a := range aggs {
			if a.fn == "count" || a.fn == "count_distinct" {
				g.vals[i] = int64(0)
			}
		}
		order = append(order, g)
	}
	for _, g := range order {
		for i, a := range aggs {
			switch a.fn {
			case "avg":
				if c := g.counts[a.cnt]; c > 0 {
					if f, ok := toFloat(g.sums[a.sum]); ok {
						g.vals[i] = f / float64(c)
					}
				} else {
					g.vals[i] = nil
				}
			case "count_distinct":
				g.vals[i] = int64(len(g.sets[i]))
			case "group_concat":
				parts := g.parts[i]
				sort.SliceStable(parts, func(x, y int) bool { return parts[x].id < parts[y].id })
				if len(parts) == 0 {
					g.vals[i] = nil
					break
				}
				texts := make([]string, len(parts))
				for k, p := range parts {
					texts[k] = displayString(p.v)
				}
				g.vals[i] = strings.Join(texts, a.sep)
			}
		}
		g.order = make([]any, len(orderAt))
		for i, at := range orderAt {
			if at >= 0 {
				g.order[i] = g.vals[at]
			} else {
				g.order[i] = g.key[-1-at]
			}
		}
	}
	if n.GroupBy == nil && len(order) > 1 {
		order = order[:1] // the implicit group: every shard's one row merged
	}
	if having != nil {
		kept := order[:0]
		for _, g := range order {
			cur = g
			v, err := having.eval(nil)
			if err != nil {
				return nil, err
			}
			if truthy(v) {
				kept = append(kept, g)
			}
		}
		order = kept
	}
	sort.SliceStable(order, func(i, j int) bool { return distGroupLess(n.OrderBy, q.hasMatch, q.coll, order[i], order[j]) })
	total := len(order)
	window := order[min(q.offset, len(order)):]
	window = window[:min(len(window), q.count, max(0, q.maxMatch-q.offset))]
	var nothing []any // every shard down: the implicit group of nothing
	if columns == nil {
		// No shard answered: the columns by the select list (a count is
		// an integer; the rest unknown, as text), and without GROUP BY
		// the one row aggregates over nothing make: a count of 0, NULL
		// for the rest, as one table answers when nothing matches.
		columns = make([]Column, nVisible)
		nothing = make([]any, nVisible)
		for i, f := range n.Fields.Fields[:min(nVisible, len(n.Fields.Fields))] {
			columns[i] = Column{Name: fieldName(f), Type: ColString}
			if a, ok := f.Expr.(*ast.AggregateFuncExpr); ok && strings.EqualFold(a.F, ast.AggFuncCount) {
				columns[i].Type, nothing[i] = ColInt, int64(0)
			}
		}
		if n.GroupBy != nil || having != nil || n.Distinct {
			nothing = nil
		}
	}
	res := &Result{Columns: columns, Rows: [][]any{}}
	if nothing != nil && q.offset == 0 && q.count > 0 {
		res.Rows = append(res.Rows, nothing)
		total = 1
	}
	for _, g := range window {
		row := make([]any, nVisible)
		for i := range row {
			row[i] = wireValue(columns[i].Type, g.vals[i])
		}
		res.Rows = append(res.Rows, row)
	}
	s.setDistMeta(q, total, round.terms, start)
	return res, nil
}

// distHaving compiles the HAVING clause of a grouped SELECT over a
// distributed table into an expression of the merged group at hand (*cur):
// a select-list item (by alias or text), a GROUP BY key, or an aggregate
// (one of the select list's, or one more item that add makes of its SQL
// text); operators
// and functions over them as anywhere else.
func (s *Session) distHaving(d *distTable, n *ast.SelectStmt, keys []string, cur **distGroup, add func(agg *ast.AggregateFuncExpr, text string) (int, error)) (expr, error) {
	fields := n.Fields.Fields
	itemOf := func(text string) int {
		for i, f := range fields {
			if t, err := restore(f.Expr); err == nil && t == text {
				return i
			}
		}
		return -1
	}
	sc := &scope{sess: s}
	sc.resolve = func(e ast.ExprNode) (expr, bool, error) {
		switch x := e.(type) {
		case *ast.AggregateFuncExpr:
			text, err := restore(x)
			if err != nil {
				return nil, false, err
			}
			if i := itemOf(text); i >= 0 {
				return distGroupRef{cur: cur, item: i, key: -1}, true, nil
			}
			i, err := add(x, text)
			return distGroupRef{cur: cur, item: i, key: -1}, true, err
		case *ast.ColumnNameExpr:
			if x.Name.Table.O == "" {
				for i, f := range fields {
					if f.WildCard == nil && f.AsName.O != "" && strings.EqualFold(f.AsName.O, x.Name.Name.O) {
						return distGroupRef{cur: cur, item: i, key: -1}, true, nil
					}
				}
			}
			text, err := restore(x)
			if err != nil {
				return nil, false, err
			}
			if i := itemOf(text); i >= 0 {
				return distGroupRef{cur: cur, item: i, key: -1}, true, nil
			}
			for k, key := range keys {
				if key == text {
					return distGroupRef{cur: cur, key: k}, true, nil
				}
			}
			return nil, false, Errorf(CodeUnsupported, "HAVING over distributed table '%s': '%s' is not a select-list item, a GROUP BY key or an aggregate", d.name, x.Name.Name.O)
		}
		return nil, false, nil
	}
	return sc.compile(n.Having.Expr)
}

// distGroupLess orders merged groups as groupLess orders one table's.
func distGroupLess(orderBy *ast.OrderByClause, relevance bool, coll collation, a, b *distGroup) bool {
	if orderBy != nil {
		for i, item := range orderBy.Items {
			c, ok := compare(coll, a.order[i], b.order[i])
			if !ok || c == 0 {
				continue
			}
			return item.Desc == (c > 0)
		}
	} else if a.found && b.found {
		if relevance && a.weight != b.weight {
			return a.weight > b.weight
		}
		if a.id != b.id {
			return a.id < b.id
		}
	}
	for i := range a.key {
		if c, ok := compare(coll, a.key[i], b.key[i]); ok && c != 0 {
			return c < 0
		}
	}
	return false
}

// addValues adds two SUM values: integers exactly, else as floats; NULL
// is no value.
func addValues(a, b any) any {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	x, xi := a.(int64)
	y, yi := b.(int64)
	if xi && yi {
		return x + y
	}
	fa, _ := toFloat(a)
	fb, _ := toFloat(b)
	return fa + fb
}

// highlights reports whether e calls HIGHLIGHT() or SNIPPET(): a shard
// would run them for every group's best document, not the page's.
func highlights(e ast.Node) bool { return firstCall(e, highlightCalls) != "" }

var highlightCalls = map[string]bool{"highlight": true, "snippet": true}

// bestBefore reports whether a document (weight, id) is a better best
// document of a group than (weight2, id2): as a SELECT without ORDER BY
// sorts documents.
func bestBefore(relevance bool, weight int64, id uint64, weight2 int64, id2 uint64) bool {
	if relevance && weight != weight2 {
		return weight > weight2
	}
	return id < id2
}

// selectDistributedFacets runs a SELECT with FACET clauses over a
// distributed table: the main SELECT, then each facet as a grouped SELECT
// of its own (a round of the shards each; one table's search serves them
// all at once). SHOW META tells of the main SELECT, and of the time the
// statement took, facets included.
func (s *Session) selectDistributedFacets(ctx context.Context, d *distTable, n *ast.SelectStmt, facets []*ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) ([]*Result, error) {
	if n.GroupBy != nil || n.Distinct || hasAggregate(n.Fields, n.Having, n.OrderBy) {
		return nil, Errorf(CodeUnsupported, "FACET after GROUP BY, DISTINCT or aggregates is not supported: facets group the matches themselves")
	}
	start := time.Now()
	main, err := s.selectDistributed(ctx, d, n, options, within)
	if err != nil {
		return nil, err
	}
	meta, metaQuery := s.meta, s.metaQuery
	out := []*Result{main}
	for i, f := range facets {
		r, err := s.selectDistributed(ctx, d, facetSelect(n, f), options, nil)
		if err != nil {
			if e, ok := err.(*Error); ok {
				err = Errorf(e.Code, "FACET %d: %s", i+1, e.Msg)
			}
			return nil, err
		}
		out = append(out, r)
	}
	for i := range meta {
		if meta[i].name == "time" {
			meta[i].value = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 3, 64)
		}
	}
	s.meta, s.metaQuery = meta, metaQuery
	return out, nil
}
