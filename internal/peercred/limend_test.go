package peercred_test

import (
	"net"
	"os"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/internal/serverpeer"
)

// From a client's side of a real limend's socket, FromFD names the process
// that listens (limenctl bench's serverPID), and serverpeer, which the
// clients use to decide whether to believe the socket, agrees on the uid.
func TestFromFDOfLimend(t *testing.T) {
	l := limentest.Start(t)
	conn, err := net.Dial("unix", l.Config.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var uid, spUID uint32
	var pid int32
	var credErr, spErr error
	if err := raw.Control(func(fd uintptr) {
		uid, pid, credErr = peercred.FromFD(int(fd))
		spUID, spErr = serverpeer.UID(int(fd))
	}); err != nil {
		t.Fatal(err)
	}
	// limentest runs limend in this process.
	if credErr != nil || uid != uint32(os.Geteuid()) || pid != int32(os.Getpid()) {
		t.Fatalf("FromFD(limend's socket) = %d, %d, %v; want uid %d, pid %d", uid, pid, credErr, os.Geteuid(), os.Getpid())
	}
	if spErr != nil || spUID != uid {
		t.Fatalf("serverpeer.UID(limend's socket) = %d, %v; want %d", spUID, spErr, uid)
	}
}
