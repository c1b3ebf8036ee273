package main

import (
	"io"
	"os"
	"testing"

	"github.com/limenhq/limen/internal/version"
)

// TestVersion: limend --version prints its build in internal/version's
// words, as limenctl and limen-hook do, and starts nothing.
func TestVersion(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	code := run([]string{"--version"})
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if want := "limend " + version.Get().String() + "\n"; code != 0 || string(out) != want {
		t.Errorf("limend --version = %d, %q; want 0, %q", code, out, want)
	}
}
