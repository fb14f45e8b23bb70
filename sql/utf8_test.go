package sql

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Text that is not UTF-8 (a client sending latin1, a cut sequence) is
// refused by name and place in every column that keeps text, and nothing
// of the statement is written.
func TestWritesRefuseTextThatIsNotUTF8(t *testing.T) {
	s := newTestSession(t)
	exec := func(q string) string { return render(s.Exec(context.Background(), q)) }
	assert.Equal(t, "ok 0\n", exec("CREATE TABLE t (title text, author string, meta json)"))
	assert.Equal(t, "error WrongValue: row 2, column 'title' (text): the text is not UTF-8 at byte 3 (0xE9): glint keeps text as UTF-8\n",
		exec("INSERT INTO t (id, title) VALUES (1, 'café'), (2, 'caf\xe9')"))
	assert.Equal(t, "error WrongValue: row 1, column 'author' (string): the text is not UTF-8 at byte 1 (0xC3): glint keeps text as UTF-8\n",
		exec("REPLACE INTO t (id, author) VALUES (3, 'a\xc3(')"))
	assert.Equal(t, "error WrongValue: row 1, column 'meta' (json): the text is not UTF-8 at byte 7 (0xFF): glint keeps text as UTF-8\n",
		exec("INSERT INTO t (id, meta) VALUES (4, '{\"a\": \"\xff\"}')"))
	assert.Equal(t, "count(*):int\n0\n", exec("SELECT COUNT(*) FROM t"))
	assert.Equal(t, "ok 1\n", exec("INSERT INTO t (id, title, author) VALUES (5, 'café', 'Zoë')"))
	assert.Equal(t, "error WrongValue: column 'author' (string): the text is not UTF-8 at byte 2 (0xEB): glint keeps text as UTF-8\n",
		exec("UPDATE t SET author = 'Zo\xeb' WHERE id = 5"))
	assert.Equal(t, "author:str\nZoë\n", exec("SELECT author FROM t WHERE id = 5"))
	// A query that is not UTF-8 can match nothing (every text is UTF-8): an
	// error, not an empty answer.
	assert.Equal(t, "error QuerySyntax: MATCH(): syntax error at offset 3: the query is not UTF-8 (byte 0xE9): glint keeps text as UTF-8\n",
		exec("SELECT id FROM t WHERE MATCH('caf\xe9 x')"))
	// Nor are texts to highlight: their snippets would not be UTF-8.
	assert.Equal(t, "error WrongValue: CALL SNIPPETS: text 2: the text is not UTF-8 at byte 3 (0xE9): glint keeps text as UTF-8\n",
		exec("CALL SNIPPETS(('a zoë', 'caf\xe9 zoë'), 't', 'zoë')"))
	assert.Equal(t, "error WrongValue: SNIPPET(): the text is not UTF-8 at byte 3 (0xE9): glint keeps text as UTF-8\n",
		exec("SELECT SNIPPET('caf\xe9 zoë', 'zoë') FROM t WHERE id = 5"))
}

// A name or a table setting that is not UTF-8 is refused where it is, never
// made into a name or a setting with '?' in place of the byte.
func TestNamesAndSettingsRefuseBytesThatAreNotUTF8(t *testing.T) {
	s := newTestSession(t)
	exec := func(q string) string { return render(s.Exec(context.Background(), q)) }
	assert.Equal(t, "error Syntax: byte 0xE9 is not UTF-8: names and keywords are UTF-8 text at line 1 column 20 near '\ufffd (title text)'\n",
		exec("CREATE TABLE hb_bad\xe9 (title text)"))
	assert.Equal(t, "error Syntax: byte 0xE9 is not UTF-8: names and keywords are UTF-8 text at line 1 column 19 near '\ufffdtle text)'\n",
		exec("CREATE TABLE t (ti\xe9tle text)"))
	assert.Equal(t, "error Syntax: byte 0xE9 is not UTF-8: names and keywords are UTF-8 text at line 1 column 16 near '\ufffd` (title text)'\n",
		exec("CREATE TABLE `q\xe9` (title text)"))
	assert.Equal(t, "error BadOption: table setting 'stopwords' is not UTF-8 text\n",
		exec("CREATE TABLE t (title text) stopwords='caf\xe9'"))
	assert.Equal(t, "error BadOption: table setting 'local' is not UTF-8 text\n",
		exec("CREATE TABLE d type='distributed' local='t\xe9'"))
	assert.Equal(t, "Table:str | Type:str\n", exec("SHOW TABLES"))
}
