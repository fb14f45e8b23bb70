package peers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/corpus"
)

func TestTranslate(t *testing.T) {
	tests := []struct {
		name, in, websearch, fts5 string
	}{
		{"word", "election", `"election"`, `"election"`},
		{"operator words", "or", `"or"`, `"or"`},
		{"or3", "jury|or|not", `"jury" or "or" or "not"`, `"jury" OR "or" OR "not"`},
		{"phrase", `"grand jury"`, `"grand jury"`, `"grand jury"`},
		{"non-ascii", "café", `"café"`, `"café"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Websearch(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.websearch, got)
			got, err = FTS5(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.fts5, got)
		})
	}
	for _, bad := range []string{"", "a b", `""`, "a||b", "-a"} {
		_, err := FTS5(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// TestTranslateQuerySet translates every query a real set can hold.
func TestTranslateQuerySet(t *testing.T) {
	docs := []corpus.Doc{
		{Title: "one", Content: "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election"},
		{Title: "two", Content: "produced no evidence that any irregularities took place; or not, said the jury"},
	}
	qs := corpus.Queries(docs, corpus.DefaultSeed)
	require.NotEmpty(t, qs)
	for _, q := range qs {
		_, err := Websearch(q.Text)
		require.NoError(t, err, q.Text)
		_, err = FTS5(q.Text)
		require.NoError(t, err, q.Text)
	}
}
