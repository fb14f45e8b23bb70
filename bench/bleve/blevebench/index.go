package blevebench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/glint-search/glint/bench/corpus"
)

// AnalyzerName names the analyzer of every field: Unicode words, lower-cased,
// no stop words, no stemming.
const AnalyzerName = "plain"

// ContentField is the field that is stored and highlighted.
const ContentField = "content"

// indexBatch is how many documents go into one Bleve batch, as the servers get
// INSERTs of load.DefaultBatch.
const indexBatch = 1000

// NewMapping returns the index mapping: title and content are full-text fields
// analysed with AnalyzerName and searched together through Bleve's _all field;
// only content is stored (with term vectors, which the highlighter needs), as
// in Sphinx's t_stored index. Neither has doc values: nothing sorts or facets.
func NewMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	err := m.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, fmt.Errorf("blevebench: analyzer: %w", err)
	}
	m.DefaultAnalyzer = AnalyzerName

	title := bleve.NewTextFieldMapping()
	title.Analyzer, title.Store, title.DocValues = AnalyzerName, false, false
	content := bleve.NewTextFieldMapping()
	content.Analyzer, content.DocValues = AnalyzerName, false

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("title", title)
	doc.AddFieldMappingsAt(ContentField, content)
	m.DefaultMapping = doc
	return m, nil
}

// Analyzer returns the analyzer the mapping gives the content field.
func Analyzer(m *mapping.IndexMappingImpl) (analysis.Analyzer, error) {
	a := m.AnalyzerNamed(AnalyzerName)
	if a == nil {
		return nil, fmt.Errorf("blevebench: no analyzer %q in the mapping", AnalyzerName)
	}
	return a, nil
}

// BuildIndex creates a Bleve index (scorch, Bleve's default) in the empty or
// missing directory dir and indexes docs in batches, with their ids as document
// ids. The index is closed and opened again before it is returned, so that
// searches read the persisted segments as a long-running program would. The
// caller closes it.
func BuildIndex(ctx context.Context, dir string, docs []corpus.Doc) (bleve.Index, error) {
	m, err := NewMapping()
	if err != nil {
		return nil, err
	}
	idx, err := bleve.New(dir, m)
	if err != nil {
		return nil, fmt.Errorf("blevebench: creating the index in %s: %w", dir, err)
	}
	for first := 0; first < len(docs); first += indexBatch {
		if err := ctx.Err(); err != nil {
			idx.Close()
			return nil, err
		}
		b := idx.NewBatch()
		for _, d := range docs[first:min(first+indexBatch, len(docs))] {
			if err := b.Index(strconv.FormatUint(d.ID, 10), map[string]any{"title": d.Title, ContentField: d.Content}); err != nil {
				idx.Close()
				return nil, fmt.Errorf("blevebench: document %d: %w", d.ID, err)
			}
		}
		if err := idx.Batch(b); err != nil {
			idx.Close()
			return nil, fmt.Errorf("blevebench: indexing: %w", err)
		}
	}
	if err := idx.Close(); err != nil {
		return nil, fmt.Errorf("blevebench: closing the index: %w", err)
	}
	if idx, err = bleve.Open(dir); err != nil {
		return nil, fmt.Errorf("blevebench: opening the index again: %w", err)
	}
	n, err := idx.DocCount()
	if err == nil && n != uint64(len(docs)) {
		err = fmt.Errorf("blevebench: the index holds %d documents, not %d", n, len(docs))
	}
	if err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}
