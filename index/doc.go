// Package index is glint's storage engine: a catalog of tables, each an
// inverted index (roaring bitmaps plus word positions) with attribute columns
// and a document store, all in one badger database.
//
// A worked example:
//
//	db, _ := index.Open(index.DefaultOptions("./data"))
//	defer db.Close()
//	_ = db.CreateTable(index.Schema{Name: "books", Columns: []index.Column{
//		{Name: "title", Type: index.TypeText, Indexed: true, Stored: true},
//		{Name: "year", Type: index.TypeUint},
//	}})
//	t, _ := db.Table("books")
//	_ = t.Write(ctx, func(w *index.Writer) error {
//		_, err := w.Insert([]index.Document{
//			{ID: 1, Values: []index.Value{"The Quick Brown Fox", int64(1999)}},
//			{Values: []index.Value{"A lazy dog", int64(2001)}}, // gets id 2
//		})
//		return err
//	})
//	snap := t.Snapshot()
//	q, _ := query.Parse("quick fox", t.Tokenizer())
//	matches, _ := snap.Search(ctx, q) // one Match: id 1
//	texts, _ := snap.Stored(ctx, []index.DocRef{matches[0].Ref}, []int{0})
//	// snap.ID(matches[0].Ref) == 1, texts[0][0] == "The Quick Brown Fox",
//	// snap.Attr(matches[0].Ref, 1) == int64(1999)
//
// # Writes
//
// Each Write that inserts documents makes one new immutable segment. Its
// posting lists and stored text are written first, with a badger WriteBatch
// (so a statement is not limited by badger's transaction size), under keys that
// no reader looks at; then one small transaction registers the segment together
// with the statement's deletions and attribute updates. A crash between the
// two leaves garbage that Open removes, so every statement is all or nothing,
// and an acknowledged one survives kill -9 (and power loss with SyncWrites).
// See keys.go for the key layout.
//
// # Replication
//
// A DB opened with Options.Replicated is the state machine of a raft group
// (a cluster's tables, in a directory of their own): its tables change only
// by raft entries, each one statement, applied in log order on every member.
//
//   - Apply(ctx, i, fn) runs the entry's statement; the one change it makes
//     through ctx (Table.Write, CreateTableContext, DropTableContext,
//     TruncateTableContext) writes "applied = i" in the transaction that
//     makes the change visible, so after a crash (kill -9) Applied() is the
//     index of the last statement the DB shows and the node replays from
//     Applied()+1. An entry that changes nothing, or fails the same way on
//     every member (fn's error), advances the index in a transaction of its
//     own; one that fails for a reason of this node returns a
//     *NotAppliedError and leaves it. i <= Applied() is refused
//     (ErrApplied), and so is a second change of one entry (ErrEntryUsed)
//     and any change made without an entry (ErrReplicated).
//   - Applied() is the index of the last entry applied. A DB without
//     replication never writes it, and a DB that has one opens only with
//     Replicated. A raft layer skips the entries up to it (after a restart,
//     or a Restore of an image later than its snapshot's index).
//   - Sync() makes every entry applied up to the index it returns durable,
//     for a DB that does not sync its writes: call it before compacting the
//     raft log.
//   - StreamTo(ctx, w) writes a snapshot of the whole DB (a framed stream
//     with checksums, stream.go) from one read transaction, at the applied
//     index it returns; writes are not held up meanwhile.
//     Restore(ctx, o, r) builds that DB in the new directory o.Dir with
//     badger's StreamWriter and checks it (a damaged or cut stream is a
//     *SnapshotError and leaves no directory); SwapIn(dir, restored) puts
//     it in the place of the closed DB's directory with one rename.
//
// The apply loop of a member:
//
//	err := db.Apply(ctx, entry.Index, func(ctx context.Context) error {
//		return t.Write(ctx, func(w *index.Writer) error { ... }) // or db.CreateTableContext(ctx, s), ...
//	})
//	var na *index.NotAppliedError
//	if errors.As(err, &na) { /* this node failed: stop, or apply the entry again */ }
//	// else err is the statement's own outcome, the same on every member
//
// Merges stay local: they change how a table is stored, not what it holds,
// and are not logged. A replicated DB need not sync its writes (raft's log
// is synced, and the entries after Applied() are replayed): kill -9 loses
// nothing that the page cache holds. A power loss without SyncWrites can
// lose badger's writes after the last Sync out of order, which the applied
// index does not detect: a member that lost power should install a
// snapshot from a peer rather than replay.
//
// # Reads
//
// A Snapshot is an immutable view (segments, deletions, attributes, an id
// map) that readers take without locks; Write builds the next one copy on
// write and swaps it in after its commit. Posting lists are read from badger
// per Search, unless the posting cache (cache.go) holds them decoded; stored
// text per Stored call, in one read transaction.
//
// # Highlighting
//
// A document's record in the docstore keeps, after its stored text fields,
// the word layout of each field that is also indexed (tokenize.Layout,
// about a byte per word: where each word position lies in the text, and the
// sentence, paragraph and zone boundaries). TextMatcher.MatchStored puts it
// together with the document's positions in the posting lists (reached
// through a skip table, postingSkips) to give the highlighter the same words
// and marks that tokenizing the text would, without tokenizing it.
//
// # Weights
//
// A Match's Weight is WEIGHT(): the Ranker of the search (SearchOptions),
// proximity_bm25 by default (per field, the longest run of query words in
// query order times the field's weight and 1000, summed, plus a BM25 score
// from 0 to 999 over the whole table); see Ranker in rank.go and
// Snapshot.SearchWith.
//
// # Files
//
// The package has three jobs that share its unexported types (segments,
// posting lists, the compiled plan), grouped here by file:
//
//   - storage: index.go (Options, the memory budget, errors, DocRef and
//     Match), db.go (the catalog, its settings and write gate), open.go
//     (checks before badger opens), keys.go (the key layout), replicate.go
//     and stream.go (raft entries, whole-DB snapshots), table.go,
//     writer.go and build.go (a statement's segment), blocks.go, postings.go
//     and dict.go (posting lists, term blocks, the term dictionary),
//     records.go (docstore records), segment.go and snapshot.go (the
//     immutable views), merge.go and maintain.go (merging segments), cache.go
//     (the posting cache), space*.go (free space), schema.go and values.go.
//   - search: plan.go (compiling a query into operators), eval.go (running
//     them in one segment), search.go (over every segment, in parallel),
//     rank.go (WEIGHT()).
//   - highlight matching: match.go (TextMatcher: the same plan run over one
//     document's text, or over its stored layout and positions).
//
// They stay one package on purpose: search and matching read segments'
// posting lists through their unexported readers and share the compiled
// plan, so a split would trade a file boundary for a wide exported API that
// only these files would use. The query language (index/query) and the
// tokenizer (index/tokenize) are packages of their own: they need nothing
// of the storage.
package index
