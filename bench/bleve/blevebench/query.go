package blevebench

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query is one query of a query set, compiled once: the Bleve query that
// searches, and the analysed words and phrases that the snippets stand-in marks.
//
// It reads the part of the MATCH() syntax that corpus.Queries writes:
// alternatives separated by '|', each either a "quoted phrase" or words that
// must all occur (Sphinx's implicit AND). Other operator characters are left to
// the analyzer, which drops them as it drops any punctuation.
type Query struct {
	Text    string
	Search  query.Query // for Index.Search, over title and content (_all)
	words   map[string]bool
	phrases [][]string // of two or more words; a one-word phrase is a word
}

// Compile compiles text with the analyzer the index uses.
func Compile(text string, a analysis.Analyzer) (*Query, error) {
	q := &Query{Text: text, words: map[string]bool{}}
	var alts []query.Query
	for _, alt := range splitAlternatives(text) {
		alt = strings.TrimSpace(alt)
		phrase := len(alt) >= 2 && alt[0] == '"' && alt[len(alt)-1] == '"'
		if phrase {
			alt = alt[1 : len(alt)-1]
		}
		terms := analyze(a, alt)
		switch {
		case len(terms) == 0:
			continue
		case phrase && len(terms) > 1:
			q.phrases = append(q.phrases, terms)
			alts = append(alts, query.NewMatchPhraseQuery(alt))
		default:
			for _, t := range terms {
				q.words[t] = true
			}
			m := query.NewMatchQuery(alt)
			m.SetOperator(query.MatchQueryOperatorAnd)
			alts = append(alts, m)
		}
	}
	switch len(alts) {
	case 0:
		return nil, fmt.Errorf("blevebench: query %q has no words", text)
	case 1:
		q.Search = alts[0]
	default:
		q.Search = query.NewDisjunctionQuery(alts)
	}
	return q, nil
}

// splitAlternatives splits text at the '|' outside double quotes.
func splitAlternatives(text string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			quoted = !quoted
		case '|':
			if !quoted {
				out = append(out, text[start:i])
				start = i + 1
			}
		}
	}
	return append(out, text[start:])
}

// analyze returns the terms the analyzer makes of s.
func analyze(a analysis.Analyzer, s string) []string {
	var terms []string
	for _, t := range a.Analyze([]byte(s)) {
		terms = append(terms, string(t.Term))
	}
	return terms
}
