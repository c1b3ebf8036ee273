package main

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// socketUnix opens the Unix stream socket, closed on exec atomically.
func socketUnix() (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, &os.SyscallError{Syscall: "socket", Err: err}
	}
	return fd, nil
}

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
