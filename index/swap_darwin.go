package index

import "golang.org/x/sys/unix"

// exchange swaps the names a and b, both existing, in one atomic step.
func exchange(a, b string) error {
	return unix.RenamexNp(a, b, unix.RENAME_SWAP)
}

// writeback does nothing here: macOS has no call that starts write-back
// without waiting for it, and Close syncs all.
func writeback(uintptr) {}
