package peers

import (
	"fmt"
	"strings"

	"github.com/glint-search/glint/bench/corpus"
)

// The race's queries come in four shapes (corpus.Shapes), written in the
// MATCH() syntax glint and Sphinx read: a word, a rare word, a|b|c and "a b".
// Their words are lower-case runs of letters (corpus.Words). Each peer gets
// the same query in its own syntax:
//
//	shape    MATCH()     websearch_to_tsquery       FTS5 MATCH
//	freq     word        "word"                     "word"
//	rare     word        "word"                     "word"
//	or3      a|b|c       "a" or "b" or "c"          "a" OR "b" OR "c"
//	phrase2  "a b"       "a b"                      "a b"
//
// Every word is quoted: websearch_to_tsquery reads a bare "or" as its OR
// operator and a leading "-" as NOT, and FTS5 reads bare AND, OR, NOT and
// NEAR as operators; quoted, a word is a word (a phrase of one) in both.

// Websearch translates a query of the race's set into the text
// PostgreSQL's websearch_to_tsquery reads.
func Websearch(q string) (string, error) {
	return translate(q, " or ")
}

// FTS5 translates a query of the race's set into an SQLite FTS5 MATCH
// expression.
func FTS5(q string) (string, error) {
	return translate(q, " OR ")
}

// translate rewrites q as quoted words or one quoted phrase, alternatives
// joined by or.
func translate(q, or string) (string, error) {
	q = strings.TrimSpace(q)
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		words := corpus.Words(q[1 : len(q)-1])
		if len(words) == 0 {
			return "", fmt.Errorf("peers: phrase %s has no words", q)
		}
		return `"` + strings.Join(words, " ") + `"`, nil
	}
	alts := strings.Split(q, "|")
	out := make([]string, 0, len(alts))
	for _, a := range alts {
		words := corpus.Words(a)
		if len(words) != 1 {
			return "", fmt.Errorf("peers: %q is not a word, a|b|c or a quoted phrase", q)
		}
		out = append(out, `"`+words[0]+`"`)
	}
	return strings.Join(out, or), nil
}
