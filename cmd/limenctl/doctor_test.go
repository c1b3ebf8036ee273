package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/version"
)

// scratch is a HOME and a project directory with limen installed in every
// runtime the way the docs say, against a real limend.
type scratch struct {
	l             *limentest.Limend
	home, project string
	hookBin       string
	claude        string // ~/.claude/settings.json
	codexHooks    string // ~/.codex/hooks.json
	codexConfig   string // ~/.codex/config.toml
	gemini        string // ~/.gemini/settings.json
}

func newScratch(t *testing.T) *scratch {
	l := limentest.Start(t)
	s := &scratch{l: l, home: t.TempDir(), project: t.TempDir()}
	t.Setenv("HOME", s.home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("LIMEN_DB", "")
	t.Chdir(s.project)
	// A limen-hook that answers --version as this build does.
	s.hookBin = filepath.Join(s.home, "bin", "limen-hook")
	writeFile(t, s.hookBin, "#!/bin/sh\n[ \"$1\" = --version ] && printf '%s\\n' 'limen-hook "+version.Get().String()+"'\n", 0o755)
	// The runtimes, at versions no older than docs/integrations.md's, and
	// no other claude, codex or gemini than these.
	t.Setenv("PATH", filepath.Dir(s.hookBin)+":/usr/bin:/bin")
	for bin, out := range map[string]string{"claude": "2.1.330 (Claude Code)", "codex": "codex-cli 0.171.0", "gemini": "0.61.0"} {
		writeFile(t, filepath.Join(filepath.Dir(s.hookBin), bin), "#!/bin/sh\necho '"+out+"'\n", 0o755)
	}
	httpSock := paths.HTTPSocketFor(l.Config.Socket)

	entry, _ := hookEntry(s.hookBin, "prompt", 0, httpSock)
	s.claude = filepath.Join(s.home, ".claude", "settings.json")
	writeJSON(t, s.claude, map[string]any{"hooks": map[string]any{"PreToolUse": []any{entry}}})

	codexCmd := s.hookBin + " --format codex --timeout 5s --socket " + httpSock
	s.codexHooks = filepath.Join(s.home, ".codex", "hooks.json")
	writeJSON(t, s.codexHooks, map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": codexCmd, "timeout": 10}}}}}})
	s.codexConfig = filepath.Join(s.home, ".codex", "config.toml")
	star := "*"
	hash := codexHookHash(hookSite{event: "PreToolUse", matcher: &star, command: codexCmd, handler: map[string]any{"timeout": float64(10)}})
	writeFile(t, s.codexConfig, fmt.Sprintf("model = \"o3\"\n\n[hooks.state.%q]\ntrusted_hash = %q\n", s.codexHooks+":pre_tool_use:0:0", hash), 0o600)

	s.gemini = filepath.Join(s.home, ".gemini", "settings.json")
	writeJSON(t, s.gemini, map[string]any{"hooks": map[string]any{"BeforeTool": []any{
		map[string]any{"matcher": ".*", "hooks": []any{map[string]any{"type": "command",
			"command": s.hookBin + " --format gemini --on-ask wait --timeout 50s --socket " + httpSock, "timeout": 60000}}}}}})
	return s
}

func (s *scratch) doctor(t *testing.T) (string, []finding, int) {
	t.Helper()
	out, errOut, code := runCtl("--socket", s.l.Config.Socket, "doctor", "--db", s.l.Config.DB)
	jsonOut, _, jsonCode := runCtl("--json", "--socket", s.l.Config.Socket, "doctor", "--db", s.l.Config.DB)
	var got struct {
		OK     bool      `json:"ok"`
		Checks []finding `json:"checks"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &got); err != nil {
		t.Fatalf("doctor --json is not JSON (%v): %s", err, jsonOut)
	}
	if jsonCode != code || got.OK != (code == exitOK) {
		t.Errorf("doctor exits %d, --json %d with ok %v", code, jsonCode, got.OK)
	}
	return out + errOut, got.Checks, code
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b), 0o600)
}

// TestDoctorGreen: limen installed as the docs say is green, and every
// runtime's hook is checked.
func TestDoctorGreen(t *testing.T) {
	s := newScratch(t)
	out, checks, code := s.doctor(t)
	if code != exitOK {
		t.Fatalf("doctor = %d on a good setup:\n%s", code, out)
	}
	hooks := 0
	for _, c := range checks {
		if c.Level != levelOK {
			t.Errorf("not ok: %+v", c)
		}
		if c.Check == "hook" {
			hooks++
		}
	}
	for _, want := range []string{"ok    runtime   Claude Code 2.1.330, at least the 2.1.328 limen was verified with", "ok    runtime   Codex 0.171.0, at least the 0.171.0 limen was verified with", "ok    runtime   Gemini CLI 0.61.0, at least"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	if hooks != 3 {
		t.Errorf("%d hooks checked; want Claude Code's, Codex's and Gemini CLI's:\n%s", hooks, out)
	}
	// An http hook as docs/integrations.md writes it is green too.
	writeJSON(t, filepath.Join(s.project, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "http", "url": "http://127.0.0.1:7412/v1/hooks/claude-code", "timeout": 10, "onFailure": "block"}}}}}})
	if out, _, code := s.doctor(t); code != exitOK || !strings.Contains(out, "posts to http://127.0.0.1:7412/v1/hooks/claude-code") {
		t.Errorf("doctor with an http hook = %d:\n%s", code, out)
	}
	for _, want := range []string{"ok    limend    running at " + s.l.Config.Socket, "ok    socket    " + s.l.Config.Socket + " is yours, mode 0600", "ok    database  " + s.l.Config.DB + " is yours"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// TestDoctorRed: each broken piece is a red line naming it, with its fix,
// and doctor exits 1.
func TestDoctorRed(t *testing.T) {
	tests := []struct {
		name  string
		brk   func(t *testing.T, s *scratch)
		wants func(s *scratch) []string // in the red line and its fix
	}{
		{"hook binary missing", func(t *testing.T, s *scratch) { os.Remove(s.hookBin) },
			func(s *scratch) []string {
				return []string{"Claude Code hook in ", s.hookBin + " does not exist", "fix: go install github.com/limenhq/limen/cmd/limen-hook@latest, then limenctl hook uninstall claude-code && limenctl hook install claude-code"}
			}},
		{"hook binary does not run", func(t *testing.T, s *scratch) { writeFile(t, s.hookBin, "#!/bin/sh\nexit 3\n", 0o755) },
			func(s *scratch) []string {
				return []string{"--version does not run as limen-hook: exit status 3", "fix: go install github.com/limenhq/limen/cmd/limen-hook@latest"}
			}},
		{"project brings its own limen-hook", func(t *testing.T, s *scratch) {
			bin := filepath.Join(s.project, "tools", "limen-hook")
			writeFile(t, bin, "#!/bin/sh\ntouch "+filepath.Join(s.project, "ran")+"\n", 0o755)
			entry, _ := hookEntry(bin, "prompt", 0, "")
			writeJSON(t, filepath.Join(s.project, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{entry}}})
		}, func(s *scratch) []string {
			return []string{"is inside this project, and doctor does not run what a project brings", "fix: limenctl hook uninstall claude-code --project && limenctl hook install claude-code --project"}
		}},
		{"hook command is a wrapper", func(t *testing.T, s *scratch) {
			writeJSON(t, s.gemini, map[string]any{"hooks": map[string]any{"BeforeTool": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "sh -c 'rm -rf ~; limen-hook --format gemini'"}}}}}})
		}, func(s *scratch) []string {
			return []string{"its command does not start with limen-hook: doctor did not run it"}
		}},
		{"http hook without onFailure", func(t *testing.T, s *scratch) {
			writeJSON(t, filepath.Join(s.project, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "http", "url": "http://127.0.0.1:7412/v1/hooks/claude-code", "timeout": 10}}}}}})
		}, func(s *scratch) []string {
			return []string{"Claude Code hook in " + filepath.Join(s.project, ".claude", "settings.json"), `"onFailure" is "", not "block"`}
		}},
		{"http hook waits past the runtime's timeout", func(t *testing.T, s *scratch) {
			writeJSON(t, filepath.Join(s.project, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "http", "url": "http://127.0.0.1:7412/v1/hooks/claude-code?wait=50s", "timeout": 10, "onFailure": "block"}}}}}})
		}, func(s *scratch) []string {
			return []string{"Claude Code waits 10s", "not longer than the URL's ?wait= 50s", `fix: edit ` + filepath.Join(s.project, ".claude", "settings.json") + `: set "timeout": 55`}
		}},
		{"onFailure missing", func(t *testing.T, s *scratch) {
			entry, _ := hookEntry(s.hookBin, "prompt", 0, "")
			entry.Hooks[0].OnFailure = ""
			writeJSON(t, s.claude, map[string]any{"hooks": map[string]any{"PreToolUse": []any{entry}}})
		}, func(s *scratch) []string {
			return []string{`"onFailure" is "", not "block"`, "ignores it and runs the tool", "fix: limenctl hook uninstall claude-code && limenctl hook install claude-code"}
		}},
		{"timeout too short", func(t *testing.T, s *scratch) {
			entry, _ := hookEntry(s.hookBin, "wait", 50*time.Second, "")
			entry.Hooks[0].Timeout = 30
			writeJSON(t, filepath.Join(s.project, ".claude", "settings.local.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{entry}}})
		}, func(s *scratch) []string {
			return []string{"Claude Code waits 30s", "not longer than limen-hook's --timeout 50s", "fix: limenctl hook uninstall claude-code --local && limenctl hook install claude-code --local"}
		}},
		{"gemini timeout in seconds", func(t *testing.T, s *scratch) {
			writeJSON(t, s.gemini, map[string]any{"hooks": map[string]any{"BeforeTool": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": s.hookBin + " --format gemini", "timeout": 10}}}}}})
		}, func(s *scratch) []string {
			return []string{"Gemini CLI waits 10ms", `fix: limenctl hook uninstall gemini && limenctl hook install gemini`}
		}},
		{"wrong format", func(t *testing.T, s *scratch) {
			writeJSON(t, s.gemini, map[string]any{"hooks": map[string]any{"BeforeTool": []any{
				map[string]any{"hooks": []any{map[string]any{"type": "command", "command": s.hookBin + " --timeout 5s"}}}}}})
		}, func(s *scratch) []string {
			return []string{"--format claude-code, but Gemini CLI reads --format gemini answers", "fix: limenctl hook uninstall gemini && limenctl hook install gemini"}
		}},
		{"codex hook changed since trusted", func(t *testing.T, s *scratch) {
			doc, _ := os.ReadFile(s.codexHooks)
			writeFile(t, s.codexHooks, strings.Replace(string(doc), "--timeout 5s", "--timeout 6s", 1), 0o600)
		}, func(s *scratch) []string {
			return []string{"Codex trusted another version of it", "fix: start codex and trust limen's hook when it asks (or in /hooks)", "; or limenctl hook uninstall codex && limenctl hook install codex, which records it"}
		}},
		{"codex hook never trusted", func(t *testing.T, s *scratch) { writeFile(t, s.codexConfig, "model = \"o3\"\n", 0o600) },
			func(s *scratch) []string {
				return []string{"Codex has not trusted it", ":pre_tool_use:0:0", "fix: start codex and trust"}
			}},
		{"codex on PermissionRequest only", func(t *testing.T, s *scratch) {
			doc, _ := os.ReadFile(s.codexHooks)
			writeFile(t, s.codexHooks, strings.Replace(string(doc), `"PreToolUse"`, `"PermissionRequest"`, 1), 0o600)
			recs, err := codexTrustRecords(s.codexHooks) // trusted as it is now: only the missing event is red
			if err != nil || len(recs) != 1 {
				t.Fatalf("trust records %v, %v", recs, err)
			}
			writeFile(t, s.codexConfig, recs[0].text(), 0o600)
		}, func(s *scratch) []string {
			return []string{"Codex runs limen-hook on PermissionRequest only, and on no PreToolUse", "fix: limenctl hook install codex (it adds both)"}
		}},
		{"codex project not trusted", func(t *testing.T, s *scratch) {
			doc, _ := os.ReadFile(s.codexHooks)
			os.Remove(s.codexHooks)
			proj := filepath.Join(s.project, ".codex", "hooks.json")
			writeFile(t, proj, string(doc), 0o600)
			recs, err := codexTrustRecords(proj) // the hook itself is trusted: only the project is red
			if err != nil || len(recs) != 1 {
				t.Fatalf("trust records %v, %v", recs, err)
			}
			writeFile(t, s.codexConfig, recs[0].text(), 0o600)
		}, func(s *scratch) []string {
			return []string{"Codex reads this project's hooks only once it trusts the project", "fix: start codex in " + s.project}
		}},
		{"gemini hooks off", func(t *testing.T, s *scratch) {
			doc, _ := os.ReadFile(s.gemini)
			writeFile(t, s.gemini, strings.Replace(string(doc), `{`, `{"hooksConfig": {"enabled": false}, `, 1), 0o600)
		}, func(s *scratch) []string {
			return []string{`set "hooksConfig": {"enabled": false}: Gemini CLI runs no hook`, `remove "enabled": false`}
		}},
		{"gemini hook disabled", func(t *testing.T, s *scratch) {
			var v map[string]any
			doc, _ := os.ReadFile(s.gemini)
			json.Unmarshal(doc, &v)
			cmd := v["hooks"].(map[string]any)["BeforeTool"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"]
			v["hooksConfig"] = map[string]any{"disabled": []any{cmd}}
			writeJSON(t, s.gemini, v)
		}, func(s *scratch) []string {
			return []string{"its command is in hooksConfig.disabled", "Gemini CLI does not run it"}
		}},
		{"socket mode 0666", func(t *testing.T, s *scratch) {
			if err := os.Chmod(s.l.Config.Socket, 0o666); err != nil {
				t.Fatal(err)
			}
		}, func(s *scratch) []string {
			return []string{s.l.Config.Socket + " has mode 0666: other users can open it", "fix: chmod 600 " + s.l.Config.Socket}
		}},
		{"socket directory 0755", func(t *testing.T, s *scratch) {
			if err := os.Chmod(filepath.Dir(s.l.Config.Socket), 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(s *scratch) []string {
			return []string{filepath.Dir(s.l.Config.Socket) + " has mode 0755", "fix: chmod 700 " + filepath.Dir(s.l.Config.Socket)}
		}},
		{"database readable by others", func(t *testing.T, s *scratch) {
			if err := os.Chmod(s.l.Config.DB, 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(s *scratch) []string {
			return []string{s.l.Config.DB + " has mode 0644", "fix: chmod 600 " + s.l.Config.DB}
		}},
		{"settings not JSON", func(t *testing.T, s *scratch) { writeFile(t, s.claude, "{\"hooks\": ", 0o600) },
			func(s *scratch) []string {
				return []string{"Claude Code settings: read " + filepath.Join("HOME", ".claude", "settings.json"), "fix: fix the syntax of"}
			}},
		{"limend down", func(t *testing.T, s *scratch) {
			if err := s.l.Stop(t.Context()); err != nil {
				t.Fatal(err)
			}
		}, func(s *scratch) []string {
			return []string{"FAIL  limend    limend is not running: there is no socket at ", "fix: start it with `limend`"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScratch(t)
			tt.brk(t, s)
			out, checks, code := s.doctor(t)
			if _, err := os.Stat(filepath.Join(s.project, "ran")); err == nil {
				t.Errorf("doctor ran a binary the project brought")
			}
			if code != exitFailure {
				t.Errorf("doctor = %d; want %d", code, exitFailure)
			}
			out = strings.ReplaceAll(out, s.home, "HOME")
			for _, want := range tt.wants(s) {
				if !strings.Contains(out, strings.ReplaceAll(want, s.home, "HOME")) {
					t.Errorf("doctor lacks %q:\n%s", want, out)
				}
			}
			fails := 0
			for _, c := range checks {
				if c.Level == levelFail {
					fails++
					if c.Fix == "" {
						t.Errorf("a failure without its fix: %+v", c)
					}
				}
			}
			want := 1
			if strings.HasPrefix(tt.name, "hook binary") {
				want = 3 // every runtime's hook runs it
			}
			if fails != want {
				t.Errorf("%d failures; want %d, the broken piece's:\n%s", fails, want, out)
			}
		})
	}
}

// TestDoctorClockAndDisk: a clock before the build fails with the command
// that sets it; little free space warns, and warnings alone stay green.
func TestDoctorClockAndDisk(t *testing.T) {
	built := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		now   time.Time
		free  uint64
		level map[string]string
		want  string
	}{
		{"fine", built.Add(time.Hour), 1 << 30, map[string]string{"clock": levelOK, "disk": levelOK}, "1024 MiB free"},
		{"clock a minute behind a build elsewhere", built.Add(-time.Minute), 1 << 30, map[string]string{"clock": levelOK}, "after limenctl's build"},
		{"clock before the build", built.Add(-24 * time.Hour), 1 << 30, map[string]string{"clock": levelFail}, "before limenctl was built (2026-11-30T12:00:00Z)"},
		{"disk nearly full", built.Add(time.Hour), 50 << 20, map[string]string{"disk": levelWarn}, "50 MiB free, under 100 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &doctor{now: tt.now, built: built, db: filepath.Join(t.TempDir(), "limen.db"), freeSpace: func(string) (uint64, error) { return tt.free, nil }}
			d.checkDisk()
			d.checkClock()
			text := ""
			for _, f := range d.findings {
				text += f.Detail + " " + f.Fix + "\n"
				if want, ok := tt.level[f.Check]; ok && f.Level != want {
					t.Errorf("%s is %s; want %s: %s", f.Check, f.Level, want, f.Detail)
				}
				if f.Level != levelOK && f.Fix == "" {
					t.Errorf("%s without a fix", f.Check)
				}
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("findings lack %q:\n%s", tt.want, text)
			}
		})
	}
}

// TestDoctorWarnings: what is worth fixing but still fails closed warns,
// with its fix, and doctor stays green (exit 0).
func TestDoctorWarnings(t *testing.T) {
	tests := []struct {
		name  string
		brk   func(t *testing.T, s *scratch)
		wants []string
	}{
		{"limen-hook of another build", func(t *testing.T, s *scratch) {
			writeFile(t, s.hookBin, "#!/bin/sh\necho 'limen-hook v0.0.1 go1.20 linux/amd64'\n", 0o755)
		}, []string{"WARN  hook", "limen-hook is v0.0.1 go1.20 linux/amd64, limenctl is " + version.Get().String(), "fix: go install github.com/limenhq/limen/cmd/limen-hook@latest (from the same tree as limenctl)"}},
		{"no runtime runs limen-hook", func(t *testing.T, s *scratch) {
			for _, f := range []string{s.claude, s.codexHooks, s.gemini} {
				os.Remove(f)
			}
		}, []string{"WARN  hook      no agent runtime's settings run limen-hook", "fix: limenctl hook install claude-code"}},
		{"Claude Code older than verified", func(t *testing.T, s *scratch) {
			writeFile(t, filepath.Join(filepath.Dir(s.hookBin), "claude"), "#!/bin/sh\necho '2.0.9 (Claude Code)'\n", 0o755)
		}, []string{"WARN  runtime   Claude Code 2.0.9 is older than 2.1.328", `"onFailure" was verified with 2.1.328`, "fix: claude update"}},
		{"Gemini CLI that will not say its version", func(t *testing.T, s *scratch) {
			writeFile(t, filepath.Join(filepath.Dir(s.hookBin), "gemini"), "#!/bin/sh\nexit 1\n", 0o755)
		}, []string{"gemini --version did not say a version (exit status 1)", "fix: npm install -g @google/gemini-cli@latest"}},
		{"hook asks another limend", func(t *testing.T, s *scratch) {
			entry, _ := hookEntry(s.hookBin, "prompt", 0, "/elsewhere/limend-http.sock")
			writeJSON(t, s.claude, map[string]any{"hooks": map[string]any{"PreToolUse": []any{entry}}})
		}, []string{"it asks the limend at /elsewhere/limend-http.sock, not this one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScratch(t)
			tt.brk(t, s)
			out, _, code := s.doctor(t)
			if code != exitOK {
				t.Errorf("doctor = %d; want 0 with warnings:\n%s", code, out)
			}
			for _, want := range tt.wants {
				if !strings.Contains(out, want) {
					t.Errorf("doctor lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestDoctorSocketOfAnotherUser: a socket that another uid owns is red,
// whatever its mode: that user's limend would see and answer your asks.
func TestDoctorSocketOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the socket to another uid")
	}
	s := newScratch(t)
	if err := os.Chown(s.l.Config.Socket, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	out, _, code := s.doctor(t)
	if code != exitFailure || !strings.Contains(out, s.l.Config.Socket+" belongs to uid 12345, not to you") {
		t.Errorf("doctor = %d:\n%s", code, out)
	}
}

// TestDoctorInHome: run from the home directory (or above it), doctor
// takes no project there: limen-hook in ~/go/bin is the person's own, and
// ~/.claude/settings.json is read once, not again as the project's. A new
// user saw seven false FAILs and the same file checked twice.
func TestDoctorInHome(t *testing.T) {
	for _, c := range []struct{ cwd, home, want string }{
		{"/home/ana", "/home/ana", ""},
		{"/home", "/home/ana", ""},
		{"/", "/home/ana", ""},
		{"/home/ana/shop", "/home/ana", "/home/ana/shop"},
		{"/work/shop", "/home/ana", "/work/shop"},
		{"/home/anna", "/home/ana", "/home/anna"},
	} {
		d := &doctor{cwd: c.cwd, home: c.home}
		if got := d.project(); got != c.want {
			t.Errorf("cwd %s, home %s: project %q, want %q", c.cwd, c.home, got, c.want)
		}
	}
	// The green setup, run from the home directory and from above it
	// (where limen-hook sits in ~/bin): still green, each file once.
	s := newScratch(t)
	for _, dir := range []string{s.home, filepath.Dir(s.home)} {
		t.Chdir(dir)
		out, _, code := s.doctor(t)
		if code != exitOK || strings.Count(out, "ok    hook") != 3 {
			t.Errorf("doctor in %s = %d; want green with three hooks:\n%s", dir, code, out)
		}
	}
}
