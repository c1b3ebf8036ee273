package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/version"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Exit codes, distinct so scripts can tell what went wrong.
const (
	exitOK          = 0
	exitFailure     = 1 // anything else
	exitUsage       = 2 // bad flags or arguments
	exitUnreachable = 3 // limend could not be reached
	exitRefused     = 4 // limend refused the request (bad input, unknown id, version conflict)
	// decide and await exit 0 only when the verdict is allow, so that
	// `limenctl decide "$cmd" && sh -c "$cmd"` can never run what limen did
	// not allow.
	exitAsk   = 5
	exitBlock = 6
)

// verdictExit ends decide and await with the exit code of a verdict that
// is not allow; it prints nothing more.
type verdictExit struct{ code int }

func (v verdictExit) Error() string { return fmt.Sprintf("verdict exit %d", v.code) }

// exitFor returns nil for allow and a verdictExit for anything else, ask
// included: an unspecified verdict is ask.
func exitFor(v limenv1.Verdict) error {
	switch convert.Verdict(v) {
	case policy.Allow:
		return nil
	case policy.Block:
		return verdictExit{exitBlock}
	}
	return verdictExit{exitAsk}
}

// usageError marks errors in how limenctl was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// app holds what every command shares.
type app struct {
	socket  string
	json    bool
	timeout time.Duration
	out     io.Writer
	errOut  io.Writer
}

func (a *app) dial() (*client.Client, error) { return client.Dial(a.socket) }

func (a *app) ctx(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), a.timeout)
}

// connect dials limend and bounds the command's calls by --timeout; done
// releases both.
func (a *app) connect(cmd *cobra.Command) (*client.Client, context.Context, func(), error) {
	c, err := a.dial()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := a.ctx(cmd)
	return c, ctx, func() { cancel(); c.Close() }, nil
}

// table returns a tabwriter for aligned columns.
func (a *app) table() *tabwriter.Writer { return tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0) }

// printJSON writes proto messages (or plain values) as indented JSON.
func (a *app) printJSON(v any) error {
	if m, ok := v.(proto.Message); ok {
		b, err := protojson.MarshalOptions{Multiline: true, Indent: "  ", UseProtoNames: true}.Marshal(m)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.out, string(b))
		return err
	}
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func execute(args []string, stdout, stderr io.Writer) int {
	out := &countingWriter{w: stdout}
	a := &app{out: out, errOut: stderr}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(context.Background())
	if err == nil {
		return exitOK
	}
	var ve verdictExit
	if errors.As(err, &ve) {
		return ve.code
	}
	if cmd == nil {
		cmd = root
	}
	code, msg := classify(err, a.socket, cmd.CommandPath())
	if a.json && out.n == 0 && jsonErrors(cmd) {
		// A script asked for JSON: it gets JSON on stdout even when the
		// command failed, and decide and await say what a runtime must do
		// without limend: ask a person.
		text, hint, _ := strings.Cut(msg, "\nhint: ")
		v := struct {
			Verdict  string `json:"verdict,omitempty"`
			Error    string `json:"error"`
			Hint     string `json:"hint,omitempty"`
			ExitCode int    `json:"exit_code"`
		}{Error: text, Hint: hint, ExitCode: code}
		if name := cmd.Name(); (name == "decide" || name == "await") && cmd.Parent() == root && code != exitUsage {
			v.Verdict = limenv1.Verdict_VERDICT_ASK.String()
		}
		_ = a.printJSON(v)
	}
	fmt.Fprintln(stderr, "limenctl:", msg)
	return code
}

// jsonErrors reports whether a failed command prints its error as JSON
// under --json: every command but those whose stdout belongs to a protocol
// (hook, mcp-gate) or a screen (tui).
func jsonErrors(cmd *cobra.Command) bool {
	for c := cmd; c != nil && c.HasParent(); c = c.Parent() {
		if c.Parent().HasParent() {
			continue
		}
		switch c.Name() {
		case "hook", "mcp-gate", "tui":
			return false
		}
	}
	return true
}

