// Command charts draws the SVG charts of a results file again (bench/cmd/race
// draws them when it writes the file; this is for a file made before, or after
// a change to package chart):
//
//	go run ./bench/cmd/charts [-latest] bench/results/20261123-192604.json
//
// It writes <stamp>-throughput.svg and <stamp>-fieldsize.svg beside the file
// and, with -latest, the latest-throughput.svg and latest-fieldsize.svg
// copies the README links. A soak run's chart is drawn again by
// go run ./bench/cmd/soak -redraw bench/results/soak-<stamp>.json.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/glint-search/glint/bench/chart"
	"github.com/glint-search/glint/bench/load"
)

func main() {
	latest := flag.Bool("latest", false, "also write latest-throughput.svg and latest-fieldsize.svg")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: charts [-latest] RESULTS.json ...")
		os.Exit(2)
	}
	for _, path := range flag.Args() {
		sum, err := load.ReadSummary(path)
		if err == nil {
			var paths []string
			stamp := strings.TrimSuffix(filepath.Base(path), ".json")
			if paths, err = chart.WriteFiles(filepath.Dir(path), stamp, sum, *latest); err == nil {
				fmt.Println(strings.Join(paths, "\n"))
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "charts:", err)
			os.Exit(1)
		}
	}
}
