package sql

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// defaultLimit is the row count of a SELECT without LIMIT (README,
// Decisions), unless the session's @@sql_select_limit says otherwise.
const defaultLimit = 20

// defaultMaxMatches is how many best matches a SELECT keeps in memory for
// sorting when OPTION max_matches is not given and LIMIT asks for fewer.
const defaultMaxMatches = 1000

// field is one compiled select-list item.
type field struct {
	name string
	e    expr
	typ  ColumnType
}

// orderKey is one compiled ORDER BY item.
type orderKey struct {
	e    expr
	desc bool
	coll collation // of strings
}

// fromCandidate reports whether the key is a field of a candidate (its
// weight or id) rather than a value kept in its keys.
func (o orderKey) fromCandidate() bool {
	switch o.e.(type) {
	case weightExpr, idExpr:
		return true
	}
	return false
}

// selectPlan is a SELECT ready to run against one table snapshot.
type selectPlan struct {
	table      *index.Table
	sc         *scope
	fields     []field
	where      expr // nil: every document
	order      []orderKey
	offset     int
	count      int
	maxMatches int
	opts       selectOptions
	group      *groupPlan // GROUP BY or aggregates; nil: a row per match
	// cutoff > 0 stops the search at that many matching documents;
	// runSelect sets cutoffHit when it did.
	cutoff    int
	cutoffHit bool
	// timedOut: OPTION max_query_time stopped the search, and the result is
	// what it had found by then.
	timedOut bool
	// hlOver are the page's rows past the highlighting work budget (nil:
	// none), hlTruncated how many; page sets them.
	hlOver      []bool
	hlTruncated int
	// heldToken is the token of the snapshot the search held (OPTION
	// hold_snapshot=1), for SHOW META; "" when none.
	heldToken string
	// readAll: SQL_NO_CACHE without LIMIT, a dump tool's read of every
	// row (pageAll).
	readAll bool
}

// errQueryTime is the cause of the context OPTION max_query_time ends.
var errQueryTime = errors.New("OPTION max_query_time is up")

// errCutoff stops the scan of matches when the cutoff is reached.
var errCutoff = errors.New("cutoff reached")

// planRead plans the SELECT n for reading: with OPTION
// consistency='linearizable' it first waits until this member has applied
// what the cluster committed, and with replication on it holds the
// clusters' databases against a snapshot install (holdDBs) and plans again
// under the hold: a snapshot installed since (waiting for a linearizable
// read may install one) replaced the cluster's database, and the first
// plan's table would be the one before it. unlock ends the hold.
func (s *Session) planRead(ctx context.Context, n *ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) (p *selectPlan, unlock func(), err error) {
	// The wait comes before the plan: the table may be a cluster's that
	// this member has not created yet (planSelect would not find it).
	// (Options that do not parse are planSelect's to report.)
	if o, err := parseSelectOptions(options); err == nil && o.linearizable {
		if err := s.linearize(ctx, n.From); err != nil {
			return nil, nil, err
		}
	}
	if p, err = s.planSelect(n, options, within); err != nil {
		return nil, nil, err
	}
	unlock, held := s.engine.repl.holdDBs(s)
	if !held {
		return p, func() {}, nil
	}
	if p, err = s.planSelect(n, options, within); err != nil {
		unlock()
		return nil, nil, err
	}
	return p, unlock, nil
}

// execSelect runs a SELECT with its OPTION settings and WITHIN GROUP ORDER
// BY (nil when it has none).
func (s *Session) execSelect(ctx context.Context, n *ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) (*Result, error) {
	if n.Kind != ast.SelectStmtKindSelect || n.With != nil || n.SelectIntoOpt != nil || n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone {
		return nil, Errorf(CodeUnsupported, "this form of SELECT is not supported")
	}
	if n.GroupBy != nil && n.GroupBy.Rollup {
		return nil, Errorf(CodeUnsupported, "GROUP BY ... WITH ROLLUP is not supported")
	}
	if within != nil && (n.From == nil || n.GroupBy == nil || s.readsCatalog(n) || derivedSource(n) != nil) {
		return nil, Errorf(CodeSyntax, "WITHIN GROUP ORDER BY needs GROUP BY over a full-text table")
	}
	if meta, ok := showMetaCall(n); ok {
		return s.showMeta(ctx, meta)
	}
	if name, what, ok := showTableCall(n); ok {
		return s.showTable(name, what)
	}
	if s.readsCatalog(n) {
		if len(options) > 0 {
			return nil, Errorf(CodeSyntax, "OPTION applies to full-text tables, not to information_schema")
		}
		return s.selectCatalog(ctx, n)
	}
	if n.From == nil {
		if len(options) > 0 {
			return nil, Errorf(CodeSyntax, "OPTION needs a table in FROM")
		}
		return s.selectConstants(n)
	}
	// SHOW META tells of this search from here on: of nothing if it
	// fails, not of the last one's numbers without its keywords.
	s.meta, s.metaQuery = nil, nil
	if ts := derivedSource(n); ts != nil {
		return s.selectDerived(ctx, n, ts, options)
	}
	if d, ok, err := s.distributedSource(n); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return s.selectDistributed(ctx, d, n, options, within)
	}
	start := time.Now()
	p, unlock, err := s.planRead(ctx, n, options, within)
	if err != nil {
		return nil, err
	}
	defer unlock()
	run := s.runSelect
	if p.group != nil {
		run = s.runGrouped
	}
	r, totalFound, err := run(ctx, p)
	if err != nil {
		return nil, err
	}
	if n.SelectStmtOpts != nil && !n.SelectStmtOpts.SQLCache {
		// A dump tool's read (SQL_NO_CACHE), of every row or of a part
		// (mysqldump --where='... LIMIT n'): its floats must read back
		// as the same numbers (see pageAll).
		r.ShortestFloats = true
	}
	s.setMeta(p, totalFound, start)
	return r, nil
}

