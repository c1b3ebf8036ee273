package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTUIRefusesWhatItCannotDo: the TUI needs a terminal (go test gives it
// none) and has no JSON form; each is a usage error with a hint at the
// commands that do the job in a script.
func TestTUIRefusesWhatItCannotDo(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no terminal", []string{"tui", "--log", t.TempDir() + "/tui.log"}, "tui needs a terminal"},
		{"json", []string{"--json", "tui"}, "no --json output"},
		{"arguments", []string{"tui", "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := execute(tt.args, &out, &errOut)
			if code != exitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), exitUsage, tt.want)
			}
		})
	}
}

func TestTUIHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := execute([]string{"tui", "--help"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"limenctl tui --mouse", "NO_COLOR", "--log", "make a hard rule"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}
