package main

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// limen-hook's macOS I/O uses only the syscall package, like its Linux
// I/O: golang.org/x/sys/unix would link fmt into it.

// sockCloexec is 0: macOS has no SOCK_CLOEXEC, so the socket is marked
// close-on-exec right after it is made. Without ForkLock: limen-hook starts
// no process, so no exec can come in between.
const sockCloexec = 0

func setCloseOnExec(fd int) { syscall.CloseOnExec(fd) }

// fdSetSize is FD_SETSIZE: select(2) cannot wait on a descriptor above it.
const fdSetSize = 1024

var errFdTooHigh = errors.New("select: descriptor above FD_SETSIZE")

// pollIn waits until fd is readable (or at its end, or in error, which
// the read then reports) or the deadline passes. macOS has no ppoll and
// the syscall package no poll, so it waits in select(2), which also waits
// on terminals, where macOS's poll(2) for long did not.
func pollIn(fd int, deadline time.Time) error {
	if fd < 0 || fd >= fdSetSize {
		return errFdTooHigh
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errDeadline
		}
		tv := syscall.NsecToTimeval(int64(left))
		if tv.Sec == 0 && tv.Usec == 0 {
			tv.Usec = 1 // zero would not wait at all
		}
		var r syscall.FdSet
		r.Bits[fd/32] |= 1 << (uint(fd) % 32)
		err := syscall.Select(fd+1, &r, nil, nil, &tv)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return &os.SyscallError{Syscall: "select", Err: err}
		case r.Bits[fd/32]&(1<<(uint(fd)%32)) != 0:
			return nil
		}
	}
}
