package query_test

import (
	"fmt"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

func ExampleParse() {
	n, err := query.Parse(`hello -"brave new" @title world*`, tokenize.Default())
	fmt.Println(query.String(n), err)
	_, err = query.Parse(`hello (world`, tokenize.Default())
	fmt.Println(err)
	// Output:
	// AND(hello@1, NOT(PHRASE(brave@2 new@3)), FIELD(title; world*@4)) <nil>
	// syntax error at offset 6: unbalanced '(': no closing ')'
}
