package paths_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/paths"
)

// other is a uid that is nobody on this machine.
const other = 4242

func TestCheckPrivate(t *testing.T) {
	root := os.Geteuid() == 0
	mkdir := func(t *testing.T, p string, m os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	write := func(t *testing.T, p string, m os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	chown := func(t *testing.T, p string, uid, gid int) {
		t.Helper()
		if err := os.Lchown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		needRoot bool                                  // chown to another user
		setup    func(t *testing.T, dir string) string // returns the path to check
		readOnly bool
		want     []string // in the error; none: accepted
	}{
		{name: "own file in own directory", setup: func(t *testing.T, d string) string {
			p := filepath.Join(d, "limen.db")
			write(t, p, 0o600)
			return p
		}},
		{name: "nothing there yet", setup: func(t *testing.T, d string) string { return filepath.Join(d, "new", "deeper", "limen.db") }},
		{name: "file writable by everyone", setup: func(t *testing.T, d string) string {
			p := filepath.Join(d, "limen.db")
			write(t, p, 0o666)
			return p
		}, want: []string{"writable by every user", "mode 0666", "chmod go-w"}},
		{name: "directory writable by everyone", setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "shared"), 0o777)
			return filepath.Join(d, "shared", "limen.db")
		}, want: []string{"the directory", "shared on its way is writable by every user", "mode 0777", "chmod +t"}},
		{name: "directory writable by everyone, further up", setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "shared"), 0o777)
			mkdir(t, filepath.Join(d, "shared", "mine"), 0o700)
			return filepath.Join(d, "shared", "mine", "limen.db")
		}, want: []string{"shared on its way is writable by every user"}},
		{name: "own file in a sticky shared directory, like /tmp", setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "tmp"), 0o777|os.ModeSticky)
			p := filepath.Join(d, "tmp", "limen.db")
			write(t, p, 0o600)
			return p
		}},
		{name: "socket of ours, whatever its mode", setup: func(t *testing.T, d string) string {
			p := filepath.Join(d, "s.sock")
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			os.Chmod(p, 0o777)
			return p
		}},
		{name: "symlink of ours into a shared directory", setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "shared"), 0o777)
			write(t, filepath.Join(d, "shared", "real.db"), 0o600)
			p := filepath.Join(d, "limen.db")
			if err := os.Symlink(filepath.Join(d, "shared", "real.db"), p); err != nil {
				t.Fatal(err)
			}
			return p
		}, want: []string{"shared on its way is writable by every user"}},
		{name: "file planted by another user in a sticky directory", needRoot: true, setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "tmp"), 0o777|os.ModeSticky)
			p := filepath.Join(d, "tmp", "limen.db")
			write(t, p, 0o600)
			chown(t, p, other, other)
			return p
		}, want: []string{"owned by uid 4242", "not you", "chown 0", "--db"}},
		{name: "file of ours writable by another group", needRoot: true, setup: func(t *testing.T, d string) string {
			p := filepath.Join(d, "limen.db")
			write(t, p, 0o660)
			chown(t, p, 0, other)
			return p
		}, want: []string{"writable by the group", "gid 4242", "mode 0660"}},
		{name: "directory on the way owned by another user", needRoot: true, setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "bob", "limen"), 0o755)
			chown(t, filepath.Join(d, "bob"), other, other)
			return filepath.Join(d, "bob", "limen", "limen.db")
		}, want: []string{"bob on its way is owned by uid 4242", "who can replace anything in it"}},
		{name: "symlink planted by another user", needRoot: true, setup: func(t *testing.T, d string) string {
			mkdir(t, filepath.Join(d, "tmp"), 0o777|os.ModeSticky)
			write(t, filepath.Join(d, "mine.db"), 0o600)
			p := filepath.Join(d, "tmp", "limen.db")
			if err := os.Symlink(filepath.Join(d, "mine.db"), p); err != nil {
				t.Fatal(err)
			}
			chown(t, p, other, other)
			return p
		}, want: []string{"a symlink owned by uid 4242"}},
		{name: "read-only file owned by root", readOnly: true, setup: func(t *testing.T, d string) string {
			p := filepath.Join(d, "ca.pem")
			write(t, p, 0o644)
			if root {
				return p
			}
			return "/etc/passwd"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needRoot && !root {
				t.Skip("needs root to give a file to another user")
			}
			p := c.setup(t, t.TempDir())
			err := paths.CheckPrivate(p, paths.Use{What: "database", Flag: "--db", ReadOnly: c.readOnly})
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("CheckPrivate(%s) = %v; want it accepted", p, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckPrivate(%s) accepted it; want a refusal saying %q", p, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "limend refuses its database ") {
				t.Errorf("error %q does not start by naming what is refused", err)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	if got := paths.Describe(0); got != "uid 0 (root)" {
		t.Errorf("Describe(0) = %q; want the name from /etc/passwd", got)
	}
	if got := paths.Describe(4242); got != "uid 4242" {
		t.Errorf("Describe(4242) = %q; want the bare uid of a user with no name", got)
	}
}
