package peercred

import (
	"os"

	"golang.org/x/sys/unix"
)

// FromFD reads the uid and pid of the process at the other end of the
// connected Unix socket fd, as the kernel recorded them when it connected
// (or, read from a client's side, when the server listened): SO_PEERCRED.
// pid is 0 when the peer is in another pid namespace.
func FromFD(fd int) (uid uint32, pid int32, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, 0, os.NewSyscallError("getsockopt SO_PEERCRED", err)
	}
	return cred.Uid, cred.Pid, nil
}
