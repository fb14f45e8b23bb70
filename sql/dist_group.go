package sql

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A grouped SELECT over a distributed table (GROUP BY, or aggregates
// without it) asks every shard for all its groups, each with its keys, its
// aggregates, and its best document's WEIGHT() and id; the coordinator
// merges groups with equal keys (COUNT and SUM add up, MIN and MAX compare,
// AVG is the summed SUM over the summed COUNT, which the shards send as
// hidden columns), orders them as one table would (ORDER BY, or by the best
// documents; ties by the keys) and cuts the LIMIT window. The select list
// may hold GROUP BY keys and COUNT, SUM, MIN, MAX and AVG; HAVING, WITHIN
// GROUP ORDER BY, DISTINCT, COUNT(DISTINCT) and GROUP_CONCAT are errors.

// distGroupLimit is how many groups a shard returns at most; past it, the
// merged counts of the groups a shard left out are short (docs/distributed.md).
const distGroupLimit = 100_000

// distAgg is how one select-list column of a grouped SELECT merges.
type distAgg struct {
	fn       string // "" (a key), count, sum, min, max, avg
	sum, cnt int    // avg: the hidden SUM and COUNT columns
}

// distGroup is one group as the shards' answers merge it.
type distGroup struct {
	vals   []any // the select list's values
	key    []any // the GROUP BY values
	weight int64 // of the best document
	id     uint64
	found  bool // some shard had a match in the group
	sums   []any
	counts []int64
	order  []any
}

func (s *Session) selectDistributedGroups(ctx context.Context, d *distTable, q *distQuery, do distOptions, timeout time.Duration, start time.Time) (*Result, error) {
	n := q.n
	if n.Having != nil || n.Distinct {
		return nil, Errorf(CodeUnsupported, "HAVING and DISTINCT over distributed table '%s' are not supported yet: query its shards (%s)", d.name, d.shardsText())
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
	var items, hidden []string
	aggs := make([]distAgg, len(n.Fields.Fields))
	for i, f := range n.Fields.Fields {
		if f.WildCard != nil {
			return nil, Errorf(CodeUnsupported, "SELECT * with GROUP BY over distributed table '%s' is not supported: name the keys and aggregates", d.name)
		}
		text, err := restore(f)
		if err != nil {
			return nil, err
		}
		items = append(items, text)
		exprText, err := restore(f.Expr)
		if err != nil {
			return nil, err
		}
		agg, isAgg := f.Expr.(*ast.AggregateFuncExpr)
		switch {
		case !isAgg && isKey[exprText]:
		case !isAgg:
			return nil, Errorf(CodeUnsupported, "'%s' over distributed table '%s': a grouped select list holds its GROUP BY keys and COUNT, SUM, MIN, MAX and AVG", fieldName(f), d.name)
		case agg.Distinct || agg.Order != nil:
			return nil, Errorf(CodeUnsupported, "%s over distributed table '%s' is not supported yet", fieldName(f), d.name)
		default:
			fn := strings.ToLower(agg.F)
			switch fn {
			case "count", "sum", "min", "max":
				aggs[i].fn = fn
			case "avg":
				arg, err := restore(agg.Args[0])
				if err != nil {
					return nil, err
				}
				aggs[i] = distAgg{fn: fn, sum: len(hidden), cnt: len(hidden) + 1}
				hidden = append(hidden, "SUM("+arg+")", "COUNT("+arg+")")
			default:
				return nil, Errorf(CodeUnsupported, "%s over distributed table '%s' is not supported yet", fieldName(f), d.name)
			}
		}
	}
	// ORDER BY names select-list items (by position, alias or text) or
	// GROUP BY keys (by text, or GROUPBY() and FACET() for the one key):
	// orderAt is the item's index, or -1-k for key k.
	var orderAt []int
	if n.OrderBy != nil {
		for _, item := range n.OrderBy.Items {
			at := len(items)
			switch e := item.Expr.(type) {
			case *ast.PositionExpr:
				if e.P == nil && e.N >= 1 && e.N <= len(items) {
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
			if at == len(items) {
				return nil, Errorf(CodeUnsupported, "ORDER BY of a grouped SELECT over distributed table '%s' must name a select-list item or a GROUP BY key", d.name)
			}
			orderAt = append(orderAt, at)
		}
	}

	nItems, nKeys, nHidden := len(items), len(keys), len(hidden)
	list := append(append(append(append([]string{}, items...), keys...), hidden...), "WEIGHT()", "id")
	stmt := func(table string) string {
		var b strings.Builder
		b.WriteString("SELECT " + strings.Join(list, ", ") + " FROM " + quoteName(table))
		if q.where != "" {
			b.WriteString(" WHERE " + q.where)
		}
		if n.GroupBy != nil {
			gb, _ := restore(n.GroupBy)
			b.WriteString(" " + gb)
		}
		fmt.Fprintf(&b, " LIMIT 0, %d", distGroupLimit)
		b.WriteString(q.optionTail(distGroupLimit))
		return b.String()
	}
	round, err := s.firstRound(ctx, d, q, do, timeout, stmt)
	if err != nil {
		return nil, err
	}
	var columns []Column
	groups := map[string]*distGroup{}
	var order []*distGroup
	for _, res := range round.answers {
		if res == nil {
			continue
		}
		if columns == nil {
			columns = res[0].Columns[:nItems]
		}
		for _, row := range res[0].Rows {
			key := row[nItems : nItems+nKeys]
			var kb strings.Builder
			for _, v := range key {
				fmt.Fprintf(&kb, "%T:%v\x00", v, v)
			}
			weight, id := asInt(row[len(row)-2]), asUint(row[len(row)-1])
			found := row[len(row)-1] != nil
			g, ok := groups[kb.String()]
			if !ok {
				g = &distGroup{vals: append([]any(nil), row[:nItems]...), key: key, weight: weight, id: id, found: found,
					sums: make([]any, nHidden), counts: make([]int64, nHidden)}
				for _, a := range aggs {
					if a.fn == "avg" {
						g.sums[a.sum], g.counts[a.cnt] = row[nItems+nKeys+a.sum], asInt(row[nItems+nKeys+a.cnt])
					}
				}
				groups[kb.String()] = g
				order = append(order, g)
				continue
			}
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
					if c, ok := compare(v, g.vals[i]); ok && (a.fn == "min" && c < 0 || a.fn == "max" && c > 0) {
						g.vals[i] = v
					}
				case "avg":
					g.sums[a.sum] = addValues(g.sums[a.sum], row[nItems+nKeys+a.sum])
					g.counts[a.cnt] += asInt(row[nItems+nKeys+a.cnt])
				}
			}
			if found && (!g.found || bestBefore(q.hasMatch, weight, id, g.weight, g.id)) {
				g.weight, g.id, g.found = weight, id, true
			}
		}
	}
	for _, g := range order {
		for i, a := range aggs {
			if a.fn == "avg" {
				if c := g.counts[a.cnt]; c > 0 {
					if f, ok := toFloat(g.sums[a.sum]); ok {
						g.vals[i] = f / float64(c)
					}
				} else {
					g.vals[i] = nil
				}
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
	sort.SliceStable(order, func(i, j int) bool { return distGroupLess(n.OrderBy, q.hasMatch, order[i], order[j]) })
	total := len(order)
	window := order[min(q.offset, len(order)):]
	window = window[:min(len(window), q.count, max(0, q.maxMatch-q.offset))]
	if columns == nil {
		columns = []Column{}
	}
	res := &Result{Columns: columns, Rows: [][]any{}}
	for _, g := range window {
		row := make([]any, len(g.vals))
		for i, v := range g.vals {
			row[i] = wireValue(columns[i].Type, v)
		}
		res.Rows = append(res.Rows, row)
	}
	s.setDistMeta(q, total, round.terms, start)
	return res, nil
}

// distGroupLess orders merged groups as groupLess orders one table's.
func distGroupLess(orderBy *ast.OrderByClause, relevance bool, a, b *distGroup) bool {
	if orderBy != nil {
		for i, item := range orderBy.Items {
			c, ok := compare(a.order[i], b.order[i])
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
		if c, ok := compare(a.key[i], b.key[i]); ok && c != 0 {
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
// all at once). SHOW META tells of the main SELECT.
func (s *Session) selectDistributedFacets(ctx context.Context, d *distTable, n *ast.SelectStmt, facets []*ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) ([]*Result, error) {
	if n.GroupBy != nil || n.Distinct || hasAggregate(n.Fields, n.Having, n.OrderBy) {
		return nil, Errorf(CodeUnsupported, "FACET after GROUP BY, DISTINCT or aggregates is not supported: facets group the matches themselves")
	}
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
	s.meta, s.metaQuery = meta, metaQuery
	return out, nil
}
