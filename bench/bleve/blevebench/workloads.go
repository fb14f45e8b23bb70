package blevebench

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"

	"github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/bench/load"
)

// searchOp searches idx for the queries in turn, 20 hits; with highlight, the
// content field of each hit is highlighted by Bleve's default html highlighter.
func searchOp(idx bleve.Index, queries []*Query, highlight bool) load.Op {
	return func(ctx context.Context, _ int, seq int64) (load.Done, error) {
		res, err := idx.SearchInContext(ctx, searchRequest(queries[seq%int64(len(queries))], highlight))
		if err != nil {
			return load.Done{}, err
		}
		return load.Done{Rows: len(res.Hits)}, nil
	}
}

// searchRequest asks for the first 20 hits of q; with highlight, the best
// fragment of each hit's content as the html highlighter renders it.
func searchRequest(q *Query, highlight bool) *bleve.SearchRequest {
	req := bleve.NewSearchRequestOptions(q.Search, searchLimit, 0, false)
	if highlight {
		req.Highlight = bleve.NewHighlightWithStyle(html.Name)
		req.Highlight.Fields = []string{ContentField}
	}
	return req
}

// snippetsOp highlights n documents (the next ones of docs in turn) against one
// query (the next in turn) with the snippets stand-in. It counts the documents
// and their content bytes, as the servers' snippets workload does.
func snippetsOp(s *Snippeter, queries []*Query, docs []corpus.Doc, n int) load.Op {
	return func(ctx context.Context, _ int, seq int64) (load.Done, error) {
		q := queries[seq%int64(len(queries))]
		var size int64
		for k := range n {
			d := docs[(seq*int64(n)+int64(k))%int64(len(docs))]
			s.Snippet(q, d.Content)
			size += int64(len(d.Content))
		}
		return load.Done{Docs: n, Bytes: size, Rows: n}, ctx.Err()
	}
}
