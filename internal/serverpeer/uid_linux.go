package serverpeer

import (
	"os"
	"syscall"
)

// UID is the uid of the process that holds the other end of the connected
// Unix socket fd, as the kernel recorded it when that end was bound
// (SO_PEERCRED): it cannot be faked by what the peer sends.
func UID(fd int) (uint32, error) {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return 0, &os.SyscallError{Syscall: "getsockopt SO_PEERCRED", Err: err}
	}
	return cred.Uid, nil
}
