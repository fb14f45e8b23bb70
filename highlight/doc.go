// Package highlight builds snippets: pieces of a document's own text with the
// words that prove a match wrapped in markers, under size, word and
// snippet-count limits, as the reference system (Manticore Search) builds
// them, byte for byte. docs/conformance.md says what was learned, rule by
// rule.
//
// The caller gives each field's text, its words (a tokenize.Layout from the
// table's one tokenizer) and its marks (the positions that prove the match,
// from index.TextMatcher): the package tokenizes nothing.
//
// # Stages
//
// A request goes through four stages, one file each:
//
//   - stream.go: a field's shown text (stripped of its markup when the
//     table strips it) as a stream of units: words, and the runs of
//     characters between them (white space and the rest apart; a
//     phrase-boundary character alone). Marked words at neighbouring
//     positions fold into one span. The stream is walked, never stored.
//   - extract.go (with window.go): candidate passages. A window slides over
//     the units under the limits (codepoints, and words: limit_words or
//     twice around plus its marked words); each time it holds marked words
//     it is weighed (marked words, their keywords' lengths times the
//     longest run of keywords in query order, the distance to the edges)
//     and offered, trimmed to around words on each side. Stretches far
//     from any mark are skipped. The window keeps running counts of its
//     marked words (keywords shown, runs in query order), so weighing
//     reads counters; the plainest steps (a word that is not marked in,
//     one that is not marked out, the offer cut) run with the window's
//     counters in local variables (glide).
//   - choose.go: the best passages (more distinct keywords, then weight,
//     then length) until the keywords are shown and the budget is full;
//     then edges are trimmed and the least relevant passages dropped until
//     the limits hold. Per field, or over all fields (limits_per_field=0).
//   - render.go: snippets as data (byte ranges, marked ranges), then the
//     two renderings of them: each field's snippets (JSON), and one string
//     (SQL) with the snippet separator where a snippet does not reach its
//     field's start or end and the field separator between fields.
//
// Two files add to the snippets as data, only when asked: markup.go
// (balance_markup: the elements open at a snippet's edges, opened again and
// closed) and offsets.go (Request.Offsets: each span's keywords and the
// offsets in the field's stored text, for HIGHLIGHT_OFFSETS()).
//
// A field that fits the limits is shown whole, marked; a field without a
// match shows its beginning up to the limit, or nothing with allow_empty.
//
// # Example
//
//	res := highlight.Highlight(&highlight.Request{
//		Fields:  []highlight.Field{field}, // text, layout and marks
//		Weights: []int{6},                 // the query's one keyword, "robots"
//		Options: &opts,                    // highlight.DefaultOptions() and Set
//	})
//	res.Join()    // " ...  dawn. The <b>robots</b> remained at ... "
//	res.Strings() // [[" dawn. The <b>robots</b> remained at"]]
//
// (Example in example_test.go runs it, with limit=40 and around=2.)
//
// Options (options.go) has one table of the option names, their synonyms,
// kinds, ranges and defaults, which SQL HIGHLIGHT(), SNIPPET(), CALL
// SNIPPETS and the JSON highlight object all read.
package highlight
