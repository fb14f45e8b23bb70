package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// CALL KEYWORDS(text, 'table' [, 1 | value AS stats]) shows how a table
// reads words: for each word of text its query position (qpos; a stopword
// takes its position and is not shown), the word as the table's
// charset_table folds it (tokenized) and the term it searches for after
// wordforms and morphology (normalized). With stats, each row also has
// the table's count of documents holding the term and of its
// occurrences (docs, hits), as SHOW META reports them after a search. The
// text is read as the query tokenizer reads a query's words: operators are
// separators, and a wildcard is one row whose counts add up its
// expansions.

func isKeywordsCall(n *ast.CallStmt) bool {
	return n.Procedure != nil && n.Procedure.FnName.L == "keywords"
}

func (s *Session) callKeywords(ctx context.Context, n *ast.CallStmt) (*Result, error) {
	args := n.Procedure.Args
	if len(args) < 2 {
		return nil, Errorf(CodeSyntax, "CALL KEYWORDS takes the text and the table, then 1 or 1 AS stats for the counts")
	}
	text, ok := stringValue(args[0])
	if !ok {
		return nil, Errorf(CodeWrongValue, "CALL KEYWORDS: the first argument must be the text, quoted")
	}
	tableName, ok := stringValue(args[1])
	if !ok {
		return nil, Errorf(CodeWrongValue, "CALL KEYWORDS: the second argument must be the table name, quoted")
	}
	stats := false
	options, fromCoordinator := takeShardMark(args[2:])
	for i, a := range options {
		name, value := "stats", a // (the third argument alone is the stats flag, as in the reference)
		if call, ok := a.(*ast.FuncCallExpr); ok && call.FnName.L == dialect.FuncAs && len(call.Args) == 2 {
			name, _ = stringValue(call.Args[1])
			name, value = strings.ToLower(name), call.Args[0]
		} else if i > 0 {
			return nil, Errorf(CodeSyntax, "CALL KEYWORDS: options after the third argument are written 'value AS name', like 1 AS stats")
		}
		if name != "stats" {
			return nil, Errorf(CodeBadOption, "CALL KEYWORDS: unknown option '%s'; glint takes stats", name)
		}
		n, ok := intOption(value)
		if !ok || n < 0 || n > 1 {
			return nil, Errorf(CodeBadOption, "CALL KEYWORDS: stats takes 0 or 1")
		}
		stats = n == 1
	}
	if d, dist, err := s.distributed(tableName); dist {
		if err != nil {
			return nil, err
		}
		if fromCoordinator {
			return nil, nestedError(tableName, "CALL KEYWORDS with "+shardCallMark)
		}
		return s.callKeywordsDistributed(ctx, d, text, stats)
	}
	if unlock, held := s.engine.repl.holdDBs(s); held {
		defer unlock()
	}
	t, err := s.table(tableName)
	if err != nil {
		return nil, err
	}
	snap := t.Snapshot()
	tok := snap.Tokenizer().Query()

	type word struct {
		qpos                  int
		tokenized, normalized string
	}
	var words []word
	var it tokenize.Iter
	it.Reset(tok, text)
	for it.Next() {
		term := string(it.Term())
		if term == "" || tokenize.IsReserved(term) {
			continue // (an exact form's mark, a zone's: no word of the text)
		}
		words = append(words, word{it.Pos(), tok.Fold(text[it.Start():it.End()]), term})
	}
	res := &Result{Columns: []Column{{"qpos", ColInt}, {"tokenized", ColString}, {"normalized", ColString}}}
	var counts map[string][2]int64
	if stats {
		res.Columns = append(res.Columns, Column{"docs", ColInt}, Column{"hits", ColInt})
		terms := make([]string, len(words))
		for i, w := range words {
			terms[i] = w.normalized
		}
		if counts, err = termCounts(ctx, snap, terms); err != nil {
			return nil, err
		}
	}
	res.Rows = make([][]any, 0, len(words))
	for _, w := range words {
		row := []any{int64(w.qpos), w.tokenized, w.normalized}
		if stats {
			c := counts[w.normalized]
			row = append(row, c[0], c[1])
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// termCounts is the documents and occurrences of each distinct term in
// snap, by term: one search of the terms' keywords.
func termCounts(ctx context.Context, snap *index.Snapshot, terms []string) (map[string][2]int64, error) {
	seen := map[string]bool{}
	var kws []query.Node
	for _, term := range terms {
		if seen[term] {
			continue
		}
		seen[term] = true
		kws = append(kws, query.Keyword{Text: term, Term: term, QPos: len(kws) + 1, Wildcard: strings.ContainsAny(term, "*?%")})
	}
	out := map[string][2]int64{}
	if len(kws) == 0 {
		return out, nil
	}
	st, err := snap.TermStats(ctx, query.Or{Children: kws})
	if err != nil {
		return nil, asError(err)
	}
	for _, t := range st {
		c := out[t.Keyword]
		out[t.Keyword] = [2]int64{c[0] + t.Docs, c[1] + t.Hits}
	}
	return out, nil
}

// callKeywordsDistributed answers CALL KEYWORDS on a distributed table:
// every shard is asked (locals in-process, agents as CALL KEYWORDS on
// their table); the words are the first shard's that answers (the shards
// share the table's settings), and with stats each word's docs and hits
// are the sums of the shards', as one table holding all their documents
// counts them. A shard that reads the words otherwise (other settings)
// is left out of the counts with a warning; one that does not answer is
// left out as in a search.
func (s *Session) callKeywordsDistributed(ctx context.Context, d *distTable, text string, stats bool) (*Result, error) {
	flag := "0"
	if stats {
		flag = "1"
	}
	stmt := func(table string) []string {
		return []string{"CALL KEYWORDS(" + quoteString(text) + ", " + quoteString(table) + ", " + flag + " AS stats, 1 AS " + shardCallMark + ")"}
	}
	shards := d.shards()
	run := make([]bool, len(shards))
	for i := range run {
		run[i] = true
	}
	answers, err := s.eachShard(ctx, d, shards, run, d.queryTimeout, false, false, func(int) func(string) []string { return stmt })
	if err != nil {
		return nil, err
	}
	var res *Result
	for i, a := range answers {
		if len(a) == 0 {
			continue
		}
		r := a[0]
		if res == nil {
			res = &Result{Columns: r.Columns, Rows: make([][]any, len(r.Rows))}
			for j, row := range r.Rows {
				res.Rows[j] = slices.Clone(row)
			}
			continue
		}
		if !sameWords(res, r) {
			s.pending = append(s.pending, warning{level: "Warning", code: CodeShardFailed,
				msg: fmt.Sprintf("distributed table '%s': %s reads the words of the text otherwise (its settings differ from the first shard's); its counts are left out", d.name, shards[i].name)})
			continue
		}
		if stats {
			for j, row := range r.Rows {
				res.Rows[j][3] = asInt(res.Rows[j][3]) + asInt(row[3])
				res.Rows[j][4] = asInt(res.Rows[j][4]) + asInt(row[4])
			}
		}
	}
	if res == nil {
		return nil, Errorf(CodeShardFailed, "CALL KEYWORDS on distributed table '%s': no shard answered%s", d.name, s.shardCauses())
	}
	return res, nil
}

// sameWords reports whether two CALL KEYWORDS answers read the same words
// (qpos, tokenized, normalized).
func sameWords(a, b *Result) bool {
	if len(a.Rows) != len(b.Rows) || len(a.Columns) != len(b.Columns) {
		return false
	}
	for j := range a.Rows {
		for k := 0; k < 3; k++ {
			if fmt.Sprint(a.Rows[j][k]) != fmt.Sprint(b.Rows[j][k]) {
				return false
			}
		}
	}
	return true
}
