package dialect

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/stretchr/testify/require"
)

// restore writes a node back as SQL, the way TiDB does.
func restore(t testing.TB, n ast.Node) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)))
	return b.String()
}

// valueOf returns the Go value of a literal.
func valueOf(t testing.TB, e ast.ExprNode) any {
	t.Helper()
	v, ok := e.(ast.ValueExpr)
	require.True(t, ok, "%T is not a literal", e)
	return v.GetValue()
}

// fieldValue returns the Go value of the i-th select field, a literal.
func fieldValue(t testing.TB, st *Statement, i int) any {
	t.Helper()
	sel, ok := st.Node.(*ast.SelectStmt)
	require.True(t, ok, "%T is not a SELECT", st.Node)
	return valueOf(t, sel.Fields.Fields[i].Expr)
}

// TestParseStatements checks that each statement parses and that TiDB restores
// it as shown: proof of what the SQL layer receives.
func TestParseStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the node restored by TiDB
	}{
		{"match and filters", "SELECT * FROM t WHERE MATCH('q') AND price > 3 ORDER BY x LIMIT 0, 10 OPTION ranker=bm25",
			"SELECT * FROM `t` WHERE MATCH(_UTF8MB4'q') AND `price`>3 ORDER BY `x` LIMIT 0,10"},
		{"match in lower case with a space", "select id from t where match ('q')",
			"SELECT `id` FROM `t` WHERE MATCH(_UTF8MB4'q')"},
		{"highlight, weight and snippet", "SELECT HIGHLIGHT(), WEIGHT(), SNIPPET(content, 'q', 'limit=5') FROM t",
			"SELECT HIGHLIGHT(),WEIGHT(),SNIPPET(`content`, _UTF8MB4'q', _UTF8MB4'limit=5') FROM `t`"},
		{"option map", "SELECT HIGHLIGHT({before_match='<X>', limit=5, around=-3}, 'title,content') FROM t",
			"SELECT HIGHLIGHT(__GLINT_MAP(_UTF8MB4'before_match', _UTF8MB4'<X>', _UTF8MB4'limit', 5, _UTF8MB4'around', -3), _UTF8MB4'title,content') FROM `t`"},
		{"empty option map", "SELECT HIGHLIGHT({}) FROM t", "SELECT HIGHLIGHT(__GLINT_MAP()) FROM `t`"},
		{"call snippets", "CALL SNIPPETS(('a','b'), 'books', 'q', 5 AS around, 200 AS limit, 1 AS load_files)",
			"CALL `SNIPPETS`(ROW(_UTF8MB4'a',_UTF8MB4'b'), _UTF8MB4'books', _UTF8MB4'q', __GLINT_AS(5, _UTF8MB4'around'), __GLINT_AS(200, _UTF8MB4'limit'), __GLINT_AS(1, _UTF8MB4'load_files'))"},
		{"show meta", "SHOW META", "SELECT __GLINT_SHOW_META()"},
		{"show meta like", "show meta like 'total%'", "SELECT __GLINT_SHOW_META(_UTF8MB4'total%')"},
		{"create table", "CREATE TABLE IF NOT EXISTS books (title text, price float) html_strip='1'",
			"CREATE TABLE IF NOT EXISTS `books` (`title` TEXT COMMENT 'glint:text',`price` TEXT COMMENT 'glint:float')"},
		{"insert", "INSERT INTO books (id, title) VALUES (1, 'a'), (2, 'b')",
			"INSERT INTO `books` (`id`,`title`) VALUES (1,_UTF8MB4'a'),(2,_UTF8MB4'b')"},
		{"replace", "REPLACE INTO books (id, title) VALUES (1, 'a')", "REPLACE INTO `books` (`id`,`title`) VALUES (1,_UTF8MB4'a')"},
		{"delete", "DELETE FROM books WHERE id IN (1,2)", "DELETE FROM `books` WHERE `id` IN (1,2)"},
		{"update", "UPDATE books SET price = 3 WHERE id = 1", "UPDATE `books` SET `price`=3 WHERE `id`=1"},
		{"show tables", "SHOW TABLES", "SHOW TABLES"},
		{"desc", "DESC books", "DESC `books`"},
		{"truncate", "TRUNCATE TABLE books", "TRUNCATE TABLE `books`"},
		{"drop", "DROP TABLE IF EXISTS books", "DROP TABLE IF EXISTS `books`"},
		{"set names", "SET NAMES utf8mb4", "SET NAMES 'utf8mb4'"},
		{"use", "USE test", "USE `test`"},
		{"placeholders", "SELECT * FROM t WHERE id = ? AND MATCH(?)", "SELECT * FROM `t` WHERE `id`=? AND MATCH(?)"},
		{"trailing semicolon", "SELECT 1 ;", "SELECT 1"},
		{"literals that look like the dialect", "SELECT 'MATCH(', '{a=1}', ' OPTION x=1' FROM t /* {b=2} */",
			"SELECT _UTF8MB4'MATCH(',_UTF8MB4'{a=1}',_UTF8MB4' OPTION x=1' FROM `t`"},
		{"backquoted match column", "SELECT `match` FROM t", "SELECT `match` FROM `t`"},
	}
	p := parser.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Parse(p, tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.in, st.Text)
			require.Equal(t, tc.want, restore(t, st.Node))
		})
	}
}

