package daemon_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// inherited is a listening socket as systemd holds it: made before limend,
// with mode, and not removed when limend's copy is closed.
func inherited(t *testing.T, path string, mode os.FileMode) net.Listener {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestInheritedSockets: limend serves gRPC and the hook API on sockets it
// was handed, and leaves their files when it stops.
func TestInheritedSockets(t *testing.T) {
	dir := t.TempDir()
	sock, httpSock := filepath.Join(dir, "run", "limend.sock"), filepath.Join(dir, "run", "limend-http.sock")
	cfg := daemon.Config{Socket: sock, HTTPSocket: httpSock, DB: filepath.Join(dir, "limen.db"), ShutdownTimeout: 2 * time.Second, LockTimeout: 200 * time.Millisecond,
		Inherited: daemon.Inherited{GRPC: inherited(t, sock, 0o600), HTTP: inherited(t, httpSock, 0o600)}}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{}); err != nil {
		t.Errorf("gRPC on the inherited socket: %v", err)
	}
	c.Close()
	if addrs := d.HTTPAddrs(); len(addrs) != 1 || addrs[0].String() != httpSock {
		t.Errorf("hook API served on %v; want the inherited %s", addrs, httpSock)
	}
	if err := d.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sock, httpSock} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("limend removed the inherited socket %s: %v", p, err)
		}
	}
}

// TestInheritedSocketsRefused: a socket at another path than limend's
// flags, or one other users may connect to, stops limend with the fix.
func TestInheritedSocketsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, dir string, cfg *daemon.Config)
		want string
	}{
		{"another path", func(t *testing.T, dir string, cfg *daemon.Config) {
			cfg.Inherited.GRPC = inherited(t, filepath.Join(dir, "other.sock"), 0o600)
		}, "make the .socket unit's ListenStream= and limend's --socket the same path"},
		{"open to others", func(t *testing.T, dir string, cfg *daemon.Config) {
			cfg.Inherited.GRPC = inherited(t, cfg.Socket, 0o666)
		}, "SocketMode=0600"},
		{"hook API turned off", func(t *testing.T, dir string, cfg *daemon.Config) {
			cfg.Inherited.HTTP = inherited(t, filepath.Join(dir, "run", "limend-http.sock"), 0o600)
			cfg.HTTPSocket = ""
		}, "--http-socket is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := daemon.Config{Socket: filepath.Join(dir, "run", "limend.sock"), DB: filepath.Join(dir, "limen.db"), LockTimeout: 200 * time.Millisecond}
			c.edit(t, dir, &cfg)
			d, err := daemon.Start(cfg, nil)
			if err == nil {
				d.Stop(t.Context())
				t.Fatal("limend started on a socket it should refuse")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q; want it to say %q", err, c.want)
			}
			if _, err := os.Stat(cfg.DB); !os.IsNotExist(err) {
				t.Errorf("a refused start left a database behind (%v)", err)
			}
		})
	}
}
