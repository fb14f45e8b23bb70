package sql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// A SELECT from a distributed table runs as query then fetch
// (docs/distributed.md):
//
//  0. with OPTION global_idf=1, every shard tells the documents it holds
//     and those holding each query term (CALL QUERY_STATS), and the sums
//     go down with the search (OPTION global_stats) so that WEIGHT() is
//     what one table holding every shard's documents would give;
//  1. every shard, in parallel, returns the id, WEIGHT() and ORDER BY keys
//     of its best offset+count matches, and SHOW META its total_found and
//     keyword counts;
//  2. the coordinator merges them in the ORDER BY order (then id), cuts the
//     LIMIT window and sums the counts;
//  3. each shard that holds rows of the window is asked, by the same
//     mirror, for the select list of just those ids (WHERE ... AND id IN
//     (...)): stored fields are read and HIGHLIGHT() runs there, once per
//     row returned.
//
// Every statement is plain dialect SQL: a local shard runs it in-process,
// an agent over the Remote.

// distOptions are the OPTION settings a coordinator reads itself; the
// others go to the shards.
type distOptions struct {
	globalIDF    bool
	queryTimeout time.Duration // 0: the table's agent_query_timeout
	strict       bool          // a shard with no live mirror fails the query
}

func parseDistOptions(table string, options []dialect.Setting) (distOptions, []dialect.Setting, error) {
	var o distOptions
	var rest []dialect.Setting
	seen := map[string]bool{}
	for _, opt := range options {
		switch opt.Name {
		case "global_idf", "strict_shards", "agent_query_timeout":
			// (The others are checked where they are read.)
			if seen[opt.Name] {
				return o, nil, Errorf(CodeBadOption, "OPTION %s is given twice", opt.Name)
			}
			seen[opt.Name] = true
		}
		switch opt.Name {
		case "global_idf", "strict_shards":
			n, ok := intOption(opt.Value)
			if !ok || n < 0 || n > 1 {
				return o, nil, Errorf(CodeBadOption, "OPTION %s takes 0 or 1", opt.Name)
			}
			if opt.Name == "global_idf" {
				o.globalIDF = n == 1
			} else {
				o.strict = n == 1
			}
		case "agent_query_timeout":
			n, ok := intOption(opt.Value)
			if !ok || n < 1 || time.Duration(n)*time.Millisecond > maxAgentTimeout {
				return o, nil, Errorf(CodeBadOption, "OPTION agent_query_timeout takes milliseconds, an integer from 1 to %d", maxAgentTimeout.Milliseconds())
			}
			o.queryTimeout = time.Duration(n) * time.Millisecond
		case "global_stats":
			return o, nil, Errorf(CodeBadOption, "OPTION global_stats is what a coordinator sends its shards; on a distributed table, use OPTION global_idf=1")
		case "hold_snapshot", "snapshot":
			return o, nil, nestedError(table, "OPTION "+opt.Name)
		default:
			rest = append(rest, opt)
		}
	}
	return o, rest, nil
}

// shardCallMark is the option a coordinator adds to the CALL SNIPPETS and
// CALL KEYWORDS it sends its shards (1 AS __glint_shard), as OPTION
// hold_snapshot marks its SELECTs: a distributed table refuses such a call
// (nestedError) rather than asking its own agents, which, for a table
// whose agent names itself, would go on until the server ran out of
// connections.
const shardCallMark = "__glint_shard"

// takeShardMark removes shardCallMark from a CALL's option arguments and
// reports whether it was there.
func takeShardMark(args []ast.ExprNode) ([]ast.ExprNode, bool) {
	for i, a := range args {
		if call, ok := a.(*ast.FuncCallExpr); ok && call.FnName.L == dialect.FuncAs && len(call.Args) == 2 {
			if name, _ := stringValue(call.Args[1]); strings.EqualFold(name, shardCallMark) {
				return append(args[:i:i], args[i+1:]...), true
			}
		}
	}
	return args, false
}

// nestedError is the error of a statement that only a coordinator sends
// its shards (what names it), run on distributed table: either a client
// sent it, or an agent of another distributed table names this one. A
// distributed table's agents name plain tables: one that named a
// distributed table would ask its agents in turn, and one that named
// itself would call itself until the server ran out of connections.
func nestedError(table, what string) error {
	return Errorf(CodeUnsupported, "%s is what a coordinator sends its shards, and table '%s' is distributed: "+
		"an agent of a distributed table names a plain table on its server, not a distributed one (nor the distributed table itself)", what, table)
}

// distributedSource returns the distributed table a SELECT reads, if it
// reads one.
func (s *Session) distributedSource(n *ast.SelectStmt) (*distTable, bool, error) {
	name, err := tableOf(n.From)
	if err != nil {
		return nil, false, nil // planSelect says what is wrong
	}
	return s.distributed(name)
}

