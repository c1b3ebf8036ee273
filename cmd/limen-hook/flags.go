package main

import (
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/serverpeer"
)

// The flags are parsed by hand (--name value, --name=value; one dash is
// accepted too, as older installations may have written it; -- and the
// first non-flag argument end them), because the flag and pflag packages
// bring fmt and reflect with them, and their start-up cost is paid on every
// tool call. The help reads like every other limen command's (cobra's
// layout); TestHelpIsCobraStyle checks the flag lines against what pflag
// prints for the same flags.

const usage = `limen-hook asks limend whether an agent may make a tool call.

The agent runtime runs it before each tool call with the call as JSON on
stdin; it prints the runtime's answer on stdout and exits 0. Install it in
Claude Code with:

  limenctl hook install claude-code

What happens to an ask is chosen with --on-ask:
  prompt  print ask at once, so the runtime asks the person its own way
  wait    wait for an answer in limen (limenctl answer, the TUI) until
          --timeout, then print allow or deny; ask if nobody answered
  dialog  (Claude Code) say nothing about an ask the prediction made, so
          that Claude Code's own rules and dialog decide, with its "don't
          ask again"; limen learns the answer (see limenctl hook install)

At --timeout it prints ask and exits, whatever it was doing: keep --timeout
well below the runtime's hook timeout (Claude Code kills a late hook and
ignores its answer).

Usage:
  limen-hook [flags]

Examples:
  limen-hook < call.json
  limen-hook --on-ask=wait --timeout=50s
  limen-hook --format codex
  limen-hook --format gemini --socket /run/user/1000/limen/limend-http.sock

Flags:
`

// flagDefaults is the flag list as pflag's FlagUsages prints it.
const flagDefaults = `      --format string       ` + formatHelp + ` (default "claude-code")
  -h, --help                help for limen-hook
      --on-ask string       ` + onAskHelp + ` (default "prompt")
      --server-uid string   ` + serverUIDHelp + `
      --socket string       ` + socketHelp + `
      --timeout duration    ` + timeoutHelp + ` (default 5s)
  -v, --version             version for limen-hook
`

const (
	formatHelp  = "the runtime's hook format: claude-code, codex or gemini"
	onAskHelp   = "prompt: print ask at once; wait: wait for an answer in limen until --timeout; dialog: leave the prediction's asks to Claude Code's dialog"
	socketHelp  = "limend's HTTP socket (default $LIMEN_HTTP_SOCKET, else beside $LIMEN_SOCKET, else $XDG_RUNTIME_DIR/limen/limend-http.sock)"
	timeoutHelp = "print ask and exit at this deadline; keep it below the runtime's hook timeout"
	// The check itself is in internal/serverpeer, run on every connection.
	serverUIDHelp = "the uid limend runs as; a socket served by any other user is not believed (default $LIMEN_SERVER_UID, else your own uid)"

	defaultTimeout = 5 * time.Second
)

// envVars is the table of the environment variables limen-hook reads, each
// with the flag it is the default of; its --help names each on that
// flag's line (TestEnvInHelp). They are read late and only when the flag
// is not given (os.Getenv copies the whole environment on its first call,
// on every tool call's path), by the code limend and limenctl share:
// hookout.DefaultHTTPSocket and internal/paths for the socket (paths falls
// back to the platform's state directory without XDG_RUNTIME_DIR), and
// internal/serverpeer for the uid.
var envVars = []struct{ name, flag string }{
	{paths.EnvHTTPSocket, "socket"},
	{paths.EnvSocket, "socket"},
	{"XDG_RUNTIME_DIR", "socket"},
	{serverpeer.EnvServerUID, "server-uid"},
}

// errHelp is -h or --help, and errVersion -v or --version: the usage or
// the version was printed and no answer is due.
var (
	errHelp    = errors.New("help requested")
	errVersion = errors.New("version requested")
)

type options struct {
	format    string
	onAsk     string
	timeout   time.Duration
	socket    string
	serverUID string
}

// parseFlags reads the command line. On an error it has already printed
// the error on stderr, with where to read the usage, as limenctl does.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{format: "claude-code", onAsk: "prompt", timeout: defaultTimeout}
	fail := func(msg string) (options, error) {
		io.WriteString(stderr, "limen-hook: "+msg+"\nhint: see limen-hook --help\n")
		return o, errors.New(msg)
	}
	for len(args) > 0 {
		s := args[0]
		if len(s) < 2 || s[0] != '-' {
			break
		}
		dashes := 1
		if s[1] == '-' {
			dashes++
			if len(s) == 2 { // "--" ends the flags
				break
			}
		}
		name := s[dashes:]
		if name == "" || name[0] == '-' || name[0] == '=' {
			return fail("bad flag syntax: " + s)
		}
		args = args[1:]
		value, hasValue := "", false
		for i := 1; i < len(name); i++ {
			if name[i] == '=' {
				name, value, hasValue = name[:i], name[i+1:], true
				break
			}
		}
		var dst *string
		switch name {
		case "format":
			dst = &o.format
		case "on-ask":
			dst = &o.onAsk
		case "socket":
			dst = &o.socket
		case "server-uid":
			dst = &o.serverUID
		case "timeout":
		case "help", "h":
			return o, errHelp
		case "version", "v":
			return o, errVersion
		default:
			return fail("unknown flag: --" + name)
		}
		if !hasValue {
			if len(args) == 0 {
				return fail("flag needs an argument: --" + name)
			}
			value, args = args[0], args[1:]
		}
		if dst != nil {
			*dst = value
			continue
		}
		d, err := time.ParseDuration(value)
		if err != nil {
			return fail("invalid argument " + strconv.Quote(value) + " for \"--" + name + "\" flag: give a duration such as 5s or 50s")
		}
		o.timeout = d
	}
	return o, nil
}
