package sql

import (
	"errors"
	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"strings"
)

// jsonHighlightExpr is the highlight object of a search request (the reference's highlighting page; docs/http.md):
// per hit, each field's snippets as a list ([]FieldSnippets), the JSON
// rendering of the same highlighter output that HIGHLIGHT() joins into one
// string. It runs after LIMIT, on the stored text of the page's one batch
// read.
type jsonHighlightExpr struct {
	global highlight.Options
	fields []jsonHLField
	query  query.Node // what to mark: highlight_query, or the search query
	// ownQuery: query is the request's highlight_query.
	ownQuery bool
	table    hlTable
	stats    *Stats
	// maxResult bounds one hit's highlights (max_allowed_packet, as SQL's).
	maxResult int

	hlMatchers // compiled on the first row, for the statement's snapshot
}

// jsonHLField is one field to highlight; opts is nil when the field uses
// the global options (and shares their document-wide limits).
type jsonHLField struct {
	hlField
	opts *highlight.Options
}

// planJSONHighlight compiles a request's highlight object. text is the
// search's full-text query (nil: none).
func (s *Session) planJSONHighlight(t *index.Table, sc *scope, req *SearchRequest, text query.Node) (*jsonHighlightExpr, error) {
	hr := req.Highlight
	schema := t.Schema()
	h := &jsonHighlightExpr{global: highlight.DefaultOptions(), query: text,
		table: tableForHighlight(schema.Tokenization), stats: &s.engine.stats, maxResult: s.MaxAllowedPacket()}
	if req.Older {
		h.global = highlight.DefaultOptionsOlder()
	}
	cfg := schema.Tokenization
	apply := func(o *highlight.Options, opts []OptionValue, path string) error {
		list := highlight.List{Opts: o, Scope: highlight.ScopeJSON}
		for _, ov := range opts {
			if err := list.Set(ov.Name, ov.Value); err != nil {
				return Errorf(CodeBadOption, "%s: %v", ov.Path, err)
			}
		}
		err := o.CheckTable(cfg.IndexSP, len(cfg.IndexZones) > 0)
		if err == nil {
			err = o.Check()
		}
		err = list.Named(err)
		var oe *highlight.OptionError
		if errors.As(err, &oe) {
			// Name the member: highlight.emit_zones: needs ...
			return Errorf(CodeBadOption, "%s.%s: %s", path, oe.Option, oe.Msg)
		}
		if err != nil {
			return Errorf(CodeBadOption, "%s: %v", path, err)
		}
		return nil
	}
	if err := apply(&h.global, hr.Options, orRoot(hr.Path)); err != nil {
		return nil, err
	}
	if hr.Fields == nil {
		for i, c := range schema.Columns {
			if c.Type == index.TypeText && c.Stored && c.Indexed {
				sc.highlightText(i, true)
				h.fields = append(h.fields, jsonHLField{hlField: hlField{col: i, name: c.Name}})
			}
		}
	}
	seen := map[int]bool{}
	for _, f := range hr.Fields {
		i := columnIndex(schema, f.Name)
		if i < 0 {
			return nil, Errorf(CodeNoSuchColumn, "%s: unknown field '%s' in table '%s'", f.Path, f.Name, schema.Name)
		}
		if seen[i] {
			return nil, Errorf(CodeSyntax, "%s: field '%s' is named twice", f.Path, f.Name)
		}
		seen[i] = true
		c := schema.Columns[i]
		hf := jsonHLField{hlField: hlField{col: i, name: c.Name}}
		switch {
		case c.Type == index.TypeText && c.Stored:
			sc.highlightText(i, c.Indexed)
			hf.attr = !c.Indexed
		case c.Type == index.TypeText:
			return nil, Errorf(CodeWrongValue, "%s: field '%s' is indexed but not stored, so there is no text to highlight", f.Path, c.Name)
		case c.Type == index.TypeString:
			hf.attr = true
		default:
			return nil, Errorf(CodeWrongValue, "%s: '%s' is not a text field or string attribute", f.Path, c.Name)
		}
		for _, ov := range f.Options {
			// A field's own object sets its limits only (as the reference
			// reads it); any other option would be taken and not applied.
			switch strings.ToLower(ov.Name) {
			case "limit", "limit_words", "limit_snippets", "limit_passages", "fragment_size", "number_of_fragments":
			default:
				if _, known := highlight.LookupJSON(ov.Name); !known {
					return nil, Errorf(CodeBadOption, "%s: unknown option '%s' (a field's own options are its limits: limit, limit_words, limit_snippets, fragment_size, number_of_fragments)", ov.Path, ov.Name)
				}
				return nil, Errorf(CodeBadOption, "%s: a field's own options are its limits (limit, limit_words, limit_snippets, fragment_size, number_of_fragments); set '%s' for every field in the highlight object", ov.Path, ov.Name)
			}
		}
		if len(f.Options) > 0 {
			o := h.global
			if err := apply(&o, f.Options, f.Path); err != nil {
				return nil, err
			}
			hf.opts = &o
		}
		h.fields = append(h.fields, hf)
	}
	if hr.Query != nil {
		c := &condCompiler{sess: s, table: t, sc: sc, parts: query.NewParts(t.Tokenizer()), textOnly: true}
		part, err := c.compile(hr.Query)
		if err != nil {
			return nil, err
		}
		if err := positive(part.text, "highlight.highlight_query"); err != nil {
			return nil, err
		}
		h.query, h.ownQuery = part.text, true
	}
	return h, nil
}

