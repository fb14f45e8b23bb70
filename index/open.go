package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
	"golang.org/x/sys/unix"
)

// Checks made before badger opens a data directory, for the faults that
// badger reports unclearly, by crashing, or not at all (each measured on
// badger v4.9.6):
//
//   - a read-only directory: badger's error is about its lock or pid file;
//   - a directory another process has open: "Cannot acquire directory lock on
//     ... Another process is using this Badger database. err: resource
//     temporarily unavailable";
//   - a MANIFEST that is missing or cut short while tables exist: badger
//     starts with an empty database and deletes the tables it no longer
//     knows, silently;
//   - a truncated table (.sst): badger panics in a goroutine of its own;
//   - less free space than the reserve (space.go);
//   - an empty memtable or value log, which a kill -9 leaves between the
//     file's creation and its sizing: badger refuses to open ("Create a new
//     file") and sizes the file as it does so, so the start after works.
//     Such a file holds nothing; removeEmptyLogs deletes it.
//
// A MANIFEST with a bad checksum, a missing table or a damaged key registry
// badger refuses by itself; openError adds the directory.

// errDataDir is the error of a data directory glintd cannot use.
type errDataDir struct {
	dir, msg string
}

func (e *errDataDir) Error() string { return "index: data directory " + e.dir + " " + e.msg }

// preflight checks the data directory before badger opens it.
func (db *DB) preflight() error {
	dir := db.dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		if errors.Is(err, unix.EROFS) {
			return &errDataDir{dir, "cannot be created: the file system is read-only"}
		}
		return &errDataDir{dir, fmt.Sprintf("cannot be created: %v", err)}
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		if errors.Is(err, unix.EROFS) {
			return &errDataDir{dir, "is read-only (its file system is mounted read-only); glintd needs to write to it"}
		}
		return &errDataDir{dir, fmt.Sprintf("is read-only for this user (%v); glintd needs to write to it", err)}
	}
	if err := checkLock(dir); err != nil {
		return err
	}
	if err := db.checkSpace(0, ""); err != nil {
		return fmt.Errorf("%w; free some space and start again", err)
	}
	if err := db.removeEmptyLogs(); err != nil {
		return err
	}
	listed, err := checkManifest(dir)
	if err != nil {
		return err
	}
	return checkTables(dir, listed)
}

// removeEmptyLogs deletes the memtable logs (.mem) and value-log files
// (.vlog) of no bytes: badger writes a header into each as it creates it,
// so an empty one is a creation a crash cut short, and holds no write.
func (db *DB) removeEmptyLogs() error {
	entries, err := os.ReadDir(db.dir)
	if err != nil {
		return &errDataDir{db.dir, fmt.Sprintf("cannot be read: %v", err)}
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext != ".mem" && ext != ".vlog" || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return &errDataDir{db.dir, fmt.Sprintf("cannot be read: %v", err)}
		}
		if info.Size() != 0 {
			continue
		}
		name := filepath.Join(db.dir, e.Name())
		if err := os.Remove(name); err != nil {
			return &errDataDir{db.dir, fmt.Sprintf("holds the empty log %s (a crash cut its creation short), which cannot be removed: %v", e.Name(), err)}
		}
		db.logf("removed the empty log %s: a crash cut its creation short; it held no write", name)
	}
	return nil
}

// checkLock fails if another process holds the lock badger takes on the
// directory (flock on the directory itself; the pid is in its file LOCK).
func checkLock(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return &errDataDir{dir, fmt.Sprintf("cannot be opened: %v", err)}
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return inUse(dir)
	}
	return unix.Flock(int(f.Fd()), unix.LOCK_UN)
}

func inUse(dir string) error {
	lock := filepath.Join(dir, "LOCK")
	pid := "another process"
	if b, err := os.ReadFile(lock); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		pid = "process " + strings.TrimSpace(string(b))
	}
	return &errDataDir{dir, fmt.Sprintf("is in use by another glintd (%s holds the lock; its pid is in %s)", pid, lock)}
}

