package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/soak"
	"github.com/glint-search/glint/e2e/daemon"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSoakShort is `make soak` made short: the soak command starts its own
// glintd (the one the tests build, with the race detector when they run
// with it), runs the full mix with four clients for 20 seconds, and must
// finish with no failed operation, a window every 5 seconds that saw every
// operation (after 3 s of warm-up, not in the result), the server's
// memory and goroutines read, and a well-formed
// chart. It asserts nothing about speed or size.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("20 s of load")
	}
	dir := t.TempDir()
	root, err := daemon.FindRepoRoot(".")
	require.NoError(t, err)
	bin := filepath.Join(dir, "soak")
	build := exec.Command("go", "build", "-o", bin, "./bench/cmd/soak")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	words := strings.Fields("river stone garden lantern harbor meadow copper winter signal orchard " +
		"window ladder canvas thunder pepper marble candle forest silver bridge")
	var docs []corpus.Doc
	for i := 1; i <= 80; i++ {
		var b strings.Builder
		for k := range 150 + 7*i {
			b.WriteString(words[(i*k+k/3)%len(words)])
			b.WriteString([]string{" ", " ", ", ", ". "}[k%4])
		}
		docs = append(docs, corpus.Doc{ID: uint64(i), Title: fmt.Sprintf("note %d", i), Content: b.String()})
	}
	var jsonl bytes.Buffer
	require.NoError(t, corpus.WriteJSONL(&jsonl, docs))
	docsFile := filepath.Join(dir, "docs.jsonl")
	require.NoError(t, os.WriteFile(docsFile, jsonl.Bytes(), 0o644))

	results := filepath.Join(dir, "results")
	cmd := exec.Command(bin, "-glintd", glintd(t), "-docs", docsFile, "-corpus", "tiny",
		"-clients", "4", "-warmup", "3s", "-duration", "20s", "-interval", "5s", "-out", results)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	jsons, err := filepath.Glob(filepath.Join(results, "soak-*.json"))
	require.NoError(t, err)
	require.Len(t, jsons, 1, "%s", out)
	b, err := os.ReadFile(jsons[0])
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var res soak.Result
	require.NoError(t, dec.Decode(&res))
	assert.Equal(t, "tiny", res.Corpus)
	assert.Equal(t, 4, res.Clients)
	assert.Equal(t, 3.0, res.WarmupSec)
	assert.Equal(t, soak.DefaultMix.String(), res.Mix)
	assert.Empty(t, res.Errors)
	require.Len(t, res.Windows, 4, "%s", out)
	for i, w := range res.Windows {
		assert.Zero(t, w.Errors, "window %d", i)
		assert.Positive(t, w.RSSBytes, "window %d", i)
		assert.Positive(t, w.Goroutines, "window %d", i)
		assert.Positive(t, w.HeapBytes, "window %d", i)
		assert.Positive(t, w.DataBytes, "window %d", i)
		assert.Positive(t, w.Segments, "window %d", i)
		assert.Positive(t, w.CPUMsPerOp, "window %d", i)
		for _, op := range soak.Ops {
			s := w.Ops[op]
			assert.Positive(t, s.Count, "window %d, %s", i, op)
			assert.GreaterOrEqual(t, s.P99Ms, s.P50Ms, "window %d, %s", i, op)
		}
	}

	svg, err := os.ReadFile(strings.TrimSuffix(jsons[0], ".json") + ".svg")
	require.NoError(t, err)
	xmlRoot := ""
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok && xmlRoot == "" {
			xmlRoot = se.Name.Local
		}
	}
	assert.Equal(t, "svg", xmlRoot)
	for _, label := range []string{"operations / s", "server CPU ms / op", "p99 latency (ms)", "memory (MB)", "search+highlight p99", "RSS"} {
		assert.Contains(t, string(svg), label)
	}
}
