// Package chart draws the race's results as SVG, by hand (no charting
// library): two charts from the medians of a results file (load.Summary),
// and one of a soak run (soak.Result):
//
//   - Throughput: throughput by corpus, workload and concurrency, one bar per
//     target side by side. Load and snippets count documents per second,
//     searches count queries per second, so the value axis is logarithmic:
//     every figure keeps its own unit (printed under its group) and bars of
//     different units are never compared.
//   - FieldSize: highlighting cost against field size, from the ladder runs
//     (one document of 1 KB to 1 MB highlighted per operation, concurrency 1):
//     time per document, both axes logarithmic, one line per target. A target
//     that has no ladder figure is named with the reason.
//   - Soak: a soak run over its time (bench/cmd/soak), in four panels:
//     operations per second, server CPU time per operation, each
//     operation's p99, and memory (RSS and, for glint, the Go heap); linear
//     scales from zero, since levels, not peaks, are what it shows.
//
// Each chart's title carries the date of the run and the machine it ran on.
// A target whose runs all failed is drawn as "not supported yet" (glint, for
// the capabilities it does not have yet) or "failed" (a peer), never as zero.
//
// Example:
//
//	sum, err := load.ReadSummary("bench/results/20261123-192604.json")
//	paths, err := chart.WriteFiles("bench/results", "20261123-192604", sum, true)
package chart
