package peercred

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>, which x/sys/unix does
// not define.
const xucredVersion = 0

// FromFD reads the uid and pid of the process at the other end of the
// connected Unix socket fd, as the kernel recorded them when it connected
// (or, read from a client's side, when the server listened):
// LOCAL_PEERCRED for the uid, LOCAL_PEERPID for the pid. The uid is
// required; the pid is 0 when the kernel does not give it, which callers
// already treat as a caller they cannot follow.
func FromFD(fd int) (uid uint32, pid int32, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, 0, os.NewSyscallError("getsockopt LOCAL_PEERCRED", err)
	}
	// A struct of another layout would put something else where Uid is
	// read, and one left unwritten would read as root: refuse rather than
	// guess whose it is (a real xucred carries at least the primary group).
	if cred.Version != xucredVersion || cred.Ngroups < 1 {
		return 0, 0, errors.New("getsockopt LOCAL_PEERCRED: xucred version " + strconv.FormatUint(uint64(cred.Version), 10) + " with " + strconv.Itoa(int(cred.Ngroups)) + " groups, want version " + strconv.Itoa(xucredVersion) + " and at least one group")
	}
	if p, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil && p > 0 {
		pid = int32(p)
	}
	return cred.Uid, pid, nil
}
