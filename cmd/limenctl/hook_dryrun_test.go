package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallDryRun: hook install --dry-run prints the settings file
// as install would write it, byte for byte, for each runtime, and writes
// nothing (no settings file, no Codex trust record); once installed, it
// says install would change nothing, and with other flags it says so as
// install does.
func TestHookInstallDryRun(t *testing.T) {
	bin := fakeHookBin(t)
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	for _, rt := range []string{"claude-code", "codex", "gemini"} {
		t.Run(rt, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("CLAUDE_CONFIG_DIR", "")
			t.Setenv("CODEX_HOME", "")
			file := map[string]string{"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}[rt]
			path := filepath.Join(home, file)

			code, out := limenctl(t, "hook", "install", rt, "--hook-bin", bin, "--dry-run")
			head := "dry run: nothing was written; install would write " + path + " as:\n"
			if code != 0 || !strings.HasPrefix(out, head) {
				t.Fatalf("install --dry-run = %d:\n%s\nwant it to start %q", code, out, head)
			}
			if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
				t.Errorf("--dry-run wrote %v (%v) in HOME", entries, err)
			}
			if code, out := limenctl(t, "hook", "install", rt, "--hook-bin", bin); code != 0 {
				t.Fatalf("install = %d: %s", code, out)
			}
			written, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			shown, _, _ := strings.Cut(strings.TrimPrefix(out, head), "\nand would record")
			if strings.TrimRight(shown, "\n") != strings.TrimRight(string(written), "\n") {
				t.Errorf("--dry-run showed\n%s\ninstall wrote\n%s", shown, written)
			}
			if rt == "codex" && !strings.Contains(out, "and would record the entries as trusted in Codex's config.toml") {
				t.Errorf("codex --dry-run does not say it would trust the hook:\n%s", out)
			}
			if code, out := limenctl(t, "hook", "install", rt, "--hook-bin", bin, "--dry-run"); code != 0 || !strings.Contains(out, "dry run: limen's hook is already in "+path+"; install would change nothing") {
				t.Errorf("--dry-run after install = %d:\n%s", code, out)
			}
			other := map[bool]string{true: "wait", false: "prompt"}[rt == "claude-code"] // not the default
			if code, out := limenctl(t, "hook", "install", rt, "--hook-bin", bin, "--on-ask", other, "--dry-run"); code == 0 || !strings.Contains(out, "with other flags than these") {
				t.Errorf("--dry-run with other flags = %d:\n%s", code, out)
			}
		})
	}
}
