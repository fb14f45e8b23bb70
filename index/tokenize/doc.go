// A worked example:
//
//	tok, _ := tokenize.New(tokenize.Settings{})
//	toks := tok.Append(nil, "Hello, Wörld 42!")
//	// toks[0] == tokenize.Token{Term: "hello", Pos: 1, Start: 0, End: 5}
//	// toks[1] == tokenize.Token{Term: "wörld", Pos: 2, Start: 7, End: 13}
//	// toks[2] == tokenize.Token{Term: "42", Pos: 3, Start: 14, End: 16}
//
// Start and End are byte offsets into the original text, so the highlighter can
// cut the original words out; Term is the folded form that is indexed.
//
// The indexer uses Iter, which hands out the term as a reused []byte and does
// not allocate per word; Tokens and Append are the convenient forms that give
// each Token its own Term string.
package tokenize
