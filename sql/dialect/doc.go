// Package dialect bridges the Sphinx/Manticore SQL dialect to the TiDB parser. It is
// the one place that knows the pieces of the dialect the TiDB parser does not: it
// rewrites them, outside string literals and comments only, into text the TiDB
// parser accepts, and maps error positions back to the client's text.
//
// The work goes in stages, one file each:
//
//   - lexer.go cuts text into tokens the way MySQL does: strings, quoted
//     identifiers, comments (-- , #, /* */), numbers, words and punctuation.
//     Everything else stands on it, so a rewrite never touches the inside of a
//     literal or a comment.
//   - split.go cuts a text of several statements at ';' (Split);
//     placeholder.go finds ? placeholders and binds values (Placeholders,
//     Interpolate).
//   - rewrite.go, create.go, settings.go and facet.go rewrite one statement
//     (facet.go cuts off its FACET clauses); output.go keeps the map from the
//     rewritten text back to the original. dialect.go holds the Statement
//     and the reserved names the rewrite produces.
//   - parse.go runs the TiDB parser and turns its errors into a SyntaxError
//     that points into the original text (errors.go).
//   - standin.go hands the parser a short stand-in for each long string
//     literal (a document of an INSERT, a text of CALL SNIPPETS) and puts the
//     decoded value back into the parsed tree, so that long texts are not
//     copied byte by byte by the TiDB lexer; a statement whose literal does
//     not come back as a value is parsed again as written.
//   - shapes.go keeps the parsed tree of a CALL, or of a SELECT, whose
//     literals had stand-ins by its shape (the rewritten text: a CALL's
//     literals cut out; a SELECT's WHERE literals, strings and decimal
//     integers, and its LIMIT's numbers cut out, its OPTION tail apart;
//     LIMIT takes only numbers, so its stand-ins are numbers drawn at
//     start), and gives the next
//     statement of that shape the tree with its own values put in
//     (ParseShaped, Shapes.Lend).
//
// The rewrite:
//
//	MATCH('q')                    `MATCH`('q')                     an ordinary function call
//	{before_match='<b>', limit=5} `__glint_map`('before_match', '<b>', 'limit', 5)
//	{}                            `__glint_map`()
//	{html_strip_mode=strip}       `__glint_map`('html_strip_mode', `__glint_word`('strip'))
//	QUERY()                       `__glint_query`()
//	VALUES (1, ()), SET tags = () VALUES (1, `__glint_empty`()), SET tags = `__glint_empty`()
//	CALL f(x, 5 AS around)        CALL f(x, `__glint_as`(5, 'around'))
//	SHOW META [LIKE 'p']          SELECT `__glint_show_meta`(['p'])
//	title text stored             title TEXT COMMENT 'glint:text stored'
//	... OPTION ranker=bm25        cut off into Statement.Settings
//	... FACET a [BY b] [ORDER ...] cut off into Statement.Facets, each SELECT a FROM `__glint_facet` GROUP BY b|1 ...
//	WITHIN GROUP ORDER BY x DESC  cut out into Statement.WithinGroup
//	CREATE TABLE t (...) a='1'    cut off into Statement.Settings
//	INSERT INTO c:t ...           INSERT INTO `c:t` ... (a table t of cluster c; SplitClusterTable)
//
// The statements that manage replication clusters (CREATE CLUSTER, JOIN
// CLUSTER, ALTER CLUSTER, DELETE CLUSTER, SET CLUSTER c GLOBAL
// 'pc.bootstrap' = 1) are not SQL TiDB knows: cluster.go reads them itself
// into Statement.Cluster, a ClusterStmt, and Statement.Node is nil.
//
// Option map names keep the case they were written in; Setting names are lower
// case. A setting's value is one of: a number with an optional sign, a string, a ?
// placeholder, a name (ranker=bm25), a call (ranker=expr('...')) or a list in
// parentheses (field_weights=(title=10, content=1)), which is always an
// *ast.RowExpr, even with one element. The OPTION tail is read after SELECT,
// UPDATE and DELETE; it is for the SQL layer to reject it where it means nothing.
//
// Column types are text [indexed] [stored], string, int, integer, uint, bigint,
// float, bool, timestamp, multi, multi64 and json, in any case; the comment holds
// ColumnTypePrefix and the canonical name (int and integer are uint; text indexed
// stored is text). Other words after the type (NOT NULL) are left for TiDB to
// parse and the SQL layer to reject. An unknown type is a SyntaxError.
//
// # Example
//
// The statement
//
//	SELECT HIGHLIGHT({limit=50}) FROM books WHERE MATCH('cat') OPTION ranker=bm25
//
// is parsed by TiDB as
//
//	SELECT HIGHLIGHT(`__glint_map`('limit', 50)) FROM books WHERE `MATCH`('cat')
//
// and its Statement has one Setting, {Name: "ranker", Value: bm25 as an
// *ast.ColumnNameExpr, Pos: 66}. A mistake anywhere is reported against the text
// the client sent:
//
//	SELECT * FROM books WHERE MATCH('cat') LIMIT OPTION ranker=bm25
//	syntax error at line 1 column 46 near 'OPTION ranker=bm25'
//
// # Errors
//
// Every error of Parse is a *SyntaxError. Its Error method reads
//
//	<what is wrong> at line L column C near '<up to 40 bytes of the original text>'
//	<what is wrong> at line L column C (end of statement)
//
// with a 1-based line and a 1-based byte column. What is wrong is "syntax error"
// for what TiDB rejects, or a message of this package ("unknown column type
// 'varchar' for column 'x'", "unterminated string literal", "OPTION: missing
// value for 'ranker'", ...).
//
// # Limits
//
// Versioned comments are read as MySQL 8.0.36 reads them (VersionID):
// "/*!40100 SET x=1 */" is the statement SET x=1, rewritten like any other code;
// "/*!99999 ... */", MariaDB's "/*M! ... */" and TiDB's "/*T! ... */" are
// comments, and TiDB never sees any of them as code of its own (they reach it
// as spaces). A text of comments only is no statement (Split); IsComment tells
// it from an empty one, since MySQL answers the first with OK. The content of
// /*+ ... */ hints is never rewritten. The sql_mode is MySQL's default: a backslash escapes
// in strings and "..." is a string, not an identifier.
package dialect
