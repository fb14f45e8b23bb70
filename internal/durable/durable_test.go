package durable

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "node.id")
	require.NoError(t, WriteFile(path, []byte("1\n"), 0o644))
	require.NoError(t, WriteFile(path, []byte("22\n"), 0o644))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "22\n", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")

	// A directory that is not there: the error names the path, nothing
	// is left behind.
	err = WriteFile(filepath.Join(dir, "no", "x"), []byte("x"), 0o644)
	require.ErrorContains(t, err, filepath.Join(dir, "no", "x.tmp"))
	require.ErrorIs(t, SyncDir(filepath.Join(dir, "no")), os.ErrNotExist)
	require.ErrorIs(t, SyncFile(filepath.Join(dir, "none")), os.ErrNotExist)
}
