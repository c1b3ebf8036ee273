package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeHookBin is an executable named limen-hook for install to point at.
func fakeHookBin(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin dir", "limen-hook")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func limenctl(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(args, &out, &errOut)
	return code, out.String() + errOut.String()
}

// withoutLimen decodes a settings document and drops limen's entry (and
// containers left empty), to compare what else is in it.
func withoutLimen(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("settings are not JSON: %v\n%s", err, doc)
	}
	hooks, _ := v["hooks"].(map[string]any)
	for _, ev := range claudeHookEvents {
		pre, _ := hooks[ev.event].([]any)
		var kept []any
		for _, e := range pre {
			if !strings.Contains(mustJSON(t, e), hookMarker) {
				kept = append(kept, e)
			}
		}
		// Empty containers count as absent on both sides: install may have
		// created them, or found them empty.
		if hooks != nil {
			if len(kept) == 0 {
				delete(hooks, ev.event)
			} else {
				hooks[ev.event] = kept
			}
		}
	}
	if hooks != nil && len(hooks) == 0 {
		delete(v, "hooks")
	}
	return v
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHookInstallUninstall installs into real-shaped settings files and
// checks the entry, that nothing else changed, that installing twice adds
// nothing, and that uninstall gives back the file byte for byte.
func TestHookInstallUninstall(t *testing.T) {
	files, err := filepath.Glob("testdata/hook/settings-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	files = append(files, "missing")
	bin := fakeHookBin(t)
	// install writes the socket down, so the hook finds limend even when
	// the runtime's environment lacks XDG_RUNTIME_DIR.
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	for _, src := range files {
		t.Run(filepath.Base(src), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude", "settings.json")
			var orig []byte
			if src != "missing" {
				var err error
				if orig, err = os.ReadFile(src); err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, orig, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin); code != 0 {
				t.Fatalf("install: exit %d: %s", code, out)
			}
			installed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				Hooks struct {
					PreToolUse []claudeHookEntry
				}
			}
			if err := json.Unmarshal(installed, &v); err != nil {
				t.Fatalf("installed settings are not JSON: %v\n%s", err, installed)
			}
			pre := v.Hooks.PreToolUse
			if len(pre) == 0 {
				t.Fatalf("no PreToolUse entry after install:\n%s", installed)
			}
			got := pre[len(pre)-1]
			want := claudeHookEntry{Matcher: "*", Hooks: []claudeHookConfig{{
				Type: "command", Command: "'" + bin + "' --format claude-code --on-ask prompt --timeout 5s --socket /run/user/1000/limen/limend-http.sock", Timeout: 10, OnFailure: "block",
			}}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("entry = %+v; want %+v", got, want)
			}
			if orig != nil {
				if a, b := withoutLimen(t, installed), withoutLimen(t, orig); !reflect.DeepEqual(a, b) {
					t.Errorf("install changed more than its entry:\n%s\nwas\n%s", installed, orig)
				}
				if bytes.Contains(orig, []byte("\r\n")) && bytes.Count(installed, []byte("\n")) != bytes.Count(installed, []byte("\r\n")) {
					t.Errorf("install mixed line endings into a CRLF file:\n%q", installed)
				}
			}
			if fi, err := os.Stat(path); err == nil && src != "missing" && fi.Mode().Perm() != 0o600 {
				t.Errorf("install changed the file mode to %v", fi.Mode().Perm())
			}

			if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin); code != 0 || !strings.Contains(out, "already") {
				t.Fatalf("second install: exit %d %q; want 0 saying it is already there", code, out)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, installed) {
				t.Errorf("second install changed the file")
			}

			if code, out := limenctl(t, "hook", "uninstall", "claude-code", "--settings", path); code != 0 {
				t.Fatalf("uninstall: exit %d: %s", code, out)
			}
			after, err := os.ReadFile(path)
			switch {
			case orig == nil:
				// install created the file, so uninstall removes it.
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after install and uninstall the file install created is still there: %q, %v", after, err)
				}
			case err != nil:
				t.Fatal(err)
			case !bytes.Equal(after, orig):
				t.Errorf("after install and uninstall the file is\n%q\nwant it byte for byte as it was\n%q", after, orig)
			}
			if code, out := limenctl(t, "hook", "uninstall", "claude-code", "--settings", path); code != 0 || !strings.Contains(out, "not in") {
				t.Errorf("second uninstall: exit %d %q; want 0 saying there is nothing to remove", code, out)
			}
		})
	}
}

