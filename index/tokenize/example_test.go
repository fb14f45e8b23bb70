package tokenize_test

import (
	"fmt"
	"os"

	"github.com/glint-search/glint/index/tokenize"
)

func ExampleTokenizer_Append() {
	tok := tokenize.Default()
	for _, t := range tok.Append(nil, "Hello, Wörld 42!") {
		fmt.Printf("%q %d [%d:%d]\n", t.Term, t.Pos, t.Start, t.End)
	}
	// Output:
	// "hello" 1 [0:5]
	// "wörld" 2 [7:13]
	// "42" 3 [14:16]
}

func ExampleParseSettings() {
	cfg, err := tokenize.ParseSettings([]tokenize.Setting{
		{Name: "morphology", Value: "stem_en"},
		{Name: "index_exact_words", Value: "1"},
		{Name: "stopwords", Value: "the a an"},
	}, os.ReadFile)
	if err != nil {
		panic(err)
	}
	tok, err := tokenize.New(cfg)
	if err != nil {
		panic(err)
	}
	for _, t := range tok.Append(nil, "The Running dogs") {
		fmt.Printf("%q %d [%d:%d]\n", t.Term, t.Pos, t.Start, t.End)
	}
	fmt.Printf("%q\n", tok.Exact("Running"))
	// Output:
	// "run" 2 [4:11]
	// "\x01running" 2 [4:11]
	// "dog" 3 [12:16]
	// "\x01dogs" 3 [12:16]
	// "\x01running"
}

func ExampleParseSettings_error() {
	_, err := tokenize.ParseSettings([]tokenize.Setting{
		{Name: "charset_table", Value: "0..9, a..z, z..a"},
	}, os.ReadFile)
	fmt.Println(err)
	// Output:
	// charset_table: range 'z..a' ends before it starts (at offset 12)
}

func ExampleIter_Blended() {
	cfg, _ := tokenize.ParseSettings([]tokenize.Setting{{Name: "blend_chars", Value: "-"}}, nil)
	tok, _ := tokenize.New(cfg)
	var it tokenize.Iter
	it.Reset(tok, "well-being")
	for it.Next() {
		fmt.Println(string(it.Term()), it.Pos(), it.Blended())
	}
	// Output:
	// well-being 1 true
	// well 1 false
	// being 2 false
}
