// Package blevebench drives Bleve (github.com/blevesearch/bleve/v2), the Go
// search library a Go developer might embed instead of running glint, with the
// race's highlight workloads, in-process. Its reports are bench/load reports
// with target load.Bleve, "bleve (in-process, no protocol cost)": they carry no
// protocol or network cost, so they are a ceiling for a server rather than a
// server figure.
//
// It lives in its own Go module (bench/bleve) so that glint never depends on
// Bleve; the module reaches the main one through a replace directive, for the
// corpus, the query sets and the report types.
//
// What each workload measures (the run machinery is load.RunInProcess: warm-up,
// fixed duration, workers, p50/p99):
//
//   - search: Index.Search of one query of the set, 20 hits, no stored fields.
//   - search+highlight: the same with Bleve's default html highlighter on the
//     content field (one fragment of about 200 characters, terms in <mark>),
//     like SELECT ... SNIPPET(content, q) ... LIMIT 20 on the servers.
//   - snippets: Bleve has no CALL SNIPPETS (highlighting of texts given with the
//     request, not read from the index). The stand-in takes a batch of documents
//     (SnippetDocs, the next ones in turn) and a query, and for each document
//     tokenizes the text with the index's analyzer, marks the query's words and
//     phrases, and has the same html highlighter pick and render the best
//     fragment. Throughput is in documents.
//   - ladder: the snippets stand-in on one document of the field-size ladder, with
//     queries drawn from the ladder's smallest rung so that each matches every
//     rung (corpus.LadderQueries).
//
// Text is analysed without stop words or stemming (Unicode words, lower-cased),
// like Sphinx's and glint's default tables, so both sides match the same words.
//
// Example:
//
//	err := blevebench.Run(ctx, blevebench.Config{Corpus: "brown", Docs: docs,
//	    Workloads: []string{load.SearchHL, load.Snippets}, Concurrency: []int{1, 8},
//	    Duration: 10 * time.Second, Runs: 3}, func(r *load.Report) error { ...; return nil })
package blevebench
