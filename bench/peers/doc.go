// Package peers drives two more peers of the race (bench/cmd/race) with the
// race's workloads: PostgreSQL's full-text search, a server reached through
// its own protocol with pgx, and SQLite's FTS5, a library driven in-process
// through mattn/go-sqlite3 (cgo, build tag sqlite_fts5). It is its own Go
// module, as bench/bleve is, so that glint never depends on either client.
//
// A System is one peer: its table, its translation of the race's queries
// (Websearch, FTS5) and its operation for each workload. Run runs the
// workloads on a System as the race runs them on a server (the load
// workload into an emptied table; the corpus loaded once and settled before
// the searches) and makes bench/load reports with load.RunInProcess.
// cmd/peer-bench is its command line, and the race's way in.
//
// Example:
//
//	pg := peers.NewPostgres("postgres://glint@127.0.0.1:5432/postgres", "", 0)
//	err := peers.Run(ctx, pg, peers.Config{Corpus: "brown", Docs: docs,
//	    Workloads: []string{load.Search}, Concurrency: []int{1, 8}, Runs: 1},
//	    func(r *load.Report) error { fmt.Println(r.Throughput); return nil })
package peers
