// Package golden is glint's one harness for golden-file tests: every package
// that compares what it computes with text kept in its testdata/ folder
// (query parsing, the SQL dialect bridge, SQL scripts, tokens, HTML
// stripping, snippets, and the end-to-end answers of the real server) reads
// its cases through it, in one format, and rewrites them with one flag:
//
//	go test ./sql -run TestScripts -rewrite
//
// rewrites the expected outputs from what the code gives now, so that a
// change shows as a diff to review before it is committed (make rewrite does
// it for every package that uses the harness; a package that does not
// rejects the flag).
//
// # Format
//
// A file is a sequence of cases. A case is a command line (a command name,
// then arguments key, key=value or key=(value, value)), the input (any
// number of lines), a line "----" and the expected output, which ends at the
// first blank line:
//
//	# Comment lines before a command are kept by -rewrite.
//	parse tok=stem
//	running dogs
//	----
//	AND(run@1, dog@2)
//
// An expected output that holds blank lines (or lines of blanks only) is
// written between two lines "----" and two more; -rewrite chooses that form
// by itself:
//
//	cli
//	SELECT * FROM nosuchtable;
//	----
//	----
//	--------------
//	SELECT * FROM nosuchtable
//	--------------
//
//	ERROR 1146 (42S02) at line 1: unknown table 'nosuchtable'
//	----
//	----
//
// Each test gives the commands of its files their meaning (see the test
// functions that call [Run]). The cases of a file run in order, and the first
// that fails stops the file.
//
// The input is trimmed of white space at both ends, and a value of the
// command line holds no blank outside parentheses; a test that needs either
// says how its input is escaped (index/query takes a Go-quoted string).
// Whole files of output (a chart's SVG, a client's transcript) are compared
// with [File], which -rewrite writes too.
//
// # Why datadriven
//
// The format and the runner are github.com/cockroachdb/datadriven's (the
// harness of CockroachDB and Pebble), not a parser of our own: it is the
// format the house style names, it already does what eight harnesses of
// ours each did in part (comments, multi-line inputs and outputs, a rewrite
// that keeps the comments and the layout, a diff on failure, the position
// of a failing case), and its only dependency is a small diff library
// (go-difflib), for the diff it prints on failure. A package of our own in its spirit would have been some
// 250 lines to write and test for the same result. This package adds the
// few things ours need around it: one subtest per file of a pattern, the
// rewrite of whole output files, and the -rewrite flag (datadriven's, so
// that there is one) for those.
package golden