// dataFiles lists the table (.sst) and value-log (.vlog) files of dir, and
// whether memtable logs (.mem) are there.
func dataFiles(dir string) (tables map[uint64]string, vlogs []string, mem bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, false, &errDataDir{dir, fmt.Sprintf("cannot be read: %v", err)}
	}
	tables = map[uint64]string{}
	for _, e := range entries {
		name := e.Name()
		switch filepath.Ext(name) {
		case ".sst":
			if id, ok := table.ParseFileID(name); ok {
				tables[id] = name
			}
		case ".vlog":
			vlogs = append(vlogs, name)
		case ".mem":
			mem = true
		}
	}
	return tables, vlogs, mem, nil
}

// checkManifest refuses a MANIFEST whose loss badger would take for a new
// database. A MANIFEST that ends in a torn change (a crash while badger
// appended to it) is fine when the tables it leaves out are the product of
// the interrupted change: their data is still in the memtable logs (a flush)
// or in the tables still listed (a compaction). It is not when no memtable
// log is there to replay: the tables left out hold data nothing else does.
// It returns the ids of the tables the MANIFEST lists (none for a new
// database): those badger opens; it deletes the others.
func checkManifest(dir string) (map[uint64]string, error) {
	tables, vlogs, mem, err := dataFiles(dir)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, badger.ManifestFilename)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		if len(tables) > 0 || len(vlogs) > 0 {
			return nil, fmt.Errorf("index: %s is missing, and the data directory holds %d tables and %d value-log files: refusing to start (badger would begin an empty database and delete the tables); restore the directory from a backup",
				name, len(tables), len(vlogs))
		}
		return nil, nil // a new database
	}
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", name, err)
	}
	m, end, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir))
	if err != nil {
		return nil, fmt.Errorf("index: %s is damaged: %v; refusing to start; restore the directory from a backup", name, err)
	}
	listed := make(map[uint64]string, len(m.Tables))
	for id := range m.Tables {
		file, ok := tables[id]
		if !ok {
			return nil, fmt.Errorf("index: table file %s, listed in %s, is missing: refusing to start; restore the directory from a backup",
				table.NewFilename(id, dir), name)
		}
		listed[id] = file
	}
	if end == st.Size() || mem {
		return listed, nil
	}
	var lost []string
	for id, file := range tables {
		if _, ok := m.Tables[id]; !ok {
			lost = append(lost, file)
		}
	}
	if len(lost) > 0 {
		return nil, fmt.Errorf("index: %s is cut short (%d of its %d bytes are whole changes) and no longer lists %s: refusing to start (badger would delete them); restore the directory from a backup",
			name, end, st.Size(), strings.Join(lost, ", "))
	}
	return listed, nil
}

// checkTables opens every table the MANIFEST lists as badger will, but
// where a damaged one becomes an error naming it rather than a panic in
// one of badger's goroutines. It reads each table's index block and
// footer, not its data blocks (those badger checks when it reads them).
// A table the MANIFEST does not list is not looked at: it is one a crash
// caught while badger wrote it (a flush or a compaction sizes the file
// first, then fills it), which badger deletes as it opens.
func checkTables(dir string, listed map[uint64]string) error {
	for _, name := range listed {
		if err := checkTable(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("index: table file %s is damaged (%v): refusing to start; restore the directory from a backup", filepath.Join(dir, name), err)
		}
	}
	return nil
}

func checkTable(path string) (err error) {
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil && !errors.Is(err, z.NewFile) {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
		_ = mf.Close(-1)
	}()
	if len(mf.Data) == 0 {
		return errors.New("empty")
	}
	_, err = table.OpenTable(mf, table.Options{ChkMode: options.NoVerification, Compression: options.None})
	return err
}

// openError is the error of badger.Open, with the directory named.
func (db *DB) openError(err error) error {
	if strings.Contains(err.Error(), "Cannot acquire directory lock") {
		return inUse(db.dir)
	}
	return fmt.Errorf("index: open %s: %w", db.dir, err)
}
