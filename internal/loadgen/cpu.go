package loadgen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// selfCPU returns the user plus system CPU time this process has used, all
// threads together (getrusage RUSAGE_SELF; microsecond resolution).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// userHZ is the unit of /proc/<pid>/stat's CPU times. Linux reports them in
// USER_HZ, which is 100 on every architecture Go supports.
const userHZ = 100

// ProcessCPU returns the user plus system CPU time process pid has used,
// from /proc/<pid>/stat (10ms resolution, so read it around whole rounds,
// not single calls).
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read CPU time of process %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("read CPU time of process %d: /proc/%d/stat has no command name", pid, pid)
	}
	f := bytes.Fields(b[i+1:])
	// After the name: state(3) ... utime(14) stime(15), so indexes 11 and 12.
	if len(f) < 13 {
		return 0, fmt.Errorf("read CPU time of process %d: /proc/%d/stat is too short", pid, pid)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read CPU time of process %d: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
