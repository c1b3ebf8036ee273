package main

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/version"
)

// TestStatusShowsBothVersions: status names limenctl's build and the
// running limend's, and --json carries both with whether they match.
func TestStatusShowsBothVersions(t *testing.T) {
	l := limentest.Start(t)
	mine := version.Get()
	out, errOut, code := runCtl("--socket", l.Config.Socket, "status")
	if code != exitOK {
		t.Fatalf("status = %d, %q", code, errOut)
	}
	for _, want := range []string{"limenctl version  " + mine.String(), "limend version    " + mine.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(errOut, "warning") {
		t.Errorf("same build, yet a warning: %q", errOut)
	}
	out, _, code = runCtl("--json", "--socket", l.Config.Socket, "status")
	var got struct {
		Limenctl *version.Info `json:"limenctl_version"`
		Limend   *version.Info `json:"limend_version"`
		Match    bool          `json:"versions_match"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK {
		t.Fatalf("status --json = %d, %v: %s", code, err, out)
	}
	if got.Limenctl == nil || got.Limend == nil || *got.Limenctl != mine || *got.Limend != mine || !got.Match {
		t.Errorf("status --json versions = %+v", got)
	}
}

// TestVersionWarning: a different module version, commit or dirtiness, or a
// limend that cannot say, warns with the fix; the same build does not.
func TestVersionWarning(t *testing.T) {
	mine := version.Info{Module: "v1.2.0", Commit: "abc", Go: "go1.26.8", Platform: "linux/amd64"}
	for _, tt := range []struct {
		name   string
		daemon *version.Info
		warn   bool
	}{
		{"same", &version.Info{Module: "v1.2.0", Commit: "abc", Go: "go1.26.8", Platform: "linux/amd64"}, false},
		{"other module version", &version.Info{Module: "v1.1.0", Commit: "abc"}, true},
		{"other commit", &version.Info{Module: "v1.2.0", Commit: "abd"}, true},
		{"dirty", &version.Info{Module: "v1.2.0", Commit: "abc", Dirty: true}, true},
		{"limend predates GetVersion", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := versionWarning(mine, tt.daemon)
			if (w != "") != tt.warn {
				t.Fatalf("versionWarning = %q; want a warning: %v", w, tt.warn)
			}
			if tt.warn && (!strings.Contains(w, "go install github.com/limenhq/limen/cmd/...") || !strings.Contains(w, mine.String())) {
				t.Errorf("warning %q lacks the builds or the fix", w)
			}
		})
	}
}

// TestStatusWhenLimendIsDown: no socket, or a socket file nothing listens
// on, is "limend is not running" with how to start it, exit 3.
func TestStatusWhenLimendIsDown(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	// A limend killed without cleaning up leaves its socket file behind.
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	for sock, why := range map[string]string{
		filepath.Join(dir, "none.sock"): "there is no socket at " + filepath.Join(dir, "none.sock"),
		stale:                           "nothing listens on " + stale,
	} {
		_, errOut, code := runCtl("--socket", sock, "status")
		if code != exitUnreachable || !strings.Contains(errOut, "limend is not running: "+why) || !strings.Contains(errOut, "hint: start it with `limend`") {
			t.Errorf("status on %s = %d, %q; want exit 3, %q and how to start limend", sock, code, errOut, why)
		}
	}
}

// TestVersionCommand: `limenctl version`, what people type first, prints
// what --version does.
func TestVersionCommand(t *testing.T) {
	sub, _, code := runCtl("version")
	flag, _, _ := runCtl("--version")
	if code != exitOK || sub != flag || !strings.HasPrefix(sub, "limenctl ") {
		t.Errorf("limenctl version = %d %q; --version printed %q", code, sub, flag)
	}
}
