package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/service"
	"github.com/limenhq/limen/internal/version"
)

// serviceOS chooses systemd or launchd; tests set it to reach the other.
var serviceOS = runtime.GOOS

// serviceWrittenMark is in every file service install writes: uninstall removes
// only files that carry it.
const serviceWrittenMark = "Written by limenctl service install"

func newServiceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Keep limend running: a systemd user service (Linux) or launchd agent (macOS)",
		Long: `service installs limend as a service of your user, so nobody has to start it.

On Linux it writes three systemd user units in ~/.config/systemd/user:
limend.socket and limend-http.socket listen on limend's two sockets from
login, and the first call that reaches one (a hook after a reboot) starts
limend.service, which takes the sockets over. limend is restarted if it
fails, and logs to the journal (journalctl --user -u limend.service).

On macOS it writes a launchd agent, ~/Library/LaunchAgents/` + service.LaunchdLabel + `.plist,
that starts limend at login and again if it fails (not at the first call:
launchd's socket activation needs a C call Go binaries do not make). Its
log is ~/Library/Logs/limen/limend.log, rotated by limend.

The files name the limend binary and the socket and database paths
limenctl finds now (--socket, LIMEN_SOCKET, LIMEN_HTTP_SOCKET, --db): run
install again after moving them.`,
	}
	cmd.AddCommand(newServiceInstallCmd(a), newServiceUninstallCmd(a), newServiceStatusCmd(a))
	return cmd
}

// serviceSetup is where the files go and what they name.
type serviceSetup struct {
	opts  service.Options
	files []service.File
	// logDir is made before launchd starts limend (launchd does not make it).
	logDir string
}

func (a *app) serviceSetup(limend, db string, extra []string) (serviceSetup, error) {
	var s serviceSetup
	var err error
	if limend == "" {
		if limend, err = findLimendBinary(); err != nil {
			return s, err
		}
	}
	sock := a.socket
	if sock == "" {
		if sock, err = paths.Socket(); err != nil {
			return s, err
		}
	}
	// The hook API's socket is found the way limend and limen-hook find it.
	httpSock := paths.HTTPSocketFor(sock)
	if e := envHTTPSocket.get(); e != "" {
		httpSock = e
	}
	if db == "" {
		if db, err = paths.DB(); err != nil {
			return s, err
		}
	}
	for _, p := range []*string{&limend, &sock, &httpSock, &db} {
		if *p, err = filepath.Abs(*p); err != nil {
			return s, err
		}
	}
	s.opts = service.Options{Limend: limend, Socket: sock, HTTPSocket: httpSock, DB: db, Args: extra}
	switch serviceOS {
	case "linux":
		dir, err := service.SystemdUnitDir()
		if err != nil {
			return s, err
		}
		s.files, err = service.Systemd(s.opts, dir)
		if err != nil {
			return s, usagef("%v", err)
		}
	case "darwin":
		dir, err := service.LaunchAgentsDir()
		if err != nil {
			return s, err
		}
		home, _ := os.UserHomeDir()
		s.logDir = filepath.Join(home, "Library", "Logs", "limen")
		s.opts.LogFile = filepath.Join(s.logDir, "limend.log")
		f, err := service.Launchd(s.opts, dir, filepath.Join(s.logDir, "limend.stderr.log"))
		if err != nil {
			return s, usagef("%v", err)
		}
		s.files = []service.File{f}
	default:
		return s, fmt.Errorf("limenctl service knows systemd (Linux) and launchd (macOS), not %s", serviceOS)
	}
	return s, nil
}

// findLimendBinary is the limend installed beside limenctl (go install puts both
// in one directory), else the one on $PATH.
func findLimendBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "limend")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("limend"); err == nil {
		return filepath.Abs(p)
	}
	return "", errors.New("cannot find the limend binary beside limenctl or on $PATH\n" +
		"hint: install it with `go install github.com/limenhq/limen/cmd/...@latest`, or pass --limend PATH")
}

// checkLimendBinary runs limend --version: a unit that starts something else
// would fail at every login, and every call would be ask.
func checkLimendBinary(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(v, "limend ") {
		return "", fmt.Errorf("--limend %s does not run as limend (limend --version said %q, %v)\nhint: pass the limend binary built from this module, or install it with `go install github.com/limenhq/limen/cmd/...@latest`", path, v, err)
	}
	return strings.TrimPrefix(v, "limend "), nil
}