// setMeta keeps what SHOW META tells of a search that began at start and
// found totalFound rows (matches, or groups of a grouped SELECT).
func (s *Session) setMeta(p *selectPlan, totalFound int, start time.Time) {
	s.meta = searchMeta(totalFound, p.maxMatches, start)
	if p.hlTruncated > 0 {
		s.meta = append(s.meta, metaRow{"highlight_truncated", strconv.Itoa(p.hlTruncated)})
	}
	if p.heldToken != "" {
		s.meta = append(s.meta, metaRow{"snapshot", p.heldToken})
	}
}

// searchMeta is the rows SHOW META tells of every search: how many
// matches it kept (at most maxMatches) and found, and how long it took.
func searchMeta(totalFound, maxMatches int, start time.Time) []metaRow {
	return []metaRow{
		{"total", strconv.Itoa(min(totalFound, maxMatches))},
		{"total_found", strconv.Itoa(totalFound)},
		{"time", strconv.FormatFloat(time.Since(start).Seconds(), 'f', 3, 64)},
	}
}

// collect returns the collector of the plan's matches over snap.
func (s *Session) collect(p *selectPlan, snap *index.Snapshot) *collector {
	if p.group != nil {
		return s.groupCollector(p, snap)
	}
	return s.topCollector(p, snap)
}

// showMetaCall recognises the bridge's rewrite of SHOW META [LIKE 'p'].
func showMetaCall(n *ast.SelectStmt) (pattern *string, ok bool) {
	call, isCall := rewrittenCall(n, dialect.FuncShowMeta)
	if !isCall {
		return nil, false
	}
	if len(call.Args) == 1 {
		if v, isValue := call.Args[0].(ast.ValueExpr); isValue {
			if p, isString := v.GetValue().(string); isString {
				return &p, true
			}
		}
	}
	return nil, true
}

// rewrittenCall is the call of fn that a SHOW statement was rewritten
// into (SELECT fn(...), alone, without FROM).
func rewrittenCall(n *ast.SelectStmt, fn string) (*ast.FuncCallExpr, bool) {
	if n.From != nil || n.Fields == nil || len(n.Fields.Fields) != 1 {
		return nil, false
	}
	call, isCall := n.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	return call, isCall && call.FnName.L == fn
}

// showTableCall recognizes the rewritten SHOW TABLE t STATUS|SETTINGS.
func showTableCall(n *ast.SelectStmt) (name, what string, ok bool) {
	call, isCall := rewrittenCall(n, dialect.FuncShowTable)
	if !isCall || len(call.Args) != 2 {
		return "", "", false
	}
	var args [2]string
	for i, a := range call.Args {
		v, isValue := a.(ast.ValueExpr)
		if !isValue {
			return "", "", false
		}
		if args[i], isValue = v.GetValue().(string); !isValue {
			return "", "", false
		}
	}
	return args[0], args[1], true
}

// showTable answers the reference's SHOW TABLE t STATUS (what the table is
// and holds) and SHOW TABLE t SETTINGS (its settings, a line each, as
// its CREATE TABLE gives them).
func (s *Session) showTable(name, what string) (*Result, error) {
	r := &Result{Columns: []Column{{"Variable_name", ColString}, {"Value", ColString}}}
	d, dist, err := s.distributed(name)
	if dist {
		if err != nil {
			return nil, err
		}
		if what == "settings" {
			r.Rows = [][]any{{"settings", settingLines(d.settings, "type", false)}}
			return r, nil
		}
		r.Rows = [][]any{{"index_type", "distributed"}}
		return r, nil
	}
	t, err := s.table(name)
	if err != nil {
		return nil, err
	}
	sc := t.Schema()
	if what == "settings" {
		r.Rows = [][]any{{"settings", settingLines(sc.Settings, "", true)}}
		return r, nil
	}
	fields, attrs := 0, 0
	for _, c := range sc.Columns {
		if c.Type == index.TypeText {
			fields++
		} else {
			attrs++
		}
	}
	r.Rows = [][]any{
		{"index_type", "rt"},
		{"indexed_documents", strconv.Itoa(t.Snapshot().Count())},
		{"fields", strconv.Itoa(fields)},
		{"attributes", strconv.Itoa(attrs)},
	}
	return r, nil
}

// settingLines is SHOW TABLE t SETTINGS's value: a line "name = value"
// per setting but the one named skip, sorted or in the order given (a
// distributed table's agents keep theirs).
func settingLines(settings []index.Setting, skip string, sorted bool) string {
	var lines []string
	for _, st := range settings {
		if st.Name != skip {
			lines = append(lines, st.Name+" = "+st.Value)
		}
	}
	if sorted {
		sort.Strings(lines)
	}
	return strings.Join(lines, "\n")
}

func (s *Session) showMeta(ctx context.Context, pattern *string) (*Result, error) {
	r := &Result{Columns: []Column{{"Variable_name", ColString}, {"Value", ColString}}}
	rows := s.meta
	if len(s.warnings) > 0 {
		// The last statement's warnings, as the family's SHOW META tells
		// them (a shard left out, a query word dropped): first, one row.
		msgs := make([]string, len(s.warnings))
		for i, w := range s.warnings {
			msgs[i] = w.msg
		}
		rows = append([]metaRow{{"warning", strings.Join(msgs, "; ")}}, rows...)
	}
	if mq := s.metaQuery; mq != nil {
		rows = slices.Clip(rows)
		for i, st := range mq.terms {
			n := strconv.Itoa(i)
			rows = append(rows,
				metaRow{"keyword[" + n + "]", st.Keyword},
				metaRow{"docs[" + n + "]", strconv.FormatInt(st.Docs, 10)},
				metaRow{"hits[" + n + "]", strconv.FormatInt(st.Hits, 10)})
		}
	}
	// One array holds every row's two values (a coordinator asks each
	// shard for SHOW META with every search).
	cells := make([]any, 0, 2*len(rows))
	r.Rows = make([][]any, 0, len(rows))
	for _, m := range rows {
		if pattern == nil || LikeMatch(*pattern, m.name) {
			cells = append(cells, m.name, m.value)
			r.Rows = append(r.Rows, cells[len(cells)-2:len(cells):len(cells)])
		}
	}
	return r, nil
}

