// Package load drives a search server with one benchmark workload for a fixed
// time and reports what it measured. It speaks to glint and to the peer (Sphinx
// 2.2) through the MySQL protocol with go-sql-driver/mysql, and to glint's HTTP
// API with net/http. cmd/glint-load is its command line; bench/cmd/race runs it
// against glintd and searchd side by side (the race's other peers, PostgreSQL,
// SQLite FTS5 and Bleve, are measured with RunInProcess from their own Go
// modules, bench/peers and bench/bleve).
//
// A run is: reset the workload's tables if it writes; a warm-up phase whose
// operations are not counted; then the measured phase: Concurrency workers, each
// on its own connection, doing operations until Duration is over. The Report
// holds throughput, p50/p99 latency and the server's CPU seconds per operation
// (from /proc/<pid>/stat).
//
// RunInProcess measures a library the same way (bench/bleve drives Bleve with
// it), with an Op in place of a server's statements. Summary and Median are the
// results file a race writes (bench/results/<timestamp>.json); Medians makes
// the medians from the reports.
//
// Example:
//
//	r, err := load.Run(ctx, load.Config{Target: load.Sphinx, Workload: load.Search,
//	    MySQLAddr: "127.0.0.1:9312", Docs: docs, Queries: qs, Concurrency: 8,
//	    Duration: 10 * time.Second}, 1)
package load
