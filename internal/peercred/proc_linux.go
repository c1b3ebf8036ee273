package peercred

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// readProc reads /proc/<pid>/stat with three system calls into a buffer on
// the stack: it runs on every hook's decision (a few times, up the parent
// links), where os.ReadFile's stat, poller registration and growing buffer
// cost four times as much.
func readProc(pid int) (Proc, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Proc{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var buf [1024]byte // a stat line is a few hundred bytes
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Proc{}, &os.PathError{Op: "read", Path: path, Err: err}
		}
		n += m
		if m == 0 || n < len(buf) {
			break // proc files are read whole by one read that fits
		}
	}
	return parseStat(pid, string(buf[:n]))
}

// parseStat reads /proc/<pid>/stat (proc(5)). The program name sits in
// brackets and may itself hold spaces and brackets (a process names itself),
// so the fields are counted from the last closing bracket.
func parseStat(pid int, s string) (Proc, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Proc{}, fmt.Errorf("/proc/%d/stat: no program name in brackets", pid)
	}
	// fields[0] is field 3 of proc(5) (state): field n is fields[n-3].
	fields := strings.Fields(s[end+1:])
	if len(fields) < 20 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: %d fields after the name, want at least 20", pid, len(fields))
	}
	num := func(n int) (int64, error) {
		v, err := strconv.ParseInt(fields[n-3], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat field %d: %w", pid, n, err)
		}
		return v, nil
	}
	p := Proc{PID: pid, Comm: s[open+1 : end]}
	for _, f := range []struct {
		n   int
		dst *int
	}{{4, &p.PPID}, {6, &p.SID}, {7, &p.TTY}} {
		v, err := num(f.n)
		if err != nil {
			return Proc{}, err
		}
		*f.dst = int(v)
	}
	start, err := strconv.ParseUint(fields[22-3], 10, 64)
	if err != nil {
		return Proc{}, fmt.Errorf("/proc/%d/stat field 22 (start time): %w", pid, err)
	}
	p.Start = start
	return p, nil
}