// selectConstants answers a SELECT without FROM: SELECT 1, SELECT @@version_comment, ...
func (s *Session) selectConstants(n *ast.SelectStmt) (*Result, error) {
	if n.Where != nil || n.GroupBy != nil || n.Having != nil || n.OrderBy != nil {
		return nil, Errorf(CodeUnsupported, "SELECT without FROM takes only a select list and LIMIT")
	}
	sc := &scope{sess: s}
	r := &Result{}
	values := make([]any, 0, len(n.Fields.Fields))
	for _, f := range n.Fields.Fields {
		if f.WildCard != nil {
			return nil, Errorf(CodeSyntax, "SELECT * needs a table in FROM")
		}
		e, err := sc.compile(f.Expr)
		if err != nil {
			return nil, err
		}
		v, err := e.eval(nil)
		if err != nil {
			return nil, err
		}
		typ := valueType(v)
		r.Columns = append(r.Columns, Column{Name: fieldName(f), Type: typ})
		values = append(values, wireValue(typ, v))
	}
	offset, count, err := limitOf(n.Limit, s.selectLimit())
	if err != nil {
		return nil, err
	}
	if offset == 0 && count > 0 {
		r.Rows = [][]any{values}
	} else {
		r.Rows = [][]any{}
	}
	return r, nil
}

// fieldName is the column name of a select-list item: its alias, or its text.
func fieldName(f *ast.SelectField) string {
	if f.AsName.O != "" {
		return f.AsName.O
	}
	switch x := f.Expr.(type) {
	case *ast.ColumnNameExpr:
		return x.Name.Name.O
	case *ast.AggregateFuncExpr:
		return aggText(x)
	case *ast.FuncCallExpr:
		if highlightFuncs[x.FnName.L] {
			return highlightCallText(x)
		}
		if !ownFunctions[x.FnName.L] && f.Text() != "" && !strings.Contains(f.Text(), dialect.FuncOptionMap) {
			// The catalog's functions: as MySQL names them, as written (but
			// for a highlighting call inside, whose {options} the dialect
			// bridge rewrote: named below, as written).
			return f.Text()
		}
	case *ast.CaseExpr, *ast.FuncCastExpr, *ast.PatternLikeOrIlikeExpr:
		if f.Text() != "" {
			return f.Text()
		}
	}
	text := exprText(f.Expr)
	// A highlighting call inside an expression (LENGTH(HIGHLIGHT(...))):
	// its text as written, not as the dialect bridge rewrote it.
	f.Expr.Accept(walker(func(n ast.Node) bool {
		if c, ok := n.(*ast.FuncCallExpr); ok && highlightFuncs[c.FnName.L] {
			text = strings.Replace(text, exprText(c), highlightCallText(c), 1)
			return false
		}
		return true
	}))
	return text
}

// walker visits the nodes of a tree in order, calling itself on each: false
// skips the node's children.
type walker func(ast.Node) bool

func (w walker) Enter(n ast.Node) (ast.Node, bool) { return n, !w(n) }
func (w walker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// highlightCallText names a column of HIGHLIGHT(), SNIPPET() or
// HIGHLIGHT_OFFSETS() as the Sphinx family does, by the call as written
// (highlight({limit=50}, 'title')), in lower case: its option map and
// unquoted option words as they were before the dialect bridge rewrote
// them, so that two calls with other arguments name two columns.
func highlightCallText(x *ast.FuncCallExpr) string {
	var b strings.Builder
	b.WriteString(x.FnName.L)
	b.WriteByte('(')
	for i, a := range x.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeHighlightArg(&b, a)
	}
	b.WriteByte(')')
	return b.String()
}

func writeHighlightArg(b *strings.Builder, a ast.ExprNode) {
	switch x := a.(type) {
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case dialect.FuncOptionMap:
			b.WriteByte('{')
			for k := 0; k+1 < len(x.Args); k += 2 {
				if k > 0 {
					b.WriteString(", ")
				}
				if v, ok := x.Args[k].(ast.ValueExpr); ok {
					b.WriteString(strings.ToLower(fmt.Sprint(v.GetValue())))
				} else {
					b.WriteString(exprText(x.Args[k]))
				}
				b.WriteByte('=')
				writeHighlightArg(b, x.Args[k+1])
			}
			b.WriteByte('}')
			return
		case dialect.FuncQuery:
			b.WriteString("query()")
			return
		case dialect.FuncWord:
			if len(x.Args) == 1 {
				if v, ok := x.Args[0].(ast.ValueExpr); ok {
					b.WriteString(fmt.Sprint(v.GetValue()))
					return
				}
			}
		}
	case ast.ValueExpr:
		if s, ok := x.GetValue().(string); ok {
			b.WriteString(quoteString(s))
			return
		}
	}
	b.WriteString(exprText(a))
}

// limitOf reads LIMIT [offset,] count; without one, count is def.
// defaultPageWithin is the count of the default page (no LIMIT, no JSON
// "limit": the client did not ask for it) cut to the window of maxMatches
// best matches, past offset: a page the client did not ask for is never
// the reason a search fails.
func defaultPageWithin(offset, count, maxMatches int) int {
	return min(count, max(0, maxMatches-offset))
}

func limitOf(l *ast.Limit, def int) (offset, count int, err error) {
	if l == nil {
		return 0, def, nil
	}
	get := func(e ast.ExprNode, what string) (int, error) {
		if e == nil {
			return 0, nil
		}
		if v, ok := e.(ast.ValueExpr); ok {
			switch n := v.GetValue().(type) {
			case int64:
				if n >= 0 && n <= 1<<31-1 {
					return int(n), nil
				}
			case uint64:
				if n <= 1<<31-1 {
					return int(n), nil
				}
			}
		}
		return 0, Errorf(CodeSyntax, "LIMIT %s must be an integer from 0 to 2147483647", what)
	}
	if offset, err = get(l.Offset, "offset"); err != nil {
		return 0, 0, err
	}
	if count, err = get(l.Count, "count"); err != nil {
		return 0, 0, err
	}
	return offset, count, nil
}

// tableIn finds the single table a statement names.
func (s *Session) tableIn(refs *ast.TableRefsClause) (*index.Table, error) {
	name, err := tableOf(refs)
	if err != nil {
		return nil, err
	}
	return s.table(name)
}

