package main

import (
	"io"
	"os"
	"syscall"
)

// dialUnix connects to limend's socket with plain blocking system calls.
// The net package would do the same through the runtime's network poller,
// whose set-up alone costs limen-hook about 0.5 ms on every tool call
// (docs/BENCHMARKS.md, "Hook start"). No deadline is needed here: run's
// timer prints ask and exits at --timeout, however stuck this call is.
func dialUnix(socket string) (io.ReadWriteCloser, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, &os.SyscallError{Syscall: "socket", Err: err}
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: socket, Err: err}
	}
	return os.NewFile(uintptr(fd), socket), nil
}
