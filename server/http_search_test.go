package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/sql"
)

func parseSearch(t *testing.T, body string) (*sql.SearchRequest, error) {
	t.Helper()
	v, err := decodeJSON([]byte(body))
	require.NoError(t, err)
	return searchRequest(v)
}

// Each rule of reading a POST /search body, as a request and what it must
// become (check) or the error it must give (err, a part of the message).
func TestSearchRequestRules(t *testing.T) {
	tests := []struct {
		rule  string
		body  string
		err   string
		check func(t *testing.T, r *sql.SearchRequest)
	}{
		{rule: "without query, every document matches",
			body:  `{"table": "t"}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Nil(t, r.Query) }},
		{rule: "a query of one full-text, one filter and one bool member: all must hold, in the order written",
			body: `{"table": "t", "query": {"match": {"body": "red"}, "equals": {"id": 3}, "bool": {"must": [{"match_all": {}}]}}}`,
			check: func(t *testing.T, r *sql.SearchRequest) {
				b, ok := r.Query.(*sql.BoolCond)
				require.True(t, ok, "%T", r.Query)
				require.Len(t, b.Must, 3)
				assert.IsType(t, &sql.TextCond{}, b.Must[0])
				assert.IsType(t, &sql.AttrCond{}, b.Must[1])
				assert.IsType(t, &sql.BoolCond{}, b.Must[2])
				assert.Equal(t, "query.equals", b.Must[1].(*sql.AttrCond).Path)
			}},
		{rule: "two full-text members are an error", body: `{"table": "t", "query": {"match": {"*": "a"}, "match_phrase": {"*": "b"}}}`,
			err: `query: "query" has multiple full-text properties, use bool node`},
		{rule: "two filter members are an error", body: `{"table": "t", "query": {"in": {"id": [1]}, "range": {"id": {"gt": 1}}}}`,
			err: `"query" has multiple filter properties`},
		{rule: "an empty query object is an error", body: `{"table": "t", "query": {}}`,
			err: `query: "query" property is empty`},
		{rule: "cutoff is a whole number", body: `{"table": "t", "cutoff": 7}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Equal(t, 7, r.Cutoff) }},
		{rule: "cutoff in options", body: `{"table": "t", "options": {"cutoff": 9}}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Equal(t, 9, r.Cutoff) }},
		{rule: "cutoff of another type is an error naming it", body: `{"table": "t", "cutoff": true}`,
			err: `cutoff: "cutoff" property value should be an integer`},
		{rule: "source is taken and not read", body: `{"table": "t", "source": {"includes": "x"}}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Empty(t, r.Source.Includes) }},
		{rule: "_source as an empty string or * is every column", body: `{"table": "t", "_source": "*"}`,
			check: func(t *testing.T, r *sql.SearchRequest) {
				assert.Empty(t, r.Source.Includes)
				assert.False(t, r.Source.None)
			}},
		{rule: "_source as a pattern keeps it", body: `{"table": "t", "_source": "ti*"}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Equal(t, []string{"ti*"}, r.Source.Includes) }},
		{rule: "highlight.fields [] is every field", body: `{"table": "t", "highlight": {"fields": []}}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Nil(t, r.Highlight.Fields) }},
		{rule: "highlight.fields {} is every field", body: `{"table": "t", "highlight": {"fields": {}}}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.Nil(t, r.Highlight.Fields) }},
		{rule: "highlight.fields as an object gives each field its options",
			body: `{"table": "t", "highlight": {"fields": {"a": {}, "b": {"fragment_size": 40}}}}`,
			check: func(t *testing.T, r *sql.SearchRequest) {
				require.Len(t, r.Highlight.Fields, 2)
				assert.Empty(t, r.Highlight.Fields[0].Options)
				assert.Equal(t, []sql.OptionValue{{Path: "highlight.fields.b.fragment_size", Name: "fragment_size", Value: int64(40)}}, r.Highlight.Fields[1].Options)
			}},
		{rule: "a field's options must be an object", body: `{"table": "t", "highlight": {"fields": {"a": 1}}}`,
			err: `highlight.fields.a: "a" field should be an object`},
		{rule: "highlight.fields of another type is an error", body: `{"table": "t", "highlight": {"fields": 3}}`,
			err: `highlight.fields: "fields" property value should be an array or an object`},
		{rule: "highlight_query is a query object, with several members too",
			body:  `{"table": "t", "highlight": {"highlight_query": {"match": {"*": "x"}}}}`,
			check: func(t *testing.T, r *sql.SearchRequest) { assert.IsType(t, &sql.TextCond{}, r.Highlight.Query) }},
		{rule: "highlight_query of another type is an error", body: `{"table": "t", "highlight": {"highlight_query": "x"}}`,
			err: `highlight.highlight_query: "highlight_query" property value should be an object`},
		{rule: "the highlight object must be an object", body: `{"table": "t", "highlight": []}`,
			err: `highlight: "highlight" property value should be an object`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r, err := parseSearch(t, tt.body)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
}

// The JSON type each highlight member takes, as the reference checks it:
// a value of that type is handed to the highlighter as it is, and any
// other is an error that names the member and its place.
func TestHighlightMemberTypes(t *testing.T) {
	tests := []struct {
		member string
		good   string
		want   any
		bad    string
		err    string
	}{
		{"fragment_size", `80`, int64(80), `80.5`, `"fragment_size" property value should be an integer`},
		{"number_of_fragments", `2`, int64(2), `"2"`, `"number_of_fragments" property value should be an integer`},
		{"no_match_size", `0`, int64(0), `false`, `"no_match_size" property value should be an integer`},
		{"limit", `100`, int64(100), `true`, `"limit" property value should be an integer`},
		{"around", `3`, int64(3), `"3"`, `"around" property value should be an integer`},
		{"start_snippet_id", `-2`, int64(-2), `99999999999999999999`,
			`"start_snippet_id" property value should be an integer of 64 bits, got 99999999999999999999`},
		{"limits_per_field", `false`, false, `0`, `"limits_per_field" property value should be a boolean`},
		{"allow_empty", `true`, true, `1`, `"allow_empty" property value should be a boolean`},
		{"weight_order", `true`, true, `"yes"`, `"weight_order" property value should be a boolean`},
		{"order", `"score"`, "score", `1`, `"order" property value should be a string`},
		{"encoder", `"html"`, "html", `true`, `"encoder" property value should be a string`},
		{"before_match", `"[["`, "[[", `[1]`, `"before_match" property value should be a string`},
		{"pre_tags", `["<em>"]`, []any{"<em>"}, `{}`, `"pre_tags" property value should be an array or a string`},
		{"post_tags", `"</em>"`, "</em>", `7`, `"post_tags" property value should be an array or a string`},
	}
	for _, tt := range tests {
		t.Run(tt.member, func(t *testing.T) {
			r, err := parseSearch(t, `{"table": "t", "highlight": {"`+tt.member+`": `+tt.good+`}}`)
			require.NoError(t, err)
			require.Len(t, r.Highlight.Options, 1)
			assert.Equal(t, tt.want, r.Highlight.Options[0].Value)

			r, err = parseSearch(t, `{"table": "t", "highlight": {"fields": {"body": {"`+tt.member+`": `+tt.good+`}}}}`)
			require.NoError(t, err, "per field")
			assert.Equal(t, tt.want, r.Highlight.Fields[0].Options[0].Value)

			_, err = parseSearch(t, `{"table": "t", "highlight": {"`+tt.member+`": `+tt.bad+`}}`)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "highlight."+tt.member+": "+tt.err)
		})
	}
}
