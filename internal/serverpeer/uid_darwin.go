package serverpeer

import (
	"errors"
	"os"
	"syscall"
)

// LOCAL_PEERCRED at level SOL_LOCAL (<sys/un.h>), and XUCRED_VERSION
// (<sys/ucred.h>): the syscall package does not define them.
const (
	solLocal      = 0
	localPeerCred = 1
	xucredVersion = 0
)

// UID is the uid of the process that holds the other end of the connected
// Unix socket fd, as the kernel recorded it when that end listened
// (LOCAL_PEERCRED): it cannot be faked by what the peer sends.
//
// golang.org/x/sys/unix has GetsockoptXucred, but it imports fmt, which
// limen-hook keeps out. The syscall package can only fill fixed structs,
// so the xucred is read into one of 8 uint32s: the kernel copies as much
// of a struct xucred as fits (sooptcopyout truncates), and its first words
// are cr_version, cr_uid, then cr_ngroups in the low half of the third.
func UID(fd int) (uint32, error) {
	x, err := syscall.GetsockoptICMPv6Filter(fd, solLocal, localPeerCred)
	if err != nil {
		return 0, &os.SyscallError{Syscall: "getsockopt LOCAL_PEERCRED", Err: err}
	}
	version, uid, ngroups := x.Filt[0], x.Filt[1], int16(x.Filt[2])
	// Another layout, or nothing written (all zeros would read as root),
	// and limen does not trust the socket: a real xucred carries at least
	// the primary group.
	if version != xucredVersion || ngroups < 1 || ngroups > 16 {
		return 0, errors.New("getsockopt LOCAL_PEERCRED: not a struct xucred this limen knows, so it cannot tell who serves the socket")
	}
	return uid, nil
}
