package index

// GlobalStats are the statistics of a collection a table is one part of
// (a shard of a distributed table): given to a search (SearchOptions.Global),
// they replace the table's own in ranking, so that a document weighs what it
// would weigh in one table holding the whole collection.
//
// Docs is the collection's live documents (N of the idf); TermDocs the live
// documents containing each term, by TermStat.Term. A term TermDocs does
// not name keeps the table's own count.
type GlobalStats struct {
	Docs     int64
	TermDocs map[string]int64
}

// rankingCounts are N and the document count of leaf lt for the idf.
func (p *plan) rankingCounts(s *Snapshot, lt *leafTerm) (n, df float64) {
	n, df = float64(s.live), float64(lt.docs)
	if g := p.global; g != nil {
		n = float64(g.Docs)
		if d, ok := g.TermDocs[lt.term]; ok {
			df = float64(d)
		}
	}
	return n, max(1, df)
}
