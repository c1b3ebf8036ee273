package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/outcome"
	"github.com/limenhq/limen/internal/paths"
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

// TestDoctorGreenWithObservers: the entries install writes pass doctor,
// observers without onFailure included; a PreToolUse without it still
// fails.
func TestDoctorGreenWithObservers(t *testing.T) {
	s := newScratch(t)
	os.Remove(s.claude)
	if code, out := limenctl(t, "hook", "install", "claude-code", "--hook-bin", s.hookBin, "--http-socket", paths.HTTPSocketFor(s.l.Config.Socket)); code != 0 {
		t.Fatalf("install: exit %d: %s", code, out)
	}
	out, checks, code := s.doctor(t)
	if code != exitOK {
		t.Fatalf("doctor = %d on what install wrote:\n%s", code, out)
	}
	hooks := 0
	for _, c := range checks {
		if c.Check == "hook" && strings.Contains(c.Detail, "Claude Code") {
			hooks++
		}
	}
	if hooks != len(claudeHookEvents) {
		t.Errorf("%d Claude Code hooks checked; want %d:\n%s", hooks, len(claudeHookEvents), out)
	}
	doc, _ := os.ReadFile(s.claude)
	os.WriteFile(s.claude, []byte(strings.Replace(string(doc), `"onFailure": "block"`, `"onFailure": "ignore"`, 1)), 0o600)
	if out, _, code := s.doctor(t); code == exitOK || !strings.Contains(out, `(PreToolUse): "onFailure" is "ignore"`) {
		t.Errorf("doctor = %d with a PreToolUse that does not block on failure:\n%s", code, out)
	}
}

// TestHookInstallUpgradesOldEntry: a settings file with only the
// PreToolUse entry an older install wrote gets the observers added by
// install, and uninstall gives back the file as it was before either.
func TestHookInstallUpgradesOldEntry(t *testing.T) {
	bin := fakeHookBin(t)
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	orig := []byte("{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls *)\"]\n  }\n}\n")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, orig, 0o600)
	entry, _ := hookEntry(bin, "prompt", 0, "/run/limen.sock")
	old, _, err := installEntry(orig, "PreToolUse", entry)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, old, 0o600)
	// Other flags than the old entry's: refused, nothing added.
	if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin, "--http-socket", "/run/limen.sock", "--on-ask", "wait"); code == 0 || !strings.Contains(out, "other flags") {
		t.Errorf("install with other flags over the old entry: exit %d %s; want it refused", code, out)
	}
	if doc, _ := os.ReadFile(path); string(doc) != string(old) {
		t.Errorf("a refused install changed the file:\n%s", doc)
	}
	if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin, "--http-socket", "/run/limen.sock"); code != 0 || !strings.Contains(out, "installed") {
		t.Fatalf("install over the old entry: exit %d %s; want the observers added", code, out)
	}
	doc, _ := os.ReadFile(path)
	var v struct{ Hooks map[string][]claudeHookEntry }
	json.Unmarshal(doc, &v)
	if len(v.Hooks) != len(claudeHookEvents) || len(v.Hooks["PreToolUse"]) != 1 {
		t.Errorf("after the upgrade: %s", doc)
	}
	if code, out := limenctl(t, "hook", "uninstall", "claude-code", "--settings", path); code != 0 {
		t.Fatalf("uninstall: exit %d %s", code, out)
	}
	if after, _ := os.ReadFile(path); string(after) != string(orig) {
		t.Errorf("after uninstall:\n%s\nwant it as it was:\n%s", after, orig)
	}
}
