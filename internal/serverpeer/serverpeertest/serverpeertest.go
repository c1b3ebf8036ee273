// Package serverpeertest makes sockets served by another user, for tests
// of what limen's clients do when someone else listens on limen's socket.
package serverpeertest

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// OtherUID is the uid the fake servers run as: nobody on this machine.
const OtherUID = 4242

// ListenAs listens on a Unix socket in a fresh world-writable directory
// (the shared directory the attack needs) as uid: the kernel then reports
// uid as the socket's owner to whoever connects. It needs root, and skips
// the test otherwise. The effective uid of the whole process is uid only
// while the socket is bound. The listener is closed when the test ends.
func ListenAs(t testing.TB, uid int, name string) (net.Listener, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("binding a socket as another user needs root")
	}
	dir, err := os.MkdirTemp("", "limen-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := syscall.Seteuid(uid); err != nil {
		t.Fatalf("become uid %d: %v", uid, err)
	}
	l, err := net.Listen("unix", path)
	if rerr := syscall.Seteuid(0); rerr != nil {
		panic("serverpeertest: cannot become root again: " + rerr.Error())
	}
	if err != nil {
		t.Fatalf("listen on %s as uid %d: %v", path, uid, err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// AsUser runs f with the process's effective uid set to uid, so that what
// f creates (a real limend's sockets, files and the test's temporary
// directory) is that user's, and the kernel reports uid to whoever
// connects to the sockets f binds. It needs root, and skips the test
// otherwise. The real uid stays root, so os.Getuid, which the clients
// compare with, is still 0.
func AsUser(t testing.TB, uid int, f func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running limend as another user needs root")
	}
	if err := syscall.Seteuid(uid); err != nil {
		t.Fatalf("become uid %d: %v", uid, err)
	}
	defer func() {
		if err := syscall.Seteuid(0); err != nil {
			panic("serverpeertest: cannot become root again: " + err.Error())
		}
	}()
	f()
}
