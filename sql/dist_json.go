package sql

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A JSON search (POST /search) of a distributed table runs the same phases
// as a SELECT, with the typed request itself as what the shards receive:
// CALL SEARCH_REQUEST('<the request as JSON>') runs it on a shard's table
// and answers one row per hit (id, _score, _source and highlight as JSON),
// and SHOW META after it tells its total. Phase one asks for the sort
// columns of the best offset+limit hits; phase two for _source and
// highlight of the page's ids only (the request's query AND id IN (...)),
// from the mirror that answered phase one, where highlighting then runs.

// wireSearch is a SearchRequest as CALL SEARCH_REQUEST takes it.
type wireSearch struct {
	Table        string
	Older        bool             `json:",omitempty"`
	Query        *wireCond        `json:",omitempty"`
	Offset       int              `json:",omitempty"`
	Limit        int              `json:",omitempty"`
	Sort         []SortKey        `json:",omitempty"`
	Source       SourceFilter     `json:",omitempty"`
	Highlight    *wireHighlight   `json:",omitempty"`
	Ranker       string           `json:",omitempty"`
	FieldWeights map[string]int   `json:",omitempty"`
	MaxMatches   int              `json:",omitempty"`
	MaxQueryTime time.Duration    `json:",omitempty"`
	Cutoff       int              `json:",omitempty"`
	Path         string           `json:",omitempty"`
	Global       *globalStatsJSON `json:",omitempty"`
	HoldSnapshot time.Duration    `json:",omitempty"`
	Snapshot     string           `json:",omitempty"`
	Linearizable bool             `json:",omitempty"`
	// Shard: a coordinator sends it to its shard (which must not be a
	// distributed table, nestedError).
	Shard bool `json:",omitempty"`
}

// wireCond is a Cond: exactly one member is set.
type wireCond struct {
	Text *TextCond `json:",omitempty"`
	Attr *wireAttr `json:",omitempty"`
	Bool *wireBool `json:",omitempty"`
	All  *AllCond  `json:",omitempty"`
}

type wireAttr struct {
	Path, Column     string
	Op               AttrOp
	Values           []taggedValue `json:",omitempty"`
	Gt, Gte, Lt, Lte *taggedValue  `json:",omitempty"`
}

type wireBool struct {
	Path                          string
	Must, Should, MustNot, Filter []*wireCond `json:",omitempty"`
}

type wireHighlight struct {
	Path    string
	Options []wireOption `json:",omitempty"`
	Fields  []wireField  `json:",omitempty"`
	Query   *wireCond    `json:",omitempty"`
	// AllFields: Fields was nil (every stored full-text field).
	AllFields bool `json:",omitempty"`
}

type wireField struct {
	Path, Name string
	Options    []wireOption `json:",omitempty"`
}

type wireOption struct {
	Path, Name string
	Value      taggedValue
}

// taggedValue is a JSON scalar, list or column value with its Go type kept.
type taggedValue struct {
	K string        // n (nil), i (int64), u (uint64), f (float64), s, b, l (list), m ([]int64)
	I int64         `json:",omitempty"`
	U uint64        `json:",omitempty"`
	F float64       `json:",omitempty"`
	S string        `json:",omitempty"`
	B bool          `json:",omitempty"`
	L []taggedValue `json:",omitempty"`
	M []int64       `json:",omitempty"`
}

func toTagged(v any) taggedValue {
	switch x := v.(type) {
	case nil:
		return taggedValue{K: "n"}
	case int64:
		return taggedValue{K: "i", I: x}
	case uint64:
		return taggedValue{K: "u", U: x}
	case float64:
		return taggedValue{K: "f", F: x}
	case string:
		return taggedValue{K: "s", S: x}
	case bool:
		return taggedValue{K: "b", B: x}
	case []int64:
		return taggedValue{K: "m", M: x}
	case []any:
		l := make([]taggedValue, len(x))
		for i, e := range x {
			l[i] = toTagged(e)
		}
		return taggedValue{K: "l", L: l}
	}
	return taggedValue{K: "s", S: fmt.Sprint(v)}
}

func (w taggedValue) value() any {
	switch w.K {
	case "i":
		return w.I
	case "u":
		return w.U
	case "f":
		return w.F
	case "s":
		return w.S
	case "b":
		return w.B
	case "m":
		if w.M == nil {
			return []int64{}
		}
		return w.M
	case "l":
		l := make([]any, len(w.L))
		for i, e := range w.L {
			l[i] = e.value()
		}
		return l
	}
	return nil
}

