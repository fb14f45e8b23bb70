package sql

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/stretchr/testify/require"
)

// TestSnippetsFileSandbox tries every way out of snippets_file_prefix and
// checks that each is refused by name and that nothing outside was read.
func TestSnippetsFileSandbox(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	write := func(path, text string) { require.NoError(t, os.WriteFile(path, []byte(text), 0o644)) }
	write(filepath.Join(root, "a.txt"), "a hobbit lived in a hole")
	write(filepath.Join(root, "sub", "b.txt"), "the hole was dry")
	secret := filepath.Join(outside, "secret.txt")
	write(secret, "SECRET hole")
	require.NoError(t, os.Symlink(secret, filepath.Join(root, "link.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "dirlink")))
	require.NoError(t, os.Symlink("../outside/secret.txt", filepath.Join(root, "rel.txt")))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(root, "inner.txt")))
	require.NoError(t, os.Symlink(filepath.Join(root, "sub", "b.txt"), filepath.Join(root, "abs.txt"))) // (absolute, inside)

	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	require.NoError(t, eng.SetSnippetsFilePrefix(root))
	s := eng.NewSession("root")
	exec := func(stmt string) string { return render(s.Exec(context.Background(), stmt)) }
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (content text)"))

	require.Equal(t, "snippet:str\na hobbit lived in a <b>hole</b>\nthe <b>hole</b> was dry\na hobbit lived in a <b>hole</b>\nthe <b>hole</b> was dry\n",
		exec("CALL SNIPPETS(('a.txt', 'sub/b.txt', 'inner.txt', 'abs.txt'), 't', 'hole', 1 AS load_files)"))
	for _, c := range []struct{ name, want string }{
		{"../outside/secret.txt", "file '../outside/secret.txt' leads outside snippets_file_prefix"},
		{"sub/../../outside/secret.txt", "leads outside snippets_file_prefix"},
		{secret, "is an absolute path"},
		{"link.txt", "file 'link.txt' cannot be read"},
		{"rel.txt", "file 'rel.txt' cannot be read"},
		{"dirlink/secret.txt", "file 'dirlink/secret.txt' cannot be read"},
		{`a.txt\0`, "contains a NUL byte"},
		{"missing.txt", "file 'missing.txt' does not exist under snippets_file_prefix"},
		{"", "has an empty name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := exec("CALL SNIPPETS('" + c.name + "', 't', 'hole', 1 AS load_files)")
			require.Contains(t, got, c.want)
			require.True(t, strings.HasPrefix(got, "error "), got)
			require.NotContains(t, got, "SECRET")
			if !strings.Contains(c.name, base) {
				require.NotContains(t, got, base, "errors name the file as given, not server paths")
			}
		})
	}
	require.Equal(t, "snippet:str\n(empty string)\nthe <b>hole</b> was dry\n",
		exec("CALL SNIPPETS(('missing.txt', 'sub/b.txt'), 't', 'hole', 1 AS load_files_scattered)"))
	require.Contains(t, exec("CALL SNIPPETS(('missing.txt', 'sub/b.txt'), 't', 'hole', 1 AS load_files)"), "does not exist")
	require.Contains(t, exec("CALL SNIPPETS('sub', 't', 'hole', 1 AS load_files)"), "error WrongValue: CALL SNIPPETS: file 'sub' is a directory, not a regular file")
}

// TestSnippetsFileNotRegular: load_files never blocks on a FIFO (open or
// read) and refuses, by name, anything but a regular file; the size is
// checked before a byte is read.
func TestSnippetsFileNotRegular(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	big, err := os.Create(filepath.Join(root, "big.txt"))
	require.NoError(t, err)
	require.NoError(t, big.Truncate(maxSnippetFiles+1)) // sparse: nothing is written
	require.NoError(t, big.Close())
	half := filepath.Join(root, "half.txt")
	require.NoError(t, os.WriteFile(half, []byte("hole"), 0o644))
	require.NoError(t, os.Truncate(half, maxSnippetFiles/2+1))

	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	require.NoError(t, eng.SetSnippetsFilePrefix(root))
	s := eng.NewSession("root")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard (a FIFO opened for reading blocks for good); loose, for a loaded machine under -race
	defer cancel()
	exec := func(stmt string) string { return render(s.Exec(ctx, stmt)) }
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (content text)"))
	for _, c := range []struct{ stmt, want string }{
		{"CALL SNIPPETS('fifo', 't', 'hole', 1 AS load_files)",
			"error WrongValue: CALL SNIPPETS: file 'fifo' is a named pipe (FIFO), not a regular file\n"},
		{"CALL SNIPPETS('fifo', 't', 'hole', 1 AS load_files_scattered)",
			"error WrongValue: CALL SNIPPETS: file 'fifo' is a named pipe (FIFO), not a regular file\n"},
		{"CALL SNIPPETS('big.txt', 't', 'hole', 1 AS load_files)",
			"error WrongValue: CALL SNIPPETS: file 'big.txt' (67108865 bytes) is larger than 64 MB\n"},
		{"CALL SNIPPETS(('half.txt', 'half.txt'), 't', 'hole', 1 AS load_files)",
			"error WrongValue: CALL SNIPPETS: file 'half.txt' (33554433 bytes) takes the files of the statement over 64 MB together\n"},
	} {
		require.Equal(t, c.want, exec(c.stmt), c.stmt)
	}
	require.NoError(t, ctx.Err())
}

// TestSnippetsTenMegabyteField highlights a field of 10 MB whose only
// match is near its end, through HIGHLIGHT() and CALL SNIPPETS (read from a
// file): the snippet is exact, and the memory a highlight takes stays a
// small multiple of the text, not a function of anything larger.
func TestSnippetsTenMegabyteField(t *testing.T) {
	var b strings.Builder
	filler := "один два three четыре five шесть seven 八 nine ten. "
	for b.Len() < 10<<20 {
		b.WriteString(filler)
	}
	b.WriteString("the dragon sleeps under the mountain")
	for range 20 {
		b.WriteString(" " + filler)
	}
	text := b.String()

	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(text), 0o644))
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	require.NoError(t, eng.SetSnippetsFilePrefix(root))
	s := eng.NewSession("root")
	ctx := context.Background()
	_, err = s.Exec(ctx, "CREATE TABLE t (content text)")
	require.NoError(t, err)
	tb, _ := db.Table("t")
	require.NoError(t, tb.Write(ctx, func(w *index.Writer) error {
		_, err := w.Insert([]index.Document{{ID: 1, Values: []index.Value{text}}})
		return err
	}))

	// Five words around the match, whichever script they are in, and
	// the separators: the snippet neither starts nor ends the field.
	want := " ...  seven 八 nine ten. the <b>dragon</b> sleeps under the mountain один ... "
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := render(s.Exec(ctx, "SELECT id, HIGHLIGHT({limit=80, around=5}) FROM t WHERE MATCH('dragon')"))
	runtime.ReadMemStats(&after)
	require.Equal(t, "id:uint | highlight({limit=80, around=5}):str\n1 | "+want+"\n", got)
	// The stored text read back, its words (24 bytes per word of about
	// 5 bytes) and the answer: well under 8 times the text.
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*len(text)))

	got = render(s.Exec(ctx, "CALL SNIPPETS('big.txt', 't', 'dragon', 1 AS load_files, 80 AS limit, 5 AS around)"))
	require.Equal(t, "snippet:str\n"+want+"\n", got)
}
