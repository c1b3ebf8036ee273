package main

import (
	"errors"
	"math"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// socketUnix opens the Unix stream socket and marks it close-on-exec:
// macOS has no SOCK_CLOEXEC, so the two steps run under ForkLock, as the
// standard library does, so that no exec in between inherits it.
func socketUnix() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, &os.SyscallError{Syscall: "socket", Err: err}
	}
	return fd, nil
}

// errPollNVAL is a descriptor poll(2) cannot wait on: macOS answers so for
// some devices (terminals on older releases). Reading it anyway could block
// past the deadline, so the hook fails closed instead.
var errPollNVAL = errors.New("poll: stdin cannot be waited on (POLLNVAL): give the hook its input through a pipe or a file")

// pollIn waits until fd is readable (or at its end, or in error, which
// the read then reports) or the deadline passes. macOS has no ppoll, and
// its system calls go through libc: unix.Poll, whose timeout is in
// milliseconds, rounded up so that it never wakes before the deadline
// only to spin.
func pollIn(fd int, deadline time.Time) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errDeadline
		}
		ms := int64((left + time.Millisecond - 1) / time.Millisecond)
		if ms > math.MaxInt32 {
			ms = math.MaxInt32
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, int(ms))
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
		case err != nil:
			return &os.SyscallError{Syscall: "poll", Err: err}
		case n > 0 && pfd[0].Revents&unix.POLLNVAL != 0:
			return errPollNVAL
		case n > 0:
			return nil
		}
	}
}
