package dialect_test

import (
	"fmt"

	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

func ExampleParse() {
	p := parser.New()
	st, err := dialect.Parse(p, "SELECT HIGHLIGHT({limit=50}) FROM books WHERE MATCH('cat') OPTION ranker=bm25")
	if err != nil {
		panic(err)
	}
	sel := st.Node.(*ast.SelectStmt)
	fmt.Println(sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr).Args[0].(*ast.FuncCallExpr).FnName.O)
	fmt.Println(sel.Where.(*ast.FuncCallExpr).FnName.O)
	for _, s := range st.Settings {
		fmt.Println(s.Name, s.Value.(*ast.ColumnNameExpr).Name.Name.O, s.Pos)
	}

	_, err = dialect.Parse(p, "SELECT * FROM books WHERE MATCH('cat') LIMIT OPTION ranker=bm25")
	fmt.Println(err)
	// Output:
	// __glint_map
	// MATCH
	// ranker bm25 66
	// syntax error at line 1 column 46 near 'OPTION ranker=bm25'
}

func ExampleSplit() {
	for _, p := range dialect.Split("SELECT * FROM t WHERE MATCH('a;b'); SHOW META;") {
		fmt.Printf("%d %q\n", p.Offset, p.Text)
	}
	// Output:
	// 0 "SELECT * FROM t WHERE MATCH('a;b')"
	// 36 "SHOW META"
}

func ExampleInterpolate() {
	text, err := dialect.Interpolate("SELECT * FROM t WHERE MATCH(?) AND id = ?", []any{"it's", int64(7)})
	fmt.Println(text, err)
	// Output:
	// SELECT * FROM t WHERE MATCH('it\'s') AND id = 7 <nil>
}