// TestHookInstallKeepsOtherEntries: uninstall leaves a person's own
// PreToolUse hooks added after limen's.
func TestHookInstallKeepsOtherEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	orig, err := os.ReadFile("testdata/hook/settings-hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, orig, 0o644)
	bin := fakeHookBin(t)
	if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin, "--on-ask", "wait", "--wait", "30s"); code != 0 {
		t.Fatalf("install: %d %s", code, out)
	}
	doc, _ := os.ReadFile(path)
	if !bytes.Contains(doc, []byte(`--on-ask wait --timeout 30s`)) || !bytes.Contains(doc, []byte(`"timeout": 35`)) {
		t.Fatalf("wait install:\n%s\nwant --on-ask wait --timeout 30s and a hook timeout of 35", doc)
	}
	// A person adds a hook after limen's.
	doc = bytes.Replace(doc, []byte(`"onFailure": "block"
                    }
                ]
            }`), []byte(`"onFailure": "block"
                    }
                ]
            },
            {"matcher": "Write", "hooks": [{"type": "command", "command": "./mine.sh"}]}`), 1)
	os.WriteFile(path, doc, 0o644)
	if code, out := limenctl(t, "hook", "uninstall", "claude-code", "--settings", path); code != 0 {
		t.Fatalf("uninstall: %d %s", code, out)
	}
	after, _ := os.ReadFile(path)
	if bytes.Contains(after, []byte(hookMarker)) || !bytes.Contains(after, []byte("./mine.sh")) || !bytes.Contains(after, []byte("./scripts/check-bash.sh")) {
		t.Fatalf("after uninstall:\n%s\nwant limen's entry gone and both other PreToolUse hooks kept", after)
	}
	if withoutLimen(t, after) == nil {
		t.Fatal("not JSON")
	}
}

