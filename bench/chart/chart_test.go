package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/glint-search/glint/bench/load"
	"github.com/glint-search/glint/internal/golden"
)

// TestGolden draws both charts of testdata/results.json and compares them with
// testdata/*.svg with golden.File (go test ./bench/chart -rewrite updates them; look at the
// pictures and the diff before committing).
func TestGolden(t *testing.T) {
	sum, err := load.ReadSummary(filepath.Join("testdata", "results.json"))
	require.NoError(t, err)
	tests := []struct {
		name string
		draw func(io.Writer, *load.Summary) error
		has  []string
	}{
		{"throughput", Throughput, []string{"not supported yet", "bleve (in-process, no protocol cost)", "c=8, queries/s", "+highlight", "Test CPU"}},
		{"fieldsize", FieldSize, []string{"No figure for glint: not supported yet", "1 MB", "1 KB", "Test CPU"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, tt.draw(&b, sum))
			wellFormed(t, b.Bytes())
			for _, s := range tt.has {
				assert.Contains(t, b.String(), s)
			}
			golden.File(t, filepath.Join("testdata", tt.name+".svg"), b.Bytes())
		})
	}
}

// TestEmpty draws the charts of a results file without figures: they say so.
func TestEmpty(t *testing.T) {
	sum := &load.Summary{StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), CPUs: 1}
	var b bytes.Buffer
	require.NoError(t, Throughput(&b, sum))
	wellFormed(t, b.Bytes())
	assert.Contains(t, b.String(), "no throughput figures")
	assert.Contains(t, b.String(), "machine not recorded")
	b.Reset()
	require.NoError(t, FieldSize(&b, sum))
	wellFormed(t, b.Bytes())
	assert.Contains(t, b.String(), "no ladder figures")
	assert.Contains(t, b.String(), "glint: not in this results file")
}

func TestWriteFiles(t *testing.T) {
	sum, err := load.ReadSummary(filepath.Join("testdata", "results.json"))
	require.NoError(t, err)
	dir := t.TempDir()
	paths, err := WriteFiles(dir, "20261123-032034", sum, true)
	require.NoError(t, err)
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	assert.Equal(t, []string{"20261123-032034-throughput.svg", "latest-throughput.svg",
		"20261123-032034-fieldsize.svg", "latest-fieldsize.svg"}, names)
	for i := 0; i < len(paths); i += 2 {
		a, err := os.ReadFile(paths[i])
		require.NoError(t, err)
		b, err := os.ReadFile(paths[i+1])
		require.NoError(t, err)
		assert.Equal(t, a, b, "latest is a copy")
	}
	paths, err = WriteFiles(dir, "x", sum, false)
	require.NoError(t, err)
	assert.Len(t, paths, 2)
}

func TestFormats(t *testing.T) {
	for v, want := range map[float64]string{0.523: "0.52", 7.34: "7.3", 481.2: "481", 5234: "5.2k", 64321: "64k", 1.23e6: "1.2M"} {
		assert.Equal(t, want, short(v), v)
	}
	for us, want := range map[float64]string{8.46: "8.5 µs", 730: "730 µs", 4100: "4.1 ms", 1.25e6: "1.25 s"} {
		assert.Equal(t, want, duration(us), us)
	}
	for b, want := range map[int64]string{1 << 10: "1 KB", 100 << 10: "100 KB", 1 << 20: "1 MB", 1536: "1.5 KB", 12: "12 B"} {
		assert.Equal(t, want, size(b), b)
	}
	for v, want := range map[float64]string{1: "1", 100: "100", 1000: "1k", 1e5: "100k", 1e6: "1M", 0.1: "0.1"} {
		assert.Equal(t, want, decadeCount(v), v)
	}
	for us, want := range map[float64]string{10: "10 µs", 1000: "1 ms", 1e5: "100 ms", 1e6: "1 s", 0.1: "0.1 µs"} {
		assert.Equal(t, want, decadeDuration(us), us)
	}
	assert.Equal(t, []string{"json-search", "+highlight"}, wrapWorkload("json-search+highlight"))
	assert.Equal(t, []string{"search"}, wrapWorkload("search"))
	s := newLogScale([]float64{3, 4500}, 100, 0)
	assert.Equal(t, []float64{1, 10, 100, 1000, 10000}, s.decades())
	assert.InDelta(t, 100, s.at(1), 1e-9)
	assert.InDelta(t, 0, s.at(10000), 1e-9)
	assert.InDelta(t, 50, s.at(100), 1e-9)
}

// wellFormed fails unless b is one well-formed XML document with an svg root.
func wellFormed(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	assert.Equal(t, "svg", root)
	assert.True(t, strings.HasSuffix(string(b), "</svg>\n"))
}
