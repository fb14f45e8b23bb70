package sql

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	eng := NewEngine(db)
	require.NoError(t, eng.SetSnippetsFilePrefix(root))
	s := eng.NewSession("root")
	exec := func(stmt string) string { return render(s.Exec(context.Background(), stmt)) }
	require.Equal(t, "ok 0\n", exec("CREATE TABLE t (content text)"))

	require.Equal(t, "snippet:str\na hobbit lived in a <b>hole</b>\nthe <b>hole</b> was dry\na hobbit lived in a <b>hole</b>\n",
		exec("CALL SNIPPETS(('a.txt', 'sub/b.txt', 'inner.txt'), 't', 'hole', 1 AS load_files)"))
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
	require.Contains(t, exec("CALL SNIPPETS('sub', 't', 'hole', 1 AS load_files)"), "cannot be read")
}