// distCandidate is one row of a shard's phase-one answer.
type distCandidate struct {
	shard  int
	id     uint64
	weight int64
	keys   []any
}

// distQuery is a SELECT from a distributed table, prepared for its shards.
type distQuery struct {
	n        *ast.SelectStmt
	where    string   // the WHERE condition as text, or ""
	fields   string   // the select list as text
	orderBy  string   // ORDER BY ... as text, or ""
	keys     []string // the ORDER BY expressions as text
	desc     []bool
	hasMatch bool
	matchQ   string   // the MATCH() query, for global statistics
	matchQs  []string // or the full-text queries of a JSON search, each read on its own
	forward  []string
	offset   int
	count    int
	want     int
	maxMatch int
	stats    string // OPTION global_stats='...', or ""
	// coll orders strings here; the shards' searches name it unless it is
	// libc_ci, their default, or the user's OPTION collation (forwarded) named it.
	coll   collation
	cutoff string        // ", cutoff=N" for the searches of the shards, or ""
	hold   time.Duration // how long phase one's shards hold their snapshots
	// globalJSON are the statistics of stats, for a JSON search.
	globalJSON *globalStatsJSON
	// alias is what the shards' statements call their table: the
	// statement's alias, or the distributed table's name as written, so
	// that a qualified column (dist.price, b.price) names it there too.
	alias string
}

// fromTable is a shard statement's FROM of table, under the alias.
func (q *distQuery) fromTable(table string) string {
	if q.alias == "" || strings.EqualFold(q.alias, table) {
		return " FROM " + quoteName(table)
	}
	return " FROM " + quoteName(table) + " AS " + quoteName(q.alias)
}

// sourceAlias is the alias a SELECT gives its one table, else the table's
// name as written ("" when FROM is not one table).
func sourceAlias(from *ast.TableRefsClause) string {
	if from == nil || from.TableRefs == nil || from.TableRefs.Right != nil {
		return ""
	}
	ts, ok := from.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return ""
	}
	if ts.AsName.O != "" {
		return ts.AsName.O
	}
	if tn, ok := ts.Source.(*ast.TableName); ok {
		return tn.Name.O
	}
	return ""
}

