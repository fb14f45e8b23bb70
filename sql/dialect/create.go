package dialect

import "strings"

// columnTypes maps the dialect's column type words to their canonical names.
// text is special: it may be followed by indexed and stored.
var columnTypes = map[string]string{
	"text":      "text",
	"string":    "string",
	"int":       "uint",
	"integer":   "uint",
	"uint":      "uint",
	"bigint":    "bigint",
	"float":     "float",
	"bool":      "bool",
	"timestamp": "timestamp",
	"multi":     "multi",
	"multi64":   "multi64",
	"json":      "json",
}

// constraintWords start an element of a column list that is not a column; the
// rewrite leaves such elements to TiDB (and the SQL layer rejects them).
var constraintWords = []string{"PRIMARY", "KEY", "INDEX", "UNIQUE", "CONSTRAINT", "FOREIGN", "FULLTEXT", "SPATIAL", "CHECK"}

// createTable rewrites the column types of CREATE [TEMPORARY] TABLE [IF NOT EXISTS]
// t (...) and finds the settings after the column list. It returns the index of
// the first token of the settings (len(s) when there are none).
func (r *rewriter) createTable() (int, *tail, error) {
	i := 1
	if r.word(i, "TEMPORARY") {
		i++
	}
	if !r.word(i, "TABLE") {
		return len(r.s), nil, nil
	}
	if at, ok := r.settingsAfterName(i + 1); ok {
		// CREATE TABLE d type='distributed' ...: no column list. TiDB
		// needs one, so it reads a stand-in column that the SQL layer
		// recognises (NoColumns).
		r.edits = append(r.edits, edit{start: r.s[at-1].end, end: r.s[at-1].end,
			text: " (" + NoColumns + " TEXT COMMENT " + quoteString(ColumnTypePrefix+"bigint") + ")"})
		tl, err := r.settings("table settings", at, false)
		return at, tl, err
	}
	for i < len(r.s) && !r.punct(i, '(') {
		i++
	}
	end := r.closing(i, len(r.s))
	if i == len(r.s) || end < 0 {
		return len(r.s), nil, nil // no column list (CREATE TABLE t LIKE u) or no end to it: TiDB says what is wrong
	}
	depth, first := 0, i+1
	for j := i + 1; j <= end; j++ {
		switch {
		case j == end || (depth == 0 && r.punct(j, ',')):
			if err := r.column(first, j); err != nil {
				return 0, nil, err
			}
			first = j + 1
		case r.opens(j):
			depth++
		case r.closes(j):
			depth--
		}
	}
	if end+1 == len(r.s) {
		return len(r.s), nil, nil
	}
	tl, err := r.settings("table settings", end+1, false)
	return end + 1, tl, err
}

// column rewrites the type of the column definition s[from:to], "name type
// [words]", into "name TEXT COMMENT 'glint:<canonical type>' [words]".
func (r *rewriter) column(from, to int) error {
	if from >= to {
		return nil // an empty element: TiDB reports it
	}
	for _, w := range constraintWords {
		if r.word(from, w) {
			return nil
		}
	}
	column, ok := r.name(from)
	if !ok {
		return nil // not a column name: TiDB reports it
	}
	if from+1 == to {
		return errorAt(r.src, r.s[from].end, "missing type for column '%s'", column)
	}
	typ := r.s[from+1]
	canonical, ok := columnTypes[strings.ToLower(r.text(typ))]
	if typ.kind != tokWord || !ok {
		return errorAt(r.src, typ.start, "unknown column type '%s' for column '%s'", r.text(typ), column)
	}
	last := from + 1
	if canonical == "text" {
		var indexed, stored bool
	words:
		for last+1 < to {
			switch {
			case !indexed && r.word(last+1, "indexed"):
				indexed = true
			case !stored && r.word(last+1, "stored"):
				stored = true
			default:
				break words
			}
			last++
		}
		switch {
		case indexed && !stored:
			canonical = "text indexed"
		case stored && !indexed:
			canonical = "text stored"
		}
	}
	r.edits = append(r.edits, edit{
		start: typ.start,
		end:   r.s[last].end,
		text:  "TEXT COMMENT " + quoteString(ColumnTypePrefix+canonical),
	})
	return nil
}

// settingsAfterName reports where the settings start when the table name at
// s[i] (after IF NOT EXISTS, maybe qualified) is followed directly by
// name=value: a table without a column list (a distributed table).
func (r *rewriter) settingsAfterName(i int) (int, bool) {
	if r.word(i, "IF") && r.word(i+1, "NOT") && r.word(i+2, "EXISTS") {
		i += 3
	}
	if _, ok := r.name(i); !ok {
		return 0, false
	}
	i++
	if r.punct(i, '.') {
		if _, ok := r.name(i + 1); !ok {
			return 0, false
		}
		i += 2
	}
	if _, ok := r.name(i); !ok || !r.punct(i+1, '=') {
		return 0, false
	}
	return i, true
}
