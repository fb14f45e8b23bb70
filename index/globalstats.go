package index

import "github.com/RoaringBitmap/roaring/v2"

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

// onlyOrdinals maps document ids to the ordinals of their live documents,
// per snapshot segment position (SearchOptions.Only). Ids that are not
// live are left out.
func (s *Snapshot) onlyOrdinals(ids []uint64) map[int]*roaring.Bitmap {
	out := map[int]*roaring.Bitmap{}
	for _, id := range ids {
		ref, ok := s.Lookup(id)
		if !ok {
			continue
		}
		b := out[int(ref.Seg)]
		if b == nil {
			b = roaring.New()
			out[int(ref.Seg)] = b
		}
		b.Add(ref.Ord)
	}
	return out
}

var emptyBitmap = roaring.New()

func orEmpty(b *roaring.Bitmap) *roaring.Bitmap {
	if b == nil {
		return emptyBitmap
	}
	return b
}
