package peercred

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestFromFD(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	uid, pid, err := FromFD(fds[0])
	if err != nil || uid != uint32(os.Geteuid()) || pid != int32(os.Getpid()) {
		t.Fatalf("FromFD(socketpair) = %d, %d, %v; want uid %d, pid %d", uid, pid, err, os.Geteuid(), os.Getpid())
	}
	// Not a socket: an error, not a uid (0 would read as root).
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if uid, pid, err := FromFD(int(f.Fd())); err == nil {
		t.Fatalf("FromFD(%s) = %d, %d, nil; want an error", os.DevNull, uid, pid)
	}
}

// TestFromConn is the server's side of a real listening socket, as limend
// reads it: the kernel's uid and pid, and on Linux the process's start.
func TestFromConn(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	ai, ok := FromConn(s)
	if !ok || ai.UID != uint32(os.Geteuid()) || ai.PID != int32(os.Getpid()) || ai.User == "" {
		t.Fatalf("FromConn = %+v, %v; want uid %d, pid %d and a user name", ai, ok, os.Geteuid(), os.Getpid())
	}
	ai = ai.Resolved()
	if runtime.GOOS == "linux" && (ai.Start == 0 || ai.Proc.PID != os.Getpid()) {
		t.Fatalf("FromConn = %+v; want this process's start time and /proc entry", ai)
	}
	if runtime.GOOS != "linux" && ai.Start != 0 {
		t.Fatalf("FromConn = %+v; no start time can be read here", ai)
	}
}
