package sql

import (
	"context"
	"encoding/json"

	"github.com/glint-search/glint/index"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// CALL QUERY_STATS('table', 'query' [, 'query' ...]) is how a coordinator
// asks a shard for the statistics ranking reads (phase zero of a
// distributed search with OPTION global_idf=1): one row per term of the
// queries as the table indexes them (term, docs: the live documents that
// hold it), and first a row with an empty term whose docs are the table's
// live documents. Each query is read on its own, as the search reads it (a
// JSON search has one full-text query per match clause, an empty one
// among them). The sums over
// every shard go back as OPTION global_stats='{"docs":N,"terms":{...}}'
// (parseGlobalStats), which a search then ranks with instead of the
// table's own counts.

// isQueryStatsCall reports whether a CALL is CALL QUERY_STATS.
func isQueryStatsCall(n *ast.CallStmt) bool {
	return n.Procedure != nil && n.Procedure.FnName.L == "query_stats"
}

func (s *Session) callQueryStats(ctx context.Context, n *ast.CallStmt) (*Result, error) {
	args := n.Procedure.Args
	if len(args) < 2 {
		return nil, Errorf(CodeSyntax, "CALL QUERY_STATS takes the table and one or more full-text queries, quoted")
	}
	table, ok := stringValue(args[0])
	if !ok {
		return nil, Errorf(CodeWrongValue, "CALL QUERY_STATS: the first argument must be the table name, quoted")
	}
	texts := make([]string, len(args)-1)
	for i, arg := range args[1:] {
		if texts[i], ok = stringValue(arg); !ok {
			return nil, Errorf(CodeWrongValue, "CALL QUERY_STATS: argument %d must be a full-text query, quoted", i+2)
		}
	}
	if _, dist, _ := s.distributed(table); dist {
		return nil, nestedError(table, "CALL QUERY_STATS")
	}
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	snap := t.Snapshot()
	r := &Result{Columns: []Column{{"term", ColString}, {"docs", ColInt}}, Rows: [][]any{{"", int64(snap.Count())}}}
	seen := map[string]bool{}
	for _, text := range texts {
		q, err := snap.ParseQuery(text)
		if err != nil {
			return nil, Errorf(CodeQuerySyntax, "MATCH(): %v", err)
		}
		if q == nil {
			continue
		}
		stats, err := snap.TermStats(ctx, q)
		if err != nil {
			return nil, asError(err)
		}
		for _, st := range stats {
			if !seen[st.Term] {
				seen[st.Term] = true
				r.Rows = append(r.Rows, []any{st.Term, st.Docs})
			}
		}
	}
	return r, nil
}

// parseGlobalStats reads OPTION global_stats.
func parseGlobalStats(v ast.ExprNode) (*index.GlobalStats, error) {
	text, ok := stringValue(v)
	var g globalStatsJSON
	if !ok || json.Unmarshal([]byte(text), &g) != nil || g.Docs < 0 {
		return nil, Errorf(CodeBadOption, `OPTION global_stats takes the statistics of a collection as JSON, like '{"docs":1000,"terms":{"word":12}}'`)
	}
	return &index.GlobalStats{Docs: g.Docs, TermDocs: g.Terms}, nil
}

// onlyIDs returns the ids of a top-level conjunct "id IN (constants)" of a
// WHERE clause (a coordinator's phase two, or any such SELECT), or nil:
// only those documents can pass, so the search need evaluate no other
// (index.SearchOptions.Only).
func onlyIDs(where expr) []uint64 {
	switch x := where.(type) {
	case logicExpr:
		if !x.and {
			return nil
		}
		if ids := onlyIDs(x.l); ids != nil {
			return ids
		}
		return onlyIDs(x.r)
	case inExpr:
		if _, isID := x.x.(idExpr); !isID || x.not {
			return nil
		}
		ids := make([]uint64, 0, len(x.list))
		for _, e := range x.list {
			c, ok := e.(constExpr)
			if !ok {
				return nil
			}
			switch v := c.v.(type) {
			case int64:
				if v >= 0 {
					ids = append(ids, uint64(v))
				}
			case uint64:
				ids = append(ids, v)
			default:
				return nil
			}
		}
		return ids
	}
	return nil
}
