package sql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/glint-search/glint/highlight"
)

// The highlighting work budget (work_budget, and the server's
// highlight_work_budget where a request sets none) bounds the bytes of text
// one request highlights: the rows of a SELECT's page, the hits of a JSON
// search, the texts of CALL SNIPPETS. It is spent in row order, whatever
// order the rows are then worked on in: a row whose texts would take the
// total past the budget shows the beginning of each field, unmarked, and
// spends nothing, so a later, smaller row may still fit. The answer says how
// many rows fell back (a warning, SHOW META's highlight_truncated, the JSON
// answer's highlight_truncated).

// fallbackLimit is the codepoints a fallback shows when the request has no
// limit: a beginning, not the whole text the budget refused.
const fallbackLimit = 256

// budgeted is a page expression whose work the budget bounds.
type budgeted interface {
	// workCost is the bytes of text eval would highlight in row r.
	workCost(r *row) (int, error)
	// budgetOptions are the request's options, which may set work_budget.
	budgetOptions() *highlight.Options
}

// SetHighlightWorkBudget sets the server's default highlighting work budget,
// in bytes of text per request (0: none): the budget of every request that
// does not set work_budget itself.
func (e *Engine) SetHighlightWorkBudget(n int) { e.workBudget = max(n, 0) }

// budgetOf is the budget of a request whose options are o: its own
// work_budget, or the server's.
func (e *Engine) budgetOf(o *highlight.Options) int {
	if o.IsSet("work_budget") {
		return o.WorkBudget
	}
	return e.workBudget
}

// spend walks costs in order and reports which items do not fit the
// budget (nil when all do), and how many.
func spend(budget int, costs []int) ([]bool, int) {
	if budget <= 0 {
		return nil, 0
	}
	var over []bool
	used, n := 0, 0
	for i, c := range costs {
		if used+c <= budget {
			used += c
			continue
		}
		if over == nil {
			over = make([]bool, len(costs))
		}
		over[i] = true
		n++
	}
	return over, n
}

// pageBudget decides which rows of a page fall back: the budget is the
// smallest any of the page's highlighting expressions gives, a row's cost
// what they all would highlight in it.
func (s *Session) pageBudget(exprs []budgeted, n int, at func(i int) *row) (over []bool, k, budget int, err error) {
	for _, e := range exprs {
		if b := s.engine.budgetOf(e.budgetOptions()); b > 0 && (budget == 0 || b < budget) {
			budget = b
		}
	}
	if budget == 0 {
		return nil, 0, 0, nil
	}
	costs := make([]int, n)
	for i := range costs {
		r := at(i)
		for _, e := range exprs {
			c, err := e.workCost(r)
			if err != nil {
				return nil, 0, 0, err
			}
			costs[i] += c
		}
	}
	over, k = spend(budget, costs)
	return over, k, budget, nil
}

// budgetWarning is the warning of a request where k of its rows (or texts,
// what) went past the budget.
func budgetWarning(k int, what string, budget int) warning {
	verb := "are"
	if k == 1 {
		verb, what = "is", strings.TrimSuffix(what, "s")
	}
	return warning{level: "Warning", code: CodeHighlightTruncated,
		msg: fmt.Sprintf("%d %s %s past the highlighting work budget of %d bytes (work_budget, or the server's highlight_work_budget) and %s shown from the beginning, unhighlighted", k, what, verb, budget, verb)}
}

// fallbackOptions are the options of a fallback: the request's, showing a
// beginning whatever allow_empty says, under its limit or fallbackLimit.
func fallbackOptions(o *highlight.Options) *highlight.Options {
	f := *o
	f.AllowEmpty = false
	if f.Limit == 0 {
		f.Limit = fallbackLimit
	}
	return &f
}

// textBeginning is a prefix of text that holds the beginning a fallback
// shows under limit codepoints: at least limit+1 codepoints, up to the end
// of the word there (at most maxWordScan bytes further), so that the
// highlighter tokenizes a few kilobytes, not the whole text.
func textBeginning(text string, limit int) string {
	const maxWordScan = 1 << 10
	end := 4*limit + 4
	if end >= len(text) {
		return text
	}
	for stop := min(len(text), end+maxWordScan); end < stop && !isBlankByte(text[end]); end++ {
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	return text[:end]
}

func isBlankByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// beginningField is a field past the budget as the highlighter takes it:
// the beginning of its text, tokenized with the table's tokenizer, without
// marks.
func (m *hlMatchers) beginningField(t hlTable, name, text string, limit int, html bool, ms *rowMatches) (highlight.Field, error) {
	text = textBeginning(text, limit)
	tm, err := ms.match(m.anyText, nil, []string{text})
	if err != nil {
		return highlight.Field{}, err
	}
	ft := tm.Fields[0]
	ft.Marks, ft.Found = nil, 0
	return t.field(name, text, ft, html), nil
}
