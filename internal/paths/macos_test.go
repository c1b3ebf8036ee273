package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMacRuntimeDir(t *testing.T) {
	// The room left for the home directory: the longest socket path must
	// be at most 103 bytes, NUL excluded.
	suffix := len("/Library/Application Support/limen/" + httpSocketName)
	room := macSunPath - 1 - suffix
	for _, c := range []struct {
		name, home, want string
	}{
		{"usual home", "/Users/alice", "/Users/alice/Library/Application Support/limen"},
		{"longest home that fits", "/" + strings.Repeat("h", room-1), "/" + strings.Repeat("h", room-1) + "/Library/Application Support/limen"},
		{"one byte too long", "/" + strings.Repeat("h", room), "/tmp/limen-501"},
		{"very long home", "/Users/" + strings.Repeat("x", 200), "/tmp/limen-501"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := macRuntimeDir(c.home, 501)
			if got != c.want {
				t.Fatalf("macRuntimeDir(%q) = %q; want %q", c.home, got, c.want)
			}
			for _, name := range []string{socketName, httpSocketName} {
				if p := filepath.Join(got, name); len(p) >= macSunPath {
					t.Errorf("%s is %d bytes: does not fit macOS's %d-byte sun_path", p, len(p), macSunPath)
				}
			}
		})
	}
	if got := macDataDir("/Users/alice"); got != "/Users/alice/Library/Application Support/limen" {
		t.Errorf("macDataDir = %q", got)
	}
}

// The fallback directory sits in a shared sticky directory: limend's
// checks accept it when it is the user's, and refuse it when another user
// made it first (and so could replace the socket in it).
func TestMacRuntimeDirFallbackIsChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a directory another user's needs root")
	}
	tmp := t.TempDir() // stands in for /tmp
	if err := os.Chmod(tmp, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "limen-501")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, socketName)
	use := Use{What: "socket", Flag: "--socket"}
	if err := CheckPrivate(sock, use); err != nil {
		t.Fatalf("CheckPrivate of the user's own fallback: %v", err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := CheckPrivate(sock, use)
	if err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Fatalf("CheckPrivate of a fallback another user made = %v; want it refused, naming the owner", err)
	}
}
