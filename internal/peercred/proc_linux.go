package peercred

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

func readProc(pid int) (Proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, err
	}
	return parseStat(pid, string(b))
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
