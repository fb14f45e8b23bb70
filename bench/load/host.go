package load

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Machine names the machine a run is on: the CPU's model (from /proc/cpuinfo)
// and GOOS/GOARCH.
func Machine() string {
	where := runtime.GOOS + "/" + runtime.GOARCH
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return where
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ") + ", " + where
		}
	}
	return where
}

// DiskUsage is the space allocated to the files under dir (sparse and
// preallocated files count what they hold, not their length). Files removed
// while it walks (a running server drops old logs) are skipped.
func DiskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}
