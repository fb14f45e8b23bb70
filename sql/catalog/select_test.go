package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// testEnv is an Env over the catalog of one table, books (id, title).
func testEnv() *Env {
	tables := InformationSchema(Information{Database: "glint", Tables: []TableInfo{{
		Name: "books", Rows: 2,
		Columns: []ColumnInfo{
			{Name: "id", DataType: "bigint", ColumnType: "bigint unsigned", Primary: true, Precision: 20},
			{Name: "title", DataType: "text", ColumnType: "text", CharLength: 65535},
		},
	}}})
	vars := map[string]any{}
	return &Env{
		Database: "glint",
		Table: func(schema, name string) (*Table, error) {
			if t, ok := tables[strings.ToUpper(name)]; ok && (schema == "" || strings.EqualFold(schema, Schema)) {
				return t, nil
			}
			return nil, fmt.Errorf("no table %s.%s", schema, name)
		},
		Variable:    func(name string, system, global bool) (any, error) { return vars[name], nil },
		SetVariable: func(name string, v any) { vars[name] = v },
	}
}

// parse parses query with the TiDB parser, whose panics (a number literal
// of a few hundred digits panics its decimal type) are errors here as they
// are in glintd: its dialect refuses such literals before the parser sees
// them, and turns any panic of the parser into a syntax error.
func parse(query string) (stmts []ast.StmtNode, err error) {
	defer func() {
		if v := recover(); v != nil {
			stmts, err = nil, fmt.Errorf("the parser panicked: %v", v)
		}
	}()
	stmts, _, err = parser.New().Parse(query, "", "")
	return stmts, err
}

func run(t testing.TB, query string) (*Result, error) {
	stmts, err := parse(query)
	if err != nil || len(stmts) != 1 {
		return nil, fmt.Errorf("parse: %v", err)
	}
	switch n := stmts[0].(type) {
	case *ast.SelectStmt:
		return Select(context.Background(), n, testEnv())
	case *ast.SetOprStmt:
		return SelectSet(context.Background(), n, testEnv())
	}
	return nil, fmt.Errorf("not a SELECT")
}

func TestSelect(t *testing.T) {
	tests := []struct{ query, want string }{
		{"SELECT TABLE_NAME, TABLE_TYPE FROM TABLES WHERE TABLE_SCHEMA = database()", "[[books BASE TABLE]]"},
		{"SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'BOOKS' ORDER BY ORDINAL_POSITION DESC", "[[title] [id]]"},
		{"SELECT COUNT(*), MIN(ORDINAL_POSITION), MAX(COLUMN_NAME) FROM COLUMNS WHERE TABLE_SCHEMA = 'nope'", "[[0 <nil> <nil>]]"},
		{"SELECT t.TABLE_NAME, c.COLUMN_NAME FROM TABLES t LEFT JOIN COLUMNS c ON c.TABLE_NAME = t.TABLE_NAME AND c.COLUMN_KEY = 'PRI' WHERE t.TABLE_SCHEMA = 'glint'", "[[books id]]"},
		{"SELECT x.n FROM (SELECT COUNT(*) AS n FROM COLUMNS WHERE TABLE_NAME = 'books') AS x", "[[2]]"},
		{"SELECT 1 UNION SELECT 1 UNION ALL SELECT 1", "[[1] [1]]"},
		{"SELECT 7 DIV 2, 7 % 0, -9223372036854775807 - 1, 'a' = 'A'", "[[3 <nil> -9223372036854775808 1]]"},
	}
	for _, tc := range tests {
		res, err := run(t, tc.query)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if got := fmt.Sprint(res.Rows); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
}

// FuzzSelect checks that no statement makes the row engine panic, and that
// every row of a result has one value per column, of the column's type.
func FuzzSelect(f *testing.F) {
	for _, s := range []string{
		"SELECT TABLE_NAME FROM TABLES WHERE TABLE_SCHEMA = database() ORDER BY 1 LIMIT 1",
		"SELECT c.TABLE_NAME, COUNT(*) AS n FROM COLUMNS c JOIN TABLES t USING (TABLE_NAME) GROUP BY c.TABLE_NAME HAVING n > 1",
		"SELECT (SELECT COUNT(*) FROM COLUMNS c WHERE c.TABLE_NAME = t.TABLE_NAME) FROM TABLES t WHERE EXISTS (SELECT 1 FROM COLUMNS)",
		"SELECT IF(1, 'a', 2), CASE WHEN 0 THEN 1 END, @x := 3, @x, CHAR(65, 66), CAST('12' AS UNSIGNED)",
		"SELECT DISTINCT DATA_TYPE FROM COLUMNS ORDER BY GROUP_CONCAT(COLUMN_NAME)",
		"SELECT 1 UNION SELECT 'a' ORDER BY 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		res, err := run(t, query)
		if err != nil {
			return
		}
		for _, row := range res.Rows {
			if len(row) != len(res.Columns) {
				t.Fatalf("%s: a row of %d values for %d columns", query, len(row), len(res.Columns))
			}
			for i, v := range row {
				ok := v == nil
				switch v.(type) {
				case string:
					ok = res.Columns[i].Type == String
				case int64:
					ok = res.Columns[i].Type == Int
				case uint64:
					ok = res.Columns[i].Type == Uint
				case float64:
					ok = res.Columns[i].Type == Float
				}
				if !ok {
					t.Fatalf("%s: column %s of type %d holds %T", query, res.Columns[i].Name, res.Columns[i].Type, v)
				}
			}
		}
	})
}
