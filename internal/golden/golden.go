package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestData is one case of a file: its command, arguments, input and
// expected output, and its position (file:line) for messages.
type TestData = datadriven.TestData

// Files runs f for each file matching pattern (filepath.Glob's), each in a
// subtest named by the file's base name; it fails when no file matches.
func Files(t *testing.T, pattern string, f func(t *testing.T, path string)) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no file matches %s", pattern)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) { f(t, path) })
	}
}

// Run runs the cases of the file at path in order: f returns each case's
// output, which must equal the expected one (with -rewrite, replaces it).
// The first case that fails stops the file, since later cases may depend
// on the state the earlier ones left.
func Run(t *testing.T, path string, f func(t *testing.T, d *TestData) string) {
	t.Helper()
	datadriven.RunTest(t, path, f)
}

// Rewrite reports whether the tests run with -rewrite.
func Rewrite() bool {
	return flag.Lookup("rewrite").Value.(flag.Getter).Get().(bool)
}

// File compares got with the content of the file at path; with -rewrite it
// writes got into the file instead.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if Rewrite() {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s (go test -rewrite writes it)", path)
	assert.Equal(t, string(want), string(got), "%s differs (go test -rewrite writes it; review the diff)", path)
}

// Cases returns the cases of the file at path without running them: what a
// fuzz target takes as its seeds.
func Cases(t testing.TB, path string) []TestData {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cases []TestData
	datadriven.RunTestFromStringAny(t, string(data), func(_ testing.TB, d *TestData) string {
		cases = append(cases, *d)
		return d.Expected
	})
	return cases
}
