// Package tokenize splits text into normalized words. It is the one tokenizer of
// glint: the indexer, the query parser and the highlighter all use it, so a word
// matches and is highlighted exactly when it was indexed.
package tokenize

// Token is one word of a text.
type Token struct {
	Term  string // the normalized form that is indexed and searched
	Pos   int    // 1-based word position in the field
	Start int    // byte offset of the first byte of the word in the text
	End   int    // byte offset just past the word
}
