// Package soak runs a long mixed load against one server and measures it in
// windows, to show whether a server holds up over time: memory that follows
// its settings rather than the clock, and work per operation that does not
// grow. bench/cmd/soak is its command line and `make soak` its usual use.
//
// Clients (one connection each) draw operations from a weighted Mix: a search,
// a search with HIGHLIGHT() (Sphinx: SNIPPET() on its stored index), CALL
// SNIPPETS, and one-row INSERT and DELETE of corpus documents; unless Grow is
// set, inserts and deletes keep the table's size within a few documents of
// what Fill loaded. After an optional warm-up, every Interval makes a Window:
// per operation its count, errors, p50 and p99; throughput; the server's CPU
// time per operation and its resident memory (from /proc); the data
// directory's size; and for glint, SHOW STATUS's goroutines, Go heap,
// segments, deleted rows and pending merges.
//
// Example:
//
//	cfg := soak.Config{Target: load.Glint, MySQLAddr: addr, ServerPID: pid,
//	    Docs: docs, Queries: corpus.Queries(docs, corpus.DefaultSeed),
//	    Clients: 8, Duration: 10 * time.Minute, Warmup: 2 * time.Minute}
//	if err := soak.Fill(ctx, cfg); err != nil { ... }
//	res, err := soak.Run(ctx, cfg, os.Stdout)
package soak