func optionalWire(v any) *taggedValue {
	if v == nil {
		return nil
	}
	w := toTagged(v)
	return &w
}

func optionalValue(w *taggedValue) any {
	if w == nil {
		return nil
	}
	return w.value()
}

func toWireCond(c Cond) *wireCond {
	switch x := c.(type) {
	case *TextCond:
		return &wireCond{Text: x}
	case *AllCond:
		return &wireCond{All: x}
	case *AttrCond:
		a := &wireAttr{Path: x.Path, Column: x.Column, Op: x.Op,
			Gt: optionalWire(x.Gt), Gte: optionalWire(x.Gte), Lt: optionalWire(x.Lt), Lte: optionalWire(x.Lte)}
		for _, v := range x.Values {
			a.Values = append(a.Values, toTagged(v))
		}
		return &wireCond{Attr: a}
	case *BoolCond:
		list := func(cs []Cond) []*wireCond {
			var out []*wireCond
			for _, c := range cs {
				out = append(out, toWireCond(c))
			}
			return out
		}
		return &wireCond{Bool: &wireBool{Path: x.Path, Must: list(x.Must), Should: list(x.Should), MustNot: list(x.MustNot), Filter: list(x.Filter)}}
	}
	return nil
}

func (w *wireCond) cond() Cond {
	switch {
	case w == nil:
		return nil
	case w.Text != nil:
		return w.Text
	case w.All != nil:
		return w.All
	case w.Attr != nil:
		a := w.Attr
		c := &AttrCond{Path: a.Path, Column: a.Column, Op: a.Op,
			Gt: optionalValue(a.Gt), Gte: optionalValue(a.Gte), Lt: optionalValue(a.Lt), Lte: optionalValue(a.Lte)}
		for _, v := range a.Values {
			c.Values = append(c.Values, v.value())
		}
		return c
	case w.Bool != nil:
		list := func(ws []*wireCond) []Cond {
			var out []Cond
			for _, w := range ws {
				out = append(out, w.cond())
			}
			return out
		}
		b := w.Bool
		return &BoolCond{Path: b.Path, Must: list(b.Must), Should: list(b.Should), MustNot: list(b.MustNot), Filter: list(b.Filter)}
	}
	return nil
}

func wireOptions(opts []OptionValue) []wireOption {
	var out []wireOption
	for _, o := range opts {
		out = append(out, wireOption{Path: o.Path, Name: o.Name, Value: toTagged(o.Value)})
	}
	return out
}

func optionValues(ws []wireOption) []OptionValue {
	var out []OptionValue
	for _, w := range ws {
		out = append(out, OptionValue{Path: w.Path, Name: w.Name, Value: w.Value.value()})
	}
	return out
}

func toWireSearch(req *SearchRequest) *wireSearch {
	w := &wireSearch{Table: req.Table, Older: req.Older, Query: toWireCond(req.Query), Offset: req.Offset, Limit: req.Limit,
		Sort: req.Sort, Source: req.Source, Ranker: req.Ranker, FieldWeights: req.FieldWeights, MaxMatches: req.MaxMatches,
		MaxQueryTime: req.MaxQueryTime, Cutoff: req.Cutoff, Path: req.Path, HoldSnapshot: req.HoldSnapshot, Snapshot: req.Snapshot,
		Linearizable: req.Linearizable}
	if h := req.Highlight; h != nil {
		wh := &wireHighlight{Path: h.Path, Options: wireOptions(h.Options), Query: toWireCond(h.Query), AllFields: h.Fields == nil}
		for _, f := range h.Fields {
			wh.Fields = append(wh.Fields, wireField{Path: f.Path, Name: f.Name, Options: wireOptions(f.Options)})
		}
		w.Highlight = wh
	}
	return w
}

func (w *wireSearch) request() *SearchRequest {
	req := &SearchRequest{Table: w.Table, Older: w.Older, Query: w.Query.cond(), Offset: w.Offset, Limit: w.Limit,
		Sort: w.Sort, Source: w.Source, Ranker: w.Ranker, FieldWeights: w.FieldWeights, MaxMatches: w.MaxMatches,
		MaxQueryTime: w.MaxQueryTime, Cutoff: w.Cutoff, Path: w.Path, HoldSnapshot: w.HoldSnapshot, Snapshot: w.Snapshot,
		Linearizable: w.Linearizable}
	if g := w.Global; g != nil {
		req.Global = &index.GlobalStats{Docs: g.Docs, TermDocs: g.Terms}
	}
	if h := w.Highlight; h != nil {
		hr := &HighlightRequest{Path: h.Path, Options: optionValues(h.Options), Query: h.Query.cond()}
		if !h.AllFields {
			hr.Fields = []HighlightField{}
		}
		for _, f := range h.Fields {
			hr.Fields = append(hr.Fields, HighlightField{Path: f.Path, Name: f.Name, Options: optionValues(f.Options)})
		}
		req.Highlight = hr
	}
	return req
}

