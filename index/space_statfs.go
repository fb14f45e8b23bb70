//go:build linux || darwin || freebsd

package index

import "golang.org/x/sys/unix"

// freeBytes is the space of dir's file system free for unprivileged use, as
// df shows it (root may use a little more on some file systems).
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