func (s *Session) selectDistributed(ctx context.Context, d *distTable, n *ast.SelectStmt, options []dialect.Setting, within *ast.OrderByClause) (*Result, error) {
	start := time.Now()
	done, err := s.useCollation(options)
	if err != nil {
		return nil, err
	}
	defer done()
	s.metaQuery = nil
	s.meta = nil
	do, rest, err := parseDistOptions(d.name, options)
	if err != nil {
		return nil, err
	}
	opts, err := parseSelectOptions(rest)
	if err != nil {
		return nil, err
	}
	q := &distQuery{n: n, coll: s.collation(), alias: sourceAlias(n.From)}
	if q.offset, q.count, err = limitOf(n.Limit, s.selectLimit()); err != nil {
		return nil, err
	}
	if n.Limit == nil && opts.maxMatches >= 0 {
		q.count = defaultPageWithin(q.offset, q.count, opts.maxMatches)
	}
	q.want = q.offset + q.count
	q.maxMatch = opts.maxMatches
	if q.maxMatch < 0 {
		q.maxMatch = max(defaultMaxMatches, q.want)
	} else if q.want > q.maxMatch {
		return nil, Errorf(CodeBadOption, "LIMIT offset+count (%d) exceeds OPTION max_matches (%d)", q.want, q.maxMatch)
	}
	for _, opt := range rest {
		if opt.Name == "max_matches" {
			continue // each phase sends its own
		}
		if opt.Name == "cutoff" {
			// Each shard's search stops at the cutoff, as a local table's
			// does; phase two fetches the rows chosen, whatever it was.
			if opts.cutoff > 0 {
				q.cutoff = ", cutoff=" + strconv.Itoa(opts.cutoff)
			}
			continue
		}
		text, err := optionText(opt)
		if err != nil {
			return nil, err
		}
		q.forward = append(q.forward, text)
	}
	if err := q.compile(); err != nil {
		return nil, err
	}
	timeout := d.queryTimeout
	if do.queryTimeout > 0 {
		timeout = do.queryTimeout
	}
	q.hold = d.holdFor(timeout)
	if len(d.locals)+len(d.agents) == 1 {
		return s.selectForwarded(ctx, d, n, within, rest, do, timeout, start)
	}
	if n.Distinct || n.GroupBy != nil || n.Having != nil || hasAggregate(n.Fields, n.OrderBy) {
		return s.selectDistributedGroups(ctx, d, q, within, do, timeout, start)
	}
	// Phase one: ids and sort keys of each shard's best offset+count.
	round, err := s.firstRound(ctx, d, q, do, timeout, q.phaseOne)
	if err != nil {
		return nil, err
	}
	shards, live := round.shards, round.live
	var cands []distCandidate
	for i, res := range round.answers {
		if res == nil {
			continue
		}
		for _, row := range res[0].Rows {
			keys := row[2:]
			if q.weightOnly() {
				keys = row[1:2]
			}
			cands = append(cands, distCandidate{shard: i, id: asUint(row[0]), weight: asInt(row[1]), keys: keys})
		}
	}

	// Merge: the ORDER BY order, then id; one row per id.
	q.sort(cands)
	seen := make(map[uint64]bool, len(cands))
	merged := cands[:0]
	for _, c := range cands {
		if !seen[c.id] {
			seen[c.id] = true
			merged = append(merged, c)
		}
	}
	// Phase two: the select list of the window's rows, from the shards
	// (and mirrors) that hold them. A shard that answered phase one and
	// then fails (its mirror went down between the phases) is left out as
	// if it had been down from the start: the window is cut again from the
	// other shards' answers (each holds its best offset+count), the rows
	// that come into it are fetched, and total_found and the keyword counts
	// lose its share; its warning says so.
	res := &Result{Rows: [][]any{}}
	byID := map[uint64][]any{}
	asked := map[uint64]bool{} // ids asked for (the answer has those still there)
	var window []distCandidate
	for {
		window = liveWindow(window[:0], merged, live, func(c distCandidate) int { return c.shard }, q.offset, q.want)
		ids := make([][]uint64, len(shards))
		for _, c := range window {
			if !asked[c.id] {
				ids[c.shard] = append(ids[c.shard], c.id)
			}
		}
		need := make([]bool, len(shards))
		anyNeed := false
		for i := range shards {
			need[i] = len(ids[i]) > 0
			anyNeed = anyNeed || need[i]
		}
		if !anyNeed && res.Columns == nil {
			// No row to fetch: one shard still answers the columns, with
			// LIMIT 0.
			for i := range shards {
				if live[i] {
					need[i] = true
					break
				}
			}
		}
		if !slices.Contains(need, true) {
			break
		}
		sent := slices.Clone(need) // (eachShard clears need[i] of a shard that failed)
		rows, err := s.eachShard(ctx, d, shards, need, timeout, do.strict, true, func(i int) func(string) []string {
			return func(table string) []string { return []string{q.phaseTwo(table, ids[i], round.tokens[i])} }
		})
		for i := range sent {
			if sent[i] {
				// A fetch took the snapshot the shard held: one more (the
				// window cut again) reads the shard as it is then, as a
				// shard that holds none is read.
				round.tokens[i] = ""
			}
		}
		if err != nil {
			return nil, err
		}
		lost := fetchedOrLost(sent, rows, ids, live, asked, func(id uint64) uint64 { return id })
		for i, r := range rows {
			if !sent[i] || r == nil {
				continue
			}
			if res.Columns == nil {
				res.Columns = r[0].Columns[1:]
			}
			for _, row := range r[0].Rows {
				byID[asUint(row[0])] = row[1:]
			}
		}
		if !lost {
			break
		}
		round.sum()
	}
	if res.Columns == nil {
		// Every shard is down: no rows, and the columns the select list
		// names.
		res.Columns = unansweredColumns(n.Fields)
	} else {
		nameColumns(res.Columns, n.Fields)
	}
	dropped := make([]int, len(shards))
	for _, c := range window {
		if row, ok := byID[c.id]; ok {
			res.Rows = append(res.Rows, row)
			res.IDs = append(res.IDs, c.id)
		} else if asked[c.id] {
			dropped[c.shard]++
		}
	}
	s.droppedRows(d, shards, dropped)
	s.setDistMeta(q, round.found, round.terms, start)
	return res, nil
}

// droppedRows tells of the rows of a page that a shard found in phase one
// and no longer had in phase two (dropped[i] for shard i): each phase
// reads the shard as it is then, and a document deleted in between, or
// changed so that it no longer matches, is left out of the page rather
// than shown as it was. A warning per shard says how many, and SHOW STATUS
// distributed_rows_dropped counts them. (A document changed in between
// and still matching shows as it is in phase two, in phase one's place.)
func (s *Session) droppedRows(d *distTable, shards []*shard, dropped []int) {
	for i, n := range dropped {
		if n == 0 {
			continue
		}
		s.engine.stats.DistRowsDropped.Add(uint64(n))
		s.pending = append(s.pending, warning{level: "Warning", code: CodeRowsDropped,
			msg: fmt.Sprintf("distributed table '%s': %d row(s) of the page found on %s were deleted or no longer matched there when fetched, and are left out", d.name, n, shards[i].name)})
	}
}

// distRound is the first round of a distributed SELECT, plain or grouped:
// the shards, which of them answered, their answers (a statement, SHOW
// WARNINGS, SHOW META each), and the sums of their SHOW META: total_found
// and the keyword counts.
type distRound struct {
	shards  []*shard
	live    []bool
	answers [][]*Result
	found   int
	terms   []index.TermStat
	tokens  []string // each shard's held snapshot (SHOW META snapshot), or ""
}