// wireHit is a Hit as CALL SEARCH_REQUEST answers it (its _source column).
type wireSource struct {
	Name  string
	Value taggedValue
	JSON  bool `json:",omitempty"`
}

// isSearchRequestCall reports whether a CALL is CALL SEARCH_REQUEST.
func isSearchRequestCall(n *ast.CallStmt) bool {
	return n.Procedure != nil && n.Procedure.FnName.L == "search_request"
}

// callSearchRequest runs CALL SEARCH_REQUEST('<json>'): a shard's part of
// a JSON search of a distributed table.
func (s *Session) callSearchRequest(ctx context.Context, n *ast.CallStmt) (*Result, error) {
	args := n.Procedure.Args
	text, ok := "", len(args) == 1
	if ok {
		text, ok = stringValue(args[0])
	}
	if !ok {
		return nil, Errorf(CodeSyntax, "CALL SEARCH_REQUEST takes one argument: a search request as JSON, quoted")
	}
	var w wireSearch
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, Errorf(CodeWrongValue, "CALL SEARCH_REQUEST: %v", err)
	}
	if _, dist, _ := s.distributed(w.Table); dist && w.Shard {
		return nil, nestedError(w.Table, "a JSON search's shard request")
	}
	resp, err := s.Search(ctx, w.request())
	if err != nil {
		return nil, err
	}
	r := &Result{Columns: []Column{{"id", ColUint}, {"_score", ColInt}, {"_source", ColString}, {"highlight", ColString}, {"highlight_truncated", ColInt},
		{"highlight_offsets", ColString}},
		Rows: [][]any{}}
	for _, h := range resp.Hits {
		src := make([]wireSource, len(h.Source))
		for i, v := range h.Source {
			src[i] = wireSource{Name: v.Name, Value: toTagged(v.Value), JSON: v.JSON}
		}
		sb, err := json.Marshal(src)
		if err != nil {
			return nil, asError(err)
		}
		var hl, offsets any
		if h.Highlight != nil {
			if hl, err = jsonText(h.Highlight); err != nil {
				return nil, err
			}
		}
		if h.HighlightOffsets != nil {
			if offsets, err = jsonText(h.HighlightOffsets); err != nil {
				return nil, err
			}
		}
		truncated := int64(0)
		if h.HighlightTruncated {
			truncated = 1
		}
		r.Rows = append(r.Rows, []any{h.ID, h.Score, string(sb), hl, truncated, offsets})
	}
	s.meta = []metaRow{{"total", strconv.Itoa(resp.Total)}, {"total_found", strconv.Itoa(resp.Total)}, {"time", "0.000"}}
	if resp.Snapshot != "" {
		s.meta = append(s.meta, metaRow{"snapshot", resp.Snapshot})
	}
	if resp.TimedOut {
		s.meta = append(s.meta, metaRow{"timed_out", "1"})
	}
	for _, w := range resp.Warnings {
		// The search's warnings, for the coordinator's SHOW WARNINGS.
		s.pending = append(s.pending, warning{level: "Warning", code: CodeQuerySyntax, msg: w})
	}
	return r, nil
}

// jsonHit is one hit of a shard's answer.
type jsonHit struct {
	shard  int
	hit    Hit
	keys   []any
	source map[string]any
}