func TestHookInstallRefuses(t *testing.T) {
	bin := fakeHookBin(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"permissions": {"allow": [}`), 0o644)
	array := filepath.Join(dir, "array.json")
	os.WriteFile(array, []byte(`[]`), 0o644)
	badHooks := filepath.Join(dir, "hooks.json")
	os.WriteFile(badHooks, []byte(`{"hooks": []}`), 0o644)
	badEntry := filepath.Join(dir, "entry.json")
	os.WriteFile(badEntry, []byte(`{"hooks": {"PreToolUse": [0]}}`), 0o644)
	// Claude Code discards a settings file with comments or trailing
	// commas: a hook installed there would never run.
	commented := filepath.Join(dir, "commented.json")
	os.WriteFile(commented, []byte("{\n  // my settings\n  \"model\": \"opus\"\n}\n"), 0o644)
	trailing := filepath.Join(dir, "trailing.json")
	os.WriteFile(trailing, []byte(`{"permissions": {"allow": ["Read",]}}`), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
		file string
	}{
		{"broken JSON", []string{"--settings", broken, "--hook-bin", bin}, exitFailure, "not valid JSON", broken},
		{"not an object", []string{"--settings", array, "--hook-bin", bin}, exitFailure, "not a JSON object", array},
		{"hooks not an object", []string{"--settings", badHooks, "--hook-bin", bin}, exitFailure, `"hooks" is not an object`, badHooks},
		{"an entry not an object", []string{"--settings", badEntry, "--hook-bin", bin}, exitFailure, `"hooks.PreToolUse"[0] is not a hook entry`, badEntry},
		{"a comment", []string{"--settings", commented, "--hook-bin", bin}, exitFailure, "comments or trailing commas", commented},
		{"a trailing comma", []string{"--settings", trailing, "--hook-bin", bin}, exitFailure, "comments or trailing commas", trailing},
		{"bad on-ask", []string{"--settings", array, "--hook-bin", bin, "--on-ask", "later"}, exitUsage, "--on-ask", array},
		{"no hook binary", []string{"--settings", array, "--hook-bin", filepath.Join(dir, "nope")}, exitUsage, "not an executable", array},
		{"two scopes", []string{"--user", "--project", "--hook-bin", bin}, exitUsage, "none of the others", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before []byte
			if tt.file != "" {
				before, _ = os.ReadFile(tt.file)
			}
			code, out := limenctl(t, append([]string{"hook", "install", "claude-code"}, tt.args...)...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d %q; want %d mentioning %q", code, out, tt.code, tt.want)
			}
			if tt.file != "" {
				if after, _ := os.ReadFile(tt.file); !bytes.Equal(after, before) {
					t.Errorf("a refused install changed %s", tt.file)
				}
			}
		})
	}
	sockPath := filepath.Join(dir, "sock.json")
	if code, out := limenctl(t, "--socket", "/tmp/x/limend.sock", "hook", "install", "claude-code", "--settings", sockPath, "--hook-bin", bin); code != 0 {
		t.Fatalf("install with --socket: %d %s", code, out)
	}
	if doc, _ := os.ReadFile(sockPath); !bytes.Contains(doc, []byte("--socket /tmp/x/limend-http.sock")) {
		t.Errorf("install with limenctl --socket /tmp/x/limend.sock wrote\n%s\nwant the hook pointed at the HTTP socket beside it", doc)
	}
	if code, out := limenctl(t, "hook", "install", "cursor", "--hook-bin", bin); code != exitUsage || !strings.Contains(out, "use claude-code, codex or gemini") {
		t.Errorf("install cursor: %d %q; want a usage error naming the runtimes", code, out)
	}
}

// TestHookUninstallCreatedFile: a settings file that install created goes
// away on uninstall, unless something else was put in it since.
func TestHookUninstallCreatedFile(t *testing.T) {
	bin := fakeHookBin(t)
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	install := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), ".claude", "settings.json")
		if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin); code != 0 {
			t.Fatalf("install: exit %d: %s", code, out)
		}
		return path
	}
	uninstall := func(t *testing.T, path string) string {
		code, out := limenctl(t, "hook", "uninstall", "claude-code", "--settings", path)
		if code != 0 {
			t.Fatalf("uninstall: exit %d: %s", code, out)
		}
		return out
	}

	t.Run("untouched", func(t *testing.T) {
		path := install(t)
		if out := uninstall(t, path); !strings.Contains(out, "held nothing but limen's hook") {
			t.Errorf("uninstall said %q; want it to say it removed the file", out)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("settings file install created is still there (%v)", err)
		}
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			t.Errorf("its directory is gone too: %v", err)
		}
	})
	t.Run("a setting added since", func(t *testing.T) {
		path := install(t)
		doc, _ := os.ReadFile(path)
		doc = bytes.Replace(doc, []byte("{\n"), []byte("{\n  \"model\": \"opus\",\n"), 1)
		os.WriteFile(path, doc, 0o644)
		uninstall(t, path)
		if after, err := os.ReadFile(path); err != nil || string(after) != "{\n  \"model\": \"opus\"\n}\n" {
			t.Errorf("after uninstall: %q, %v; want the person's setting kept", after, err)
		}
	})
	t.Run("limen's entry edited since", func(t *testing.T) {
		// Still nothing but limen's hook in the file: it goes.
		path := install(t)
		doc, _ := os.ReadFile(path)
		os.WriteFile(path, bytes.Replace(doc, []byte(`"timeout": 10`), []byte(`"timeout": 30`), 1), 0o644)
		uninstall(t, path)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("settings file install created is still there (%v)", err)
		}
	})
	t.Run("rewritten since", func(t *testing.T) {
		// Laid out by someone else: perhaps not install's file at all.
		path := install(t)
		doc, _ := os.ReadFile(path)
		os.WriteFile(path, bytes.ReplaceAll(doc, []byte("  "), []byte("\t")), 0o644)
		uninstall(t, path)
		if after, err := os.ReadFile(path); err != nil || bytes.Contains(after, []byte("limen-hook")) || !json.Valid(after) {
			t.Errorf("after uninstall: %q, %v; want the file kept, without limen's entry", after, err)
		}
	})
	t.Run("json", func(t *testing.T) {
		path := install(t)
		code, out := limenctl(t, "--json", "hook", "uninstall", "claude-code", "--settings", path)
		if code != 0 || !strings.Contains(out, `"removed": true`) {
			t.Errorf("--json uninstall: exit %d %s; want removed true", code, out)
		}
	})
}

// --project writes this machine's paths into a file that is usually
// committed: install says so, and a second install's hint keeps the scope.
func TestHookInstallProjectScope(t *testing.T) {
	bin := fakeHookBin(t)
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	t.Chdir(t.TempDir())
	code, out := limenctl(t, "hook", "install", "claude-code", "--project", "--hook-bin", bin)
	if code != 0 || !strings.Contains(out, "--local keeps it to you") {
		t.Errorf("install --project: exit %d %q; want a note about the shared file", code, out)
	}
	code, out = limenctl(t, "hook", "install", "claude-code", "--project", "--hook-bin", bin, "--on-ask", "wait")
	if code == 0 || !strings.Contains(out, "limenctl hook uninstall claude-code --project, then install again") {
		t.Errorf("second install with other flags: exit %d %q; want a refusal whose hint names --project", code, out)
	}
	if _, out := limenctl(t, "hook", "install", "claude-code", "--local", "--hook-bin", bin); strings.Contains(out, "committed") {
		t.Errorf("install --local printed %q; the note about committed paths is for the shared file only", out)
	}
}

// TestHookReinstallWithOtherFlags: installing again with other flags
// changes nothing, so it says so and fails, leaving the file as it was;
// installing again with the same flags is a quiet success.
func TestHookReinstallWithOtherFlags(t *testing.T) {
	bin := fakeHookBin(t)
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin)
	if code != 0 || !strings.Contains(out, "learns the answers given in Claude Code's own prompt") {
		t.Fatalf("install: exit %d, %s; want it to say that prompt answers teach limen", code, out)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code, out := limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("same flags again: exit %d, %s; want success, nothing changed", code, out)
	}
	code, out = limenctl(t, "hook", "install", "claude-code", "--settings", path, "--hook-bin", bin, "--on-ask", "wait")
	if code == 0 || !strings.Contains(out, "other flags") || !strings.Contains(out, "uninstall") {
		t.Errorf("other flags: exit %d, %s; want a failure that says how to change them", code, out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the settings changed on a refused re-install")
	}
}
