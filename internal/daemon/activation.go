package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/coreos/go-systemd/v22/activation"

	"github.com/limenhq/limen/internal/service"
)

// Inherited holds listening sockets that limend was handed instead of
// binding them itself: systemd's socket activation, where the socket
// exists before limend does, so the first call after a reboot starts it.
// A nil field is bound by limend as usual.
type Inherited struct {
	// GRPC serves gRPC; it must be the Unix socket at Config.Socket.
	GRPC net.Listener
	// HTTP serves the hook API; it must be the Unix socket at
	// Config.HTTPSocket.
	HTTP net.Listener
}

// Close closes the sockets held (limend's copies: systemd keeps its own).
func (in Inherited) Close() {
	for _, l := range []net.Listener{in.GRPC, in.HTTP} {
		if l != nil {
			l.Close()
		}
	}
}

// Activated takes the sockets systemd passed limend (LISTEN_PID,
// LISTEN_FDS and LISTEN_FDNAMES), each found by the name its .socket unit
// gives it in FileDescriptorName=: service.GRPCSocketName and
// service.HTTPSocketName. Without socket activation it returns no sockets
// and no error, and limend binds its own. A socket it cannot use — not a
// listening Unix socket, an unknown name, a name given twice — is an
// error: limend then does not start, and every call waiting on the socket
// fails closed to ask. The variables are cleared either way, so that no
// process limend starts takes the sockets for its own.
func Activated() (Inherited, error) {
	var in Inherited
	for _, f := range activation.Files(true) {
		l, err := net.FileListener(f)
		f.Close() // FileListener holds its own copy
		if err != nil {
			in.Close()
			return Inherited{}, fmt.Errorf("socket activation: the socket named %q is not a listening socket (%v): limend's .socket units take ListenStream= with a Unix socket path", f.Name(), err)
		}
		if l.Addr().Network() != "unix" {
			l.Close()
			in.Close()
			return Inherited{}, fmt.Errorf("socket activation: the socket named %q is %s %s; limend is activated on Unix sockets only (ListenStream=/path/to/limend.sock)", f.Name(), l.Addr().Network(), l.Addr())
		}
		var slot *net.Listener
		switch f.Name() {
		case service.GRPCSocketName:
			slot = &in.GRPC
		case service.HTTPSocketName:
			slot = &in.HTTP
		default:
			l.Close()
			in.Close()
			return Inherited{}, fmt.Errorf("socket activation: systemd passed limend a socket named %q; limend knows %q (gRPC) and %q (the hook API): set FileDescriptorName= in the .socket unit to one of them (limenctl service install writes both units)",
				f.Name(), service.GRPCSocketName, service.HTTPSocketName)
		}
		if *slot != nil {
			l.Close()
			in.Close()
			return Inherited{}, fmt.Errorf("socket activation: systemd passed two sockets named %q; give each .socket unit one ListenStream=", f.Name())
		}
		*slot = l
	}
	return in, nil
}

// checkInherited makes sure an inherited socket is the one clients dial:
// a unit that listens somewhere else than --socket would leave every
// client dialling a path nobody serves. It also refuses a socket that
// other users could connect to by its mode, since limend cannot set the
// mode of a socket it did not create.
func checkInherited(l net.Listener, want, flag, name string) error {
	got := l.Addr().String()
	if want == "" {
		return fmt.Errorf("socket activation: systemd passed limend the socket %s as %q, but %s is empty, so limend would not serve it: pass %s %s", got, name, flag, flag, got)
	}
	if filepath.Clean(got) != filepath.Clean(want) {
		return fmt.Errorf("socket activation: systemd passed limend the socket %s as %q, but %s is %s, where clients will dial: make the .socket unit's ListenStream= and limend's %s the same path (limenctl service install writes both)", got, name, flag, want, flag)
	}
	fi, err := os.Lstat(got)
	if err != nil {
		return fmt.Errorf("socket activation: the socket %s passed as %q: %w", got, name, err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return errors.New("socket activation: " + got + " is not a socket")
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket activation: the socket %s has mode %04o, so other users can connect to it: set SocketMode=0600 in its .socket unit", got, fi.Mode().Perm())
	}
	return nil
}