// firstRound runs the first round of a distributed SELECT: phase zero
// when the query asks for global IDF, then stmt and SHOW WARNINGS and SHOW
// META on every shard in parallel (a shard with no live mirror left out,
// or the query failed when strict); the shards' warnings are passed up.
func (s *Session) firstRound(ctx context.Context, d *distTable, q *distQuery, do distOptions, timeout time.Duration, stmt func(table string) string) (*distRound, error) {
	r := &distRound{shards: d.shards()}
	r.live = make([]bool, len(r.shards))
	for i := range r.live {
		r.live[i] = true
	}
	if do.globalIDF && q.hasMatch {
		if err := s.distStats(ctx, d, q, r.shards, r.live, timeout, do.strict); err != nil {
			return nil, err
		}
	}
	var err error
	r.answers, err = s.eachShard(ctx, d, r.shards, r.live, timeout, do.strict, false, func(int) func(string) []string {
		return func(table string) []string { return []string{stmt(table), "SHOW WARNINGS", "SHOW META"} }
	})
	if err != nil {
		return nil, err
	}
	r.sum()
	r.tokens = make([]string, len(r.shards))
	for i, res := range r.answers {
		if res != nil {
			r.tokens[i] = metaValue(res[2], "snapshot")
		}
	}
	s.shardWarnings(d, r.shards, r.answers, 1)
	return r, nil
}

// liveWindow appends to out the rows of merged (in order) that are the
// page offset..want once the rows of shards no longer live are left out.
func liveWindow[T any](out, merged []T, live []bool, shard func(T) int, offset, want int) []T {
	rank := 0
	for _, c := range merged {
		if !live[shard(c)] {
			continue
		}
		if rank >= offset && rank < want {
			out = append(out, c)
		}
		rank++
	}
	return out
}

// fetchedOrLost reads a round of phase two: a shard it was sent to (sent)
// that answered has its ids (ids[i], as idOf reads them) marked asked; one
// that did not is no longer live. It reports whether a shard was lost.
func fetchedOrLost[I any](sent []bool, rows [][]*Result, ids [][]I, live []bool, asked map[uint64]bool, idOf func(I) uint64) (lost bool) {
	for i, r := range rows {
		if !sent[i] {
			continue
		}
		if r == nil {
			live[i], lost = false, true
			continue
		}
		for _, id := range ids[i] {
			asked[idOf(id)] = true
		}
	}
	return lost
}

// sum adds up total_found and the keyword counts of the shards that
// answered and are live.
func (r *distRound) sum() {
	r.found, r.terms = 0, nil
	for i, res := range r.answers {
		if res == nil || !r.live[i] {
			continue
		}
		found, terms := metaOf(res[2])
		r.found += found
		r.terms = addTerms(r.terms, terms)
	}
}

// setDistMeta sets what SHOW META tells of a distributed SELECT.
func (s *Session) setDistMeta(q *distQuery, found int, terms []index.TermStat, start time.Time) {
	s.meta = searchMeta(found, q.maxMatch, start)
	if q.hasMatch {
		s.metaQuery = &metaQuery{terms: terms}
	}
}

// eachShard runs one phase on the shards where run[i] is set, in
// parallel, each with the statements stmts(i) makes for its table. A
// shard with no live mirror is left out (its answer nil, run[i] cleared)
// with a warning, or fails the query when strict. It returns when every
// shard has answered or failed: no goroutine outlives it.
func (s *Session) eachShard(ctx context.Context, d *distTable, shards []*shard, run []bool, timeout time.Duration, strict, fixed bool, stmts func(i int) func(string) []string) ([][]*Result, error) {
	out := make([][]*Result, len(shards))
	errs := make([]error, len(shards))
	// The calling goroutine asks the last shard itself: one goroutine
	// fewer to start and wait for.
	last := -1
	for i := range shards {
		if run[i] {
			last = i
		}
	}
	// A shard that did not answer an earlier search of the statement (a
	// FACET's main query) is not asked again: each would wait its timeout.
	skip := func(i int) bool {
		if s.leftOut == nil {
			return false
		}
		err, out := s.leftOut[d.name+"\x00"+shards[i].name]
		errs[i] = err
		return out
	}
	var wg sync.WaitGroup
	for i, sh := range shards {
		if !run[i] || i == last || skip(i) {
			continue
		}
		wg.Go(func() { out[i], errs[i] = s.ask(ctx, d, sh, timeout, fixed, stmts(i)) })
	}
	if last >= 0 && !skip(last) {
		out[last], errs[last] = s.ask(ctx, d, shards[last], timeout, fixed, stmts(last))
	}
	wg.Wait()
	if s.leftOut != nil {
		for i, err := range errs {
			if err != nil && isDeadShard(err) {
				s.leftOut[d.name+"\x00"+shards[i].name] = err
			}
		}
	}
	// The error of the first shard (in the table's order) whose statement
	// failed is the statement's, whichever came first.
	for i, err := range errs {
		if err != nil && !isDeadShard(err) && ctx.Err() == nil {
			return nil, shardError(d, shards[i], err)
		}
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if !isDeadShard(err) {
			return nil, cancelled(err)
		}
		if strict {
			return nil, shardError(d, shards[i], err)
		}
		run[i] = false
		out[i] = nil
		s.pending = append(s.pending, warning{level: "Warning", code: CodeShardFailed, about: "shard " + d.name + " " + shards[i].name,
			msg: fmt.Sprintf("distributed table '%s': %s did not answer and is left out of the result: %v", d.name, shards[i].name, err)})
	}
	return out, nil
}