func TestParseSettings(t *testing.T) {
	type setting struct {
		Name  string
		Value string // restored
		Pos   int
	}
	tests := []struct {
		name string
		in   string
		want []setting
	}{
		{"none", "SELECT 1", nil},
		{"option", "SELECT * FROM t OPTION Ranker=bm25, max_matches=1000", []setting{
			{"ranker", "`bm25`", 23}, {"max_matches", "1000", 36}}},
		{"field weights", "SELECT * FROM t OPTION field_weights=(title=10, content=1)", []setting{
			{"field_weights", "ROW(`title`=10,`content`=1)", 23}}},
		{"one field weight is a row too", "SELECT * FROM t OPTION field_weights=(title=10)", []setting{
			{"field_weights", "ROW(`title`=10)", 23}}},
		{"call and string and sign", "SELECT * FROM t OPTION ranker=expr('sum(lcs)'), comment='x', cutoff=-1, agent=+2, x=?", []setting{
			{"ranker", "EXPR(_UTF8MB4'sum(lcs)')", 23}, {"comment", "_UTF8MB4'x'", 48}, {"cutoff", "-1", 61},
			{"agent", "+2", 72}, {"x", "?", 82}}},
		{"option word in parentheses", "SELECT HIGHLIGHT({option=1}) FROM t OPTION b=2", []setting{{"b", "2", 43}}},
		{"option on its own lines", "SELECT *\nFROM t\nOPTION\n  ranker = none ;", []setting{{"ranker", "`none`", 25}}},
		{"table settings", "CREATE TABLE t (title text) html_strip='1' index_sp='1' morphology='stem_en' min_word_len='2'", []setting{
			{"html_strip", "_UTF8MB4'1'", 28}, {"index_sp", "_UTF8MB4'1'", 43}, {"morphology", "_UTF8MB4'stem_en'", 56},
			{"min_word_len", "_UTF8MB4'2'", 77}}},
		{"table settings with commas and bare values", "CREATE TABLE t (a text) min_word_len=2, morphology=stem_en", []setting{
			{"min_word_len", "2", 24}, {"morphology", "`stem_en`", 40}}},
		{"backquoted name", "CREATE TABLE t (a text) `Type`='rt'", []setting{{"type", "_UTF8MB4'rt'", 24}}},
	}
	p := parser.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Parse(p, tc.in)
			require.NoError(t, err)
			var got []setting
			for _, s := range st.Settings {
				got = append(got, setting{s.Name, restore(t, s.Value), s.Pos})
			}
			require.Equal(t, tc.want, got)
			for _, s := range st.Settings {
				require.True(t, strings.EqualFold(s.Name, strings.Trim(tc.in[s.Pos:s.Pos+len(s.Name)+2*bool2int(tc.in[s.Pos] == '`')], "`")),
					"Pos of %s", s.Name)
			}
		})
	}
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestParseColumnTypes(t *testing.T) {
	st, err := Parse(nil, "CREATE TABLE t (a text, b TEXT INDEXED, c text stored, d text stored indexed, e text indexed stored,"+
		" f string, g int, h integer, i uint, j bigint, k float, l bool, m timestamp, n multi, o multi64, p json, `q r` Int)")
	require.NoError(t, err)
	create := st.Node.(*ast.CreateTableStmt)
	want := []string{"text", "text indexed", "text stored", "text", "text", "string", "uint", "uint", "uint",
		"bigint", "float", "bool", "timestamp", "multi", "multi64", "json", "uint"}
	require.Len(t, create.Cols, len(want))
	for i, col := range create.Cols {
		require.Len(t, col.Options, 1, col.Name.Name.O)
		require.Equal(t, ast.ColumnOptionComment, col.Options[0].Tp)
		require.Equal(t, ColumnTypePrefix+want[i], valueOf(t, col.Options[0].Expr), col.Name.Name.O)
	}
	require.Equal(t, "q r", create.Cols[16].Name.Name.O)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "empty statement at line 1 column 1 (end of statement)"},
		{"white space", "  \n ", "empty statement at line 1 column 1 near '  \n '"},
		{"comment only", "-- nothing", "empty statement at line 1 column 1 near '-- nothing'"},
		{"tidb error", "SELECT * FRM t", "syntax error at line 1 column 10 near 'FRM t'"},
		{"tidb error at the end", "SELECT * FROM", "syntax error at line 1 column 14 (end of statement)"},
		{"tidb error on a later line", "SELECT a,\n  b\nFROM t WHERE", "syntax error at line 3 column 13 (end of statement)"},
		{"tidb error after a rewrite", "SELECT HIGHLIGHT({limit=5}) FROM t WHERE MATCH('x') AND AND 1",
			"syntax error at line 1 column 57 near 'AND 1'"},
		{"tidb error in rewritten text", "SELECT * FROM {a=1}", "syntax error at line 1 column 15 near '{a=1}'"},
		{"tidb error before the option tail", "SELECT * FROM t LIMIT OPTION a=1", "syntax error at line 1 column 23 near 'OPTION a=1'"},
		{"tidb error in an option value", "SELECT 1 OPTION a=(1,)", "syntax error at line 1 column 22 near ')'"},
		{"tidb error in a table", "CREATE TABLE t (a text NOT)", "syntax error at line 1 column 27 near ')'"},
		{"near is cut at 40 bytes", "SELECT * FRM aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			"syntax error at line 1 column 10 near 'FRM aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"},
		{"unterminated string", "SELECT * FROM t WHERE MATCH('abc", "unterminated string literal at line 1 column 29 near ''abc'"},
		{"unterminated comment", "SELECT 1 /* x", "unterminated comment at line 1 column 10 near '/* x'"},
		{"two statements", "SELECT 1; SELECT 2", "only one statement is allowed here, and ';' ends it at line 1 column 9 near '; SELECT 2'"},
		{"unknown column type", "CREATE TABLE t (\n  x varchar(10))", "unknown column type 'varchar' for column 'x' at line 2 column 5 near 'varchar(10))'"},
		{"quoted column type", "CREATE TABLE t (x 'text')", "unknown column type ''text'' for column 'x' at line 1 column 19 near ''text')'"},
		{"missing column type", "CREATE TABLE t (a text, b)", "missing type for column 'b' at line 1 column 26 near ')'"},
		{"map without value", "SELECT HIGHLIGHT({limit=}) FROM t", "missing value for 'limit' in option map at line 1 column 25 near '}) FROM t'"},
		{"map without equals", "SELECT HIGHLIGHT({limit 5}) FROM t", "expected '=' after 'limit' in option map at line 1 column 25 near '5}) FROM t'"},
		{"map with trailing comma", "SELECT HIGHLIGHT({a=1,}) FROM t", "expected name=value in option map at line 1 column 23 near '}) FROM t'"},
		{"map not closed", "SELECT HIGHLIGHT({a=1) FROM t", "expected ',' or '}' in option map, found ')' at line 1 column 22 near ') FROM t'"},
		{"map not closed at the end", "SELECT HIGHLIGHT({a=1", "option map without its closing '}' at line 1 column 18 near '{a=1'"},
		{"closing brace alone", "SELECT 1 }", "unexpected '}' at line 1 column 10 near '}'"},
		{"option without settings", "SELECT * FROM t OPTION", "OPTION: expected name=value at line 1 column 23 (end of statement)"},
		{"option without value", "SELECT * FROM t OPTION ranker=", "OPTION: missing value for 'ranker' at line 1 column 31 (end of statement)"},
		{"option without equals", "SELECT * FROM t OPTION ranker bm25", "OPTION: expected '=' after 'ranker' at line 1 column 31 near 'bm25'"},
		{"option without comma", "SELECT * FROM t OPTION a=1 b=2", "OPTION: expected ',' after the value of 'a' at line 1 column 28 near 'b=2'"},
		{"option with trailing comma", "SELECT * FROM t OPTION a=1,", "OPTION: expected name=value after ',' at line 1 column 28 (end of statement)"},
		{"option with a bad value", "SELECT * FROM t OPTION a=*", "OPTION: expected a value for 'a' at line 1 column 26 near '*'"},
		{"option list not closed", "SELECT * FROM t OPTION a=(1", "OPTION: '(' without ')' in the value of 'a' at line 1 column 26 near '(1'"},
		{"table setting without value", "CREATE TABLE t (a text) morphology", "table settings: expected '=' after 'morphology' at line 1 column 35 (end of statement)"},
	}
	p := parser.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(p, tc.in)
			require.Error(t, err)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.want, err.Error())
		})
	}
}

