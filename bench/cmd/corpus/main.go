// Command corpus prepares (and caches) the benchmark corpora and their query sets.
//
//	go run ./bench/cmd/corpus [-cache bench/cache] [-queries] brown debian ladder
//
// For each corpus it prints the JSONL path, the document count and the size. With
// -queries it also writes <cache>/corpora/<name>.queries.json.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/glint-search/glint/bench/corpus"
)

func main() {
	cache := flag.String("cache", "bench/cache", "cache directory")
	queries := flag.Bool("queries", false, "also write each corpus's query set")
	flag.Parse()
	names := flag.Args()
	if len(names) == 0 {
		names = []string{"brown", "debian", "ladder"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *cache, names, *queries); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cache string, names []string, withQueries bool) error {
	for _, s := range names {
		name, err := corpus.ParseName(s)
		if err != nil {
			return err
		}
		docs, err := corpus.Load(ctx, cache, name)
		if err != nil {
			return err
		}
		var size int64
		for _, d := range docs {
			size += d.Bytes()
		}
		fmt.Printf("%s\t%d docs\t%.1f MB\n", corpus.Path(cache, name), len(docs), float64(size)/1e6)
		if withQueries {
			path := corpus.QueriesPath(cache, name)
			b, err := json.MarshalIndent(corpus.Queries(docs, corpus.DefaultSeed), "", " ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				return err
			}
			fmt.Println(path)
		}
	}
	return nil
}
