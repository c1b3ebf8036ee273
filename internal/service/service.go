package service

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Unit names of the systemd user units, and the launchd agent's label.
const (
	// ServiceUnit runs limend; the socket units start it.
	ServiceUnit = "limend.service"
	// SocketUnit holds limend's gRPC socket.
	SocketUnit = "limend.socket"
	// HTTPSocketUnit holds the hook API's socket, the one limen-hook calls.
	HTTPSocketUnit = "limend-http.socket"
	// LaunchdLabel names the launchd agent (and its plist file).
	LaunchdLabel = "com.github.limenhq.limend"
)

// Options is what the service files name: the same paths limend is
// started with, so that the sockets systemd makes are the ones clients
// dial.
type Options struct {
	// Limend is the absolute path of the limend binary.
	Limend string
	// Socket is limend's gRPC Unix socket (--socket).
	Socket string
	// HTTPSocket is the hook API's Unix socket (--http-socket).
	HTTPSocket string
	// DB is the database file (--db).
	DB string
	// LogFile, if set, is passed as --log-file. Under systemd limend logs to
	// the journal without it; launchd has no journal, so its agent sets one.
	LogFile string
	// Args are further limend flags, given as they are.
	Args []string
}

// File is one file to write.
type File struct {
	// Path is where the file goes, absolute.
	Path string
	// Content is the whole file.
	Content string
}

// Mode is the mode the files are written with: they name nothing secret,
// but only their owner should change what runs as them.
const Mode fs.FileMode = 0o644

// Check refuses options the files could not carry faithfully: a relative
// path (a service starts in another directory), control characters, or
// a socket or database flag in Args: those must be the ones the socket
// units and limenctl agree on.
func (o Options) Check() error {
	for _, p := range []struct{ flag, path string }{
		{"the limend binary", o.Limend}, {"--socket", o.Socket}, {"--http-socket", o.HTTPSocket}, {"--db", o.DB}, {"--log-file", o.LogFile},
	} {
		if p.path == "" && (p.flag == "--log-file") {
			continue
		}
		if p.path == "" {
			return fmt.Errorf("%s: no path given", p.flag)
		}
		if !filepath.IsAbs(p.path) {
			return fmt.Errorf("%s %q: give an absolute path; a service does not start in this directory", p.flag, p.path)
		}
		if err := plain(p.flag, p.path); err != nil {
			return err
		}
	}
	for _, a := range o.Args {
		if err := plain("limend argument", a); err != nil {
			return err
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--socket", "--http-socket", "--db":
			return fmt.Errorf("limend argument %s: the service files set it from limenctl's own %s flag, so that the socket units and limend agree; pass it there", a, name)
		}
	}
	return nil
}

func plain(what, s string) error {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Errorf("%s %q holds a control character (a newline?); a unit file cannot carry it", what, s)
	}
	return nil
}

// args is limend's command line after the binary.
func (o Options) args() []string {
	a := []string{"--socket", o.Socket, "--http-socket", o.HTTPSocket, "--db", o.DB}
	if o.LogFile != "" {
		a = append(a, "--log-file", o.LogFile)
	}
	return append(a, o.Args...)
}

// SystemdUnitDir is where systemd looks for a user's own units:
// $XDG_CONFIG_HOME/systemd/user, default ~/.config/systemd/user.
func SystemdUnitDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "systemd", "user"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find the systemd user unit directory: set HOME (or XDG_CONFIG_HOME)")
	}
	return filepath.Join(home, ".config", "systemd", "user"), nil
}

// LaunchAgentsDir is where launchd loads a user's agents from at login:
// ~/Library/LaunchAgents.
func LaunchAgentsDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find ~/Library/LaunchAgents: set HOME")
	}
	return filepath.Join(home, "Library", "LaunchAgents"), nil
}

const header = "# Written by limenctl service install; limenctl service uninstall removes it.\n" +
	"# Run limenctl service install again after changing it by hand, or it is overwritten.\n"

// Systemd returns the three user units, to be written in dir: limend.socket
// and limend-http.socket, which systemd listens on from login (so the
// first call after a reboot starts limend), and limend.service, which
// receives both sockets by their FileDescriptorName= and is restarted if
// it fails. The socket units are the ones to enable.
func Systemd(o Options, dir string) ([]File, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	exec := []string{systemdQuote(o.Limend)}
	for _, a := range o.args() {
		exec = append(exec, systemdQuote(a))
	}
	svc := header + `[Unit]
Description=limen's decision daemon (limend)
Documentation=https://github.com/limenhq/limen
Requires=` + SocketUnit + ` ` + HTTPSocketUnit + `
After=` + SocketUnit + ` ` + HTTPSocketUnit + `

[Service]
ExecStart=` + strings.Join(exec, " ") + `
Sockets=` + SocketUnit + ` ` + HTTPSocketUnit + `
# limend logs to stderr, which is the journal: journalctl --user -u ` + ServiceUnit + `
Restart=on-failure
RestartSec=1s
# On SIGTERM limend lets open calls finish and closes its database; pending
# asks are kept for the next start.
KillSignal=SIGTERM
TimeoutStopSec=20s
UMask=0077
NoNewPrivileges=yes

[Install]
Also=` + SocketUnit + ` ` + HTTPSocketUnit + `
`
	sock := func(what, path, name string) string {
		return header + `[Unit]
Description=limen's ` + what + ` (starts limend on the first call)
Documentation=https://github.com/limenhq/limen

[Socket]
ListenStream=` + systemdEscape(path) + `
FileDescriptorName=` + name + `
Service=` + ServiceUnit + `
SocketMode=0600
DirectoryMode=0700
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
`
	}
	return []File{
		{Path: filepath.Join(dir, SocketUnit), Content: sock("gRPC socket", o.Socket, GRPCSocketName)},
		{Path: filepath.Join(dir, HTTPSocketUnit), Content: sock("hook API socket", o.HTTPSocket, HTTPSocketName)},
		{Path: filepath.Join(dir, ServiceUnit), Content: svc},
	}, nil
}

// systemdEscape doubles what systemd would expand in a unit's value:
// specifiers (%h) and, in ExecStart=, environment variables ($HOME).
func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
}

// systemdQuote is one ExecStart= word: double-quoted, so spaces stay
// inside it, with backslashes and quotes escaped.
func systemdQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(systemdEscape(s)) + `"`
}

// Launchd returns the launchd agent, to be written in dir
// (~/Library/LaunchAgents): limend started at login (RunAtLoad) and again
// whenever it exits with a failure (KeepAlive with SuccessfulExit false;
// a clean stop by SIGTERM stays stopped). It is not socket-activated:
// launchd hands sockets over only through launch_activate_socket(3),
// which a Go program cannot call without cgo, so limend starts at login
// instead of at the first call. Its log goes to o.LogFile (rotated by
// limend); what it prints before the log is open goes to stderrPath.
func Launchd(o Options, dir, stderrPath string) (File, error) {
	if err := o.Check(); err != nil {
		return File{}, err
	}
	if !filepath.IsAbs(stderrPath) {
		return File{}, fmt.Errorf("launchd stderr path %q: give an absolute path", stderrPath)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by limenctl service install; limenctl service uninstall removes it. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + LaunchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{o.Limend}, o.args()...) {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>2</integer>
	<key>ExitTimeOut</key>
	<integer>20</integer>
	<key>Umask</key>
	<integer>63</integer>
	<key>StandardErrorPath</key>
	<string>` + xmlText(stderrPath) + `</string>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
	return File{Path: filepath.Join(dir, LaunchdLabel+".plist"), Content: b.String()}, nil
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