func TestSyntaxErrorFields(t *testing.T) {
	_, err := Parse(nil, "SELECT 'é',\n  FROM t")
	require.Equal(t, &SyntaxError{Msg: "syntax error", Near: "FROM t", Line: 2, Column: 3}, err)
	require.Equal(t, "at line 0", (&SyntaxError{Msg: "at line 0"}).Error(), "no position")
}

func TestNearCutsBeforeRunes(t *testing.T) {
	s := strings.Repeat("a", maxNear-1) + "é"
	require.Equal(t, strings.Repeat("a", maxNear-1), near(s))
	require.Equal(t, strings.Repeat("a", maxNear-1)+"\uFFFD", near(s[:maxNear]), "short enough, its cut rune shown as U+FFFD")
	bad := strings.Repeat("\x80", 2*maxNear)
	require.Equal(t, "\uFFFD", near(bad), "not UTF-8: cut at 40 bytes, one U+FFFD for the run")
}

func TestTiDBOffset(t *testing.T) {
	text := "SELECT 1\nFROM t\nWHERE"
	tests := []struct {
		name string
		msg  string
		want int
		ok   bool
	}{
		{"near text", `line 3 column 6 near "WHERE" `, 16, true},
		{"near the end", `line 3 column 6 near "" `, len(text), true},
		{"cut near text", `line 1 column 8 near "1\nFR"(total length 13)`, 8, true},
		{"unknown near text: line and column", `line 2 column 3 near "zzz" extra`, 11, true},
		{"line 1 counts from 0", `line 1 column 7 near "zzz"`, 7, true},
		{"no position", `something else`, 0, false},
		{"line past the end", `line 9 column 1 near "zzz"`, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tidbOffset(tc.msg, text)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseNilParser(t *testing.T) {
	st, err := Parse(nil, "SELECT 1")
	require.NoError(t, err)
	require.IsType(t, &ast.SelectStmt{}, st.Node)
}
