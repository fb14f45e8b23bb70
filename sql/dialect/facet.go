package dialect

import (
	"strconv"
	"strings"
)

// FacetTable is the table name the FACET clauses of a SELECT read in their
// rewrite: the SQL layer runs each over the main statement's FROM and WHERE.
const FacetTable = "__glint_facet"

// A FACET clause is rewritten into a grouped SELECT of its own:
//
//	FACET a, b [BY c] [ORDER BY x] [LIMIT n]
//	SELECT a, b FROM __glint_facet GROUP BY c|1, 2 [ORDER BY x] [LIMIT n]

// facetStart returns the index of the first FACET clause of a SELECT: the
// word FACET outside parentheses, where it cannot be a column name; len(s)
// when there is none.
func (r *rewriter) facetStart() int {
	depth := 0
	for i := 1; i < len(r.s); i++ {
		switch {
		case r.opens(i):
			depth++
		case r.closes(i):
			depth--
		case depth == 0 && r.isFacet(i):
			return i
		}
	}
	return len(r.s)
}

// isFacet reports whether s[i] is the word FACET starting a clause rather
// than a column named facet.
func (r *rewriter) isFacet(i int) bool {
	if !r.word(i, "FACET") || r.punct(i-1, '.') || r.punct(i-1, ',') || r.punct(i-1, '(') || r.word(i-1, "SELECT") {
		return false
	}
	return i+1 == len(r.s) || r.s[i+1].kind == tokWord || r.s[i+1].kind == tokQuoted
}

// facets rewrites the FACET clauses from s[from] (a FACET word) to the end.
func (r *rewriter) facets(from int) ([]*output, error) {
	var outs []*output
	for i := from; i < len(r.s); {
		end := i + 1
		for depth := 0; end < len(r.s); end++ {
			if r.opens(end) {
				depth++
			} else if r.closes(end) {
				depth--
			} else if depth == 0 && r.isFacet(end) {
				break
			}
		}
		out, err := r.facet(i, end)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
		i = end
	}
	return outs, nil
}

// facet rewrites the FACET clause s[i:end].
func (r *rewriter) facet(i, end int) (*output, error) {
	by, order, limit := -1, -1, -1
	depth := 0
	for k := i + 1; k < end; k++ {
		switch {
		case r.opens(k):
			depth++
		case r.closes(k):
			depth--
		case depth > 0:
		case r.word(k, "BY") && !r.word(k-1, "ORDER") && by < 0 && order < 0 && limit < 0:
			by = k
		case r.word(k, "ORDER") && r.word(k+1, "BY") && order < 0 && limit < 0:
			order = k
		case r.word(k, "LIMIT") && limit < 0:
			limit = k
		case r.word(k, "DISTINCT") || r.word(k, "MODE") || r.word(k, "FILTERS") || r.word(k, "EXCLUDE") || r.word(k, "ALL") && r.word(k+1, "FILTERS"):
			return nil, errorAt(r.src, r.s[k].start, "FACET ... %s is not supported", strings.ToUpper(r.text(r.s[k])))
		}
	}
	exprEnd := end // the token after the facet's expression list
	for _, k := range []int{limit, order, by} {
		if k >= 0 {
			exprEnd = k
		}
	}
	if exprEnd == i+1 {
		return nil, r.errorAtToken(i+1, len(r.s), "FACET: expected an expression")
	}
	edits := []edit{{start: r.s[i].start, end: r.s[i].end, text: "SELECT"}}
	if by >= 0 {
		next := end
		if order >= 0 {
			next = order
		} else if limit >= 0 {
			next = limit
		}
		if next == by+1 {
			return nil, r.errorAtToken(by+1, len(r.s), "FACET ... BY: expected an expression")
		}
		edits = append(edits, edit{start: r.s[by].start, end: r.s[by].end, text: "FROM " + quoted(FacetTable) + " GROUP BY"})
	} else {
		// GROUP BY the items by position: an item may have an alias.
		items, depth := 1, 0
		for k := i + 1; k < exprEnd; k++ {
			switch {
			case r.opens(k):
				depth++
			case r.closes(k):
				depth--
			case depth == 0 && r.punct(k, ','):
				items++
			}
		}
		positions := make([]string, items)
		for k := range positions {
			positions[k] = strconv.Itoa(k + 1)
		}
		edits = append(edits, edit{start: r.s[exprEnd-1].end, end: r.s[exprEnd-1].end,
			text: " FROM " + quoted(FacetTable) + " GROUP BY " + strings.Join(positions, ", ")})
	}
	return applyEdits(r.src, r.s[i].start, r.s[end-1].end, edits)
}

// withinGroup cuts WITHIN GROUP ORDER BY items out of the first n tokens
// of a SELECT, which it must be among (after GROUP BY, before HAVING, ORDER
// BY, LIMIT): the main text loses it, and it comes back as
// SELECT 1 FROM __glint_facet ORDER BY items, for the items' parse.
func (r *rewriter) withinGroup(n int) (*output, error) {
	depth := 0
	for i := 1; i < n; i++ {
		switch {
		case r.opens(i):
			depth++
		case r.closes(i):
			depth--
		case depth == 0 && r.word(i, "WITHIN") && r.word(i+1, "GROUP"):
			if i+3 >= n || !r.word(i+2, "ORDER") || !r.word(i+3, "BY") {
				return nil, r.errorAtToken(i+2, n, "expected ORDER BY after WITHIN GROUP")
			}
			end := i + 4
			for d := 0; end < n; end++ {
				if r.opens(end) {
					d++
				} else if r.closes(end) {
					d--
				} else if d == 0 && (r.word(end, "HAVING") || r.word(end, "ORDER") || r.word(end, "LIMIT")) {
					break
				}
			}
			if end == i+4 {
				return nil, r.errorAtToken(end, n, "WITHIN GROUP ORDER BY: expected an expression")
			}
			r.edits = append(r.edits, edit{start: r.s[i].start, end: r.s[end-1].end, text: " "})
			return applyEdits(r.src, r.s[i].start, r.s[end-1].end,
				[]edit{{start: r.s[i].start, end: r.s[i+1].end, text: "SELECT 1 FROM " + quoted(FacetTable)}})
		}
	}
	return nil, nil
}
