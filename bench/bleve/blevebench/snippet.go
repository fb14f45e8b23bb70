package blevebench

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight"
	htmlhl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"
)

// Snippeter is the stand-in for CALL SNIPPETS: it highlights a text given with
// the request (not read from an index) against a compiled query, with Bleve's
// analyzer and Bleve's default html highlighter, which is what Index.Search
// uses for search+highlight. It is safe for concurrent use.
type Snippeter struct {
	analyzer    analysis.Analyzer
	highlighter highlight.Highlighter
}

// NewSnippeter returns a Snippeter that tokenizes with a.
func NewSnippeter(a analysis.Analyzer) (*Snippeter, error) {
	h, err := registry.NewCache().HighlighterNamed(htmlhl.Name)
	if err != nil {
		return nil, fmt.Errorf("blevebench: the %s highlighter: %w", htmlhl.Name, err)
	}
	return &Snippeter{analyzer: a, highlighter: h}, nil
}

// Snippet tokenizes text, marks every occurrence of the query's words and
// phrases, and returns the best fragment as Bleve renders it (about 200
// characters, terms in <mark>, "…" where text was cut). A text with nothing to
// mark gives its beginning.
func (s *Snippeter) Snippet(q *Query, text string) string {
	// The analyzer's token filters change its input in place (lower-casing),
	// so it gets a copy of its own.
	tokens := s.analyzer.Analyze([]byte(text))
	locations := search.TermLocationMap{}
	mark := func(t *analysis.Token) {
		term := string(t.Term)
		locations[term] = append(locations[term], &search.Location{
			Pos: uint64(t.Position), Start: uint64(t.Start), End: uint64(t.End),
		})
	}
	for i, t := range tokens {
		if q.words[string(t.Term)] {
			mark(t)
		}
		for _, p := range q.phrases {
			if phraseAt(tokens, i, p) {
				for _, pt := range tokens[i : i+len(p)] {
					mark(pt)
				}
			}
		}
	}
	dm := &search.DocumentMatch{Locations: search.FieldTermLocationMap{ContentField: locations}}
	doc := document.NewDocument("")
	doc.AddField(document.NewTextField(ContentField, nil, []byte(text)))
	return s.highlighter.BestFragmentInField(dm, doc, ContentField)
}

// phraseAt says whether the words of p are the terms of tokens[i:], at
// consecutive positions.
func phraseAt(tokens analysis.TokenStream, i int, p []string) bool {
	if i+len(p) > len(tokens) {
		return false
	}
	for j, w := range p {
		t := tokens[i+j]
		if string(t.Term) != w || t.Position != tokens[i].Position+j {
			return false
		}
	}
	return true
}
