package serverpeer

import (
	"os"
	"syscall"
	"testing"
)

func TestUID(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	if uid, err := UID(fds[1]); err != nil || uid != uint32(os.Geteuid()) {
		t.Fatalf("UID(socketpair) = %d, %v; want %d", uid, err, os.Geteuid())
	}
	// What is not a socket has nobody serving it: an error, so the client
	// fails closed, and never a uid to compare.
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if uid, err := UID(int(f.Fd())); err == nil {
		t.Fatalf("UID(%s) = %d, nil; want an error", os.DevNull, uid)
	}
}
