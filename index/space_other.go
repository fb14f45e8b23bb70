//go:build !(linux || darwin || freebsd)

package index

import "errors"

// freeBytes cannot read the free space here: writes are not checked against
// the disk reserve.
func freeBytes(string) (int64, error) {
	return 0, errors.New("free space is not known on this system")
}