// tableOf returns the name of the single table a statement names.
func tableOf(refs *ast.TableRefsClause) (string, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return "", Errorf(CodeUnsupported, "a statement reads exactly one table; joins are not supported")
	}
	src, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return "", Errorf(CodeUnsupported, "a statement reads exactly one table; joins are not supported")
	}
	tn, ok := src.Source.(*ast.TableName)
	if !ok {
		return "", Errorf(CodeUnsupported, "subqueries are not supported")
	}
	if tn.Schema.O != "" && !strings.EqualFold(tn.Schema.O, Database) {
		return "", Errorf(CodeNoSuchDB, "unknown database '%s'", tn.Schema.O)
	}
	return tn.Name.O, nil
}

// tableAlias is the alias FROM gives the statement's one table ("" if none).
func tableAlias(refs *ast.TableRefsClause) string {
	if refs == nil || refs.TableRefs == nil {
		return ""
	}
	if src, ok := refs.TableRefs.Left.(*ast.TableSource); ok {
		return src.AsName.O
	}
	return ""
}

func (s *Session) planSelect(n *ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) (*selectPlan, error) {
	done, err := s.useCollation(options)
	if err != nil {
		return nil, err
	}
	defer done()
	if within != nil && n.GroupBy == nil {
		return nil, Errorf(CodeSyntax, "WITHIN GROUP ORDER BY needs GROUP BY")
	}
	if n.Distinct {
		// SELECT DISTINCT a, b is GROUP BY a, b.
		if n.GroupBy != nil || hasAggregate(n.Fields, n.Having, n.OrderBy) {
			return nil, Errorf(CodeUnsupported, "SELECT DISTINCT with GROUP BY or aggregates is not supported")
		}
		distinct := *n
		distinct.GroupBy = &ast.GroupByClause{}
		for i, f := range n.Fields.Fields {
			if f.WildCard != nil {
				return nil, Errorf(CodeUnsupported, "SELECT DISTINCT * is not supported: name the attributes")
			}
			distinct.GroupBy.Items = append(distinct.GroupBy.Items, &ast.ByItem{Expr: &ast.PositionExpr{N: i + 1}})
		}
		n = &distinct
	}
	distinct := n.Distinct
	t, err := s.tableIn(n.From)
	if err != nil {
		return nil, err
	}
	schema := t.Schema()
	p := &selectPlan{table: t, maxMatches: -1}
	alias := tableAlias(n.From)

	// WHERE: attributes only, plus one MATCH().
	where := &scope{schema: schema, alias: alias, sess: s}
	if n.Where != nil {
		if p.where, err = where.compile(n.Where); err != nil {
			return nil, err
		}
	}
	p.sc = where

	// The select list may read stored text, which is fetched after LIMIT.
	list := &scope{schema: schema, alias: alias, sess: s, allowText: true, usesText: map[int]bool{}}
	var aggs []*aggSpec
	if n.GroupBy != nil || n.Having != nil || hasAggregate(n.Fields, n.OrderBy) {
		if n.GroupBy == nil && !hasAggregate(n.Fields, n.Having, n.OrderBy) {
			return nil, Errorf(CodeSyntax, "HAVING needs GROUP BY or an aggregate")
		}
		p.group = &groupPlan{coll: s.collation()}
		if n.GroupBy != nil {
			keyScope := &scope{schema: schema, alias: alias, sess: s}
			clause := "GROUP BY"
			if distinct {
				clause = "SELECT DISTINCT"
			}
			if p.group.keys, err = groupKeys(keyScope, clause, n.GroupBy.Items, n.Fields.Fields); err != nil {
				return nil, err
			}
		}
		list.allowAgg, list.group, list.keys = true, &aggs, p.group.keys
	}
	at := make([]int, len(n.Fields.Fields)) // p.fields index of each select-list item
	for fi, f := range n.Fields.Fields {
		reads := list.docReads
		at[fi] = len(p.fields)
		if f.WildCard != nil {
			if q := f.WildCard.Table.O; q != "" && !list.namesTable(q) {
				return nil, Errorf(CodeNoSuchTable, "unknown table '%s' in the select list", f.WildCard.Table.O)
			}
			p.fields = append(p.fields, field{name: "id", e: idExpr{}, typ: ColUint})
			for _, c := range schema.Columns {
				if c.Type == index.TypeText && !c.Stored {
					continue
				}
				e, err := list.column(c.Name)
				if err != nil {
					return nil, err
				}
				p.fields = append(p.fields, field{name: c.Name, e: e, typ: exprType(e, schema)})
			}
			if p.group != nil {
				for len(p.group.docFields) < len(p.fields) {
					p.group.docFields = append(p.group.docFields, true)
				}
			}
			continue
		}
		e, err := list.compile(f.Expr)
		if err != nil {
			return nil, err
		}
		p.fields = append(p.fields, field{name: fieldName(f), e: e, typ: exprType(e, schema)})
		if p.group != nil {
			p.group.docFields = append(p.group.docFields, list.docReads > reads)
		}
	}
	for _, h := range list.highlights {
		if h.query != nil {
			continue
		}
		if where.match == nil {
			if h.fn == "SNIPPET" {
				return nil, Errorf(CodeSyntax, "SNIPPET(): QUERY() is the MATCH() query, and there is no MATCH() in WHERE")
			}
			return nil, Errorf(CodeSyntax, "HIGHLIGHT() needs MATCH() in WHERE, or a query as its third argument")
		}
		h.query = &where.match.query
	}
	// ORDER BY: select-list aliases, columns, WEIGHT(), expressions.
	if p.group != nil {
		if err := s.planGroups(p, n, within, at, list, &aggs); err != nil {
			return nil, err
		}
	} else if n.OrderBy != nil {
		order := &scope{schema: schema, alias: alias, sess: s}
		for _, item := range n.OrderBy.Items {
			e, err := s.orderExpr(order, item.Expr, n.Fields.Fields, at, p.fields)
			if err != nil {
				return nil, err
			}
			if err := sortable(schema, e, ""); err != nil {
				return nil, err
			}
			coll, err := order.collationOf(item.Expr)
			if err != nil {
				return nil, err
			}
			p.order = append(p.order, orderKey{e: e, desc: item.Desc, coll: coll})
		}
	} else if where.match != nil {
		p.order = []orderKey{{e: weightExpr{}, desc: true}}
	}

	if p.offset, p.count, err = limitOf(n.Limit, s.selectLimit()); err != nil {
		return nil, err
	}
	if n.Limit == nil && n.SelectStmtOpts != nil && !n.SelectStmtOpts.SQLCache {
		// What mysqldump and its kin send (SELECT /*!40001 SQL_NO_CACHE */
		// * FROM t): every row, not the default page.
		p.count, p.readAll = 1<<31-1, true
	}
	if p.opts, err = parseSelectOptions(options); err != nil {
		return nil, err
	}
	p.cutoff = p.opts.cutoff
	for name := range p.opts.fieldWeights {
		if !isIndexedField(schema, name) {
			return nil, Errorf(CodeBadOption, "OPTION field_weights: '%s' is not a full-text field of table '%s'", name, schema.Name)
		}
	}
	if where.match != nil {
		where.match.opts = index.SearchOptions{Ranker: p.opts.ranker, FieldWeights: p.opts.fieldWeights, Global: p.opts.global,
			Only: onlyIDs(p.where)}
	}
	p.maxMatches = p.opts.maxMatches
	if n.Limit == nil && p.maxMatches >= 0 {
		p.count = defaultPageWithin(p.offset, p.count, p.maxMatches)
	}
	want := p.offset + p.count
	if p.maxMatches < 0 {
		p.maxMatches = max(defaultMaxMatches, want)
	} else if want > p.maxMatches {
		return nil, Errorf(CodeBadOption, "LIMIT offset+count (%d) exceeds OPTION max_matches (%d)", want, p.maxMatches)
	}
	p.sc.usesText, p.sc.usesLayout = list.usesText, list.usesLayout
	return p, nil
}

