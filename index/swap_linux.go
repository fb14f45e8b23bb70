package index

import "golang.org/x/sys/unix"

// exchange swaps the names a and b, both existing, in one atomic step.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// writeback asks the kernel to start writing out f's dirty pages, without
// waiting for them.
func writeback(fd uintptr) {
	_ = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
