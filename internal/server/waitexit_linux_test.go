package server_test

import "golang.org/x/sys/unix"

// waitExit waits (10 s at most) for process pid to exit: a pidfd polls
// readable when its process exits.
func waitExit(pid int) {
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
		unix.Close(fd)
	}
}
