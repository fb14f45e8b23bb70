package load

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat times. It is
// 100 on every Linux architecture Go runs on (sysconf needs cgo to ask).
const clockTicks = 100

// ProcessCPUSeconds returns the user+system CPU seconds process pid has used.
func ProcessCPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// ProcessTreeCPUSeconds is ProcessCPUSeconds of pid and of its descendants
// alive now: a server that runs a process per connection (PostgreSQL) spends
// its time in its children. Descendants that exit between two readings drop
// out of the second, so take differences over a phase in which the
// connections stay open. Only pid itself must exist.
func ProcessTreeCPUSeconds(pid int) (float64, error) {
	total, err := ProcessCPUSeconds(pid)
	if err != nil {
		return 0, err
	}
	for _, child := range children(pid) {
		if s, err := ProcessTreeCPUSeconds(child); err == nil {
			total += s
		}
	}
	return total, nil
}

// children lists the processes whose parent is pid, from the children file
// of each of its threads (empty when the kernel does not provide them).
func children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a /proc/<pid>/stat
// line. The command name (field 2) is in parentheses and may hold spaces or
// parentheses, so fields are counted from the last ')'.
func parseStatCPU(stat string) (float64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("load: malformed /proc stat line")
	}
	f := strings.Fields(stat[end+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("load: short /proc stat line")
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("load: bad cpu times in /proc stat line")
	}
	return float64(utime+stime) / clockTicks, nil
}
