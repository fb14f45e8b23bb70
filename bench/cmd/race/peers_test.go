package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/load"
)

// fakeProgram writes a shell script that prints out and exits with code.
func fakeProgram(t *testing.T, out string, code string) string {
	path := filepath.Join(t.TempDir(), "fake-bench")
	script := "#!/bin/sh\ncat <<'EOF'\n" + out + "EOF\necho progress >&2\nexit " + code + "\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

func TestRunReports(t *testing.T) {
	ctx := context.Background()
	lines := `{"target":"postgres","workload":"search","corpus":"brown","run":1,"concurrency":1,"ops":10,"rows":140,"unit":"queries","throughput":5}
{"size":{"target":"postgres","corpus":"brown","docs":500,"raw_bytes":6000000,"disk_bytes":16800000}}
{"target":"postgres","workload":"search","corpus":"brown","run":1,"concurrency":8,"ops":20,"unit":"queries","throughput":9}
`
	reports, sizes, err := runReports(ctx, fakeProgram(t, lines, "0"), nil, load.Postgres, "brown")
	require.NoError(t, err)
	require.Len(t, reports, 2)
	assert.EqualValues(t, 140, reports[0].Rows)
	assert.Equal(t, 8, reports[1].Concurrency)
	require.Len(t, sizes, 1)
	assert.EqualValues(t, 16800000, sizes[0].DiskBytes)

	_, _, err = runReports(ctx, fakeProgram(t, lines, "0"), nil, load.SQLite, "brown")
	assert.ErrorContains(t, err, `reported target "postgres"`)

	reports, _, err = runReports(ctx, fakeProgram(t, lines, "3"), nil, load.Postgres, "brown")
	assert.ErrorContains(t, err, "fake-bench on brown: exit status 3\nprogress")
	assert.Len(t, reports, 2, "the reports made before the failure are kept")

	_, _, err = runReports(ctx, fakeProgram(t, "not json\n", "0"), nil, load.Postgres, "brown")
	assert.ErrorContains(t, err, "reading fake-bench's reports")
}

func TestTargetNames(t *testing.T) {
	for name, want := range map[string]load.Target{"sphinx": load.Sphinx, "glint": load.Glint, glintStemTarget: load.GlintStem,
		postgresTarget: load.Postgres, sqliteTarget: load.SQLite, bleveTarget: load.Bleve} {
		assert.Equal(t, want, targetOf(name), name)
		assert.Equal(t, name, shortName(want), "file names and progress lines use -targets' names")
	}
}