// sortable refuses a sort key that is a multi column: a set of integers
// has no order, and the rows would come in id order as if it were sorted.
// path is where a JSON request names the key ("" in SQL).
func sortable(schema *index.Schema, e expr, path string) error {
	a, ok := e.(attrExpr)
	if !ok {
		return nil
	}
	c := schema.Columns[a.col]
	if c.Type != index.TypeMulti && c.Type != index.TypeMulti64 {
		return nil
	}
	if path != "" {
		return Errorf(CodeWrongValue, "%s: cannot sort by %s column '%s': a set of integers has no order", path, typeName(c), c.Name)
	}
	return Errorf(CodeWrongValue, "cannot ORDER BY %s column '%s': a set of integers has no order", typeName(c), c.Name)
}

// isIndexedField reports whether name is an indexed text column of schema.
func isIndexedField(schema *index.Schema, name string) bool {
	for _, c := range schema.Columns {
		if c.Type == index.TypeText && c.Indexed && strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// orderExpr compiles one ORDER BY item: an alias of a select-list item, or an
// expression over attributes.
func (s *Session) orderExpr(sc *scope, n ast.ExprNode, asts []*ast.SelectField, at []int, fields []field) (expr, error) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Table.O == "" {
		for i, f := range asts {
			if f.AsName.O != "" && strings.EqualFold(f.AsName.O, c.Name.Name.O) {
				e := fields[at[i]].e
				if _, isText := e.(textExpr); isText {
					return nil, Errorf(CodeWrongValue, "cannot ORDER BY full-text field '%s'", c.Name.Name.O)
				}
				if _, isHL := e.(*highlightExpr); isHL {
					return nil, Errorf(CodeWrongValue, "cannot ORDER BY '%s': highlighting is computed after sorting and LIMIT", c.Name.Name.O)
				}
				return e, nil
			}
		}
	}
	return sc.compile(n)
}

// candidate is one document that passed WHERE, with its sort keys.
type candidate struct {
	ref    index.DocRef
	id     uint64
	weight int64
	keys   []any
	grp    *groupRow // the group the row stands for, in a grouped SELECT
}

// matches evaluates WHERE over a snapshot, calling fn for each document that
// passes, in ascending id order.
func (s *Session) matches(ctx context.Context, snap *index.Snapshot, sc *scope, where expr, fn func(r *row) error) error {
	r := &row{snap: snap}
	if sc.match != nil {
		sc.match.result = nil
	}
	check := func(ref index.DocRef, weight int64) error {
		r.ref, r.weight = ref, weight
		if where != nil {
			v, err := where.eval(r)
			if err != nil {
				return err
			}
			if !truthy(v) {
				return nil
			}
		}
		return fn(r)
	}
	if sc.match == nil {
		var err error
		scanErr := snap.Scan(ctx, func(ref index.DocRef) bool {
			err = check(ref, 1) // no full-text query: every document weighs 1, as in the Sphinx family
			return err == nil
		})
		if err != nil {
			return err
		}
		return scanErr
	}
	q, err := sc.match.parse(snap)
	if err != nil {
		return Errorf(CodeQuerySyntax, "MATCH(): %v", err)
	}
	if q == nil && strings.TrimSpace(sc.match.query) != "" {
		// Every word is a stopword (or too short to be indexed): nothing
		// can match.
		s.metaQuery = &metaQuery{}
		s.pending = append(s.pending, warning{level: "Warning", code: CodeQuerySyntax,
			msg: "MATCH(): the query has no word that is indexed (only stopwords or words shorter than min_word_len), so it matches nothing"})
		return nil
	}
	if q == nil {
		// An empty query matches every document with weight 1, as in the
		// Sphinx family (a "full scan").
		sc.match.matched = nil
		sc.match.required = true
		var err error
		scanErr := snap.Scan(ctx, func(ref index.DocRef) bool {
			err = check(ref, 1)
			return err == nil
		})
		if err != nil {
			return err
		}
		return scanErr
	}
	res, ok := sc.match.heldResult(where)
	if !ok {
		if res, err = snap.SearchWith(ctx, q, sc.match.opts); err != nil {
			return asError(err)
		}
	}
	sc.match.result = res
	s.metaQuery = &metaQuery{terms: res.Terms}
	for _, w := range res.Warnings {
		s.pending = append(s.pending, warning{level: "Warning", code: CodeQuerySyntax, msg: "MATCH(): " + w})
	}
	found := res.Matches
	if matchIsRequired(where, sc.match) {
		// Only matched documents are candidates, so MATCH() holds for each.
		sc.match.matched = nil
		sc.match.required = true
		for i, m := range found {
			if i%1024 == 0 && ctx.Err() != nil {
				return cancelled(ctx.Err())
			}
			if err := check(m.Ref, m.Weight); err != nil {
				return err
			}
		}
		return nil
	}
	// MATCH under OR or NOT: every document is a candidate.
	sc.match.matched = make(map[index.DocRef]int64, len(found))
	for _, m := range found {
		sc.match.matched[m.Ref] = m.Weight
	}
	var cbErr error
	scanErr := snap.Scan(ctx, func(ref index.DocRef) bool {
		cbErr = check(ref, sc.match.matched[ref])
		return cbErr == nil
	})
	if cbErr != nil {
		return cbErr
	}
	return scanErr
}

// matchIsRequired reports whether m is a top-level conjunct of where, so that
// only matched documents can pass.
func matchIsRequired(where expr, m *matchExpr) bool {
	switch x := where.(type) {
	case *matchExpr:
		return x == m
	case logicExpr:
		return x.and && (matchIsRequired(x.l, m) || matchIsRequired(x.r, m))
	}
	return false
}

// eachMatch runs the search of p over snap, calling fn for each match, and
// stops at the cutoff and at OPTION max_query_time (then with a warning and
// p.timedOut). It returns how many matches fn saw.
func (s *Session) eachMatch(ctx context.Context, p *selectPlan, snap *index.Snapshot, fn func(r *row) error) (int, error) {
	total := 0
	searchCtx := ctx
	if p.opts.maxQueryTime > 0 {
		var cancel context.CancelFunc
		searchCtx, cancel = context.WithTimeoutCause(ctx, p.opts.maxQueryTime, errQueryTime)
		defer cancel()
	}
	err := s.matches(searchCtx, snap, p.sc, p.where, func(r *row) error {
		if p.cutoff > 0 && total >= p.cutoff {
			p.cutoffHit = true
			return errCutoff
		}
		total++
		return fn(r)
	})
	if err == errCutoff {
		err = nil
	}
	if err != nil && ctx.Err() == nil && context.Cause(searchCtx) == errQueryTime {
		// As in the Sphinx family: the matches found so far, and a warning.
		p.timedOut, err = true, nil
		s.pending = append(s.pending, warning{level: "Warning", code: CodeQueryTimeout,
			msg: fmt.Sprintf("the search stopped at OPTION max_query_time (%d ms): the result holds the matches found by then", p.opts.maxQueryTime.Milliseconds())})
	}
	if err == nil {
		// A highlighting query of its own is checked though no row may
		// be highlighted (an empty page): the first row would refuse it.
		for _, f := range p.fields {
			if pe, ok := f.e.(pageExpr); ok {
				if err := pe.prepare(snap); err != nil {
					return 0, err
				}
			}
		}
	}
	return total, err
}

// collector takes the matches of a search for one plan (add, in the
// order of the search) and then builds its result (finish, given how many
// matches there were), with the plan's total for SHOW META.
type collector struct {
	add    func(r *row) error
	finish func(ctx context.Context, matches int) (*Result, int, error)
}

func (s *Session) runSelect(ctx context.Context, p *selectPlan) (*Result, int, error) {
	snap, err := s.snapshotOf(p)
	if err != nil {
		return nil, 0, err
	}
	c := s.topCollector(p, snap)
	n, err := s.eachMatch(ctx, p, snap, c.add)
	if err != nil {
		return nil, 0, err
	}
	return c.finish(ctx, n)
}

// topCollector keeps the best offset+count matches of p in its order.
func (s *Session) topCollector(p *selectPlan, snap *index.Snapshot) *collector {
	want := p.offset + p.count
	h := &candidateHeap{order: p.order}
	readAllBudget := 0 // (read once: it takes the runtime's lock)
	if p.readAll {
		readAllBudget = readAllBudgetNow()
	}
	scratch := make([]any, len(p.order)) // sort keys of the document at hand
	keyed := false                       // some key is not the weight or the id
	for _, o := range p.order {
		keyed = keyed || !o.fromCandidate()
	}
	add := func(r *row) error {
		if want == 0 {
			return nil
		}
		if len(p.order) == 0 && h.Len() >= want {
			return nil // id order: the first ones seen are the smallest ids
		}
		c := candidate{ref: r.ref, id: snap.ID(r.ref), weight: r.weight, keys: scratch}
		for i, o := range p.order {
			if o.fromCandidate() {
				continue // less reads c.weight or c.id
			}
			v, err := o.e.eval(r)
			if err != nil {
				return err
			}
			scratch[i] = v
		}
		if h.Len() >= want && !h.less(c, h.items[0]) {
			return nil // not among the best: its keys are not kept
		}
		if p.readAll && (h.Len()+1)*candidateBytes > readAllBudget {
			return errReadAllTooBig(p, h.Len()+1)
		}
		if c.keys = nil; keyed {
			c.keys = append([]any(nil), scratch...)
		}
		if h.Len() < want {
			h.push(c)
		} else {
			h.replaceRoot(c)
		}
		return nil
	}
	finish := func(ctx context.Context, matches int) (*Result, int, error) {
		sorted := h.items
		sort.Slice(sorted, func(i, j int) bool { return h.less(sorted[i], sorted[j]) })
		s.keepPage(p, sorted)
		if p.readAll {
			res, err := s.pageAll(ctx, p, snap, sorted[min(p.offset, len(sorted)):])
			return res, matches, err
		}
		res, err := s.page(ctx, p, snap, sorted[min(p.offset, len(sorted)):])
		return res, matches, err
	}
	return &collector{add: add, finish: finish}
}

// A read of every row (selectPlan.readAll) builds its rows readAllChunk
// documents at a time, and fails once the documents and rows it holds pass
// readAllBudgetNow: a table too big for one answer is dumped in parts (a
// WHERE on id ranges), never cut short without a word.
const (
	readAllChunk   = 256
	candidateBytes = int(unsafe.Sizeof(candidate{}))
)

// readAllBudgetNow is what one read of every row may hold: a quarter of the
// Go runtime's memory limit (glintd's memory_limit), a quarter of the
// default memory limit when there is none.
func readAllBudgetNow() int {
	limit := debug.SetMemoryLimit(-1) // (a negative value reads it)
	if limit <= 0 || limit >= math.MaxInt64/2 {
		limit = index.DefaultMemoryLimit
	}
	return int(limit / 4)
}

// errReadAllTooBig is the error of a read of every row of p's table that
// passed readAllBudgetNow at n documents.
func errReadAllTooBig(p *selectPlan, n int) error {
	return Errorf(CodeUnsupported, "reading every row of table '%s' at once (SQL_NO_CACHE without LIMIT, as dump tools read) "+
		"would hold more than %d MB (a quarter of the memory limit) by document %d: read it in parts "+
		"(mysqldump --where='id BETWEEN 1 AND 100000', ...) or with LIMIT", p.table.Schema().Name, readAllBudgetNow()>>20, n)
}

// pageAll builds the rows of every candidate of a read of every row,
// readAllChunk at a time, within readAllBudgetNow.
func (s *Session) pageAll(ctx context.Context, p *selectPlan, snap *index.Snapshot, all []candidate) (*Result, error) {
	budget := readAllBudgetNow()
	held := len(all) * candidateBytes
	var res *Result
	for at := 0; res == nil || at < len(all); {
		chunk := all[at:min(at+readAllChunk, len(all))]
		r, err := s.page(ctx, p, snap, chunk)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = r
			// A dump must restore the values it read: floats in the
			// shortest form that reads back as the same number, not
			// the reference's six or eight decimals (1e-38 as
			// 0.00000000).
			res.ShortestFloats = true
		} else {
			res.Rows = append(res.Rows, r.Rows...)
			res.IDs = append(res.IDs, r.IDs...)
		}
		for _, row := range r.Rows {
			for _, v := range row {
				held += 16
				if str, ok := v.(string); ok {
					held += len(str)
				}
			}
		}
		at += len(chunk)
		if held > budget {
			return nil, errReadAllTooBig(p, at)
		}
	}
	return res, nil
}

