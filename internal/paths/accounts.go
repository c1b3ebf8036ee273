package paths

import (
	"strconv"
	"strings"
	"syscall"
)

// UserName is the login name of uid from /etc/passwd, or "" when it has
// none there. It is for messages: os/user would add its start-up (and cgo)
// to limen-hook, which links this package, for what only an error needs.
// For the same reason the file is read with plain system calls: os.ReadFile
// linked about 110 KB more into limen-hook (the os.File machinery, time
// formatting), and that alone measurably slowed every start.
func UserName(uid uint32) string {
	name, _, _ := account("/etc/passwd", uid)
	return name
}

// primaryGroup is uid's login name and primary gid from /etc/passwd.
func primaryGroup(uid uint32) (name string, gid uint32, ok bool) {
	return account("/etc/passwd", uid)
}

// groupName is the name of gid from /etc/group, or "".
func groupName(gid uint32) string {
	name, _, _ := account("/etc/group", gid)
	return name
}

// account finds the line of id (the third field) in a passwd- or
// group-format file: its name and, for passwd, the fourth field (the gid).
func account(file string, id uint32) (name string, gid uint32, ok bool) {
	b, ok := readFile(file)
	if !ok {
		return "", 0, false
	}
	want := strconv.FormatUint(uint64(id), 10)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 5)
		if len(f) < 3 || f[2] != want {
			continue
		}
		if len(f) >= 4 {
			if g, err := strconv.ParseUint(f[3], 10, 32); err == nil {
				gid = uint32(g)
			}
		}
		return f[0], gid, true
	}
	return "", 0, false
}

// Describe is "uid 1001 (bob)", or "uid 1001" for a uid with no name.
func Describe(uid uint32) string {
	s := "uid " + strconv.FormatUint(uint64(uid), 10)
	if name := UserName(uid); name != "" {
		s += " (" + name + ")"
	}
	return s
}

// readFile reads a small file whole, with plain system calls.
func readFile(name string) ([]byte, bool) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 16<<10)
	for len(out) < 4<<20 {
		n, err := syscall.Read(fd, buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, false
		case n == 0:
			return out, true
		}
		out = append(out, buf[:n]...)
	}
	return out, true
}
