package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// codexHomeFor makes a CODEX_HOME with a config.toml holding cfg ("" for
// none) and points CODEX_HOME at it.
func codexHomeFor(t *testing.T, cfg string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CODEX_HOME", dir)
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHookInstallCodex: install codex adds the two entries to
// $CODEX_HOME/hooks.json and records them as trusted in config.toml,
// leaving everything else in both files byte for byte; install again
// changes nothing; uninstall gives both files back as they were.
func TestHookInstallCodex(t *testing.T) {
	files, err := filepath.Glob("testdata/hook/settings-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	files = append(files, "missing")
	bin := fakeHookBin(t)
	t.Setenv("LIMEN_HTTP_SOCKET", "/run/user/1000/limen/limend-http.sock")
	for _, cfg := range []string{"", "model = \"o4\"\n\n[hooks.state.\"/x/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:00\"\n", "model = \"o4\""} {
		for _, src := range files {
			t.Run(filepath.Base(src)+"/"+strings.Fields(cfg + " none")[0], func(t *testing.T) {
				dir := codexHomeFor(t, cfg)
				hooks := filepath.Join(dir, "hooks.json")
				var orig []byte
				if src != "missing" {
					orig, err = os.ReadFile(src)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(hooks, orig, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				code, out := limenctl(t, "hook", "install", "codex", "--hook-bin", bin)
				if code != 0 {
					t.Fatalf("install: exit %d: %s", code, out)
				}
				if !strings.Contains(out, "trusted it for Codex") {
					t.Errorf("install does not say it trusted the hook:\n%s", out)
				}
				installed := readFile(t, hooks)
				var v struct{ Hooks map[string][]claudeHookEntry }
				if err := json.Unmarshal([]byte(installed), &v); err != nil {
					t.Fatalf("hooks.json is not JSON: %v\n%s", err, installed)
				}
				q := shellQuote(bin)
				for event, want := range map[string]claudeHookEntry{
					"PreToolUse":        {Matcher: "*", Hooks: []claudeHookConfig{{Type: "command", Command: q + " --format codex --on-ask wait --timeout 50s --socket /run/user/1000/limen/limend-http.sock", Timeout: 60}}},
					"PermissionRequest": {Matcher: "*", Hooks: []claudeHookConfig{{Type: "command", Command: q + " --format codex --timeout 5s --socket /run/user/1000/limen/limend-http.sock", Timeout: 15}}},
				} {
					got := v.Hooks[event]
					if len(got) == 0 || !reflect.DeepEqual(got[len(got)-1], want) {
						t.Errorf("%s entries = %+v; want the last to be %+v", event, got, want)
					}
				}
				if orig != nil {
					if a, b := withoutLimen(t, []byte(installed)), withoutLimen(t, orig); !reflect.DeepEqual(a, b) {
						t.Errorf("install changed other settings:\n%v\nwant\n%v", a, b)
					}
				}
				// config.toml: what was there, then one record per entry,
				// which is what doctor (and Codex) read as trusted.
				conf := readFile(t, filepath.Join(dir, "config.toml"))
				if !strings.HasPrefix(conf, cfg) {
					t.Errorf("config.toml lost its start:\n%s\nwant it to start with\n%s", conf, cfg)
				}
				recs, err := codexTrustRecords(hooks)
				if err != nil || len(recs) != 2 {
					t.Fatalf("trust records = %v, %v; want 2", recs, err)
				}
				state, err := codexTrustState([]byte(conf))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					if state[r.key] != r.hash {
						t.Errorf("config.toml trusts %s with %q; want %s\n%s", r.key, state[r.key], r.hash, conf)
					}
				}
				d := &doctor{home: t.TempDir(), cwd: t.TempDir()}
				sites, _ := readHookSites(findHookRuntime("codex"), hooks)
				for _, s := range sites {
					if !d.codexTrusts(s, func(detail, fix string) { t.Errorf("doctor: %s", detail) }) {
						t.Errorf("doctor does not see %s as trusted", s.where())
					}
				}
				// Again: nothing changes, in either file.
				if code, out := limenctl(t, "hook", "install", "codex", "--hook-bin", bin); code != 0 || !strings.Contains(out, "nothing changed") {
					t.Errorf("second install: exit %d: %s", code, out)
				}
				if got := readFile(t, hooks); got != installed {
					t.Errorf("second install changed hooks.json:\n%s", got)
				}
				if got := readFile(t, filepath.Join(dir, "config.toml")); got != conf {
					t.Errorf("second install changed config.toml:\n%s", got)
				}
				if code, out := limenctl(t, "hook", "uninstall", "codex"); code != 0 {
					t.Fatalf("uninstall: exit %d: %s", code, out)
				}
				after, err := os.ReadFile(hooks)
				switch {
				case orig == nil && !os.IsNotExist(err):
					t.Errorf("uninstall left the hooks.json install created: %s", after)
				case orig != nil && string(after) != string(orig):
					t.Errorf("uninstall did not give back hooks.json:\n%s\nwant\n%s", after, orig)
				}
				conf2, err := os.ReadFile(filepath.Join(dir, "config.toml"))
				switch {
				case cfg == "" && !os.IsNotExist(err):
					t.Errorf("uninstall left the config.toml install created: %q", conf2)
				case strings.HasSuffix(cfg, "\n") && string(conf2) != cfg:
					t.Errorf("uninstall did not give back config.toml:\n%q\nwant\n%q", conf2, cfg)
				case cfg != "" && string(conf2) != cfg+"\n" && string(conf2) != cfg:
					// One that ended without a newline keeps the one install added.
					t.Errorf("uninstall did not give back config.toml:\n%q\nwant\n%q (and a newline)", conf2, cfg)
				}
			})
		}
	}
}

// TestCodexInstalledHash: the entries install writes hash as a real Codex
// 0.171.0 hashed them (codex app-server hooks/list, currentHash, for a
// hooks.json holding exactly these two entries).
func TestCodexInstalledHash(t *testing.T) {
	tgt := findTarget("codex")
	star := "*"
	for i, want := range []string{
		"sha256:bfd2b13c115bb8597e367855fcc2886d907ef644fff3ab1eef8e031b372bd1fd",
		"sha256:df8b8660b20de318db0a264ac5fea53c2a7279698948a2a20354c11e7ce68c08",
	} {
		e := tgt.events[i]
		entry, command := tgt.entry(e, "/opt/limen/bin/limen-hook", "wait", 50e9, "/run/user/1000/limen/limend-http.sock")
		s := hookSite{event: e.event, matcher: &star, command: command,
			handler: map[string]any{"type": "command", "command": command, "timeout": float64(entry.Hooks[0].Timeout)}}
		if got := codexHookHash(s); got != want {
			t.Errorf("%s: hash %s; Codex's was %s", e.event, got, want)
		}
	}
}

// TestHookInstallCodexNoTrust: --no-trust writes no record, and says how
// to trust the hook by hand.
func TestHookInstallCodexNoTrust(t *testing.T) {
	dir := codexHomeFor(t, "model = \"o4\"\n")
	code, out := limenctl(t, "hook", "install", "codex", "--hook-bin", fakeHookBin(t), "--no-trust", "--http-socket", "/s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if got := readFile(t, filepath.Join(dir, "config.toml")); got != "model = \"o4\"\n" {
		t.Errorf("--no-trust changed config.toml:\n%s", got)
	}
	if !strings.Contains(out, "/hooks") || !strings.Contains(out, "skips limen's hook") {
		t.Errorf("no how-to-trust in:\n%s", out)
	}
}

// TestHookInstallCodexTrustRefused: a config.toml where the record cannot
// be appended (another hash for the key; hooks as an inline table) is left
// alone, and install says how to trust by hand; the hook is installed.
func TestHookInstallCodexTrustRefused(t *testing.T) {
	for name, cfg := range map[string]string{
		"inline":  "hooks = { state = {} }\n",
		"invalid": "model = \n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := codexHomeFor(t, cfg)
			code, out := limenctl(t, "hook", "install", "codex", "--hook-bin", fakeHookBin(t), "--http-socket", "/s")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got := readFile(t, filepath.Join(dir, "config.toml")); got != cfg {
				t.Errorf("config.toml changed:\n%s", got)
			}
			if !strings.Contains(out, "warning: Codex runs a hook only once it is trusted") || !strings.Contains(out, "/hooks") {
				t.Errorf("no warning and how-to in:\n%s", out)
			}
		})
	}
	t.Run("other hash", func(t *testing.T) {
		dir := codexHomeFor(t, "")
		hooks := filepath.Join(dir, "hooks.json")
		cfg := "[hooks.state." + strconvQuote(hooks+":pre_tool_use:0:0") + "]\ntrusted_hash = \"sha256:0000\"\n"
		os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600)
		code, out := limenctl(t, "hook", "install", "codex", "--hook-bin", fakeHookBin(t), "--http-socket", "/s")
		if code != 0 || !strings.Contains(out, "already trusts another version") {
			t.Errorf("exit %d: %s", code, out)
		}
		if got := readFile(t, filepath.Join(dir, "config.toml")); got != cfg {
			t.Errorf("config.toml changed:\n%s", got)
		}
	})
}

// TestHookInstallGemini: install gemini adds BeforeTool (a regular
// expression matcher, milliseconds), keeps the rest byte for byte, and
// uninstall gives the file back.
func TestHookInstallGemini(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(home, ".gemini", "settings.json")
	orig := "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"hooks\": {\n    \"AfterTool\": [{\"matcher\": \"x\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}]\n  }\n}\n"
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(orig), 0o600)
	bin := fakeHookBin(t)
	code, out := limenctl(t, "hook", "install", "gemini", "--hook-bin", bin, "--http-socket", "/s")
	if code != 0 {
		t.Fatalf("install: exit %d: %s", code, out)
	}
	var v struct{ Hooks map[string][]claudeHookEntry }
	installed := readFile(t, path)
	if err := json.Unmarshal([]byte(installed), &v); err != nil {
		t.Fatal(err)
	}
	want := []claudeHookEntry{{Matcher: ".*", Hooks: []claudeHookConfig{{Type: "command", Command: shellQuote(bin) + " --format gemini --on-ask wait --timeout 50s --socket /s", Timeout: 60000}}}}
	if !reflect.DeepEqual(v.Hooks["BeforeTool"], want) {
		t.Errorf("BeforeTool = %+v; want %+v", v.Hooks["BeforeTool"], want)
	}
	if len(v.Hooks["AfterTool"]) != 1 {
		t.Errorf("AfterTool changed: %+v", v.Hooks["AfterTool"])
	}
	// Other flags: refused, nothing changed.
	code, out = limenctl(t, "hook", "install", "gemini", "--hook-bin", bin, "--http-socket", "/s", "--on-ask", "prompt")
	if code == 0 || !strings.Contains(out, "with other flags") || !strings.Contains(out, "limenctl hook uninstall gemini") {
		t.Errorf("install with other flags: exit %d: %s", code, out)
	}
	if got := readFile(t, path); got != installed {
		t.Errorf("refused install changed the file:\n%s", got)
	}
	if code, out := limenctl(t, "hook", "uninstall", "gemini"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, out)
	}
	if got := readFile(t, path); got != orig {
		t.Errorf("uninstall gave\n%s\nwant\n%s", got, orig)
	}
	if code, out := limenctl(t, "hook", "uninstall", "gemini"); code != 0 || !strings.Contains(out, "not in") {
		t.Errorf("second uninstall: exit %d: %s", code, out)
	}
}

