package index_test

import (
	"context"
	"fmt"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
)

func Example() {
	ctx := context.Background()
	db, err := index.Open(index.DefaultOptions("").WithInMemory(true))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	_ = db.CreateTable(index.Schema{Name: "books", Columns: []index.Column{
		{Name: "title", Type: index.TypeText, Indexed: true, Stored: true},
		{Name: "year", Type: index.TypeUint},
	}})
	t, _ := db.Table("Books")
	err = t.Write(ctx, func(w *index.Writer) error {
		ids, err := w.Insert([]index.Document{
			{ID: 1, Values: []index.Value{"The Quick Brown Fox", int64(1999)}},
			{Values: []index.Value{"A lazy dog", int64(2001)}},
		})
		fmt.Println("ids", ids)
		return err
	})
	if err != nil {
		panic(err)
	}
	snap := t.Snapshot()
	q, _ := query.Parse("quick fox", t.Tokenizer())
	matches, _ := snap.Search(ctx, q)
	ref := matches[0].Ref
	texts, _ := snap.Stored(ctx, []index.DocRef{ref}, []int{0})
	fmt.Println(len(matches), snap.ID(ref), texts[0][0], snap.Attr(ref, 1))
	// Output:
	// ids [1 2]
	// 1 1 The Quick Brown Fox 1999
}
