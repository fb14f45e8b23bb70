package server

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/sql"
)

// POST /search: the reference's JSON search (docs/http.md has every member). The
// body becomes a sql.SearchRequest, which the session plans like a SELECT;
// the answer has the reference's shape:
//
//	{"took":ms,"timed_out":false,"hits":{"total":n,"total_relation":"eq",
//	 "hits":[{"_id":1,"_score":1500,"_source":{...},"highlight":{"title":["..."]}}]}}
//
// "highlight" is on each hit when the request has a highlight object;
// "warning" is added when the search has something to say (a wildcard the
// table cannot expand).

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	rs, v, ok := s.jsonRequest(w, r)
	if !ok {
		return
	}
	defer closeSession(rs)
	req, err := searchRequest(v)
	if err != nil {
		writeHTTPError(w, err)
		return
	}
	resp, err := rs.Search(r.Context(), req)
	if err != nil {
		writeHTTPError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, appendSearchResponse(nil, resp))
}

// searchRequest reads the body of POST /search.
func searchRequest(v *jval) (*sql.SearchRequest, error) {
	// "source" is taken and left unread, as the reference does (it reads
	// only "_source"); clients of the family send it.
	m, err := v.object("table", "index", "query", "limit", "size", "offset", "from", "cutoff", "sort", "_source", "source", "highlight", "options", "max_matches")
	if err != nil {
		return nil, err
	}
	req := &sql.SearchRequest{Limit: -1, Path: "options"}
	if req.Table, req.Older, err = tableName(v, m); err != nil {
		return nil, err
	}
	if q := m["query"]; q != nil {
		if req.Query, err = rootCondition(q); err != nil {
			return nil, err
		}
	}
	if x := m["cutoff"]; x != nil {
		if req.Cutoff, err = cutoff(x); err != nil {
			return nil, err
		}
	}
	if m["limit"] != nil && m["size"] != nil || m["offset"] != nil && m["from"] != nil {
		return nil, requestError("give limit or size, offset or from, not both")
	}
	for _, k := range []string{"limit", "size"} {
		if x := m[k]; x != nil {
			n, err := x.integer(0, math.MaxInt32)
			if err != nil {
				return nil, err
			}
			req.Limit = int(n)
		}
	}
	for _, k := range []string{"offset", "from"} {
		if x := m[k]; x != nil {
			n, err := x.integer(0, math.MaxInt32)
			if err != nil {
				return nil, err
			}
			req.Offset = int(n)
		}
	}
	if x := m["sort"]; x != nil {
		if req.Sort, err = sortKeys(x); err != nil {
			return nil, err
		}
	}
	if x := m["_source"]; x != nil {
		if req.Source, err = sourceFilter(x); err != nil {
			return nil, err
		}
	}
	if x := m["highlight"]; x != nil {
		if req.Highlight, err = highlightRequest(x); err != nil {
			return nil, err
		}
	}
	if x := m["max_matches"]; x != nil {
		n, err := x.integer(1, sql.MaxMatchesLimit)
		if err != nil {
			return nil, err
		}
		req.MaxMatches, req.MaxMatchesPath = int(n), x.path
	}
	if x := m["options"]; x != nil {
		if err := searchOptions(x, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// tableName reads "table", or the older "index".
func tableName(v *jval, m map[string]*jval) (name string, older bool, err error) {
	t, i := m["table"], m["index"]
	switch {
	case t != nil && i != nil:
		return "", false, requestError("give the table as \"table\" or \"index\", not both")
	case t != nil:
		name, err = t.text()
	case i != nil:
		name, err = i.text()
		older = true
	default:
		return "", false, requestError("%s: \"table\" is missing", v.where())
	}
	if err == nil && name == "" {
		err = requestError("the table name is empty")
	}
	return name, older, err
}

// rootCondition reads the top-level query object. Besides one condition it
// may hold up to three, as the reference takes them: one full-text
// condition (match, match_phrase, query_string, match_all), one filter
// (equals, in, range) and one bool; all of them must hold, as the members
// of a bool's must. Two of one sort are an error that says to use bool.
func rootCondition(v *jval) (sql.Cond, error) {
	if v.kind != jObject {
		return nil, v.typeError("an object")
	}
	switch len(v.obj) {
	case 0:
		return nil, requestError("%s: \"query\" property is empty", v.where())
	case 1:
		return condition(v)
	}
	var seen [3]string
	c := &sql.BoolCond{Path: v.path}
	for _, mem := range v.obj {
		group, clash := 0, "\"query\" has multiple full-text properties, use bool node"
		switch mem.key {
		case "equals", "in", "range":
			group, clash = 1, "\"query\" has multiple filter properties, use bool node"
		case "bool":
			group, clash = 2, "\"query\" has multiple bool properties"
		}
		if seen[group] != "" {
			return nil, requestError("%s: %s (%s and %s)", v.where(), clash, seen[group], mem.key)
		}
		seen[group] = mem.key
		one := &jval{kind: jObject, obj: []jmember{mem}, path: v.path, off: mem.val.off}
		sub, err := condition(one)
		if err != nil {
			return nil, err
		}
		c.Must = append(c.Must, sub)
	}
	return c, nil
}

// cutoff reads cutoff (top-level or in options): how many matching
// documents the search looks at before it stops; 0: all of them.
func cutoff(v *jval) (int, error) {
	if v.kind != jNumber {
		return 0, propertyTypeError("cutoff", v, "an integer")
	}
	n, err := v.integer(0, math.MaxInt32)
	return int(n), err
}

// condition reads a query object: exactly one of its kinds.
func condition(v *jval) (sql.Cond, error) {
	kind, x, err := v.single("condition (match, match_phrase, query_string, match_all, bool, equals, range or in)")
	if err != nil {
		return nil, err
	}
	switch kind {
	case "match", "match_phrase":
		return matchCond(x, kind == "match_phrase")
	case "query_string":
		c := &sql.TextCond{Path: x.path}
		if x.kind == jObject {
			m, err := x.object("query")
			if err != nil {
				return nil, err
			}
			if m["query"] == nil {
				return nil, requestError("%s: \"query\" is missing", x.where())
			}
			x = m["query"]
		}
		if c.Query, err = x.text(); err != nil {
			return nil, err
		}
		return c, nil
	case "match_all":
		if _, err := x.object(); err != nil {
			return nil, err
		}
		return &sql.AllCond{Path: x.path}, nil
	case "bool":
		m, err := x.object("must", "should", "must_not", "filter")
		if err != nil {
			return nil, err
		}
		c := &sql.BoolCond{Path: x.path}
		// In the order written, so that query positions (and ranking) do
		// not depend on anything else.
		dsts := map[string]*[]sql.Cond{"must": &c.Must, "should": &c.Should, "must_not": &c.MustNot, "filter": &c.Filter}
		for _, mem := range x.obj {
			key, dst := mem.key, dsts[mem.key]
			for _, e := range m[key].list() {
				sub, err := condition(e)
				if err != nil {
					return nil, err
				}
				*dst = append(*dst, sub)
			}
		}
		return c, nil
	case "equals", "in", "range":
		col, y, err := x.single("attribute")
		if err != nil {
			return nil, err
		}
		c := &sql.AttrCond{Path: x.path, Column: col}
		switch kind {
		case "equals":
			val, err := attrValue(y)
			if err != nil {
				return nil, err
			}
			c.Op, c.Values = sql.AttrEquals, []any{val}
		case "in":
			if y.kind != jArray {
				return nil, y.typeError("an array of values")
			}
			c.Op = sql.AttrIn
			for _, e := range y.arr {
				val, err := attrValue(e)
				if err != nil {
					return nil, err
				}
				c.Values = append(c.Values, val)
			}
		case "range":
			m, err := y.object("gt", "gte", "lt", "lte")
			if err != nil {
				return nil, err
			}
			for _, b := range []struct {
				key string
				dst *any
			}{{"gt", &c.Gt}, {"gte", &c.Gte}, {"lt", &c.Lt}, {"lte", &c.Lte}} {
				if m[b.key] != nil {
					if *b.dst, err = attrValue(m[b.key]); err != nil {
						return nil, err
					}
				}
			}
			c.Op = sql.AttrRange
		}
		return c, nil
	}
	return nil, requestError("%s: unknown condition %q (expected match, match_phrase, query_string, match_all, bool, equals, range or in)", v.where(), kind)
}

// attrValue reads a value an attribute is compared with.
func attrValue(v *jval) (any, error) {
	switch v.kind {
	case jNumber, jString, jBool:
		return v.scalar()
	}
	return nil, v.typeError("a number, a string or a boolean")
}

// matchCond reads match or match_phrase: {"fields": "text"} or
// {"fields": {"query": "text", "operator": "or"|"and"}}.
func matchCond(v *jval, phrase bool) (sql.Cond, error) {
	key, x, err := v.single("field (or \"*\") with its query text")
	if err != nil {
		return nil, err
	}
	c := &sql.TextCond{Path: v.path, Phrase: phrase, AnyWord: !phrase}
	if x.kind == jObject {
		known := []string{"query", "operator"}
		if phrase {
			known = known[:1]
		}
		m, err := x.object(known...)
		if err != nil {
			return nil, err
		}
		if m["query"] == nil {
			return nil, requestError("%s: \"query\" is missing", x.where())
		}
		if op := m["operator"]; op != nil {
			s, err := op.text()
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(s) {
			case "or":
			case "and":
				c.AnyWord = false
			default:
				return nil, requestError("%s: operator must be \"or\" or \"and\", not %q", op.where(), s)
			}
		}
		x = m["query"]
	}
	if c.Query, err = x.text(); err != nil {
		return nil, err
	}
	switch strings.TrimSpace(key) {
	case "*", "_all":
	case "":
		return nil, requestError("%s: the field name is empty (use \"*\" for every field)", v.where())
	default:
		for _, f := range strings.Split(key, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				return nil, requestError("%s: empty field name in %q", v.where(), key)
			}
			c.Fields = append(c.Fields, f)
		}
	}
	return c, nil
}

// sortKeys reads sort: "attr", {"attr": "asc"|"desc"},
// {"attr": {"order": "asc"|"desc"}}, or an array of those.
func sortKeys(v *jval) ([]sql.SortKey, error) {
	var keys []sql.SortKey
	for _, e := range v.list() {
		k := sql.SortKey{Path: e.path}
		var order *jval
		switch e.kind {
		case jString:
			k.Column = e.str
		case jObject:
			col, o, err := e.single("sort key")
			if err != nil {
				return nil, err
			}
			k.Column, order = col, o
			if o.kind == jObject {
				m, err := o.object("order")
				if err != nil {
					return nil, err
				}
				if order = m["order"]; order == nil {
					return nil, requestError("%s: \"order\" is missing", o.where())
				}
			}
		default:
			return nil, e.typeError("a column name or {\"column\": \"asc\"|\"desc\"}")
		}
		k.Desc = k.Column == "_score"
		if order != nil {
			s, err := order.text()
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(s) {
			case "asc":
				k.Desc = false
			case "desc":
				k.Desc = true
			default:
				return nil, requestError("%s: order must be \"asc\" or \"desc\", not %q", order.where(), s)
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// sourceFilter reads _source: false, true, a pattern, a list of patterns,
// or {"includes": [...], "excludes": [...]}.
func sourceFilter(v *jval) (sql.SourceFilter, error) {
	f := sql.SourceFilter{Path: v.path}
	strs := func(x *jval) ([]string, error) {
		var out []string
		for _, e := range x.list() {
			s, err := e.text()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	var err error
	switch v.kind {
	case jBool:
		f.None = !v.b
	case jString:
		// "" and "*" alone: every column, as in the reference.
		if v.str != "" && v.str != "*" {
			f.Includes = []string{v.str}
		}
	case jArray:
		f.Includes, err = strs(v)
	case jObject:
		m, err2 := v.object("includes", "excludes")
		if err2 != nil {
			return f, err2
		}
		if m["includes"] != nil {
			if f.Includes, err = strs(m["includes"]); err != nil {
				return f, err
			}
		}
		if m["excludes"] != nil {
			f.Excludes, err = strs(m["excludes"])
		}
	default:
		return f, v.typeError("true, false, a column pattern, a list of them, or {\"includes\", \"excludes\"}")
	}
	return f, err
}

// highlightRequest reads the highlight object: fields (or fieldnames),
// highlight_query, and options, which the highlighter's one name table
// checks. fields given as [] or {} name no field, which means every field,
// as when fields is left out.
func highlightRequest(v *jval) (*sql.HighlightRequest, error) {
	if v.kind != jObject {
		return nil, propertyTypeError("highlight", v, "an object")
	}
	h := &sql.HighlightRequest{Path: v.path}
	var fields *jval
	for _, m := range v.obj {
		switch m.key {
		case "fields", "fieldnames":
			if fields != nil {
				return nil, requestError("%s: give fields or fieldnames, not both", v.where())
			}
			fields = m.val
		case "highlight_query":
			if m.val.kind != jObject {
				return nil, propertyTypeError(m.key, m.val, "an object")
			}
			c, err := rootCondition(m.val)
			if err != nil {
				return nil, err
			}
			h.Query = c
		default:
			o, err := optionValue(m.key, m.val)
			if err != nil {
				return nil, err
			}
			h.Options = append(h.Options, o)
		}
	}
	if fields == nil {
		return h, nil
	}
	var list []sql.HighlightField
	switch fields.kind {
	case jString: // "title,content"
		for _, name := range strings.Split(fields.str, ",") {
			if name = strings.TrimSpace(name); name != "" {
				list = append(list, sql.HighlightField{Path: fields.path, Name: name})
			}
		}
		if len(list) == 0 {
			return nil, requestError("%s: no field is named (give [] for every field)", fields.where())
		}
	case jArray:
		for _, e := range fields.arr {
			if e.kind != jString {
				return nil, requestError("%s: a field name should be a string, got %s", e.where(), kindNames[e.kind])
			}
			list = append(list, sql.HighlightField{Path: e.path, Name: e.str})
		}
	case jObject:
		for _, m := range fields.obj {
			f := sql.HighlightField{Path: m.val.path, Name: m.key}
			if m.val.kind != jObject {
				return nil, requestError("%s: \"%s\" field should be an object of its options, got %s", m.val.where(), m.key, kindNames[m.val.kind])
			}
			for _, om := range m.val.obj {
				o, err := optionValue(om.key, om.val)
				if err != nil {
					return nil, err
				}
				f.Options = append(f.Options, o)
			}
			list = append(list, f)
		}
	default:
		return nil, propertyTypeError("fields", fields, "an array or an object")
	}
	h.Fields = list // nil when [] or {}: every field
	return h, nil
}

// highlightKinds is the JSON type of each highlight option that the
// reference checks by type; the option's value range is the highlighter's
// to check. Options not listed take any scalar, as the highlighter reads
// them.
var highlightKinds = map[string]string{
	"limit": "an integer", "limit_words": "an integer", "limit_snippets": "an integer",
	"limit_passages": "an integer", "around": "an integer", "start_snippet_id": "an integer",
	"start_passage_id": "an integer", "fragment_size": "an integer",
	"number_of_fragments": "an integer", "no_match_size": "an integer",

	"use_boundaries": "a boolean", "weight_order": "a boolean", "force_all_words": "a boolean",
	"allow_empty": "a boolean", "emit_zones": "a boolean", "force_snippets": "a boolean",
	"force_passages": "a boolean", "limits_per_field": "a boolean", "pack_fields": "a boolean",
	"offsets": "a boolean", "balance_markup": "a boolean", "work_budget": "an integer", // (glint's own, typed alike)

	"before_match": "a string", "after_match": "a string", "html_strip_mode": "a string",
	"snippet_boundary": "a string", "passage_boundary": "a string", "encoder": "a string",
	"order": "a string",

	"pre_tags": "an array or a string", "post_tags": "an array or a string",
}

// propertyTypeError words a member of the wrong type as the reference does
// ("limit" property value should be an integer), after its place.
func propertyTypeError(name string, v *jval, want string) error {
	return requestError("%s: \"%s\" property value should be %s, got %s", v.where(), name, want, kindNames[v.kind])
}

// optionValue reads one highlighting option, checking its JSON type.
func optionValue(name string, v *jval) (sql.OptionValue, error) {
	want, typed := highlightKinds[strings.ToLower(name)]
	ok := !typed
	switch want {
	case "an integer":
		_, err := strconv.ParseInt(string(v.num), 10, 64)
		if v.kind == jNumber && errors.Is(err, strconv.ErrRange) {
			return sql.OptionValue{}, requestError("%s: \"%s\" property value should be an integer of 64 bits, got %s", v.where(), name, v.num)
		}
		ok = v.kind == jNumber && err == nil
	case "a boolean":
		ok = v.kind == jBool
	case "a string":
		ok = v.kind == jString
	case "an array or a string":
		ok = v.kind == jString || v.kind == jArray
		for _, e := range v.arr {
			if e.kind != jString {
				return sql.OptionValue{}, requestError("%s: \"%s\" should hold strings, got %s", e.where(), name, kindNames[e.kind])
			}
		}
	}
	if !ok {
		return sql.OptionValue{}, propertyTypeError(name, v, want)
	}
	if v.kind == jObject || v.kind == jNull {
		return sql.OptionValue{}, requestError("%s: expected a number, a string or a boolean, got %s", v.where(), kindNames[v.kind])
	}
	x, err := v.scalar()
	if err != nil {
		return sql.OptionValue{}, err
	}
	return sql.OptionValue{Path: v.path, Name: name, Value: x}, nil
}

// searchOptions reads options: ranker, field_weights, max_matches, cutoff,
// max_query_time, global_idf (distributed tables), consistency (a
// cluster's tables).
func searchOptions(v *jval, req *sql.SearchRequest) error {
	m, err := v.object("ranker", "field_weights", "max_matches", "cutoff", "max_query_time", "global_idf", "consistency")
	if err != nil {
		return err
	}
	if x := m["consistency"]; x != nil {
		c, err := x.text()
		if err != nil {
			return err
		}
		switch strings.ToLower(c) {
		case "local":
		case "linearizable":
			req.Linearizable = true
		default:
			return requestError("%s: consistency takes \"local\" (the default: what this member has applied) or \"linearizable\", not %q", x.where(), c)
		}
	}
	if x := m["global_idf"]; x != nil {
		n, err := x.integer(0, 1)
		if err != nil {
			return err
		}
		req.GlobalIDF = n == 1
	}
	if x := m["max_query_time"]; x != nil {
		n, err := x.integer(0, math.MaxInt32)
		if err != nil {
			return err
		}
		req.MaxQueryTime = time.Duration(n) * time.Millisecond
	}
	if x := m["cutoff"]; x != nil {
		if req.Cutoff != 0 {
			return requestError("%s: cutoff is given twice", x.where())
		}
		if req.Cutoff, err = cutoff(x); err != nil {
			return err
		}
	}
	if x := m["ranker"]; x != nil {
		if req.Ranker, err = x.text(); err != nil {
			return err
		}
	}
	if x := m["field_weights"]; x != nil {
		if x.kind != jObject {
			return x.typeError("an object of field weights")
		}
		req.FieldWeights = map[string]int{}
		for _, fm := range x.obj {
			n, err := fm.val.integer(0, 1_000_000)
			if err != nil {
				return err
			}
			req.FieldWeights[fm.key] = int(n)
		}
	}
	if x := m["max_matches"]; x != nil {
		if req.MaxMatches != 0 {
			return requestError("%s: max_matches is given twice", x.where())
		}
		n, err := x.integer(1, sql.MaxMatchesLimit)
		if err != nil {
			return err
		}
		req.MaxMatches, req.MaxMatchesPath = int(n), x.path
	}
	return nil
}

// appendSearchResponse renders the answer (docs/http.md).
func appendSearchResponse(b []byte, r *sql.SearchResponse) []byte {
	b = append(b, `{"took":`...)
	b = appendJSONValue(b, r.Took.Milliseconds())
	if r.TimedOut {
		b = append(b, `,"timed_out":true,"hits":{"total":`...)
	} else {
		b = append(b, `,"timed_out":false,"hits":{"total":`...)
	}
	b = appendJSONValue(b, int64(r.Total))
	if r.TotalAtLeast || r.TimedOut {
		b = append(b, `,"total_relation":"gte","hits":[`...)
	} else {
		b = append(b, `,"total_relation":"eq","hits":[`...)
	}
	for i, h := range r.Hits {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"_id":`...)
		b = appendJSONValue(b, h.ID)
		b = append(b, `,"_score":`...)
		b = appendJSONValue(b, h.Score)
		b = append(b, `,"_source":{`...)
		for j, v := range h.Source {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, v.Name)
			b = append(b, ':')
			b = appendSourceValue(b, v)
		}
		b = append(b, '}')
		if h.Highlight != nil {
			b = append(b, `,"highlight":{`...)
			for j, f := range h.Highlight {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, f.Field)
				b = append(b, ":["...)
				for k, sn := range f.Snippets {
					if k > 0 {
						b = append(b, ',')
					}
					b = appendJSONString(b, sn)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
			if h.HighlightOffsets != nil {
				b = append(b, `,"highlight_offsets":`...)
				b = appendJSONData(b, h.HighlightOffsets)
			}
			if h.HighlightTruncated {
				b = append(b, `,"highlight_truncated":true`...)
			}
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	if r.HighlightTruncated > 0 {
		b = append(b, `,"highlight_truncated":`...)
		b = appendJSONValue(b, int64(r.HighlightTruncated))
	}
	if len(r.Warnings) > 0 {
		b = append(b, `,"warning":`...)
		b = appendJSONString(b, strings.Join(r.Warnings, "; "))
	}
	return append(b, '}')
}

// appendJSONData appends v as encoding/json writes it (data of plain
// strings, numbers and slices, which cannot fail).
func appendJSONData(b []byte, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, data...)
}

// appendSourceValue appends a _source value: numbers as numbers, a multi as
// an array, a json column as its JSON.
func appendSourceValue(b []byte, v sql.Value) []byte {
	switch x := v.Value.(type) {
	case []int64:
		b = append(b, '[')
		for i, n := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, n)
		}
		return append(b, ']')
	case string:
		if v.JSON {
			if x == "" {
				return append(b, "null"...)
			}
			if isJSONText(x) {
				return append(b, x...)
			}
		}
	}
	return appendJSONValue(b, v.Value)
}