// svcFileChange is what install did to one file.
type svcFileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"` // written, unchanged, would write
}

// writeServiceFiles writes the files that differ from what is on disk, each
// replaced whole (a half-written unit is never read).
func writeServiceFiles(files []service.File) ([]svcFileChange, bool, error) {
	var out []svcFileChange
	changed := false
	for _, f := range files {
		if old, err := os.ReadFile(f.Path); err == nil && string(old) == f.Content {
			out = append(out, svcFileChange{f.Path, "unchanged"})
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return out, changed, fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
		}
		tmp := f.Path + ".limenctl-new"
		if err := os.WriteFile(tmp, []byte(f.Content), service.Mode); err != nil {
			return out, changed, fmt.Errorf("write %s: %w", f.Path, err)
		}
		if err := os.Rename(tmp, f.Path); err != nil {
			os.Remove(tmp)
			return out, changed, fmt.Errorf("write %s: %w", f.Path, err)
		}
		changed = true
		out = append(out, svcFileChange{f.Path, "written"})
	}
	return out, changed, nil
}

// svcManager runs systemctl --user or launchctl, and records what it ran
// with success (a failure is in the error it returns).
type svcManager struct {
	ctx context.Context
	ran []string
}

// run runs one command; its error carries what the command printed.
func (m *svcManager) run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if err == nil {
		m.ran = append(m.ran, name+" "+strings.Join(args, " "))
	} else {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if msg != "" {
			err = fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
		} else {
			err = fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
	}
	return stdout.String(), err
}

func (m *svcManager) systemctl(args ...string) (string, error) {
	return m.run("systemctl", append([]string{"--user"}, args...)...)
}

// systemdAvailable says why systemctl --user cannot be used here, or "".
// A container or an ssh session without a user manager has systemctl but
// no user instance to talk to.
func (m *svcManager) systemdAvailable() string {
	if _, err := exec.LookPath("systemctl"); err != nil {
		return "systemctl is not on $PATH (this system does not run systemd)"
	}
	if _, err := m.systemctl("daemon-reload"); err != nil {
		return "systemctl --user cannot reach your user's systemd (" + err.Error() + ")"
	}
	return ""
}

func (m *svcManager) launchdAvailable() string {
	if _, err := exec.LookPath("launchctl"); err != nil {
		return "launchctl is not on $PATH"
	}
	return ""
}

func launchdTarget() string { return "gui/" + strconv.Itoa(os.Getuid()) }

