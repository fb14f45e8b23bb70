// A worked example: write one record and read back the second field.
//
//	var enc docstore.Encoder
//	rec := enc.Append(nil, []string{"A title", "The body text ..."})
//	_ = db.Update(func(txn *badger.Txn) error { return txn.Set(key, rec) })
//
//	_ = db.View(func(txn *badger.Txn) error {
//		return docstore.Read(txn, [][]byte{key}, []int{1}, func(i int, f []string) error {
//			fmt.Println(f[0]) // The body text ...
//			return nil
//		})
//	})
//
// Records longer than a few dozen bytes are compressed with s2, which decodes
// at memory speed: highlighting reads the stored text of every hit it shows.
package docstore