// compile renders the parts of the SELECT the shards' statements share.
func (q *distQuery) compile() error {
	n := q.n
	var fields []string
	for _, f := range n.Fields.Fields {
		text, err := restore(f)
		if err != nil {
			text = "id" // restore fails only on nodes the planner rejects anyway
		}
		fields = append(fields, text)
	}
	q.fields = strings.Join(fields, ", ")
	if n.Where != nil {
		w, err := restore(n.Where)
		if err != nil {
			return err
		}
		q.where = w
		v := &distMatchFinder{}
		n.Where.Accept(v)
		q.hasMatch, q.matchQ = v.call != nil, v.query
	}
	if n.OrderBy != nil {
		var parts []string
		for _, item := range n.OrderBy.Items {
			e := aliasTarget(item.Expr, n.Fields)
			if f, ok := e.(*ast.FuncCallExpr); ok && e != item.Expr && highlightFuncs[f.FnName.L] {
				// (As one table says it, not as a shard would word it.)
				return Errorf(CodeWrongValue, "cannot ORDER BY '%s': highlighting is computed after sorting and LIMIT", item.Expr.(*ast.ColumnNameExpr).Name.Name.O)
			}
			text, err := restore(e)
			if err != nil {
				return err
			}
			q.keys = append(q.keys, text)
			q.desc = append(q.desc, item.Desc)
			dir := " ASC"
			if item.Desc {
				dir = " DESC"
			}
			parts = append(parts, text+dir)
		}
		q.orderBy = " ORDER BY " + strings.Join(parts, ", ")
	} else if q.hasMatch {
		q.keys, q.desc = []string{"WEIGHT()"}, []bool{true}
	}
	return nil
}

// highlightFuncs are the functions that highlight a page's rows, after it
// is sorted and cut.
var highlightFuncs = map[string]bool{"highlight": true, "snippet": true, "highlight_offsets": true}

// aliasTarget is the select-list expression an ORDER BY item names by its
// alias, or the item itself.
func aliasTarget(e ast.ExprNode, fields *ast.FieldList) ast.ExprNode {
	c, ok := e.(*ast.ColumnNameExpr)
	if !ok || c.Name.Table.O != "" || fields == nil {
		return e
	}
	for _, f := range fields.Fields {
		if f.WildCard == nil && f.AsName.O != "" && strings.EqualFold(f.AsName.O, c.Name.Name.O) {
			return f.Expr
		}
	}
	return e
}

// weightOnly reports whether WEIGHT() is the only sort key (the order of
// a MATCH() without ORDER BY, or ORDER BY WEIGHT()): phase one's WEIGHT()
// column is then the key, not sent twice.
func (q *distQuery) weightOnly() bool {
	return len(q.keys) == 1 && q.keys[0] == "WEIGHT()"
}

// phaseOne is the statement of phase one for a shard's table.
func (q *distQuery) phaseOne(table string) string {
	var b strings.Builder
	b.WriteString("SELECT id, WEIGHT()")
	if !q.weightOnly() {
		for _, k := range q.keys {
			b.WriteString(", " + k)
		}
	}
	b.WriteString(q.fromTable(table))
	if q.where != "" {
		b.WriteString(" WHERE " + q.where)
	}
	b.WriteString(q.orderBy)
	// (No shard returns more than maxMatchesLimit matches: a page that
	// reaches past it asks each for that many, as a local table keeps no
	// more.)
	want := shardWant(q.want)
	fmt.Fprintf(&b, " LIMIT 0, %d", want)
	fmt.Fprintf(&b, "%s%s, hold_snapshot=%d", q.optionTail(max(want, 1)), q.cutoff, q.hold.Milliseconds())
	return b.String()
}

// shardWant is how many matches phase one asks each shard for when the
// page ends at match want: want, or maxMatchesLimit when want is past it.
func shardWant(want int) int { return min(want, maxMatchesLimit) }

