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
// # Example
//
//	tables := catalog.InformationSchema("glint", []catalog.TableInfo{{Name: "books", Columns: ...}})
//	env := &catalog.Env{Database: "glint", Tables: tables}
//	res, err := catalog.Select(ctx, stmt, env) // SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = database()
//	// res.Rows == [][]any{{"books"}}
//
// Errors are *Error values with a Code; the sql package turns them into its
// own errors.
package catalog
