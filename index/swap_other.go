//go:build !linux && !darwin

package index

import (
	"fmt"
	"runtime"
)

// exchange would swap the names a and b in one atomic step: this system
// has no such call, and two renames would leave neither database in
// place after a crash between them, so it refuses.
func exchange(a, b string) error {
	return fmt.Errorf("replacing a database in place needs an atomic exchange of two names, which %s lacks (Linux and macOS have one)", runtime.GOOS)
}

// writeback does nothing here: Close syncs all.
func writeback(uintptr) {}
