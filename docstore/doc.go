// Package docstore keeps the stored text fields of documents: it encodes the
// fields of one document into one compressed record, decodes records (all fields
// or a chosen few), and reads batches of records from badger in one transaction.
// It knows nothing of tables or schemas: the caller (package index) chooses the
// keys and the order of the fields.
//
// A worked example: write one record and read back the second field.
//
//	var enc docstore.Encoder
//	rec := enc.Append(nil, []string{"A title", "The body text ..."})
//	_ = db.Update(func(txn *badger.Txn) error { return txn.Set(key, rec) })
//
//	_ = db.View(func(txn *badger.Txn) error {
//		return docstore.Read(txn, [][]byte{key}, []int{1}, 1, func(i int, f []string) error {
//			fmt.Println(f[0]) // The body text ...
//			return nil
//		})
//	})
//
// Read's fourth argument is how many goroutines may decode a batch (1: the
// caller's own, in key order). Records of 128 bytes or more are compressed
// with s2 when that saves space; s2 decodes at memory speed, and highlighting
// reads the stored text of every hit it shows.
package docstore
