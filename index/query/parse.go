package query

import "github.com/glint-search/glint/index/tokenize"

// Parse parses the text of MATCH() with the table's tokenizer.
// TEMPORARY: every word must match; operators are not recognized yet.
func Parse(text string, tok *tokenize.Tokenizer) (Node, error) {
	var words []Node
	var it tokenize.Iter
	it.Reset(tok, text)
	for it.Next() {
		t := it.Token()
		words = append(words, Keyword{Text: text[t.Start:t.End], Term: t.Term, Pos: t.Start, QPos: t.Pos})
	}
	if len(words) == 1 {
		return words[0], nil
	}
	return And{Children: words}, nil
}
