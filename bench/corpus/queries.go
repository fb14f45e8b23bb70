package corpus

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// DefaultSeed is the seed of the published query sets.
const DefaultSeed = 20260521

// QueriesPerShape is how many queries of each shape a set has.
const QueriesPerShape = 50

// The query shapes.
const (
	ShapeFreq    = "freq"    // one frequent word
	ShapeRare    = "rare"    // one rare word
	ShapeOr3     = "or3"     // a|b|c
	ShapePhrase2 = "phrase2" // "a b", adjacent words of a real document
)

// Shapes lists the shapes in the order they take turns in a query set.
var Shapes = []string{ShapeFreq, ShapeRare, ShapeOr3, ShapePhrase2}

// Query is one full-text query of a query set.
type Query struct {
	Shape string `json:"shape"`
	Text  string `json:"text"` // in the MATCH() syntax
}

// Queries returns the query set of docs: QueriesPerShape queries of each shape,
// the shapes taking turns (so any prefix of the set mixes them), drawn with a
// generator seeded by seed. The same docs and seed always give the same set.
func Queries(docs []Doc, seed uint64) []Query {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v := newVocabulary(docs)
	frequent := v.top(100)
	common := v.top(2000)
	rare := v.withDocFreq(2, 3)
	if len(rare) == 0 {
		rare = v.withDocFreq(1, 1)
	}
	if len(rare) == 0 { // a tiny corpus where every word is common
		rare = frequent
	}
	if len(frequent) == 0 {
		return nil
	}
	pick := func(words []string) string { return words[rng.IntN(len(words))] }
	var qs []Query
	for range QueriesPerShape {
		qs = append(qs,
			Query{ShapeFreq, pick(frequent)},
			Query{ShapeRare, pick(rare)},
			Query{ShapeOr3, pick(common) + "|" + pick(common) + "|" + pick(common)},
			Query{ShapePhrase2, phrase2(docs, rng)},
		)
	}
	return qs
}

// phrase2 draws two adjacent words of a random document as a quoted phrase.
func phrase2(docs []Doc, rng *rand.Rand) string {
	for range 10000 {
		words := Words(docs[rng.IntN(len(docs))].Content)
		if len(words) < 2 {
			continue
		}
		i := rng.IntN(len(words) - 1)
		return fmt.Sprintf("%q", words[i]+" "+words[i+1])
	}
	return fmt.Sprintf("%q", "no phrase") // no document has two words
}

// Words splits text into lower-case words: runs of letters of at least two.
// Phrases are taken from its output, so digits and punctuation never reach a
// query.
func Words(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(f)) >= 2 {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

// vocabulary is the corpus's words with their document frequencies, ordered by
// frequency (highest first), then alphabetically.
type vocabulary struct {
	words []string
	df    map[string]int
}

func newVocabulary(docs []Doc) *vocabulary {
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range Words(d.Title + " " + d.Content) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	words := make([]string, 0, len(df))
	for w := range df {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		return cmp.Or(cmp.Compare(df[b], df[a]), cmp.Compare(a, b))
	})
	return &vocabulary{words: words, df: df}
}

// top returns the n most frequent words (all of them when there are fewer).
func (v *vocabulary) top(n int) []string { return v.words[:min(n, len(v.words))] }

// withDocFreq returns the words found in lo to hi documents.
func (v *vocabulary) withDocFreq(lo, hi int) []string {
	var out []string
	for _, w := range v.words {
		if f := v.df[w]; f >= lo && f <= hi {
			out = append(out, w)
		}
	}
	return out
}

// LadderQueries is the query set of the field-size ladder: Queries of its
// smallest document alone. The rungs are prefixes of one text (MakeLadder), so
// every word of every query occurs in every rung, and what changes from rung
// to rung is the field size.
func LadderQueries(ladder []Doc, seed uint64) []Query {
	if len(ladder) == 0 {
		return nil
	}
	smallest := ladder[0]
	for _, d := range ladder[1:] {
		if len(d.Content) < len(smallest.Content) {
			smallest = d
		}
	}
	return Queries([]Doc{{Content: smallest.Content}}, seed) // not the title: only content is highlighted
}
