package main

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sockCloexec makes the socket close-on-exec as it is created, so
// setCloseOnExec has nothing to do: the Linux hook makes the same system
// calls as before macOS had its own (its start time is benchmarked).
const sockCloexec = syscall.SOCK_CLOEXEC

func setCloseOnExec(int) {}

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn1 = 0x1 // POLLIN

// pollIn waits until fd is readable (or at its end, or in error, which
// the read then reports) or the deadline passes.
func pollIn(fd int, deadline time.Time) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errDeadline
		}
		ts := syscall.NsecToTimespec(int64(left))
		pfd := pollFd{fd: int32(fd), events: pollIn1}
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case e == syscall.EINTR:
		case e != 0:
			return &os.SyscallError{Syscall: "ppoll", Err: e}
		case n > 0:
			return nil
		}
	}
}