func (h *jsonHighlightExpr) prepare(snap *index.Snapshot) error {
	if h.snap == snap {
		return nil
	}
	err := h.compile(snap, h.query, &h.table, false)
	var qe *index.QueryError
	if h.ownQuery && errors.As(err, &qe) {
		// The request's place, as the search query's errors name theirs.
		return Errorf(CodeQuerySyntax, "highlight.highlight_query: %s", qe.Error())
	}
	return asError(err)
}

func (h *jsonHighlightExpr) budgetOptions() *highlight.Options { return &h.global }

func (h *jsonHighlightExpr) workCost(r *row) (int, error) {
	n := 0
	for _, f := range h.fields {
		n += len(f.text(r))
	}
	return n, nil
}

func (h *jsonHighlightExpr) eval(r *row) (any, error) {
	if err := h.prepare(r.snap); err != nil {
		return nil, err
	}
	h.stats.Highlights.Add(1)
	if r.fallback {
		return h.beginning(r)
	}
	var cols []int
	var texts []string
	for _, f := range h.fields {
		if !f.attr {
			cols = append(cols, f.col)
			texts = append(texts, r.text[f.col])
		}
	}
	var ms rowMatches
	defer ms.release()
	m, err := ms.matchStored(h.matcher, r, cols, texts, h.stats)
	if err != nil {
		return nil, err
	}
	in := make([]highlight.Field, len(h.fields))
	k := 0
	for i, f := range h.fields {
		if !f.attr {
			in[i] = h.table.field(f.name, texts[k], m.Fields[k], h.table.html)
			k++
			continue
		}
		text := attrText(r, f.col)
		am, err := ms.match(h.anyText, nil, []string{text})
		if err != nil {
			return nil, err
		}
		in[i] = h.table.field(f.name, text, am.Fields[0], false)
	}

	// A field with options of its own brings its own limits.
	for i, f := range h.fields {
		if f.opts != nil {
			in[i].Limits = f.opts
		}
	}
	return h.snippets(in, h.matcher.KeywordWeights(), &h.global, h.matcher)
}

// snippets highlights the fields of one hit in one request
// (limits_per_field=0 spreads one budget over them).
func (h *jsonHighlightExpr) snippets(in []highlight.Field, weights []int, o *highlight.Options, m *index.TextMatcher) (any, error) {
	out := make([]FieldSnippets, len(h.fields))
	req := &highlight.Request{Fields: in, Weights: weights, Options: o, Stored: true, Pack: true, Offsets: h.global.Offsets, Units: m.Units()}
	h.stats.countHighlight(req)
	res := highlight.Highlight(req)
	defer res.Release()
	if err := tooBig("highlight", res, h.maxResult); err != nil {
		return nil, err
	}
	for i, sn := range res.Strings() {
		out[i].Field = h.fields[i].name
		out[i].Snippets = sn
	}
	for i := range h.fields {
		if len(out[i].Snippets) > 0 {
			continue
		}
		opts := o
		if in[i].Limits != nil {
			opts = in[i].Limits
		}
		if opts.AllowEmpty {
			// Allowed to be empty (no_match_size 0): no snippet at all,
			// an empty array, as the reference answers.
			out[i].Snippets = []string{}
		} else {
			// An empty field: an empty string, as the reference's manual shows.
			out[i].Snippets = []string{""}
		}
	}
	hh := hitHighlight{Fields: out}
	if h.global.Offsets {
		texts := make([]string, len(in))
		for i := range in {
			texts[i] = in[i].Text
		}
		hh.Offsets = snippetsData(res, texts, m.KeywordTexts())
	}
	return hh, nil
}

// beginning is the highlight of a hit past the work budget: the beginning
// of each field, unmarked, under the request's global limit.
func (h *jsonHighlightExpr) beginning(r *row) (any, error) {
	var ms rowMatches
	defer ms.release()
	o := fallbackOptions(&h.global)
	in := make([]highlight.Field, len(h.fields))
	for i, f := range h.fields {
		var err error
		if in[i], err = h.beginningField(h.table, f.name, f.text(r), o.Limit, h.table.html && !f.attr, &ms); err != nil {
			return nil, err
		}
	}
	return h.snippets(in, nil, o, h.anyText)
}
