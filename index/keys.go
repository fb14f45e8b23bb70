package index

import "encoding/binary"

// Key layout of the badger database (all integers big-endian, so keys of one
// kind sort by number):
//
//	'm' "nexttable"                          -> uint32: the next table id (never reused)
//	'm' "applied"                            -> uint64: the index of the last raft entry applied (replicate.go; only in a replicated DB)
//	'c' <lower-case table name>              -> JSON catalogEntry (schema, table id, id floor)
//	'd' <lower-case table name>              -> JSON Distributed (distributed.go)
//	't' <tid:4> 'Q' <seg:4>                  -> empty: segment seg is being staged
//	't' <tid:4> 'K' <seg:4> <field:1> <term> -> a block of terms from term on, with their short posting lists (blocks.go)
//	't' <tid:4> 'P' <seg:4> <field:1> <term> -> posting list (postings.go) of a term whose list is too long for its block
//	't' <tid:4> 'D' <seg:4> <ord:4>          -> docstore record: the stored text fields, then the layouts of the indexed ones
//	't' <tid:4> 'S' <seg:4>                  -> segment meta: ids, field lengths (segment.go)
//	't' <tid:4> 'A' <seg:4>                  -> attribute columns of the segment (segment.go)
//	't' <tid:4> 'X' <seg:4>                  -> roaring bitmap of deleted ordinals
//	't' <tid:4> 'R' <seg:4>                  -> segment seg was merged away: the docstore records that go with it (records.go)
//
// In a replicated DB every change a raft entry makes (the transaction that
// registers a statement's segment, a DDL's catalog change, or an entry
// without a change) sets "applied" in the same transaction.
//
// A segment is visible once its 'S' key exists; 'K', 'P' and 'D' keys are written
// before that (under a 'Q' marker) and are garbage if the 'S' key never comes.
// A segment that a merge retired loses its 'S' key and gets an 'R' key; its
// 'K' and 'P' keys and the records named there are garbage. Its other
// records belong to the merged segment.
const (
	prefixMeta    = 'm'
	prefixCatalog = 'c'
	prefixTable   = 't'

	kindPending = 'Q'
	kindPosting = 'P'
	kindBlock   = 'K'
	kindDoc     = 'D'
	kindSeg     = 'S'
	kindAttr    = 'A'
	kindDeleted = 'X'
	kindRetired = 'R'
)

var (
	keyNextTable = []byte("mnexttable")
	keyApplied   = []byte("mapplied")
)

func catalogKey(lowerName string) []byte {
	return append([]byte{prefixCatalog}, lowerName...)
}

// tableKey is the prefix of every key of table tid.
func tableKey(tid uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{prefixTable}, tid)
}

// kindKey is the prefix of every key of one kind in table tid.
func kindKey(tid uint32, kind byte) []byte {
	return append(tableKey(tid), kind)
}

// segKey is the key (or prefix) of one segment's keys of one kind.
func segKey(tid uint32, kind byte, seg uint32) []byte {
	k := make([]byte, 0, 10)
	k = append(k, prefixTable)
	k = binary.BigEndian.AppendUint32(k, tid)
	k = append(k, kind)
	return binary.BigEndian.AppendUint32(k, seg)
}

// appendPostingKey appends the key of one (field, term) posting list.
func appendPostingKey(dst []byte, tid, seg uint32, field byte, term []byte) []byte {
	dst = append(dst, prefixTable)
	dst = binary.BigEndian.AppendUint32(dst, tid)
	dst = append(dst, kindPosting)
	dst = binary.BigEndian.AppendUint32(dst, seg)
	dst = append(dst, field)
	return append(dst, term...)
}

// appendBlockPrefix appends the prefix of the block keys of one field: the
// block's first term follows it.
func appendBlockPrefix(dst []byte, tid, seg uint32, field byte) []byte {
	dst = append(dst, prefixTable)
	dst = binary.BigEndian.AppendUint32(dst, tid)
	dst = append(dst, kindBlock)
	dst = binary.BigEndian.AppendUint32(dst, seg)
	return append(dst, field)
}

// appendDocKey appends the docstore key of one document.
func appendDocKey(dst []byte, tid, seg, ord uint32) []byte {
	dst = append(dst, prefixTable)
	dst = binary.BigEndian.AppendUint32(dst, tid)
	dst = append(dst, kindDoc)
	dst = binary.BigEndian.AppendUint32(dst, seg)
	return binary.BigEndian.AppendUint32(dst, ord)
}

// keySeg returns the segment number of a key made by segKey.
func keySeg(key []byte) uint32 { return binary.BigEndian.Uint32(key[6:10]) }

// keyTable returns the table id of a key under prefixTable.
func keyTable(key []byte) uint32 { return binary.BigEndian.Uint32(key[1:5]) }
