package index

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// prefixDistributed starts the catalog keys of distributed tables:
//
//	'd' <lower-case table name> -> JSON Distributed
//
// A distributed table holds no documents: it names the tables (local ones,
// and remote ones on other servers) a search of it asks. This package only
// keeps its definition, with the tables' names in one namespace; what the
// settings mean is the SQL layer's.
const prefixDistributed = 'd'

// Distributed is the definition of a distributed table: its name and its
// settings in the order they were given (agent may repeat).
type Distributed struct {
	Name     string
	Settings []Setting
}

func distributedKey(lower string) []byte { return append([]byte{prefixDistributed}, lower...) }

// loadDistributed reads the distributed tables' definitions (recover).
func (db *DB) loadDistributed(txn *badger.Txn) error {
	db.dists = map[string]Distributed{}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixDistributed}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var d Distributed
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &d) }); err != nil {
			return fmt.Errorf("index: distributed table entry %q: %w", it.Item().Key(), err)
		}
		db.dists[strings.ToLower(d.Name)] = d
	}
	return nil
}

// CreateDistributed keeps the definition of a distributed table.
// ErrTableExists if a table of either kind has the name.
func (db *DB) CreateDistributed(d Distributed) error {
	if d.Name == "" {
		return fmt.Errorf("%w: empty table name", ErrBadSchema)
	}
	if db.replicated {
		return fmt.Errorf("%w: distributed tables are not replicated", ErrReplicated)
	}
	d.Settings = slices.Clone(d.Settings)
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	lower := strings.ToLower(d.Name)
	if db.nameTaken(lower) {
		return fmt.Errorf("%w: %s", ErrTableExists, d.Name)
	}
	v, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := db.update(func(txn *badger.Txn) error { return txn.Set(distributedKey(lower), v) }); err != nil {
		return fmt.Errorf("index: create table %s: %w", d.Name, err)
	}
	db.dists[lower] = d
	return nil
}

// DropDistributed removes a distributed table's definition (its shards
// are not touched). ErrNoSuchTable if there is no such distributed table.
func (db *DB) DropDistributed(name string) error {
	if db.replicated {
		return fmt.Errorf("%w: distributed tables are not replicated", ErrReplicated)
	}
	db.wmu.RLock()
	defer db.wmu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	lower := strings.ToLower(name)
	if _, ok := db.dists[lower]; !ok {
		return fmt.Errorf("%w: %s", ErrNoSuchTable, name)
	}
	if err := db.update(func(txn *badger.Txn) error { return txn.Delete(distributedKey(lower)) }); err != nil {
		return fmt.Errorf("index: drop table %s: %w", name, err)
	}
	delete(db.dists, lower)
	return nil
}

// DistributedTable returns the definition of a distributed table (names
// are case-insensitive).
func (db *DB) DistributedTable(name string) (Distributed, bool) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	d, ok := db.dists[strings.ToLower(name)]
	if ok {
		d.Settings = slices.Clone(d.Settings)
	}
	return d, ok
}

// DistributedNames lists the distributed tables in byte order of their names.
func (db *DB) DistributedNames() []string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	names := make([]string, 0, len(db.dists))
	for _, d := range db.dists {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// nameTaken reports whether a table of either kind has the lower-case
// name. The caller holds db.mu.
func (db *DB) nameTaken(lower string) bool {
	_, local := db.tables[lower]
	_, dist := db.dists[lower]
	return local || dist
}
