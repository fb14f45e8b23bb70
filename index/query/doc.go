// Parsing is a single step: the query text goes through the table's tokenizer,
// so a query word is normalized exactly like an indexed word.
//
//	tok := tokenize.Default()
//	n, _ := query.Parse("Hello, World", tok)
//	// n == query.And{Children: []query.Node{
//	//	query.Term{Word: "hello", Pos: 0},
//	//	query.Term{Word: "world", Pos: 7},
//	// }}
//
// The index evaluates a tree with a switch over the node types; a node type it
// does not know is an error, so the language can grow one node at a time.
package query