// phaseTwo is the statement of phase two: the select list of the given
// rows of a shard's table, with their id first, read from the snapshot
// phase one held there (token; "" for the table's current one).
func (q *distQuery) phaseTwo(table string, ids []uint64, token string) string {
	var b strings.Builder
	b.WriteString("SELECT id, ")
	b.WriteString(q.fields)
	b.WriteString(q.fromTable(table))
	cond := ""
	if len(ids) > 0 {
		list := make([]string, len(ids))
		for i, id := range ids {
			list[i] = strconv.FormatUint(id, 10)
		}
		cond = "id IN (" + strings.Join(list, ", ") + ")"
	}
	switch {
	case q.where != "" && cond != "":
		b.WriteString(" WHERE (" + q.where + ") AND " + cond)
	case q.where != "":
		b.WriteString(" WHERE " + q.where)
	case cond != "":
		b.WriteString(" WHERE " + cond)
	}
	fmt.Fprintf(&b, " LIMIT 0, %d", len(ids))
	b.WriteString(q.optionTail(max(len(ids), 1)))
	if token != "" {
		b.WriteString(", snapshot=" + quoteString(token))
	}
	return b.String()
}

func (q *distQuery) optionTail(maxMatches int) string {
	opts := append(slices.Clone(q.forward), "max_matches="+strconv.Itoa(maxMatches))
	if q.coll != collLibcCI && !slices.ContainsFunc(q.forward, func(o string) bool { return strings.HasPrefix(o, "collation") }) {
		opts = append(opts, "collation='"+q.coll.String()+"'")
	}
	if q.stats != "" {
		opts = append(opts, q.stats)
	}
	return " OPTION " + strings.Join(opts, ", ")
}

// sort orders the candidates as one table orders its rows: by the ORDER BY
// keys (WEIGHT() DESC when there is MATCH() and no ORDER BY), then by id.
func (q *distQuery) sort(cands []distCandidate) {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		for k, desc := range q.desc {
			c, ok := compare(q.coll, a.keys[k], b.keys[k])
			if !ok || c == 0 {
				continue
			}
			if desc {
				return c > 0
			}
			return c < 0
		}
		return a.id < b.id
	})
}

// distMatchFinder finds the MATCH() call of a WHERE clause and its query.
type distMatchFinder struct {
	call  *ast.FuncCallExpr
	query string
}

func (v *distMatchFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "match" && v.call == nil {
		v.call = f
		if len(f.Args) > 0 {
			v.query, _ = stringValue(f.Args[0])
		}
		return n, true
	}
	return n, false
}

func (v *distMatchFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// restore writes a parsed node back as dialect SQL.
func restore(n ast.Node) (string, error) {
	var b strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreStringEscapeBackslash|
		format.RestoreKeyWordUppercase|format.RestoreNameBackQuotes|format.RestoreStringWithoutCharset, &b)
	if err := n.Restore(ctx); err != nil {
		return "", Errorf(CodeUnsupported, "this statement cannot be sent to the shards of a distributed table: %v", err)
	}
	return b.String(), nil
}

// optionText writes an OPTION setting back as text for the shards.
func optionText(opt dialect.Setting) (string, error) {
	if c, ok := opt.Value.(*ast.ColumnNameExpr); ok && c.Name.Table.O == "" {
		return opt.Name + "=" + c.Name.Name.O, nil
	}
	var items []ast.ExprNode
	switch x := opt.Value.(type) {
	case *ast.RowExpr:
		items = x.Values
	case *ast.ParenthesesExpr:
		items = []ast.ExprNode{x.Expr}
	default:
		v, err := restore(opt.Value)
		if err != nil {
			return "", err
		}
		return opt.Name + "=" + v, nil
	}
	// A list like field_weights=(title=10, body=1): names bare, as the
	// dialect's OPTION reads them.
	parts := make([]string, len(items))
	for i, item := range items {
		if eq, ok := item.(*ast.BinaryOperationExpr); ok {
			if c, ok := eq.L.(*ast.ColumnNameExpr); ok {
				v, err := restore(eq.R)
				if err != nil {
					return "", err
				}
				parts[i] = c.Name.Name.O + "=" + v
				continue
			}
		}
		v, err := restore(item)
		if err != nil {
			return "", err
		}
		parts[i] = v
	}
	return opt.Name + "=(" + strings.Join(parts, ", ") + ")", nil
}

// metaOf reads total_found and the keyword rows of a SHOW META answer.
func metaOf(r *Result) (int, []index.TermStat) {
	found := 0
	var terms []index.TermStat
	at := func(i int) *index.TermStat {
		for len(terms) <= i {
			terms = append(terms, index.TermStat{})
		}
		return &terms[i]
	}
	for _, row := range r.Rows {
		name, _ := row[0].(string)
		value, _ := row[1].(string)
		switch {
		case name == "total_found":
			found, _ = strconv.Atoi(value)
		case strings.HasPrefix(name, "keyword["), strings.HasPrefix(name, "docs["), strings.HasPrefix(name, "hits["):
			open := strings.IndexByte(name, '[')
			i, err := strconv.Atoi(strings.TrimSuffix(name[open+1:], "]"))
			if err != nil || i < 0 || i > 1<<16 {
				continue
			}
			t := at(i)
			switch name[:open] {
			case "keyword":
				t.Keyword = value
			case "docs":
				t.Docs, _ = strconv.ParseInt(value, 10, 64)
			case "hits":
				t.Hits, _ = strconv.ParseInt(value, 10, 64)
			}
		}
	}
	return found, terms
}