// countingWriter counts what a command printed, so an error is given as
// JSON only when the command printed nothing.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// classify picks the exit code and words the error with a hint; cmdPath is
// the command that failed ("limenctl answer"), whose help the hint names.
func classify(err error, socket, cmdPath string) (int, string) {
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage, err.Error() + "\nhint: see " + cmdPath + " --help"
	}
	var nf notFoundError
	var bi badInputError
	if errors.As(err, &nf) || errors.As(err, &bi) {
		return exitRefused, "refused: " + err.Error()
	}
	problem := client.ProblemOf(err) // Internal for an error without a gRPC status
	// The text without gRPC's "rpc error: code = … desc = " wrapping, with
	// whatever the command wrapped around it (a hint, say) kept once.
	text := client.Message(err)
	switch {
	case problem.Unreached():
		if socket == "" {
			if s, err := paths.Socket(); err == nil {
				socket = s
			} else {
				socket = "the default socket"
			}
		}
		if isHTTPSocket(text) || answersHTTP(socket) {
			return exitUnreachable, fmt.Sprintf("%s is not limend's gRPC socket: it answers HTTP (%s)\n"+
				"hint: this is limend's HTTP hook socket (limend-http.sock); point --socket at the gRPC socket (limend.sock)", socket, text)
		}
		if problem == client.Timeout {
			if _, err := os.Stat(socket); err == nil {
				// Something listens there: limend is slow or stuck, not
				// missing.
				return exitUnreachable, fmt.Sprintf("limend at %s did not answer within --timeout (%s)\nhint: it may be busy or stuck: raise --timeout, or look at limend's log", socket, text)
			}
		}
		if why := notRunning(text, socket); why != "" {
			return exitUnreachable, "limend is not running: " + why + "\nhint: " + startHint
		}
		return exitUnreachable, fmt.Sprintf("cannot reach limend at %s: %s\nhint: start it with `limend` (or `go run ./cmd/limend` in the source tree), or pass --socket", socket, text)
	case problem.Refused():
		return exitRefused, "refused: " + text
	}
	return exitFailure, text
}

// isHTTPSocket reports whether a connection error says the peer speaks
// HTTP/1 rather than gRPC: what gRPC reports when --socket names limend's
// HTTP hook socket.
func isHTTPSocket(text string) bool {
	for _, s := range []string{"http2: frame too large", "HTTP/1.", "malformed HTTP", "http2: failed reading the frame payload"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// answersHTTP reports whether the Unix socket at path speaks HTTP/1: what
// gRPC's error says depends on how far its handshake got, so on a failure
// limenctl asks the socket itself.
func answersHTTP(path string) bool {
	conn, err := net.DialTimeout("unix", path, 500*time.Millisecond)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := io.WriteString(conn, "HEAD / HTTP/1.1\r\nHost: limend\r\nConnection: close\r\n\r\n"); err != nil {
		return false
	}
	reply := make([]byte, 7)
	_, err = io.ReadFull(conn, reply)
	return err == nil && string(reply) == "HTTP/1."
}

// needArgs is an Args validator that says what a command's arguments are
// when they are missing or too many, with the usage line: cobra's own says
// only "accepts 1 arg(s), received 0".
func needArgs(n int, what, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usagef("%s needs %s: %s", cmd.Name(), what, usage)
		case len(args) > n:
			extra := args[n:]
			return usagef("%s takes %s, and no more (left over: %s): %s", cmd.Name(), what, strings.Join(extra, " "), usage)
		}
		return nil
	}
}

func isCobraUsage(err error) bool {
	m := err.Error()
	for _, s := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "required flag", "if any flags in the group"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "limenctl",
		Short: "Talk to limend: decide actions, answer asks, tune the policy",
		Long: `limenctl talks to limend, limen's decision daemon, over its Unix socket.

Exit codes: 0 success, 1 other failure, 2 usage error, 3 limend unreachable,
4 request refused by limend (bad input, unknown id, version conflict).
decide and await exit 0 only for allow: 5 for ask, 6 for block.

` + envHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
	}
	root.SetVersionTemplate("limenctl {{.Version}}\n")
	root.PersistentFlags().StringVar(&a.socket, "socket", envSocket.get(), "limend's Unix socket (default $XDG_RUNTIME_DIR/limen/limend.sock; env LIMEN_SOCKET)")
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print JSON instead of tables, for scripts")
	root.PersistentFlags().DurationVar(&a.timeout, "timeout", 5*time.Second, "how long to wait for limend")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newDecideCmd(a), newAnswerCmd(a), newPendingCmd(a), newAwaitCmd(a),
		newPolicyCmd(a), newHistoryCmd(a), newForgetCmd(a), newStatusCmd(a),
		newBenchCmd(a),
		newHookCmd(a), newMCPGateCmd(a),
		newTUICmd(a),
		newEvalCmd(a),
		newDoctorCmd(a),
		newServiceCmd(a),
		newPairCmd(a), newDevicesCmd(a), // the web app (pair.go, devices.go)
	)
	// "limenctl version" is what people type first; it prints what
	// --version does rather than "unknown command".
	root.AddCommand(&cobra.Command{
		Use:    "version",
		Short:  "Print limenctl's version (as --version does)",
		Hidden: true,
		Args:   cobra.NoArgs,
		Run:    func(*cobra.Command, []string) { fmt.Fprintln(a.out, "limenctl "+version.Get().String()) },
	})
	addCompletions(root, a)
	return root
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
