// Package durable writes files and directory entries so that they survive
// a crash of the machine, not only of the process: what is written is
// synced before a rename makes it visible, and the rename is synced in its
// directory.
package durable

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path as a whole or not at all: to path.tmp,
// synced, renamed to path, and the rename synced in path's directory.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	if err := SyncFile(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// SyncFile syncs the file name's contents.
func SyncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", name, err)
	}
	return nil
}

// SyncDir makes the names made, renamed or removed in dir durable.
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
