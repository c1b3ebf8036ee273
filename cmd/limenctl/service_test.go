package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/service"
	"github.com/limenhq/limen/internal/version"
)

// serviceEnv is a home of its own with fake systemctl and launchctl on
// $PATH (and nothing else), which log their arguments to calls, and a fake
// limend that answers --version.
type serviceEnv struct {
	home, bin, limend, calls, state string
}

// fakeSystemctl answers like systemctl --user: is-active prints a unit's
// state from state/<unit> (inactive, exit 3, when there is none), show
// prints properties, and everything else succeeds. With failBus it fails
// as systemctl does where no user manager runs.
const fakeSystemctl = `#!/bin/sh
echo "$*" >> "$CALLS"
[ -n "$FAIL_BUS" ] && { echo "Failed to connect to bus: No such file or directory" >&2; exit 1; }
case "$2" in
is-active) if [ -f "$STATE/$3" ]; then /bin/cat "$STATE/$3"; else echo inactive; exit 3; fi ;;
show) echo "LoadState=loaded"; echo "ActiveState=active"; echo "SubState=listening"; echo "UnitFileState=enabled"; echo "MainPID=0" ;;
esac
exit 0
`

const fakeLaunchctl = `#!/bin/sh
echo "$*" >> "$CALLS"
case "$1" in
print) [ -f "$STATE/loaded" ] || exit 113; echo "state = running"; echo "pid = 4242" ;;
bootstrap) /usr/bin/touch "$STATE/loaded" ;;
bootout) /bin/rm -f "$STATE/loaded" ;;
esac
exit 0
`

func newServiceEnv(t *testing.T, goos string) *serviceEnv {
	t.Helper()
	dir := t.TempDir()
	e := &serviceEnv{home: filepath.Join(dir, "home"), bin: filepath.Join(dir, "bin"), calls: filepath.Join(dir, "calls"), state: filepath.Join(dir, "state")}
	for _, d := range []string{e.home, e.bin, e.state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.limend = filepath.Join(dir, "go bin", "limend") // a space, as a quoting check
	os.MkdirAll(filepath.Dir(e.limend), 0o700)
	for path, body := range map[string]string{
		e.limend:                          "#!/bin/sh\necho 'limend v9.9.9 (test)'\n",
		filepath.Join(e.bin, "systemctl"): fakeSystemctl,
		filepath.Join(e.bin, "launchctl"): fakeLaunchctl,
	} {
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	t.Setenv("PATH", e.bin)
	t.Setenv("CALLS", e.calls)
	t.Setenv("STATE", e.state)
	t.Setenv("FAIL_BUS", "")
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "run"))
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "LIMEN_SOCKET", "LIMEN_HTTP_SOCKET", "LIMEN_DB"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	old := serviceOS
	serviceOS = goos
	t.Cleanup(func() { serviceOS = old })
	return e
}