func (s *Session) searchDistributed(ctx context.Context, d *distTable, req *SearchRequest, start time.Time) (*SearchResponse, error) {
	offset, count := req.Offset, req.Limit
	if count < 0 {
		count = defaultLimit
		if req.MaxMatches > 0 {
			count = defaultPageWithin(offset, count, req.MaxMatches)
		}
	}
	if offset < 0 || offset > 1<<31-1 || count > 1<<31-1 {
		return nil, Errorf(CodeSyntax, "%s: offset and limit must be from 0 to 2147483647", orRoot(req.Path))
	}
	want := offset + count
	if req.MaxMatches > 0 && want > req.MaxMatches {
		return nil, Errorf(CodeBadOption, "%s: offset+limit (%d) exceeds max_matches (%d)", orRoot(cmp.Or(req.MaxMatchesPath, req.Path)), want, req.MaxMatches)
	}
	ctx, done := s.statementTime(ctx)
	defer done()
	shards := d.shards()
	live := make([]bool, len(shards))
	for i := range live {
		live[i] = true
	}
	q := &distQuery{}
	if req.GlobalIDF {
		var texts []string
		collectTexts(req.Query, &texts)
		if len(texts) > 0 {
			q.matchQs = texts
			if err := s.distStats(ctx, d, q, shards, live, d.queryTimeout, false); err != nil {
				return nil, s.statementTimeError(ctx, err)
			}
		}
	}
	var global *globalStatsJSON
	if q.stats != "" {
		global = q.globalJSON
	}
	call := func(r *SearchRequest) func(table string) []string {
		return func(table string) []string {
			w := toWireSearch(r)
			w.Table, w.Global, w.Shard = table, global, true
			data, _ := json.Marshal(w)
			return []string{"CALL SEARCH_REQUEST(" + quoteString(string(data)) + ")", "SHOW WARNINGS", "SHOW META"}
		}
	}
	// Phase one: the sort columns of each shard's best offset+limit.
	one := *req
	one.Offset, one.Limit, one.Highlight, one.MaxMatches = 0, shardWant(want), nil, max(shardWant(want), 1)
	one.HoldSnapshot = d.holdFor(d.queryTimeout)
	one.Source = SourceFilter{Path: req.Source.Path, None: true}
	for _, k := range req.Sort {
		if k.Column != "_score" && k.Column != "id" && k.Column != "_id" {
			one.Source = SourceFilter{Path: req.Source.Path, Includes: append(one.Source.Includes, k.Column)}
		}
	}
	answers, err := s.eachShard(ctx, d, shards, live, d.queryTimeout, false, false, func(int) func(string) []string { return call(&one) })
	if err != nil {
		return nil, s.statementTimeError(ctx, err)
	}
	var hits []jsonHit
	found := make([]int, len(shards)) // each shard's total_found
	timedOut := false                 // a shard's max_query_time stopped its search
	tokens := make([]string, len(shards))
	for i, res := range answers {
		if res == nil {
			continue
		}
		for _, row := range res[0].Rows {
			h, err := decodeHit(row)
			if err != nil {
				return nil, shardError(d, shards[i], err)
			}
			src := map[string]any{}
			for _, v := range h.Source {
				src[strings.ToLower(v.Name)] = v.Value
			}
			jh := jsonHit{shard: i, hit: h, source: src}
			for _, k := range req.Sort {
				switch k.Column {
				case "_score":
					jh.keys = append(jh.keys, h.Score)
				case "id", "_id":
					jh.keys = append(jh.keys, h.ID)
				default:
					jh.keys = append(jh.keys, src[strings.ToLower(k.Column)])
				}
			}
			hits = append(hits, jh)
		}
		found[i], _ = metaOf(res[2])
		tokens[i] = metaValue(res[2], "snapshot")
		timedOut = timedOut || metaValue(res[2], "timed_out") == "1"
	}
	s.shardWarnings(d, shards, answers, 1)
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if req.Sort == nil {
			// Without sort: by _score (every hit weighs 1 without a text
			// condition), then id.
			if a.hit.Score != b.hit.Score {
				return a.hit.Score > b.hit.Score
			}
			return a.hit.ID < b.hit.ID
		}
		for k, key := range req.Sort {
			c, ok := compare(collLibcCI, a.keys[k], b.keys[k]) // (JSON: the default collation, as each shard's)
			if ok && c != 0 {
				return key.Desc == (c > 0)
			}
		}
		return a.hit.ID < b.hit.ID
	})
	seen := map[uint64]bool{}
	merged := hits[:0]
	for _, h := range hits {
		if !seen[h.hit.ID] {
			seen[h.hit.ID] = true
			merged = append(merged, h)
		}
	}
	// Phase two: _source and highlight of the window's hits. A shard that
	// fails now is left out as if it had been down from the start (the
	// window cut again from the others, its total gone), as in SQL.
	byID := map[uint64]Hit{}
	asked := map[uint64]bool{}
	var window []jsonHit
	for {
		window = liveWindow(window[:0], merged, live, func(h jsonHit) int { return h.shard }, offset, want)
		ids := make([][]any, len(shards))
		need := make([]bool, len(shards))
		for _, h := range window {
			if !asked[h.hit.ID] {
				ids[h.shard] = append(ids[h.shard], h.hit.ID)
				need[h.shard] = true
			}
		}
		if !slices.Contains(need, true) {
			break
		}
		sent := slices.Clone(need) // (eachShard clears need[i] of a shard that failed)
		rows, err := s.eachShard(ctx, d, shards, need, d.queryTimeout, false, true, func(i int) func(string) []string {
			two := *req
			var query Cond = req.Query
			if query == nil {
				query = &AllCond{Path: "query"}
			}
			two.Query = &BoolCond{Path: "query", Must: []Cond{query}, Filter: []Cond{&AttrCond{Path: "query", Column: "id", Op: AttrIn, Values: ids[i]}}}
			two.Offset, two.Limit, two.Sort, two.MaxMatches = 0, len(ids[i]), nil, max(len(ids[i]), 1)
			two.Snapshot = tokens[i]
			return call(&two)
		})
		if err != nil {
			return nil, s.statementTimeError(ctx, err)
		}
		for i := range sent {
			if sent[i] {
				tokens[i] = "" // (taken: a second fetch reads the shard as it is)
			}
		}
		lost := fetchedOrLost(sent, rows, ids, live, asked, asUint)
		for i, res := range rows {
			if !sent[i] || res == nil {
				continue
			}
			for _, row := range res[0].Rows {
				h, err := decodeHit(row)
				if err != nil {
					return nil, shardError(d, shards[i], err)
				}
				byID[h.ID] = h
			}
		}
		if !lost {
			break
		}
	}
	total := 0
	for i, n := range found {
		if live[i] {
			total += n
		}
	}
	resp := &SearchResponse{Total: total, Hits: []Hit{}}
	dropped := make([]int, len(shards))
	for _, h := range window {
		if full, ok := byID[h.hit.ID]; ok {
			if full.HighlightTruncated {
				resp.HighlightTruncated++
			}
			resp.Hits = append(resp.Hits, full)
		} else if asked[h.hit.ID] {
			dropped[h.shard]++
		}
	}
	s.droppedRows(d, shards, dropped)
	// "timed_out": the hits lack what a time limit kept out: a shard's
	// own max_query_time, or a shard left out for agent_query_timeout.
	resp.TimedOut = timedOut
	for _, sh := range shards {
		resp.TimedOut = resp.TimedOut || sh.timedOut
	}
	for _, w := range s.pending {
		resp.Warnings = append(resp.Warnings, w.msg)
	}
	s.pending = nil
	resp.Took = time.Since(start)
	return resp, nil
}

