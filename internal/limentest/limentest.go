// Package limentest starts a real limend for tests: the same daemon as in
// production, on a temporary Unix socket and bbolt file, stopped when the
// test ends. Tests across the repository use it instead of each carrying
// their own copy of the setup.
package limentest

import (
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Limend is a running daemon and a client connected to it.
type Limend struct {
	*daemon.Daemon
	Client *client.Client
	Config daemon.Config
}

// Start runs limend in a fresh temporary directory. Options adjust the
// configuration before it starts (a faulty model, limits, an HTTP socket).
// The daemon and the client are stopped when the test ends; a failure to
// stop cleanly fails the test.
func Start(t testing.TB, opts ...func(*daemon.Config)) *Limend {
	t.Helper()
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "run", "limend.sock"),
		DB:              filepath.Join(dir, "data", "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     200 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("start limend: %v", err)
	}
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		d.Stop(t.Context())
		t.Fatalf("dial limend: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		if err := d.Stop(t.Context()); err != nil {
			t.Errorf("stop limend: %v", err)
		}
	})
	return &Limend{Daemon: d, Client: c, Config: cfg}
}

// SetPolicy replaces the policy in force with doc, failing the test if
// limend refuses it.
func (l *Limend) SetPolicy(t testing.TB, doc string) {
	t.Helper()
	cur, err := l.Client.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatalf("get policy: %v", err)
	}
	if _, err := l.Client.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc}); err != nil {
		t.Fatalf("set policy: %v", err)
	}
}

// HangingSocket is a Unix socket that accepts connections and never
// answers, like a wedged daemon: what a caller's deadline must survive. It
// is closed, with every connection it took, when the test ends.
func HangingSocket(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hang.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return path
}
