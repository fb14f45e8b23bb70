package highlight_test

import (
	"fmt"

	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index/tokenize"
)

// A field's words come from the table's tokenizer, its marks from the
// query (here: every occurrence of "robots"); the snippets come out as data,
// then as the SQL string and as JSON's strings.
func Example() {
	text := "They left at dawn. The robots remained at a polite distance, waiting for orders that never came."
	f := highlight.Field{Text: text}
	var it tokenize.Iter
	it.Reset(tokenize.Default(), text)
	for it.Next() {
		f.Add(it.Pos(), it.Start(), it.End(), it.Term())
		if string(it.Term()) == "robots" {
			f.Marks = append(f.Marks, tokenize.Mark{Pos: it.Pos()})
		}
	}
	opts := highlight.DefaultOptions()
	if err := opts.Set("limit", int64(40)); err != nil {
		panic(err)
	}
	if err := opts.Set("around", int64(2)); err != nil {
		panic(err)
	}
	res := highlight.Highlight(&highlight.Request{Fields: []highlight.Field{f}, Weights: []int{6}, Options: &opts})
	s := res.Fields[0].Snippets[0]
	fmt.Printf("%q %v\n", text[s.Start:s.End], s.Marks[0].Range)
	fmt.Printf("%q\n", res.Join())
	fmt.Printf("%q\n", res.Strings())
	// Output:
	// " dawn. The robots remained at" {23 29}
	// " ...  dawn. The <b>robots</b> remained at ... "
	// [[" dawn. The <b>robots</b> remained at"]]
}
