package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	cases := []struct {
		in   Info
		want string
	}{
		{Info{Module: "v1.2.3", Go: "go1.26.8", Platform: "linux/amd64"}, "v1.2.3 go1.26.8 linux/amd64"},
		{Info{Module: "(devel)", Commit: "0123456789abcdef", Dirty: true, Go: "go1.26.8", Platform: "darwin/arm64"},
			"(devel) (commit 0123456789ab, dirty) go1.26.8 darwin/arm64"},
	}
	for _, c := range cases {
		if got := c.in.String(); got != c.want {
			t.Errorf("String() = %q; want %q", got, c.want)
		}
	}
}

func TestSame(t *testing.T) {
	a := Info{Module: "v1.0.0", Commit: "abc"}
	for _, c := range []struct {
		b    Info
		want bool
	}{
		{Info{Module: "v1.0.0", Commit: "abc"}, true},
		{Info{Module: "v1.0.0"}, true},
		{Info{Module: "v1.0.1", Commit: "abc"}, false},
		{Info{Module: "v1.0.0", Commit: "abd"}, false},
		{Info{Module: "v1.0.0", Commit: "abc", Dirty: true}, false},
	} {
		if got := Same(a, c.b); got != c.want {
			t.Errorf("Same(%v, %v) = %v; want %v", a, c.b, got, c.want)
		}
	}
}

// TestBuiltBinary builds limenctl from this work tree and checks that
// --version names the commit the tree is at.
func TestBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limenctl")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git work tree: %v", err)
	}
	gitDir, _ := exec.Command("git", "rev-parse", "--git-dir").Output()
	common, _ := exec.Command("git", "rev-parse", "--git-common-dir").Output()
	if string(gitDir) != string(common) {
		t.Skip("in a linked git worktree, where go build stamps no VCS information")
	}
	bin := filepath.Join(t.TempDir(), "limenctl")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "github.com/limenhq/limen/cmd/limenctl")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("limenctl --version: %v", err)
	}
	if want := "commit " + strings.TrimSpace(string(rev))[:12]; !strings.Contains(string(out), want) {
		t.Errorf("limenctl --version = %q; want it to name %q", out, want)
	}
}
