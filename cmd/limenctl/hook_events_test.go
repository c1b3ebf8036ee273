package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/limenhq/limen/internal/outcome"
)

// TestHookInstallObservers: install puts limen-hook on every event limend
// learns the dialog's answers from, and only PreToolUse, which decides,
// blocks the tool when the hook fails.
func TestHookInstallObservers(t *testing.T) {
	bin := fakeHookBin(t)
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin, "--http-socket", "/run/limen.sock"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, out)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Hooks map[string][]claudeHookEntry }
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"PreToolUse"}, outcome.Observed...)
	if len(v.Hooks) != len(want) {
		t.Errorf("install wrote events %v; want %v", v.Hooks, want)
	}
	for _, ev := range want {
		es := v.Hooks[ev]
		if len(es) != 1 || len(es[0].Hooks) != 1 {
			t.Errorf("%s: entries %+v; want limen's one", ev, es)
			continue
		}
		h := es[0].Hooks[0]
		wantFail := ""
		if ev == "PreToolUse" {
			wantFail = "block"
		}
		if h.OnFailure != wantFail || h.Command != v.Hooks["PreToolUse"][0].Hooks[0].Command {
			t.Errorf("%s: %+v; want the same command, onFailure %q", ev, h, wantFail)
		}
	}
}
