package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseScript runs scripts/release.sh for this machine's platform on
// a tagged clone of the committed tree: the archive holds the three
// binaries with README and LICENSE, SHA256SUMS matches it, and the limend
// in it reports the tag's version and the commit.
func TestReleaseScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binaries; skipped with -short")
	}
	for _, tool := range []string{"git", "tar", "gzip", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("release.sh needs %s: %v", tool, err)
		}
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	git(".", "clone", "--quiet", "--shared", strings.TrimSpace(string(top)), repo)
	commit := git(repo, "rev-parse", "HEAD")
	git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "test", "v0.9.9")

	platform := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", filepath.Join(repo, "scripts", "release.sh"), "-o", filepath.Join(dir, "dist"), "v0.9.9")
	cmd.Env = append(os.Environ(), "PLATFORMS="+platform)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	name := "limen_0.9.9_" + runtime.GOOS + "_" + runtime.GOARCH
	archive := filepath.Join(dir, "dist", name+".tar.gz")
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	sums, _ := os.ReadFile(filepath.Join(dir, "dist", "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; string(sums) != want {
		t.Errorf("SHA256SUMS = %q; want %q", sums, want)
	}

	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	gz, err := gzip.NewReader(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var files []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		files = append(files, h.Name)
		f, err := os.OpenFile(filepath.Join(bin, filepath.Base(h.Name)), os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(f, tr)
		f.Close()
	}
	want := []string{name + "/LICENSE", name + "/README.md", name + "/limen-hook", name + "/limenctl", name + "/limend"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("archive holds %q; want %q", files, want)
	}
	out, err := exec.Command(filepath.Join(bin, "limend"), "--version").Output()
	if got, wantV := string(out), "limend v0.9.9 (commit "+commit[:12]+")"; err != nil || !strings.HasPrefix(got, wantV) {
		t.Errorf("released limend --version = %q, %v; want %q…", got, err, wantV)
	}
}