// TestHookInstallGeminiHooksOff: settings that turn Gemini CLI's hooks off
// get a warning, since limen's hook would never run.
func TestHookInstallGeminiHooksOff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"hooksConfig": {"enabled": false}}`), 0o600)
	code, out := limenctl(t, "hook", "install", "gemini", "--settings", path, "--hook-bin", fakeHookBin(t), "--http-socket", "/s")
	if code != 0 || !strings.Contains(out, `warning: `+path+` sets "hooksConfig": {"enabled": false}`) {
		t.Errorf("exit %d: %s", code, out)
	}
}

// TestHookInstallRuntimeFlags: flags of another runtime are refused, naming
// the fix.
func TestHookInstallRuntimeFlags(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	codexHomeFor(t, "")
	bin := fakeHookBin(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"codex", "--on-ask", "dialog"}, "--on-ask dialog is Claude Code's"},
		{[]string{"gemini", "--local"}, "--local is Claude Code's"},
		{[]string{"claude-code", "--no-trust"}, "--no-trust is for codex"},
		{[]string{"cursor"}, `runtime "cursor": use claude-code, codex or gemini`},
		{[]string{"codex", "--settings", "/tmp/x/config.toml"}, "install writes JSON hook files"},
	} {
		code, out := limenctl(t, append([]string{"hook", "install", "--hook-bin", bin, "--http-socket", "/s"}, tt.args...)...)
		if code == 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d: %s; want %q", tt.args, code, out, tt.want)
		}
	}
}

// TestHookInstallCodexProject: --project writes ./.codex/hooks.json, whose
// trust records name that file, and warns while Codex's config.toml does
// not mark the project trusted (Codex then reads none of its hooks).
func TestHookInstallCodexProject(t *testing.T) {
	dir := codexHomeFor(t, "")
	proj := t.TempDir()
	t.Chdir(proj)
	bin := fakeHookBin(t)
	code, out := limenctl(t, "hook", "install", "codex", "--project", "--hook-bin", bin, "--http-socket", "/s")
	if code != 0 || !strings.Contains(out, "only in a project it trusts") {
		t.Fatalf("exit %d: %s", code, out)
	}
	conf := readFile(t, filepath.Join(dir, "config.toml"))
	if !strings.Contains(conf, strconvQuote(filepath.Join(proj, ".codex", "hooks.json")+":pre_tool_use:0:0")) {
		t.Errorf("config.toml does not trust the project's file:\n%s", conf)
	}
	limenctl(t, "hook", "uninstall", "codex", "--project")
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[projects."+strconvQuote(proj)+"]\ntrust_level = \"trusted\"\n"), 0o600)
	code, out = limenctl(t, "hook", "install", "codex", "--project", "--hook-bin", bin, "--http-socket", "/s")
	if code != 0 || strings.Contains(out, "only in a project it trusts") {
		t.Errorf("a trusted project: exit %d: %s", code, out)
	}
}