// page builds the result rows of the candidates that are returned: only
// now is stored text read, in one batch, and highlighting done.
func (s *Session) page(ctx context.Context, p *selectPlan, snap *index.Snapshot, page []candidate) (*Result, error) {
	p.hlOver, p.hlTruncated = nil, 0
	res := &Result{Columns: make([]Column, len(p.fields)), Rows: make([][]any, 0, len(page))}
	for i, f := range p.fields {
		res.Columns[i] = Column{Name: f.name, Type: f.typ}
		if a, ok := f.e.(attrExpr); ok && p.table != nil {
			switch t := p.table.Schema().Columns[a.col].Type; t {
			case index.TypeMulti, index.TypeMulti64, index.TypeJSON:
				if res.Attrs == nil {
					res.Attrs = make([]index.ColumnType, len(p.fields))
				}
				res.Attrs[i] = t
			}
		}
	}
	if len(page) == 1 && page[0].grp != nil && !page[0].grp.found {
		// The implicit group of no match: aggregates over nothing, and NULL
		// for the columns of a document.
		r := &row{grp: page[0].grp, snap: snap} // (a SNIPPET() of a literal text still needs the table)
		out := make([]any, len(p.fields))
		for j, f := range p.fields {
			if p.group.docFields[j] {
				continue
			}
			v, err := f.e.eval(r)
			if err != nil {
				return nil, err
			}
			out[j] = wireValue(f.typ, v)
		}
		res.Rows = append(res.Rows, out)
		return res, nil
	}
	texts, layouts, err := s.storedText(ctx, snap, p.sc.usesText, p.sc.usesLayout, page)
	if err != nil {
		return nil, err
	}
	pt := pageText{texts: texts, layouts: layouts}
	over, truncated, budget, err := s.pageBudget(p.budgeted(), len(page), func(i int) *row {
		r := &row{snap: snap}
		r.atPage(page[i], i, pt)
		return r
	})
	if err != nil {
		return nil, err
	}
	pt.over, p.hlOver, p.hlTruncated = over, over, truncated
	if len(p.budgeted()) > 0 {
		s.engine.stats.HighlightDocs.Add(uint64(len(page)))
	}
	if truncated > 0 {
		s.pending = append(s.pending, budgetWarning(truncated, "rows", budget))
	}
	rows := make([][]any, len(page))
	cells := make([]any, len(page)*len(p.fields)) // one allocation for every row's values
	for i := range rows {
		rows[i] = cells[i*len(p.fields) : (i+1)*len(p.fields) : (i+1)*len(p.fields)]
	}
	done, err := p.evalPageExprs(ctx, s.engine.helpers, snap, page, pt, rows)
	if err != nil {
		return nil, err
	}
	r := &row{snap: snap}
	withIDs := p.group == nil || p.group.needBest // (else a group does not know its best document)
	if withIDs {
		res.IDs = make([]uint64, len(page))
	}
	for i, c := range page {
		if withIDs {
			res.IDs[i] = c.id
		}
		r.atPage(c, i, pt)
		out := rows[i]
		for j, f := range p.fields {
			if done[j] {
				continue
			}
			v, err := f.e.eval(r)
			if err != nil {
				return nil, err
			}
			out[j] = wireValue(f.typ, v)
		}
		res.Rows = append(res.Rows, out)
	}
	return res, nil
}