func (e *serviceEnv) ctl(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = execute(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// ran is every fake systemctl/launchctl call so far, and forgets them.
func (e *serviceEnv) ran(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(e.calls)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(e.calls)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (e *serviceEnv) unitDir() string { return filepath.Join(e.home, ".config", "systemd", "user") }

func has(calls []string, call string) bool {
	for _, c := range calls {
		if c == call {
			return true
		}
	}
	return false
}

// TestServiceInstallDryRun prints the three units, naming limend by its
// absolute path and the sockets limend itself would use, and writes
// nothing.
func TestServiceInstallDryRun(t *testing.T) {
	e := newServiceEnv(t, "linux")
	out, errOut, code := e.ctl("service", "install", "--dry-run", "--limend", e.limend)
	if code != exitOK {
		t.Fatalf("install --dry-run = %d: %s", code, errOut)
	}
	def, err := daemon.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# " + filepath.Join(e.unitDir(), service.SocketUnit) + "\n",
		"# " + filepath.Join(e.unitDir(), service.HTTPSocketUnit) + "\n",
		"# " + filepath.Join(e.unitDir(), service.ServiceUnit) + "\n",
		`ExecStart="` + e.limend + `" "--socket" "` + def.Socket + `" "--http-socket" "` + def.HTTPSocket + `" "--db" "` + def.DB + `"`,
		"ListenStream=" + def.Socket + "\n",
		"ListenStream=" + def.HTTPSocket + "\n",
		"nothing written",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(e.unitDir()); !os.IsNotExist(err) {
		t.Errorf("dry run created %s (%v)", e.unitDir(), err)
	}
	if calls := e.ran(t); calls[0] != "" {
		t.Errorf("dry run ran %q", calls)
	}
}

// TestServiceInstallWithoutUserManager: where systemctl --user cannot
// reach a user manager (this container), install says so, still writes
// the files, and exits 0; without systemctl at all, the same.
func TestServiceInstallWithoutUserManager(t *testing.T) {
	e := newServiceEnv(t, "linux")
	t.Setenv("FAIL_BUS", "1")
	out, errOut, code := e.ctl("service", "install", "--limend", e.limend)
	if code != exitOK || !strings.Contains(errOut, "not enabled: systemctl --user cannot reach your user's systemd") || !strings.Contains(errOut, "Failed to connect to bus") {
		t.Fatalf("install without a user manager = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "systemctl --user enable --now limend.socket limend-http.socket") {
		t.Errorf("install does not say how to enable the units later:\n%s", out)
	}
	for _, u := range []string{service.SocketUnit, service.HTTPSocketUnit, service.ServiceUnit} {
		if _, err := os.Stat(filepath.Join(e.unitDir(), u)); err != nil {
			t.Errorf("%s not written: %v", u, err)
		}
	}
	if strings.Contains(out, "ran ") {
		t.Errorf("install reports a command that failed as run:\n%s", out)
	}

	os.Remove(filepath.Join(e.bin, "systemctl"))
	out, errOut, code = e.ctl("--json", "service", "install", "--limend", e.limend)
	var r installResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("install --json = %d, %v: %s %s", code, err, out, errOut)
	}
	if !strings.Contains(r.NotEnabled, "systemctl is not on $PATH") {
		t.Errorf("not_enabled = %q", r.NotEnabled)
	}
	for _, f := range r.Files {
		if f.Change != "unchanged" {
			t.Errorf("second install: %s %s; want unchanged", f.Path, f.Change)
		}
	}
}

// TestServiceInstallEnables: the first install enables and starts the
// socket units; a second one changes nothing and restarts nothing; one
// with other limend flags rewrites the service, stops the running limend
// (it starts again with them on the next call) and restarts the sockets.
func TestServiceInstallEnables(t *testing.T) {
	e := newServiceEnv(t, "linux")
	out, errOut, code := e.ctl("service", "install", "--limend", e.limend)
	if code != exitOK || errOut != "" {
		t.Fatalf("install = %d\n%s\n%s", code, out, errOut)
	}
	calls := e.ran(t)
	for _, want := range []string{"--user daemon-reload", "--user enable limend.socket limend-http.socket", "--user restart limend.socket limend-http.socket"} {
		if !has(calls, want) {
			t.Errorf("first install did not run systemctl %s; ran %q", want, calls)
		}
	}
	if !strings.Contains(out, "next: limenctl hook install claude-code") {
		t.Errorf("install does not name the next step:\n%s", out)
	}

	_, errOut, code = e.ctl("service", "install", "--limend", e.limend)
	calls = e.ran(t)
	if code != exitOK || !has(calls, "--user start limend.socket limend-http.socket") || has(calls, "--user restart limend.socket limend-http.socket") || has(calls, "--user stop limend.service") {
		t.Errorf("second install = %d (%s), ran %q; want a start of the sockets and no restart", code, errOut, calls)
	}

	os.WriteFile(filepath.Join(e.state, service.ServiceUnit), []byte("active\n"), 0o644)
	os.WriteFile(filepath.Join(e.state, service.SocketUnit), []byte("active\n"), 0o644)
	_, errOut, code = e.ctl("service", "install", "--limend", e.limend, "--", "--log-format", "json")
	calls = e.ran(t)
	if code != exitOK || !has(calls, "--user stop limend.service") || !has(calls, "--user restart limend.socket limend-http.socket") {
		t.Errorf("install with new flags = %d (%s), ran %q; want limend stopped and the sockets restarted", code, errOut, calls)
	}
	b, _ := os.ReadFile(filepath.Join(e.unitDir(), service.ServiceUnit))
	if !strings.Contains(string(b), `"--log-format" "json"`) {
		t.Errorf("the flags after -- are not in ExecStart:\n%s", b)
	}

	if _, errOut, code := e.ctl("service", "install", "--limend", e.limend, "--", "--socket", "/tmp/x"); code != exitUsage || !strings.Contains(errOut, "limenctl's own --socket") {
		t.Errorf("install -- --socket = %d, %q; want a usage error naming limenctl's --socket", code, errOut)
	}
	if _, errOut, code := e.ctl("service", "install", "--limend", filepath.Join(e.bin, "systemctl")); code == exitOK || !strings.Contains(errOut, "does not run as limend") {
		t.Errorf("install with a binary that is not limend = %d, %q", code, errOut)
	}
}

// TestServiceInstallRefusesUnmanagedLimend: with a limend already serving
// on the socket outside systemd, enabling the sockets would take its path
// away; install writes the units and says to stop it first.
func TestServiceInstallRefusesUnmanagedLimend(t *testing.T) {
	e := newServiceEnv(t, "linux")
	l := limentest.Start(t)
	_, errOut, code := e.ctl("--socket", l.Config.Socket, "service", "install", "--limend", e.limend)
	if code != exitFailure || !strings.Contains(errOut, "a limend that systemd did not start is serving on "+l.Config.Socket) {
		t.Fatalf("install over a running limend = %d, %q", code, errOut)
	}
	if calls := e.ran(t); has(calls, "--user enable limend.socket limend-http.socket") {
		t.Errorf("enabled the sockets anyway: %q", calls)
	}
}

// TestServiceUninstall stops and disables the units and removes what
// install wrote, but not a unit of the same name that someone else wrote.
func TestServiceUninstall(t *testing.T) {
	e := newServiceEnv(t, "linux")
	if _, errOut, code := e.ctl("service", "install", "--limend", e.limend); code != exitOK {
		t.Fatal(errOut)
	}
	mine := filepath.Join(e.unitDir(), service.HTTPSocketUnit)
	os.WriteFile(mine, []byte("[Socket]\nListenStream=/my/own.sock\n"), 0o644)
	e.ran(t)
	out, errOut, code := e.ctl("service", "uninstall")
	if code != exitOK {
		t.Fatalf("uninstall = %d: %s", code, errOut)
	}
	if calls := e.ran(t); !has(calls, "--user disable --now limend.socket limend-http.socket limend.service") {
		t.Errorf("uninstall ran %q; want the units disabled and stopped", calls)
	}
	for _, u := range []string{service.SocketUnit, service.ServiceUnit} {
		if _, err := os.Stat(filepath.Join(e.unitDir(), u)); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", u, err)
		}
	}
	if _, err := os.Stat(mine); err != nil || !strings.Contains(errOut, "kept "+mine) {
		t.Errorf("uninstall removed or did not mention a file it did not write (%v):\n%s\n%s", err, out, errOut)
	}
}

// TestServiceStatus reports the files, each unit's state, and the running
// limend's version; --json carries the same.
func TestServiceStatus(t *testing.T) {
	e := newServiceEnv(t, "linux")
	l := limentest.Start(t)
	if _, errOut, code := e.ctl("--socket", l.Config.Socket, "service", "install", "--no-enable", "--limend", e.limend); code != exitOK {
		t.Fatal(errOut)
	}
	out, errOut, code := e.ctl("--json", "--socket", l.Config.Socket, "service", "status", "--limend", e.limend)
	var st serviceStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitOK {
		t.Fatalf("status --json = %d, %v: %s %s", code, err, out, errOut)
	}
	if len(st.Files) != 3 || st.Files[0].State != "installed" {
		t.Errorf("files = %+v; want three installed", st.Files)
	}
	if len(st.Units) != 3 || st.Units[0].Name != service.SocketUnit || st.Units[0].Active != "active" || st.Units[0].Sub != "listening" || st.Units[0].Enabled != "enabled" {
		t.Errorf("units = %+v", st.Units)
	}
	if !st.Limend.Reachable || st.Limend.Version == nil || *st.Limend.Version != version.Get() {
		t.Errorf("limend = %+v; want the running limend and its version", st.Limend)
	}

	out, _, _ = e.ctl("--socket", l.Config.Socket, "service", "status", "--limend", "/elsewhere/limend")
	if !strings.Contains(out, "outdated") || !strings.Contains(out, "serving") {
		t.Errorf("status with another binary does not call the service outdated:\n%s", out)
	}
}

// TestServiceLaunchd: on macOS install writes the agent into
// ~/Library/LaunchAgents, makes its log directory and bootstraps it into
// the user's GUI domain; a second install leaves it loaded; uninstall
// boots it out and removes it.
func TestServiceLaunchd(t *testing.T) {
	e := newServiceEnv(t, "darwin")
	out, errOut, code := e.ctl("service", "install", "--limend", e.limend)
	if code != exitOK {
		t.Fatalf("install = %d\n%s\n%s", code, out, errOut)
	}
	plist := filepath.Join(e.home, "Library", "LaunchAgents", service.LaunchdLabel+".plist")
	b, err := os.ReadFile(plist)
	if err != nil || !strings.Contains(string(b), "<string>"+filepath.Join(e.home, "Library", "Logs", "limen", "limend.log")+"</string>") {
		t.Fatalf("plist %v:\n%s", err, b)
	}
	if fi, err := os.Stat(filepath.Join(e.home, "Library", "Logs", "limen")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("log directory: %v %v; want it made, 0700", fi, err)
	}
	gui := "gui/" + strconv.Itoa(os.Getuid())
	if calls := e.ran(t); !has(calls, "bootstrap "+gui+" "+plist) {
		t.Errorf("install ran %q; want launchctl bootstrap %s %s", calls, gui, plist)
	}
	e.ctl("service", "install", "--limend", e.limend)
	if calls := e.ran(t); has(calls, "bootout "+gui+"/"+service.LaunchdLabel) {
		t.Errorf("an unchanged install reloaded the agent: %q", calls)
	}
	out, _, _ = e.ctl("service", "status", "--limend", e.limend)
	if !strings.Contains(out, "running") || !strings.Contains(out, "pid 4242") {
		t.Errorf("status does not show launchd's state:\n%s", out)
	}
	if _, errOut, code := e.ctl("service", "uninstall"); code != exitOK {
		t.Fatal(errOut)
	}
	if _, err := os.Stat(plist); !os.IsNotExist(err) || !has(e.ran(t), "bootout "+gui+"/"+service.LaunchdLabel) {
		t.Errorf("uninstall left the agent (%v)", err)
	}
}

// TestCompletion: limenctl completion prints a script for each shell the
// README names, and the dynamic completion it calls offers the service
// subcommands.
func TestCompletion(t *testing.T) {
	e := newServiceEnv(t, "linux")
	for shell, want := range map[string]string{"bash": "bash completion V2 for limenctl", "zsh": "#compdef limenctl", "fish": "fish completion for limenctl"} {
		out, errOut, code := e.ctl("completion", shell)
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("completion %s = %d (%s); want a script with %q", shell, code, errOut, want)
		}
	}
	out, _, _ := e.ctl("__complete", "service", "")
	for _, sub := range []string{"install", "uninstall", "status"} {
		if !strings.Contains(out, sub+"\t") {
			t.Errorf("completing `limenctl service ` does not offer %s:\n%s", sub, out)
		}
	}
}

// TestServiceUninstallNotInstalled says there was nothing to remove and
// asks systemctl nothing (disabling units that do not exist fails).
func TestServiceUninstallNotInstalled(t *testing.T) {
	e := newServiceEnv(t, "linux")
	out, errOut, code := e.ctl("service", "uninstall")
	if code != exitOK || !strings.Contains(out, "nothing to remove") {
		t.Fatalf("uninstall = %d\n%s\n%s", code, out, errOut)
	}
	if calls := e.ran(t); calls[0] != "" {
		t.Errorf("uninstall ran %q", calls)
	}
}

// TestServiceInstallWarnsWithoutRuntimeDir: without XDG_RUNTIME_DIR the
// sockets fall back to the state directory, which a later login that sets
// it would not look in; install says so.
func TestServiceInstallWarnsWithoutRuntimeDir(t *testing.T) {
	e := newServiceEnv(t, "linux")
	os.Unsetenv("XDG_RUNTIME_DIR")
	_, errOut, code := e.ctl("service", "install", "--dry-run", "--limend", e.limend)
	if code != exitOK || !strings.Contains(errOut, "XDG_RUNTIME_DIR is not set, so limend's sockets go in "+filepath.Join(e.home, ".local", "state", "limen")) {
		t.Errorf("install without XDG_RUNTIME_DIR = %d, %q; want a warning naming where the sockets go", code, errOut)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if _, errOut, _ := e.ctl("service", "install", "--dry-run", "--limend", e.limend); strings.Contains(errOut, "XDG_RUNTIME_DIR") {
		t.Errorf("warned with XDG_RUNTIME_DIR set: %q", errOut)
	}
}
