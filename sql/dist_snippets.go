package sql

import (
	"context"
	"strings"

	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// CALL SNIPPETS naming a distributed table (docs/distributed.md), as the
// Sphinx family spreads it over the shards:
//
//   - texts given inline are highlighted by one shard, with its table's
//     settings: the first local one in-process (shipping the texts costs
//     more than highlighting them), else the first agent, else the next
//     when it cannot be reached;
//   - with load_files, the files are shared out: file i goes to shard
//     i mod S, which reads it under its own snippets_file_prefix and
//     highlights it with its table's settings; a shard that cannot be
//     reached, or a file its shard does not have, fails the statement;
//   - with load_files_scattered, every shard is asked for every file, and
//     each file's snippet is the first shard's (in the table's order) that
//     is not empty: a file no shard has gives an empty snippet, a shard that
//     cannot be reached is left out with a warning.
//
// The answer has the rows (and columns) of one table's, in the order of
// the texts.

// snippetsDistributed runs CALL SNIPPETS(data, d, query, options...).
func (s *Session) snippetsDistributed(ctx context.Context, d *distTable, data []string, query string, optionArgs []ast.ExprNode) (*Result, error) {
	// The options as the shards get them, checked here for what decides
	// how the texts are shared out.
	opts := highlight.DefaultOptions()
	list := highlight.List{Opts: &opts, Scope: highlight.ScopeCall}
	var optionText []string
	for _, a := range optionArgs {
		call, ok := a.(*ast.FuncCallExpr)
		if !ok || call.FnName.L != dialect.FuncAs || len(call.Args) != 2 {
			return nil, Errorf(CodeSyntax, "CALL SNIPPETS: options are written 'value AS name', like 200 AS limit")
		}
		name, _ := stringValue(call.Args[1])
		v, ok := optionValue(call.Args[0])
		if !ok {
			return nil, Errorf(CodeBadOption, "CALL SNIPPETS: option '%s' takes a number or a quoted string", name)
		}
		if err := list.Set(name, v); err != nil {
			return nil, Errorf(CodeBadOption, "CALL SNIPPETS: %v", err)
		}
		value, err := restore(call.Args[0])
		if err != nil {
			return nil, err
		}
		optionText = append(optionText, value+" AS "+name)
	}
	stmt := func(texts []string) func(table string) []string {
		return func(table string) []string {
			quoted := make([]string, len(texts))
			for i, t := range texts {
				quoted[i] = quoteString(t)
			}
			var b strings.Builder
			b.WriteString("CALL SNIPPETS((" + strings.Join(quoted, ", ") + "), " + quoteString(table) + ", " + quoteString(query))
			for _, o := range optionText {
				b.WriteString(", " + o)
			}
			b.WriteString(", 1 AS " + shardCallMark + ")")
			return []string{b.String(), "SHOW WARNINGS"}
		}
	}
	shards := d.shards()
	run := make([]bool, len(shards))
	texts := make([][]string, len(shards))
	at := make([][]int, len(shards)) // the rows of the answer each shard's texts fill
	scattered := opts.LoadFilesScattered
	switch {
	case scattered:
		for i := range shards {
			run[i], texts[i] = true, data
		}
	case opts.LoadFiles:
		for i, name := range data {
			k := i % len(shards)
			run[k] = true
			texts[k] = append(texts[k], name)
			at[k] = append(at[k], i)
		}
	}
	var answers [][]*Result
	var err error
	if scattered || opts.LoadFiles {
		answers, err = s.eachShard(ctx, d, shards, run, d.queryTimeout, !scattered, false, func(i int) func(string) []string { return stmt(texts[i]) })
	} else {
		order := make([]int, len(data))
		for i := range order {
			order[i] = i
		}
		for k := range at {
			at[k] = order // whichever shard answers
		}
		answers, err = s.snippetsInline(ctx, d, shards, stmt(data))
	}
	if err != nil {
		return nil, err
	}
	s.shardWarnings(d, shards, answers, 1)
	var res *Result
	for i, a := range answers {
		if a == nil {
			continue
		}
		if res == nil {
			res = &Result{Columns: a[0].Columns, Rows: make([][]any, len(data))}
		}
		for j, row := range a[0].Rows {
			if scattered {
				if res.Rows[j] == nil || res.Rows[j][0] == "" {
					res.Rows[j] = row
				}
				continue
			}
			res.Rows[at[i][j]] = row
		}
	}
	if res == nil {
		if causes := s.shardCauses(); causes != "" {
			return nil, Errorf(CodeShardFailed, "CALL SNIPPETS over distributed table '%s': no shard answered%s", d.name, causes)
		}
		return nil, Errorf(CodeShardFailed, "CALL SNIPPETS over distributed table '%s': no shard answered (%s)", d.name, d.shardsText())
	}
	return res, nil
}

// snippetsInline asks the shards in turn (locals first, in d.shards()'s
// order) to highlight texts given inline, until one answers: one that
// cannot be reached is left out with a warning, and the next one, whose
// table has the same settings in a well-made distributed table, does it.
func (s *Session) snippetsInline(ctx context.Context, d *distTable, shards []*shard, stmts func(string) []string) ([][]*Result, error) {
	run := make([]bool, len(shards))
	for k := range shards {
		clear(run)
		run[k] = true
		answers, err := s.eachShard(ctx, d, shards, run, d.queryTimeout, false, false, func(int) func(string) []string { return stmts })
		if err != nil || answers[k] != nil {
			return answers, err
		}
	}
	return make([][]*Result, len(shards)), nil
}
