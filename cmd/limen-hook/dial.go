package main

import (
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/limenhq/limen/internal/serverpeer"
)

// limen-hook does its I/O with plain blocking system calls, each bounded
// by the deadline: poll(2) (select(2) on macOS) before reading stdin,
// SO_SNDTIMEO and SO_RCVTIMEO on the socket. The net package would go
// through the runtime's network poller, whose set-up alone cost about
// 0.5 ms on every tool call, and a goroutine with a timer watching a
// blocked call costs more than these few system calls (docs/BENCHMARKS.md,
// "Hook start").

// errDeadline is a blocking call that ran into the deadline.
var errDeadline = errors.New("deadline reached")

// dialUnix connects to limend's socket before the deadline, and hands the
// connection over only if the uid serving it is ours or serverUID (the
// --server-uid flag; empty: $LIMEN_SERVER_UID): one getsockopt, before
// anything is sent, and the environment is read only on a mismatch.
func dialUnix(socket, serverUID string, deadline time.Time) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|sockCloexec, 0)
	if err != nil {
		return -1, &os.SyscallError{Syscall: "socket", Err: err}
	}
	setCloseOnExec(fd)
	for {
		// Connecting to a Unix socket blocks only while the listener's
		// backlog is full; SO_SNDTIMEO bounds that wait.
		if err = setTimeout(fd, syscall.SO_SNDTIMEO, deadline); err != nil {
			break
		}
		if err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket}); err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EAGAIN {
		err = errDeadline
	}
	if err != nil {
		syscall.Close(fd)
		if err == errDeadline {
			return -1, err
		}
		return -1, &os.PathError{Op: "connect", Path: socket, Err: err}
	}
	uid, err := serverpeer.UID(fd)
	if err == nil {
		err = serverpeer.Check(socket, uid, serverUID)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// setTimeout sets a socket's SO_SNDTIMEO or SO_RCVTIMEO to the time left
// before the deadline.
func setTimeout(fd, opt int, deadline time.Time) error {
	left := time.Until(deadline)
	if left <= 0 {
		return errDeadline
	}
	tv := syscall.NsecToTimeval(int64(left))
	if tv.Sec == 0 && tv.Usec == 0 {
		tv.Usec = 1 // zero would mean no timeout at all
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
		return &os.SyscallError{Syscall: "setsockopt", Err: err}
	}
	return nil
}

// writeAll writes b to the socket before the deadline.
func writeAll(fd int, b []byte, deadline time.Time) error {
	for len(b) > 0 {
		if err := setTimeout(fd, syscall.SO_SNDTIMEO, deadline); err != nil {
			return err
		}
		n, err := syscall.Write(fd, b)
		if n > 0 {
			b = b[n:]
		}
		switch err {
		case nil, syscall.EINTR:
		case syscall.EAGAIN:
			return errDeadline
		default:
			return &os.SyscallError{Syscall: "write", Err: err}
		}
	}
	return nil
}

// readSocket reads from the socket before the deadline; 0, nil is the end.
func readSocket(fd int, p []byte, deadline time.Time) (int, error) {
	for {
		if err := setTimeout(fd, syscall.SO_RCVTIMEO, deadline); err != nil {
			return 0, err
		}
		n, err := syscall.Read(fd, p)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
		case syscall.EAGAIN:
			return 0, errDeadline
		default:
			return 0, &os.SyscallError{Syscall: "read", Err: err}
		}
	}
}

// readFile reads from a file descriptor (stdin: a pipe, a file, a
// terminal), waiting in poll(2) no longer than the deadline; 0, nil is the
// end. It also copes with a descriptor left non-blocking by the runtime.
func readFile(fd int, p []byte, deadline time.Time) (int, error) {
	for {
		if err := pollIn(fd, deadline); err != nil {
			return 0, err
		}
		n, err := syscall.Read(fd, p)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR, syscall.EAGAIN:
		default:
			return 0, &os.SyscallError{Syscall: "read", Err: err}
		}
	}
}
