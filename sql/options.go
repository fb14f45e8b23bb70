package sql

import (
	"strings"
	"time"

	"github.com/glint-search/glint/index"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// maxMatchesLimit is the largest OPTION max_matches.
const maxMatchesLimit = MaxMatchesLimit

// MaxMatchesLimit is the largest max_matches, of OPTION and of JSON.
const MaxMatchesLimit = 100_000_000

// selectOptions is the OPTION tail of a SELECT (README, Decisions).
type selectOptions struct {
	maxMatches   int            // -1: not given
	ranker       index.Ranker   // the zero value is the default ranker
	fieldWeights map[string]int // nil: every field weighs 1
	maxQueryTime time.Duration  // 0: no limit of its own
	// global are the collection statistics a coordinator sends its shards
	// (OPTION global_stats, dist_stats.go); nil: the table's own.
	global *index.GlobalStats
	// linearizable is OPTION consistency='linearizable': a read of a
	// cluster's table first learns, through its leader, the last write
	// committed anywhere, and waits until this member has applied it.
	linearizable bool
	// holdSnapshot and snapshot are a coordinator's (dist_snapshot.go):
	// hold the snapshot searched for phase two that long (0: not at all;
	// never less than snapshotHold); read the one held under that token
	// ("": the table's current one).
	holdSnapshot time.Duration
	snapshot     string
	// cutoff > 0 stops the search once it has found that many matching
	// documents (OPTION cutoff, as the JSON request's cutoff).
	cutoff int
}

// knownOptions lists the OPTIONs a user gives, for the error of an unknown
// one (global_stats, hold_snapshot and snapshot are a coordinator's).
const knownOptions = "max_matches, max_query_time, cutoff, ranker, field_weights, consistency and collation; " +
	"on a distributed table also global_idf, agent_query_timeout and strict_shards"

// maxQueryTimeLimit is the largest OPTION max_query_time, in milliseconds
// (about 24 days, as a 32-bit count of them).
const maxQueryTimeLimit = 1<<31 - 1

// parseSelectOptions checks the OPTION tail. Every option is validated here;
// names that glint does not know are errors rather than silently ignored.
func parseSelectOptions(options []dialect.Setting) (selectOptions, error) {
	o := selectOptions{maxMatches: -1}
	seen := map[string]bool{}
	for _, opt := range options {
		if seen[opt.Name] {
			return o, Errorf(CodeBadOption, "OPTION %s is given twice", opt.Name)
		}
		seen[opt.Name] = true
		switch opt.Name {
		case "consistency":
			v, ok := stringValue(opt.Value)
			if cn, isName := opt.Value.(*ast.ColumnNameExpr); isName {
				v, ok = cn.Name.Name.O, true
			}
			switch strings.ToLower(v) {
			case "local":
			case "linearizable":
				o.linearizable = true
			default:
				if !ok {
					v = "that value"
				}
				return o, Errorf(CodeBadOption, "OPTION consistency takes 'local' (the default: what this member has applied, and your own writes) or 'linearizable', not %s", v)
			}
		case "max_matches":
			n, ok := intOption(opt.Value)
			if !ok || n < 1 || n > maxMatchesLimit {
				return o, Errorf(CodeBadOption, "OPTION max_matches takes an integer from 1 to %d", maxMatchesLimit)
			}
			o.maxMatches = int(n)
		case "ranker":
			var r string
			switch v := opt.Value.(type) {
			case *ast.ColumnNameExpr:
				r = v.Name.Name.O
			case ast.ValueExpr:
				r, _ = v.GetValue().(string)
			case *ast.FuncCallExpr:
				return o, Errorf(CodeBadOption, "OPTION ranker=%s(...) is not supported; use one of %s", v.FnName.O, strings.Join(index.RankerNames(), ", "))
			}
			rk, err := index.ParseRanker(r)
			if err != nil {
				return o, Errorf(CodeBadOption, "%v in OPTION ranker; use one of %s", err, strings.Join(index.RankerNames(), ", "))
			}
			o.ranker = rk
		case "max_query_time":
			// Milliseconds, as in the Sphinx family; 0 is no limit.
			n, ok := intOption(opt.Value)
			if !ok || n < 0 || n > maxQueryTimeLimit {
				return o, Errorf(CodeBadOption, "OPTION max_query_time takes milliseconds, an integer from 0 (no limit) to %d", maxQueryTimeLimit)
			}
			o.maxQueryTime = time.Duration(n) * time.Millisecond
		case "cutoff":
			// The matching documents found at which the search stops, in
			// index order; 0 is no cutoff, as leaving it out.
			n, ok := intOption(opt.Value)
			if !ok || n < 0 || n > maxMatchesLimit {
				return o, Errorf(CodeBadOption, "OPTION cutoff takes an integer from 0 (no cutoff) to %d", maxMatchesLimit)
			}
			o.cutoff = int(n)
		case "field_weights":
			w, err := fieldWeights(opt.Value)
			if err != nil {
				return o, err
			}
			o.fieldWeights = w
		case "global_stats":
			g, err := parseGlobalStats(opt.Value)
			if err != nil {
				return o, err
			}
			o.global = g
		case "hold_snapshot":
			n, ok := intOption(opt.Value)
			if !ok || n < 0 || n > maxHoldMillis {
				return o, Errorf(CodeBadOption, "OPTION hold_snapshot takes 0 (none) or how many milliseconds to hold the snapshot, at most %d (under %d, it is held %d ms)",
					maxHoldMillis, snapshotHold.Milliseconds(), snapshotHold.Milliseconds())
			}
			o.holdSnapshot = time.Duration(n) * time.Millisecond
		case "snapshot":
			token, ok := stringValue(opt.Value)
			if !ok || token == "" {
				return o, Errorf(CodeBadOption, "OPTION snapshot takes the token, quoted, that SHOW META gave after OPTION hold_snapshot")
			}
			o.snapshot = token
		case "collation":
			// (Checked and applied before the statement is compiled:
			// Session.useCollation.)
			if _, _, err := collationOption([]dialect.Setting{opt}); err != nil {
				return o, err
			}
		case "global_idf", "agent_query_timeout", "strict_shards":
			return o, Errorf(CodeBadOption, "OPTION %s applies to distributed tables", opt.Name)
		default:
			return o, Errorf(CodeBadOption, "unknown OPTION '%s'; glint knows %s", opt.Name, knownOptions)
		}
	}
	return o, nil
}

// fieldWeights reads field_weights=(title=10, content=1).
func fieldWeights(v ast.ExprNode) (map[string]int, error) {
	bad := Errorf(CodeBadOption, "OPTION field_weights takes a list like (title=10, content=1) of fields and integer weights")
	var items []ast.ExprNode
	switch x := v.(type) {
	case *ast.RowExpr:
		items = x.Values
	case *ast.ParenthesesExpr:
		items = []ast.ExprNode{x.Expr}
	default:
		return nil, bad
	}
	weights := make(map[string]int, len(items))
	for _, item := range items {
		eq, ok := item.(*ast.BinaryOperationExpr)
		if !ok || eq.Op != opcode.EQ {
			return nil, bad
		}
		col, ok := eq.L.(*ast.ColumnNameExpr)
		if !ok || col.Name.Table.O != "" {
			return nil, bad
		}
		n, ok := intOption(eq.R)
		if !ok || n < 0 || n > 1_000_000 {
			return nil, Errorf(CodeBadOption, "OPTION field_weights: the weight of '%s' must be an integer from 0 to 1000000", col.Name.Name.O)
		}
		name := col.Name.Name.L
		if _, dup := weights[name]; dup {
			return nil, Errorf(CodeBadOption, "OPTION field_weights names '%s' twice", col.Name.Name.O)
		}
		weights[name] = int(n)
	}
	return weights, nil
}

// intOption is the integer value of an option literal (with a plus sign
// or none: a minus is for the ranges to refuse, as a negative literal).
func intOption(v ast.ExprNode) (int64, bool) {
	if u, ok := v.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Plus {
		v = u.V
	}
	lit, ok := v.(ast.ValueExpr)
	if !ok {
		return 0, false
	}
	switch n := lit.GetValue().(type) {
	case int64:
		return n, true
	case uint64:
		if n <= 1<<62 {
			return int64(n), true
		}
	}
	return 0, false
}
