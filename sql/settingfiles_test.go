package sql

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file a table setting names is read only if it is a regular file of
// at most maxSettingFile bytes: a pipe, a device or a directory is refused
// by kind at once (a FIFO with no writer never blocks the statement), a
// huge file by size before it is read, and no table is made.
func TestSettingFilesAreRegularAndBounded(t *testing.T) {
	s := newTestSession(t)
	exec := func(q string) string { return render(s.Exec(context.Background(), q)) }
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	huge := filepath.Join(dir, "huge.txt")
	require.NoError(t, os.WriteFile(huge, nil, 0o600))
	require.NoError(t, os.Truncate(huge, maxSettingFile+1)) // (sparse)
	words := filepath.Join(dir, "words.txt")
	require.NoError(t, os.WriteFile(words, []byte("zebra\n"), 0o600))

	for _, c := range []struct{ setting, want string }{
		{"stopwords='" + fifo + "'", "error BadOption: stopwords: cannot read '" + fifo + "': it is a named pipe (FIFO), not a regular file\n"},
		{"stopwords='/dev/zero'", "error BadOption: stopwords: cannot read '/dev/zero': it is a character device, not a regular file\n"},
		{"wordforms='" + dir + "'", "error BadOption: wordforms: cannot read '" + dir + "': it is a directory, not a regular file\n"},
		{"exceptions='" + huge + "'", "error BadOption: exceptions: cannot read '" + huge + "': it is larger than 256 MB (268435457 bytes)\n"},
		{"stopwords='" + filepath.Join(dir, "none.txt") + "'", "error BadOption: stopwords: cannot read '" + filepath.Join(dir, "none.txt") + "': no such file or directory\n"},
	} {
		assert.Equal(t, c.want, exec("CREATE TABLE t (title text) "+c.setting), c.setting)
	}
	assert.Equal(t, "Table:str | Type:str\n", exec("SHOW TABLES"))
	assert.Equal(t, "ok 0\n", exec("CREATE TABLE t (title text) stopwords='"+words+" the'"))
	assert.Equal(t, "ok 1\n", exec("INSERT INTO t (id, title) VALUES (1, 'the zebra ran')"))
	assert.Equal(t, "id:uint\n", exec("SELECT id FROM t WHERE MATCH('zebra')"))
	assert.Equal(t, "id:uint\n1\n", exec("SELECT id FROM t WHERE MATCH('ran')"))
}