// serving reports whether something answers on a Unix socket.
func svcSocketAnswers(path string) bool {
	c, err := net.DialTimeout("unix", path, 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func newServiceInstallCmd(a *app) *cobra.Command {
	var dryRun, noEnable bool
	var limend, db string
	cmd := &cobra.Command{
		Use:   "install [-- LIMEND-FLAGS...]",
		Short: "Write and enable limend's service files",
		Long: `install writes limend's service files and enables them, so that limend runs
without anyone starting it. It is safe to run again: files that are already
right are left alone, and a running limend is restarted only when its
files changed (pending asks are kept across the restart).

Flags after -- are passed to limend as they are (see limend --help); the
socket and database flags come from limenctl's own --socket and --db, so
that the socket units and limend agree.

Where systemctl --user cannot be used (no user manager, as in many
containers) the files are still written, and install says how to enable
them where one runs.`,
		Example: `  limenctl service install
  limenctl service install --dry-run          # print the files, write nothing
  limenctl service install -- --log-format json --trusted-gateways ci`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 && len(args) > 0 {
				return usagef("install takes limend's flags after --, as in `limenctl service install -- --log-format json`; got %q", args)
			}
			s, err := a.serviceSetup(limend, db, args)
			if err != nil {
				return err
			}
			ver, err := checkLimendBinary(cmd.Context(), s.opts.Limend)
			if err != nil {
				return err
			}
			if serviceOS == "linux" && a.socket == "" && envRuntimeDir.get() == "" && envSocket.get() == "" {
				// Most logins under systemd set it; a later shell that has it
				// would look for limend in $XDG_RUNTIME_DIR/limen instead.
				fmt.Fprintf(a.errOut, "limenctl: warning: XDG_RUNTIME_DIR is not set, so limend's sockets go in %s; "+
					"if your logins set it, run install from such a session, or limenctl and limen-hook will look for limend elsewhere\n", filepath.Dir(s.opts.Socket))
			}
			m := &svcManager{ctx: cmd.Context()}
			if dryRun {
				return a.printDryRun(s, ver)
			}
			changes, changed, err := writeServiceFiles(s.files)
			if err != nil {
				return err
			}
			res := installResult{Manager: serviceManagerName(), Limend: s.opts.Limend, LimendVersion: ver, Socket: s.opts.Socket, HTTPSocket: s.opts.HTTPSocket, DB: s.opts.DB, Files: changes}
			switch {
			case noEnable:
				res.NotEnabled = "--no-enable"
			case serviceOS == "linux":
				res.NotEnabled, err = enableSystemd(m, s, changed)
			default:
				res.NotEnabled, err = enableLaunchd(m, s, changed)
			}
			res.Ran = m.ran
			if err != nil {
				a.reportInstall(res)
				return err
			}
			return a.reportInstall(res)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "print the files and the commands install would run; write and run nothing")
	f.BoolVar(&noEnable, "no-enable", false, "write the files but do not enable or start them")
	f.StringVar(&limend, "limend", "", "the limend binary the service runs (default: the one beside limenctl, else on $PATH)")
	f.StringVar(&db, "db", envDB.get(), "the database limend keeps (default $XDG_DATA_HOME/limen/limen.db; env LIMEN_DB)")
	return cmd
}

func serviceManagerName() string {
	if serviceOS == "darwin" {
		return "launchd"
	}
	return "systemd"
}

// enableSystemd enables and starts the socket units. It returns why it did
// not, when systemctl --user cannot be used, which is not an error: the
// files are written.
func enableSystemd(m *svcManager, s serviceSetup, changed bool) (string, error) {
	if why := m.systemdAvailable(); why != "" {
		return why, nil
	}
	sockets := []string{service.SocketUnit, service.HTTPSocketUnit}
	active := func(unit string) bool {
		out, _ := m.systemctl("is-active", unit)
		return strings.TrimSpace(out) == "active"
	}
	svcActive, sockActive := active(service.ServiceUnit), active(service.SocketUnit)
	if !svcActive && !sockActive && (svcSocketAnswers(s.opts.Socket) || svcSocketAnswers(s.opts.HTTPSocket)) {
		return "", fmt.Errorf("a limend that systemd did not start is serving on %s; the units are written but not enabled\n"+
			"hint: stop that limend (Ctrl-C in its terminal, or kill its pid), then run `limenctl service install` again", s.opts.Socket)
	}
	if _, err := m.systemctl(append([]string{"enable"}, sockets...)...); err != nil {
		return "", err
	}
	if changed && svcActive {
		// It runs the old command line; stopped, it starts again with the
		// new one on the next call (asks are kept).
		if _, err := m.systemctl("stop", service.ServiceUnit); err != nil {
			return "", err
		}
	}
	verb := "start"
	if changed {
		verb = "restart" // a socket unit listening on an old path moves
	}
	if _, err := m.systemctl(append([]string{verb}, sockets...)...); err != nil {
		return "", fmt.Errorf("%w\nhint: see `systemctl --user status %s` and `journalctl --user -u %s`", err, service.SocketUnit, service.ServiceUnit)
	}
	return "", nil
}

// enableLaunchd loads the agent (bootstrap), reloading it when its plist
// changed; launchd then starts limend (RunAtLoad).
func enableLaunchd(m *svcManager, s serviceSetup, changed bool) (string, error) {
	if why := m.launchdAvailable(); why != "" {
		return why, nil
	}
	if err := os.MkdirAll(s.logDir, 0o700); err != nil {
		return "", fmt.Errorf("create the log directory: %w", err)
	}
	target := launchdTarget() + "/" + service.LaunchdLabel
	_, err := m.run("launchctl", "print", target)
	loaded := err == nil
	if loaded && !changed {
		return "", nil
	}
	if loaded {
		if _, err := m.run("launchctl", "bootout", target); err != nil {
			return "", err
		}
	} else if svcSocketAnswers(s.opts.Socket) {
		return "", fmt.Errorf("a limend that launchd did not start is serving on %s; the agent is written but not loaded\n"+
			"hint: stop that limend (Ctrl-C in its terminal, or kill its pid), then run `limenctl service install` again", s.opts.Socket)
	}
	if _, err := m.run("launchctl", "bootstrap", launchdTarget(), s.files[0].Path); err != nil {
		return "", err
	}
	return "", nil
}

// installResult is what install reports, as text or --json.
type installResult struct {
	Manager       string          `json:"manager"`
	Limend        string          `json:"limend"`
	LimendVersion string          `json:"limend_version"`
	Socket        string          `json:"socket"`
	HTTPSocket    string          `json:"http_socket"`
	DB            string          `json:"db"`
	Files         []svcFileChange `json:"files"`
	Ran           []string        `json:"ran,omitempty"`
	// NotEnabled says why the files were written but not enabled.
	NotEnabled string `json:"not_enabled,omitempty"`
}

func (a *app) reportInstall(r installResult) error {
	if a.json {
		return a.printJSON(r)
	}
	for _, f := range r.Files {
		fmt.Fprintf(a.out, "%-9s %s\n", f.Change, f.Path)
	}
	fmt.Fprintf(a.out, "limend    %s (%s)\nsockets   %s\n          %s\ndatabase  %s\n", r.Limend, r.LimendVersion, r.Socket, r.HTTPSocket, r.DB)
	for _, c := range r.Ran {
		fmt.Fprintf(a.out, "ran       %s\n", c)
	}
	if r.NotEnabled != "" {
		if r.NotEnabled != "--no-enable" {
			fmt.Fprintf(a.errOut, "limenctl: warning: the files are written but not enabled: %s\n", r.NotEnabled)
		}
		if r.Manager == "systemd" {
			fmt.Fprintf(a.out, "\nnot enabled; where your user's systemd runs, enable them with:\n  systemctl --user daemon-reload\n  systemctl --user enable --now %s %s\n", service.SocketUnit, service.HTTPSocketUnit)
		} else {
			fmt.Fprintf(a.out, "\nnot loaded; load it with:\n  launchctl bootstrap %s %s\n", launchdTarget(), r.Files[0].Path)
		}
		return nil
	}
	if r.Manager == "systemd" {
		fmt.Fprintln(a.out, "\nlimend starts on the first call to its sockets, now and after every reboot.")
	} else {
		fmt.Fprintln(a.out, "\nlimend runs now and starts at every login.")
	}
	fmt.Fprintln(a.out, "next: limenctl hook install claude-code   (then limenctl service status, limenctl doctor)")
	return nil
}

func (a *app) printDryRun(s serviceSetup, ver string) error {
	if a.json {
		type file struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		out := struct {
			Manager       string `json:"manager"`
			LimendVersion string `json:"limend_version"`
			Files         []file `json:"files"`
		}{Manager: serviceManagerName(), LimendVersion: ver}
		for _, f := range s.files {
			out.Files = append(out.Files, file{f.Path, f.Content})
		}
		return a.printJSON(out)
	}
	for _, f := range s.files {
		fmt.Fprintf(a.out, "# %s\n%s\n", f.Path, f.Content)
	}
	if serviceOS == "linux" {
		fmt.Fprintf(a.out, "# then: systemctl --user daemon-reload && systemctl --user enable --now %s %s\n", service.SocketUnit, service.HTTPSocketUnit)
	} else {
		fmt.Fprintf(a.out, "# then: launchctl bootstrap %s %s\n", launchdTarget(), s.files[0].Path)
	}
	fmt.Fprintln(a.out, "# (dry run: nothing written)")
	return nil
}

func newServiceUninstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Stop limend's service and remove its files",
		Long: `uninstall stops limend's service, disables it and removes the files install
wrote (only files that carry install's mark). The database stays: start
limend by hand, or install again, and nothing is lost.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.serviceSetup("/limend", "", nil) // the paths of the files only
			if err != nil {
				return err
			}
			m := &svcManager{ctx: cmd.Context()}
			installed := false
			for _, f := range s.files {
				if _, err := os.Stat(f.Path); err == nil {
					installed = true
				}
			}
			var note string
			switch {
			case !installed:
				// Nothing to stop, and systemctl disable of units that do
				// not exist fails.
			case serviceOS == "linux":
				if note = m.systemdAvailable(); note == "" {
					if _, err := m.systemctl("disable", "--now", service.SocketUnit, service.HTTPSocketUnit, service.ServiceUnit); err != nil {
						return err
					}
				}
			default:
				if note = m.launchdAvailable(); note != "" {
					break
				}
				target := launchdTarget() + "/" + service.LaunchdLabel
				if _, err := m.run("launchctl", "print", target); err == nil {
					if _, err := m.run("launchctl", "bootout", target); err != nil {
						return err
					}
				}
			}
			var removed []svcFileChange
			var kept []string
			for _, f := range s.files {
				b, err := os.ReadFile(f.Path)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					continue
				case err != nil:
					return err
				case !bytes.Contains(b, []byte(serviceWrittenMark)):
					kept = append(kept, f.Path)
					continue
				}
				if err := os.Remove(f.Path); err != nil {
					return err
				}
				removed = append(removed, svcFileChange{f.Path, "removed"})
			}
			if serviceOS == "linux" && installed && note == "" {
				if _, err := m.systemctl("daemon-reload"); err != nil {
					return err
				}
			}
			if a.json {
				return a.printJSON(struct {
					Files      []svcFileChange `json:"files"`
					Kept       []string        `json:"kept,omitempty"`
					Ran        []string        `json:"ran,omitempty"`
					NotStopped string          `json:"not_stopped,omitempty"`
				}{removed, kept, m.ran, note})
			}
			for _, f := range removed {
				fmt.Fprintf(a.out, "removed   %s\n", f.Path)
			}
			for _, c := range m.ran {
				fmt.Fprintf(a.out, "ran       %s\n", c)
			}
			for _, k := range kept {
				fmt.Fprintf(a.errOut, "limenctl: warning: kept %s: install did not write it (it lacks %q); remove it yourself if it is limen's\n", k, serviceWrittenMark)
			}
			if note != "" {
				fmt.Fprintf(a.errOut, "limenctl: warning: nothing was stopped: %s\n", note)
			}
			if len(removed) == 0 && len(kept) == 0 {
				fmt.Fprintln(a.out, "limend's service was not installed; nothing to remove")
			}
			return nil
		},
	}
}

// svcUnitState is one unit's or agent's state as its manager reports it.
type svcUnitState struct {
	Name    string `json:"name"`
	Load    string `json:"load,omitempty"`
	Active  string `json:"active,omitempty"`
	Sub     string `json:"sub,omitempty"`
	Enabled string `json:"enabled,omitempty"`
	PID     string `json:"pid,omitempty"`
}

// serviceStatus is what status reports.
type serviceStatus struct {
	Manager string `json:"manager"`
	// Unavailable says why the manager could not be asked.
	Unavailable string          `json:"unavailable,omitempty"`
	Files       []svcFileStatus `json:"files"`
	Units       []svcUnitState  `json:"units,omitempty"`
	Limend      svcLimendState  `json:"limend"`
}

type svcFileStatus struct {
	Path string `json:"path"`
	// State is installed, missing or outdated (not what install would write
	// now: another binary or other paths).
	State string `json:"state"`
}

type svcLimendState struct {
	Socket    string        `json:"socket"`
	Reachable bool          `json:"reachable"`
	Version   *version.Info `json:"version,omitempty"`
	Error     string        `json:"error,omitempty"`
}

func newServiceStatusCmd(a *app) *cobra.Command {
	var limend string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the service's files, units, sockets and the running limend's version",
		Long: `status shows whether limend's service files are installed and current, what
systemd (or launchd) says of each unit, and which limend answers on the
socket. Asking limend starts it if its socket is activated and it was not
running: status shows what a hook call would find.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limend == "" {
				limend, _ = findLimendBinary() // only to tell whether the files are current
			}
			if limend == "" {
				limend = "/limend"
			}
			s, err := a.serviceSetup(limend, "", nil)
			if err != nil {
				return err
			}
			m := &svcManager{ctx: cmd.Context()}
			st := serviceStatus{Manager: serviceManagerName()}
			for _, f := range s.files {
				fs := svcFileStatus{Path: f.Path, State: "missing"}
				if b, err := os.ReadFile(f.Path); err == nil {
					fs.State = "installed"
					if string(b) != f.Content {
						fs.State = "outdated"
					}
				}
				st.Files = append(st.Files, fs)
			}
			if serviceOS == "linux" {
				if _, err := exec.LookPath("systemctl"); err != nil {
					st.Unavailable = "systemctl is not on $PATH"
				}
				for _, u := range []string{service.SocketUnit, service.HTTPSocketUnit, service.ServiceUnit} {
					if st.Unavailable != "" {
						break
					}
					out, err := m.systemctl("show", u, "--property=LoadState,ActiveState,SubState,UnitFileState,MainPID")
					if err != nil {
						st.Unavailable = "systemctl --user cannot reach your user's systemd (" + err.Error() + ")"
						break
					}
					p := svcKeyValues(out, "=")
					us := svcUnitState{Name: u, Load: p["LoadState"], Active: p["ActiveState"], Sub: p["SubState"], Enabled: p["UnitFileState"]}
					if pid := p["MainPID"]; pid != "" && pid != "0" {
						us.PID = pid
					}
					st.Units = append(st.Units, us)
				}
			} else if st.Unavailable = m.launchdAvailable(); st.Unavailable == "" {
				us := svcUnitState{Name: service.LaunchdLabel, Load: "not loaded"}
				if out, err := m.run("launchctl", "print", launchdTarget()+"/"+service.LaunchdLabel); err == nil {
					p := svcKeyValues(out, " = ")
					us.Load, us.Active, us.PID = "loaded", p["state"], p["pid"]
				}
				st.Units = append(st.Units, us)
			}
			st.Limend = a.svcLimendState(cmd, s.opts.Socket)
			return a.reportStatus(st)
		},
	}
	cmd.Flags().StringVar(&limend, "limend", "", "the limend binary the files should name (default: the one beside limenctl, else on $PATH)")
	return cmd
}

