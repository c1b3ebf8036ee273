package serverpeer

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>, which x/sys/unix does
// not define.
const xucredVersion = 0

// UID is the uid of the process that holds the other end of the connected
// Unix socket fd, as the kernel recorded it when that end listened
// (LOCAL_PEERCRED): it cannot be faked by what the peer sends.
func UID(fd int) (uint32, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, &os.SyscallError{Syscall: "getsockopt LOCAL_PEERCRED", Err: err}
	}
	// Another layout would put something else where Uid is read: a client
	// that cannot tell who serves the socket does not trust it.
	if cred.Version != xucredVersion {
		return 0, errors.New("getsockopt LOCAL_PEERCRED: xucred version " + strconv.FormatUint(uint64(cred.Version), 10) + ", want " + strconv.Itoa(xucredVersion))
	}
	return cred.Uid, nil
}