// pageExpr is an expression whose work grows with the text of a row
// (HIGHLIGHT(), SNIPPET(), the highlight of a search request): once
// prepared for the snapshot, it is safe for concurrent use, and the rows of
// a page are worked on by several goroutines.
type pageExpr interface {
	expr
	prepare(snap *index.Snapshot) error
}

// evalPageExprs evaluates the page expressions of the select list for
// every row of the page into rows, on the helpers that are free, and
// reports which fields it filled.
func (p *selectPlan) evalPageExprs(ctx context.Context, h helpers, snap *index.Snapshot, page []candidate, pt pageText, rows [][]any) ([]bool, error) {
	done := make([]bool, len(p.fields))
	var fields []int
	for j, f := range p.fields {
		if pe, ok := f.e.(pageExpr); ok && len(page) > 1 {
			if err := pe.prepare(snap); err != nil {
				return nil, err
			}
			fields = append(fields, j)
		}
	}
	if len(fields) == 0 {
		return done, nil
	}
	err := h.each(ctx, len(page), len(page), func() func(int) error {
		r := &row{snap: snap}
		return func(i int) error {
			r.atPage(page[i], i, pt)
			for _, j := range fields {
				v, err := p.fields[j].e.eval(r)
				if err != nil {
					return err
				}
				rows[i][j] = wireValue(p.fields[j].typ, v)
			}
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	for _, j := range fields {
		done[j] = true
	}
	return done, nil
}

// pageText is what a page's rows hold besides their candidates: the stored
// texts and layouts storedText read (layouts nil when none were), and the
// rows past the highlighting work budget (over; nil when none are).
type pageText struct {
	texts, layouts []map[int]string
	over           []bool
}

// atPage points r at candidate c, row i of the page.
func (r *row) atPage(c candidate, i int, pt pageText) {
	r.ref, r.weight, r.text, r.grp = c.ref, c.weight, pt.texts[i], c.grp
	r.layout = nil
	if pt.layouts != nil {
		r.layout = pt.layouts[i]
	}
	r.fallback = pt.over != nil && pt.over[i]
}

// budgeted are the select list's expressions the highlighting work budget
// bounds.
func (p *selectPlan) budgeted() []budgeted {
	var bs []budgeted
	for _, f := range p.fields {
		if b, ok := f.e.(budgeted); ok {
			bs = append(bs, b)
		}
	}
	return bs
}

// storedText reads the text columns a select list uses for the page's rows,
// and the layouts of those a highlighter matches (layouts; nil when none).
func (s *Session) storedText(ctx context.Context, snap *index.Snapshot, uses, layouts map[int]bool, page []candidate) (texts, lays []map[int]string, err error) {
	texts = make([]map[int]string, len(page))
	if len(uses) == 0 || len(page) == 0 {
		return texts, nil, nil
	}
	cols := make([]int, 0, len(uses))
	for c := range uses {
		cols = append(cols, c)
	}
	sort.Ints(cols)
	refs := make([]index.DocRef, len(page))
	for i, c := range page {
		refs[i] = c.ref
	}
	var stored [][]string
	if len(layouts) > 0 {
		stored, err = snap.StoredWithLayouts(ctx, refs, cols)
		lays = make([]map[int]string, len(page))
	} else {
		stored, err = snap.Stored(ctx, refs, cols)
	}
	if err != nil {
		return nil, nil, asError(err)
	}
	s.engine.stats.StoredDocReads.Add(uint64(len(refs)))
	for i := range page {
		m := make(map[int]string, len(cols))
		for j, c := range cols {
			m[c] = stored[i][j]
		}
		texts[i] = m
		if lays != nil {
			l := make(map[int]string, len(layouts))
			for j, c := range cols {
				if layouts[c] {
					l[c] = stored[i][len(cols)+j]
				}
			}
			lays[i] = l
		}
	}
	return texts, lays, nil
}

// candidateHeap keeps the best candidates: its root is the worst kept one.
type candidateHeap struct {
	items []candidate
	order []orderKey
}

// less reports whether a sorts before b: by the ORDER BY keys, then by id.
// WEIGHT() and id are compared from the candidate's fields, without boxing
// them as keys.
func (h *candidateHeap) less(a, b candidate) bool {
	for i, o := range h.order {
		var c int
		switch o.e.(type) {
		case weightExpr:
			c = cmp.Compare(a.weight, b.weight)
		case idExpr:
			c = cmp.Compare(a.id, b.id)
		default:
			var ok bool
			if c, ok = compare(o.coll, a.keys[i], b.keys[i]); !ok {
				continue
			}
		}
		if c == 0 {
			continue
		}
		if o.desc {
			return c > 0
		}
		return c < 0
	}
	return a.id < b.id
}

func (h *candidateHeap) Len() int { return len(h.items) }

// worse reports whether item i should be nearer the root than item j.
func (h *candidateHeap) worse(i, j int) bool { return h.less(h.items[j], h.items[i]) }

// push adds c (the heap's own, not container/heap's: a candidate is not
// boxed per push).
func (h *candidateHeap) push(c candidate) {
	h.items = append(h.items, c)
	for i := len(h.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.worse(i, parent) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

// replaceRoot puts c in place of the root and restores the order.
func (h *candidateHeap) replaceRoot(c candidate) {
	h.items[0] = c
	n := len(h.items)
	for i := 0; ; {
		kid := 2*i + 1
		if kid >= n {
			break
		}
		if r := kid + 1; r < n && h.worse(r, kid) {
			kid = r
		}
		if !h.worse(kid, i) {
			break
		}
		h.items[i], h.items[kid] = h.items[kid], h.items[i]
		i = kid
	}
}

// exprType is the result column type of an expression.
func exprType(e expr, schema *index.Schema) ColumnType {
	switch x := e.(type) {
	case idExpr:
		return ColUint
	case attrExpr:
		return columnWireType(schema.Columns[x.col].Type)
	case textExpr, toStringExpr:
		return ColString
	case aggRef:
		return x.typ
	case *scalarExpr:
		return scalarType(x)
	case groupKeyExpr:
		return x.typ
	case weightExpr, cmpExpr, logicExpr, notExpr, inExpr, betweenExpr, isNullExpr, *matchExpr:
		return ColInt
	case constExpr:
		return valueType(x.v)
	case negExpr:
		if t := exprType(x.x, schema); t != ColUint {
			return t
		}
		return ColInt // (-id is signed)
	case arithExpr:
		l, r := exprType(x.l, schema), exprType(x.r, schema)
		if x.op == opcode.Div || l == ColFloat || r == ColFloat {
			return ColFloat
		}
		return ColInt
	}
	return ColString
}

// valueType is the column type that fits a value.
func valueType(v any) ColumnType {
	switch v.(type) {
	case int64:
		return ColInt
	case uint64:
		return ColUint
	case float64:
		return ColFloat
	}
	return ColString
}