// jsonText is v as JSON text, a column value of CALL SEARCH_REQUEST.
func jsonText(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, asError(err)
	}
	return string(b), nil
}

// decodeHit reads one row of CALL SEARCH_REQUEST.
func decodeHit(row []any) (Hit, error) {
	h := Hit{ID: asUint(row[0]), Score: asInt(row[1]), HighlightTruncated: asInt(row[4]) == 1}
	var src []wireSource
	text, _ := row[2].(string)
	if err := json.Unmarshal([]byte(text), &src); err != nil {
		return h, fmt.Errorf("bad _source from the shard: %v", err)
	}
	for _, v := range src {
		h.Source = append(h.Source, Value{Name: v.Name, Value: v.Value.value(), JSON: v.JSON})
	}
	if hl, ok := row[3].(string); ok {
		dec := json.NewDecoder(bytes.NewReader([]byte(hl)))
		if err := dec.Decode(&h.Highlight); err != nil {
			return h, fmt.Errorf("bad highlight from the shard: %v", err)
		}
		if h.Highlight == nil {
			h.Highlight = []FieldSnippets{}
		}
	}
	if len(row) > 5 {
		if text, ok := row[5].(string); ok {
			if err := json.Unmarshal([]byte(text), &h.HighlightOffsets); err != nil {
				return h, fmt.Errorf("bad highlight_offsets from the shard: %v", err)
			}
			if h.HighlightOffsets == nil {
				h.HighlightOffsets = []SnippetData{}
			}
		}
	}
	return h, nil
}

// collectTexts gathers the full-text queries of a request's conditions,
// for the statistics of phase zero.
func collectTexts(c Cond, out *[]string) {
	switch x := c.(type) {
	case *TextCond:
		text := x.Query
		if x.Phrase {
			text = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(x.Query) + `"`
		}
		*out = append(*out, text)
	case *BoolCond:
		for _, list := range [][]Cond{x.Must, x.Should, x.MustNot, x.Filter} {
			for _, c := range list {
				collectTexts(c, out)
			}
		}
	}
}
