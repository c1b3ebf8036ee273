package daemon_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
)

// limend refuses to start on a database, socket or credential file that
// another user owns or can change, and says which and how to fix it; a
// refused start creates nothing.
func TestRefusesPathsOthersControl(t *testing.T) {
	root := os.Geteuid() == 0
	cases := []struct {
		name     string
		needRoot bool
		setup    func(t *testing.T, dir string, cfg *daemon.Config)
		want     []string
	}{
		{name: "database planted by another user in a shared sticky directory", needRoot: true,
			setup: func(t *testing.T, dir string, cfg *daemon.Config) {
				shared := filepath.Join(dir, "tmp")
				os.Mkdir(shared, 0o700)
				os.Chmod(shared, 0o777|os.ModeSticky)
				cfg.DB = filepath.Join(shared, "limen.db")
				os.WriteFile(cfg.DB, nil, 0o600)
				if err := os.Chown(cfg.DB, 4242, 4242); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"refuses its database", "owned by uid 4242", "--db"}},
		{name: "database in a directory everyone can write",
			setup: func(t *testing.T, dir string, cfg *daemon.Config) {
				shared := filepath.Join(dir, "shared")
				os.Mkdir(shared, 0o700)
				os.Chmod(shared, 0o777)
				cfg.DB = filepath.Join(shared, "limen.db")
			},
			want: []string{"refuses its database", "shared on its way is writable by every user", "chmod go-w"}},
		{name: "socket directory everyone can write",
			setup: func(t *testing.T, dir string, cfg *daemon.Config) {
				shared := filepath.Join(dir, "run")
				os.Mkdir(shared, 0o700)
				os.Chmod(shared, 0o777)
				cfg.Socket = filepath.Join(shared, "limend.sock")
			},
			want: []string{"refuses its socket", "run on its way is writable by every user", "--socket"}},
		{name: "hook socket in a directory of another user", needRoot: true,
			setup: func(t *testing.T, dir string, cfg *daemon.Config) {
				bob := filepath.Join(dir, "bob")
				os.Mkdir(bob, 0o755)
				if err := os.Chown(bob, 4242, 4242); err != nil {
					t.Fatal(err)
				}
				cfg.HTTPSocket = filepath.Join(bob, "limend-http.sock")
			},
			want: []string{"refuses its hook API socket", "owned by uid 4242", "--http-socket"}},
		{name: "token file anyone can rewrite",
			setup: func(t *testing.T, dir string, cfg *daemon.Config) {
				cfg.TLS.TokenFile = filepath.Join(dir, "token")
				os.WriteFile(cfg.TLS.TokenFile, []byte("secret"), 0o600)
				os.Chmod(cfg.TLS.TokenFile, 0o666)
			},
			want: []string{"refuses its token file", "writable by every user", "chmod go-w"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needRoot && !root {
				t.Skip("needs root to give a file to another user")
			}
			dir := t.TempDir()
			cfg := daemon.Config{
				Socket:      filepath.Join(dir, "own", "limend.sock"),
				DB:          filepath.Join(dir, "own", "limen.db"),
				LockTimeout: 200 * time.Millisecond,
			}
			c.setup(t, dir, &cfg)
			before, _ := os.Stat(cfg.DB)
			d, err := daemon.Start(cfg, nil)
			if err == nil {
				stop(t, d)
				t.Fatalf("limend started; want a refusal saying %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			after, statErr := os.Stat(cfg.DB)
			switch {
			case before == nil && !errors.Is(statErr, os.ErrNotExist):
				t.Errorf("the refused start created its database")
			case before != nil && (statErr != nil || after.Size() != before.Size()):
				t.Errorf("the refused start changed the file at the database path")
			}
			if _, err := os.Stat(cfg.Socket); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused start created its socket (%v)", err)
			}
		})
	}
}

// limend refuses to start on a damaged or empty database, with a message
// and no panic, and leaves the file as it found it.
func TestRefusesDamagedDatabase(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(path string) error
		says   string
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 6*4096) }, "corrupt or truncated"},
		{"zero length", func(p string) error { return os.Truncate(p, 0) }, "is empty (0 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, cl := start(t, dir)
			for i := range 2000 {
				decide(t, cl, bash("ls "+strings.Repeat("x", i%50)))
			}
			cl.Close()
			stop(t, d)
			db := filepath.Join(dir, "data", "limen.db")
			if err := c.damage(db); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(db)
			d, err := daemon.Start(daemon.Config{Socket: filepath.Join(dir, "run", "limend.sock"), DB: db, LockTimeout: 200 * time.Millisecond}, nil)
			if err == nil {
				stop(t, d)
				t.Fatalf("limend started on a %s database", c.name)
			}
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "Fix: ") {
				t.Errorf("error %q does not say %q and the fix", err, c.says)
			}
			if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
				t.Errorf("the refused start changed the database (%d bytes, then %d)", len(before), len(after))
			}
		})
	}
}