// metaValue is the value of the row name of a SHOW META answer, or "".
func metaValue(r *Result, name string) string {
	for _, row := range r.Rows {
		if n, _ := row[0].(string); n == name {
			v, _ := row[1].(string)
			return v
		}
	}
	return ""
}

// addTerms sums a shard's keyword counts into the total, keyword by
// keyword (every shard reports the query's keywords in query order).
func addTerms(total, shard []index.TermStat) []index.TermStat {
	for i, t := range shard {
		if i >= len(total) {
			total = append(total, t)
			continue
		}
		total[i].Docs += t.Docs
		total[i].Hits += t.Hits
	}
	return total
}

func asUint(v any) uint64 {
	switch x := v.(type) {
	case uint64:
		return x
	case int64:
		return uint64(x)
	case string:
		n, _ := strconv.ParseUint(x, 10, 64)
		return n
	}
	return 0
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// distStats is phase zero: the shards' document and term counts, summed
// into the OPTION global_stats the later phases send.
func (s *Session) distStats(ctx context.Context, d *distTable, q *distQuery, shards []*shard, live []bool, timeout time.Duration, strict bool) error {
	texts := q.matchQs
	if texts == nil {
		texts = []string{q.matchQ}
	}
	call := func(table string) []string {
		var b strings.Builder
		b.WriteString("CALL QUERY_STATS(" + quoteString(table))
		for _, text := range texts {
			b.WriteString(", " + quoteString(text))
		}
		b.WriteString(")")
		return []string{b.String()}
	}
	answers, err := s.eachShard(ctx, d, shards, live, timeout, strict, false, func(int) func(string) []string { return call })
	if err != nil {
		return err
	}
	g := globalStatsJSON{Terms: map[string]int64{}}
	for _, res := range answers {
		if res == nil {
			continue
		}
		for _, row := range res[0].Rows {
			term, _ := row[0].(string)
			n := asInt(row[1])
			if term == "" {
				g.Docs += n
			} else {
				g.Terms[term] += n
			}
		}
	}
	data, err := json.Marshal(g)
	if err != nil {
		return asError(err)
	}
	q.stats = "global_stats=" + quoteString(string(data))
	q.globalJSON = &g
	return nil
}

// globalStatsJSON is the value of OPTION global_stats: the documents of the
// whole collection and, per term, those that hold it.
type globalStatsJSON struct {
	Docs  int64            `json:"docs"`
	Terms map[string]int64 `json:"terms"`
}

// sqlStringEscaper escapes the text of a single-quoted SQL string. It is
// built once: a coordinator quotes every phase-two statement's snapshot
// token, and building a Replacer per call was 5% of its CPU.
var sqlStringEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`)

// quoteString writes s as a single-quoted SQL string.
func quoteString(s string) string {
	return "'" + sqlStringEscaper.Replace(s) + "'"
}

// selectForwarded runs a SELECT of a distributed table with one shard: the
// statement goes to it whole (its table named instead), in one round, and
// its answer and SHOW META are the answer. There is nothing to merge, and
// the page's rows are the only ones the shard highlights.
func (s *Session) selectForwarded(ctx context.Context, d *distTable, n *ast.SelectStmt, within *ast.OrderByClause, options []dialect.Setting, do distOptions, timeout time.Duration, start time.Time) (*Result, error) {
	var opts []string
	for _, opt := range options {
		text, err := optionText(opt)
		if err != nil {
			return nil, err
		}
		opts = append(opts, text)
	}
	// (Holding no snapshot: a plain table takes it, and a distributed one
	// refuses the statement as a shard's, nestedError.)
	opts = append(opts, "hold_snapshot=0")
	alias := sourceAlias(n.From)
	stmt := func(table string) []string {
		one := *n
		src := &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(table)}}
		if alias != "" && !strings.EqualFold(alias, table) {
			src.AsName = ast.NewCIStr(alias) // (dist.price, b.price name it there too)
		}
		one.From = &ast.TableRefsClause{TableRefs: &ast.Join{Left: src}}
		text, err := forwardedText(&one, within)
		if err != nil {
			text = "SELECT" // the shard reports the syntax error; restore fails only on nodes the planner rejects
		}
		text += " OPTION " + strings.Join(opts, ", ")
		return []string{text, "SHOW WARNINGS", "SHOW META"}
	}
	shards := d.shards()
	answers, err := s.eachShard(ctx, d, shards, []bool{true}, timeout, do.strict, false, func(int) func(string) []string { return stmt })
	if err != nil {
		return nil, err
	}
	if answers[0] == nil {
		s.meta = []metaRow{{"total", "0"}, {"total_found", "0"},
			{"time", strconv.FormatFloat(time.Since(start).Seconds(), 'f', 3, 64)}}
		return &Result{Columns: unansweredColumns(n.Fields), Rows: [][]any{}}, nil
	}
	s.shardWarnings(d, shards, answers, 1)
	s.meta = nil
	for _, row := range answers[0][2].Rows {
		name, _ := row[0].(string)
		value, _ := row[1].(string)
		if name == "warning" {
			continue // (its warnings are passed up above; SHOW META tells them)
		}
		if name == "time" {
			value = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 3, 64)
		}
		s.meta = append(s.meta, metaRow{name, value})
	}
	nameColumns(answers[0][0].Columns, n.Fields)
	return answers[0][0], nil
}

// unansweredColumns are the columns of a distributed SELECT no shard
// answered: named as the select list names them (id and WEIGHT() typed
// as always, others as text, their type being the shards' to tell); a
// select list with * has only id, the one column every table has.
func unansweredColumns(fields *ast.FieldList) []Column {
	idOnly := []Column{{Name: "id", Type: ColUint}}
	if fields == nil {
		return idOnly
	}
	cols := make([]Column, 0, len(fields.Fields))
	for _, f := range fields.Fields {
		if f.WildCard != nil {
			return idOnly
		}
		c := Column{Name: fieldName(f), Type: ColString}
		if x, ok := f.Expr.(*ast.ColumnNameExpr); ok && x.Name.Name.L == "id" {
			c.Type = ColUint
		} else if x, ok := f.Expr.(*ast.FuncCallExpr); ok && x.FnName.L == "weight" {
			c.Type = ColInt
		}
		cols = append(cols, c)
	}
	return cols
}

// nameColumns names the columns of a distributed SELECT's answer as one
// table's answer names them (fieldName: an expression as the client wrote
// it, LENGTH(cat)), where the shards named them by the text the
// coordinator sent them (restored from the tree: LENGTH(`cat`)). A select
// list with * keeps the shards' names, which are the table's columns.
func nameColumns(cols []Column, fields *ast.FieldList) {
	if fields == nil || len(fields.Fields) != len(cols) {
		return
	}
	for _, f := range fields.Fields {
		if f.WildCard != nil {
			return
		}
	}
	for i, f := range fields.Fields {
		cols[i].Name = fieldName(f)
	}
}

// forwardedText writes n back as dialect SQL, with WITHIN GROUP ORDER BY
// (which the dialect takes between GROUP BY and HAVING) when within is
// not nil.
func forwardedText(n *ast.SelectStmt, within *ast.OrderByClause) (string, error) {
	if within == nil {
		return restore(n)
	}
	head := *n
	head.Having, head.OrderBy, head.Limit = nil, nil, nil
	text, err := restore(&head)
	if err != nil {
		return "", err
	}
	parts := []string{text}
	add := func(prefix string, node ast.Node) error {
		t, err := restore(node)
		parts = append(parts, prefix+t)
		return err
	}
	err = add("WITHIN GROUP ", within)
	if err == nil && n.Having != nil {
		err = add("", n.Having)
	}
	if err == nil && n.OrderBy != nil {
		err = add("", n.OrderBy)
	}
	if err == nil && n.Limit != nil {
		err = add("", n.Limit)
	}
	if err != nil {
		return "", err
	}
	return strings.Join(parts, " "), nil
}

// shardWarnings passes up the warnings the shards gave (result set at of
// each answer, SHOW WARNINGS), with the shard's table named as the
// distributed table, each distinct one once: as one table would give them.
// shardCauses is what the statement's warnings say of its shards, for an
// error that none answered: ": <warning>; <warning>" ("" for none).
func (s *Session) shardCauses() string {
	var msgs []string
	for _, w := range s.pending {
		msgs = append(msgs, w.msg)
	}
	if len(msgs) == 0 {
		return ""
	}
	return ": " + strings.Join(msgs, "; ")
}

func (s *Session) shardWarnings(d *distTable, shards []*shard, answers [][]*Result, at int) {
	seen := map[string]bool{}
	for _, w := range s.pending {
		seen[w.msg] = true
	}
	for i, res := range answers {
		if len(res) <= at {
			continue
		}
		if len(res[at].Rows) == 0 {
			continue
		}
		table := shards[i].local
		if table == "" {
			table = shards[i].mirrors[shards[i].asked].table
		}
		names := strings.NewReplacer("table "+table, "table "+d.name, "'"+table+"'", "'"+d.name+"'")
		for _, row := range res[at].Rows {
			level, _ := row[0].(string)
			msg, _ := row[2].(string)
			msg = names.Replace(msg)
			if seen[msg] {
				continue
			}
			seen[msg] = true
			s.pending = append(s.pending, warning{level: level, code: codeOfMySQL(uint16(asInt(row[1]))), msg: msg})
		}
	}
}
