package peers

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// testDocs is a small corpus whose query set holds every shape.
func testDocs() []corpus.Doc {
	texts := []string{
		"The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced no evidence that any irregularities took place.",
		"The jury further said in term-end presentments that the City Executive Committee, which had over-all charge of the election, deserves the praise and thanks of the City of Atlanta.",
		"The September-October term jury had been charged by Fulton Superior Court Judge Durwood Pye to investigate reports of possible irregularities in the hard-fought primary.",
		"Only a relative handful of such reports was received, the jury said, considering the widespread interest in the election, the number of voters and the size of this city.",
	}
	var docs []corpus.Doc
	for i, t := range texts {
		docs = append(docs, corpus.Doc{ID: uint64(i + 1), Title: "text " + strconv.Itoa(i+1), Content: t})
	}
	return docs
}

// runAll runs every workload of Run briefly on sys and checks that each made
// a report without errors, with the rows the workload should have.
func runAll(t *testing.T, sys System) {
	ctx := context.Background()
	cfg := Config{Corpus: "test", Docs: testDocs(), Workloads: append(Workloads[:len(Workloads)-1:len(Workloads)-1], load.JSONSearchHL),
		Concurrency: []int{1, 2}, Duration: 50 * time.Millisecond, BatchSize: 3, SnippetDocs: 2}
	got := map[string]*load.Report{}
	var sizes []load.Size
	cfg.Sized = func(s load.Size) { sizes = append(sizes, s) }
	require.NoError(t, Run(ctx, sys, cfg, func(r *load.Report) error {
		got[r.Workload+"/"+strconv.Itoa(r.Concurrency)] = r
		return nil
	}))
	for _, wl := range Workloads[:len(Workloads)-1] {
		cs := []int{1, 2}
		if wl == load.Insert {
			cs = []int{1}
		}
		for _, c := range cs {
			r := got[wl+"/"+strconv.Itoa(c)]
			require.NotNil(t, r, "%s c=%d", wl, c)
			assert.Equal(t, sys.Target(), r.Target)
			assert.Zero(t, r.Errors, "%s c=%d: %s", wl, c, r.FirstError)
			assert.Positive(t, r.Ops, "%s c=%d", wl, c)
			switch wl {
			case load.Search, load.SearchHL, load.GroupBy, load.Facet:
				assert.Positive(t, r.Rows, "%s c=%d: every query of the set matches something here", wl, c)
			case load.Snippets, load.SnippetsNoLimit:
				assert.Positive(t, r.Rows, "%s c=%d", wl, c)
				assert.LessOrEqual(t, r.Rows, 2*r.Ops, "%s c=%d: at most one snippet per text", wl, c)
			}
		}
	}
	assert.NotContains(t, got, load.JSONSearchHL+"/1", "no counterpart, no report")
	require.Len(t, sizes, 1, "one load for the searches")
	assert.Equal(t, sys.Target(), sizes[0].Target)
	assert.Equal(t, len(cfg.Docs), sizes[0].Docs)
	assert.Positive(t, sizes[0].RawBytes)
	assert.Greater(t, sizes[0].DiskBytes, sizes[0].RawBytes, "the text and an index of it")
}

func TestSQLiteRun(t *testing.T) {
	s, err := NewSQLite(t.TempDir())
	if err != nil && strings.Contains(err.Error(), "without FTS5") && os.Getenv("GLINT_REQUIRE_SQLITE") != "1" {
		t.Skip("SQLite without FTS5: go test -tags sqlite_fts5 (GLINT_REQUIRE_SQLITE=1 makes this a failure)")
	}
	require.NoError(t, err)
	defer s.Close()
	runAll(t, s)
}

// TestPostgresRun starts a private cluster with scripts/postgres.sh. It skips
// when PostgreSQL is not installed, unless GLINT_REQUIRE_POSTGRES=1.
func TestPostgresRun(t *testing.T) {
	script, err := filepath.Abs("../../scripts/postgres.sh")
	require.NoError(t, err)
	if err := exec.Command("bash", "-c", `ls /usr/lib/postgresql/*/bin/initdb || command -v initdb`).Run(); err != nil {
		if os.Getenv("GLINT_REQUIRE_POSTGRES") == "1" {
			t.Fatal("PostgreSQL is not installed (scripts/postgres.sh install)")
		}
		t.Skip("PostgreSQL is not installed (GLINT_REQUIRE_POSTGRES=1 makes this a failure)")
	}
	// Not t.TempDir: the server's user, when the test runs as root, must
	// reach the directory, and t.TempDir's parent is root's alone.
	dir, err := os.MkdirTemp("", "glint-peers-test-")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	port := freePort(t)
	out, err := exec.Command(script, "start", dir, strconv.Itoa(port)).Output()
	require.NoError(t, err, "%s", out)
	defer func() { assert.NoError(t, exec.Command(script, "stop", dir).Run()) }()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err)

	runAll(t, NewPostgres("postgres://glint@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable", "", pid))
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
