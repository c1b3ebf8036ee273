package paths

import (
	"os"
	"strconv"
	"strings"
)

// UserName is the login name of uid from /etc/passwd, or "" when it has
// none there. It is for messages: os/user would add its start-up (and cgo)
// to limen-hook, which links this package, for what only an error needs.
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
	b, err := os.ReadFile(file)
	if err != nil {
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
