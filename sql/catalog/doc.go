// Package catalog answers SELECTs over small in-memory tables: the
// information_schema that MySQL tools read to learn what a server holds
// (Grafana, Metabase, DBeaver, ODBC's SQLTables/SQLColumns, JDBC's
// DatabaseMetaData, SQLAlchemy's reflection). It is kept apart from the
// full-text search path: its tables are a few rows per user table, so a
// statement is evaluated by a plain row engine over slices, in the stages a
// SELECT reads in:
//
//	FROM      tables and derived tables, joined (inner, left, right, cross)
//	WHERE     filter
//	GROUP BY  groups and aggregates (COUNT, MIN, MAX, SUM, AVG, GROUP_CONCAT)
//	HAVING    filter of groups
//	SELECT    projection, DISTINCT
//	ORDER BY  sort (by expressions, aliases or positions)
//	LIMIT     window
//
// Strings compare as MySQL's default _ci collations do: case-insensitively.
//
// The sql package borrows the same row engine for two things its search path
// does not do itself: the scalar functions of a search's select list, WHERE,
// ORDER BY and HAVING (CompileScalar: IF, CASE, SUBSTRING, the time
// functions), and the outer SELECT of a derived table, whose rows are a
// search's (Select over a Table the caller builds).
//
// # Example
//
//	tables := catalog.InformationSchema(catalog.Information{Database: "glint",
//		Tables: []catalog.TableInfo{{Name: "books", Columns: ...}}})
//	env := &catalog.Env{Database: "glint", Table: func(schema, name string) (*catalog.Table, error) {
//		if t, ok := tables[strings.ToUpper(name)]; ok { // information_schema's tables, by upper-case name
//			return t, nil
//		}
//		return nil, fmt.Errorf("no table %s", name)
//	}}
//	res, err := catalog.Select(ctx, stmt, env) // SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = database()
//	// res.Rows == [][]any{{"books"}}
//
// Errors are *Error values with a Code; the sql package turns them into its
// own errors.
package catalog