// svcKeyValues reads "key=value" lines (systemctl show) or "key = value"
// lines (launchctl print; the first of each key wins, as nested blocks
// repeat some).
func svcKeyValues(out, sep string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), sep)
		if _, seen := m[k]; ok && !seen {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

func (a *app) svcLimendState(cmd *cobra.Command, socket string) svcLimendState {
	ls := svcLimendState{Socket: socket}
	c, err := client.Dial(socket)
	if err != nil {
		ls.Error = err.Error()
		return ls
	}
	defer c.Close()
	ctx, cancel := a.ctx(cmd)
	defer cancel()
	v, err := limendVersion(ctx, c)
	if err != nil {
		_, msg := classify(err, socket, "limenctl service status")
		msg, _, _ = strings.Cut(msg, "\nhint: ") // status gives the service's own hint
		ls.Error = msg
		return ls
	}
	ls.Reachable, ls.Version = true, v
	return ls
}

func (a *app) reportStatus(st serviceStatus) error {
	if a.json {
		return a.printJSON(st)
	}
	w := a.table()
	for _, f := range st.Files {
		fmt.Fprintf(w, "file\t%s\t%s\n", f.State, f.Path)
	}
	for _, u := range st.Units {
		state := strings.TrimSpace(u.Active + " " + svcParen(u.Sub))
		if state == "" {
			state = u.Load
		}
		extra := ""
		if u.Enabled != "" {
			extra = u.Enabled
		}
		if u.PID != "" {
			extra = strings.TrimSpace(extra + " pid " + u.PID)
		}
		fmt.Fprintf(w, "unit\t%s\t%s\t%s\n", u.Name, state, extra)
	}
	if st.Limend.Reachable {
		fmt.Fprintf(w, "limend\tserving\t%s\t%s\n", st.Limend.Socket, versionText(st.Limend.Version))
	} else {
		fmt.Fprintf(w, "limend\tunreachable\t%s\t%s\n", st.Limend.Socket, strings.ReplaceAll(st.Limend.Error, "\n", " "))
	}
	w.Flush()
	if st.Unavailable != "" {
		fmt.Fprintf(a.errOut, "limenctl: warning: unit states unknown: %s\n", st.Unavailable)
	}
	if !st.Limend.Reachable {
		if st.Manager == "systemd" {
			fmt.Fprintf(a.errOut, "limenctl: hint: `systemctl --user status %s %s` and `journalctl --user -u %s` say why\n", service.SocketUnit, service.ServiceUnit, service.ServiceUnit)
		} else {
			fmt.Fprintln(a.errOut, "limenctl: hint: ~/Library/Logs/limen/limend.log and limend.stderr.log say why")
		}
	}
	for _, f := range st.Files {
		if f.State != "installed" {
			fmt.Fprintln(a.errOut, "limenctl: hint: run `limenctl service install` to write the missing or outdated files")
			break
		}
	}
	return nil
}

func svcParen(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}
