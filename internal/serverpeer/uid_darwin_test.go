package serverpeer

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// UID reads the xucred through a struct of another type; x/sys/unix, which
// a test may import, reads it properly, and the two must agree.
func TestUIDMatchesXucred(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	x, err := unix.GetsockoptXucred(fds[0], unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		t.Fatal(err)
	}
	uid, err := UID(fds[0])
	if err != nil || uid != x.Uid || uid != uint32(os.Geteuid()) {
		t.Fatalf("UID = %d, %v; x/sys/unix says %+v, euid %d", uid, err, x, os.Geteuid())
	}
}
