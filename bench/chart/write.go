package chart

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/glint-search/glint/bench/load"
)

// WriteFiles draws both charts of s into dir as <stamp>-throughput.svg and
// <stamp>-fieldsize.svg and, with latest, copies them to latest-throughput.svg
// and latest-fieldsize.svg for the README to link. It returns the paths written.
func WriteFiles(dir, stamp string, s *load.Summary, latest bool) ([]string, error) {
	charts := []struct {
		name string
		draw func(io.Writer, *load.Summary) error
	}{
		{"throughput", Throughput},
		{"fieldsize", FieldSize},
	}
	var paths []string
	for _, ch := range charts {
		var b bytes.Buffer
		if err := ch.draw(&b, s); err != nil {
			return paths, err
		}
		names := []string{stamp + "-" + ch.name + ".svg"}
		if latest {
			names = append(names, "latest-"+ch.name+".svg")
		}
		for _, name := range names {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}
