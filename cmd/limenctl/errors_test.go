package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
)

// runCtl runs the command in-process, as main does.
func runCtl(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := execute(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestUsageErrorsNameTheCommand: a usage error says what is missing, shows
// the usage line, and its hint names the failing command's help.
func TestUsageErrorsNameTheCommand(t *testing.T) {
	tests := []struct {
		args  []string
		wants []string
	}{
		{[]string{"answer"}, []string{"answer needs the ask id, as shown by limenctl pending: limenctl answer ID --approve|--deny", "hint: see limenctl answer --help"}},
		{[]string{"answer", "1", "2", "--approve"}, []string{"left over: 2", "limenctl answer ID --approve|--deny"}},
		{[]string{"await"}, []string{"await needs the ask id", "limenctl await ID", "hint: see limenctl await --help"}},
		{[]string{"eval"}, []string{"eval needs the labelled stream", "limenctl eval STREAM.jsonl", "hint: see limenctl eval --help"}},
		{[]string{"history", "--bogus"}, []string{"unknown flag: --bogus", "hint: see limenctl history --help"}},
		{[]string{"answer", "1", "--approve", "--deny"}, []string{"--approve or --deny, not both", "hint: see limenctl answer --help"}},
		{[]string{"nosuch"}, []string{"unknown command", "hint: see limenctl --help"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := runCtl(tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d; want %d", code, exitUsage)
			}
			for _, w := range tt.wants {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if strings.Contains(errOut, "accepts 1 arg(s)") {
				t.Errorf("stderr has cobra's bare message: %q", errOut)
			}
		})
	}
}

// TestGRPCErrorText: a gRPC error wrapped with a hint prints as its status
// message, once, with the hint once; never as "rpc error: code = …".
func TestGRPCErrorText(t *testing.T) {
	inner := status.Error(codes.Aborted, "version conflict: the policy is at version 3")
	for _, err := range []error{
		inner,
		fmt.Errorf("%w\nhint: see limenctl policy diff 2 3", inner),
		fmt.Errorf("set policy: %w", inner),
	} {
		code, msg := classify(err, "/run/limend.sock", "limenctl policy set")
		if code != exitRefused || strings.Contains(msg, "rpc error") || strings.Count(msg, "version conflict") != 1 || strings.Count(msg, "hint:") > 1 {
			t.Errorf("classify(%q) = %d, %q; want refused, the status message once, at most one hint", err, code, msg)
		}
		if strings.Contains(err.Error(), "hint:") && !strings.Contains(msg, "hint: see limenctl policy diff 2 3") {
			t.Errorf("classify(%q) lost the hint: %q", err, msg)
		}
	}
	if _, msg := classify(errors.New("plain"), "", "limenctl status"); msg != "plain" {
		t.Errorf("a plain error is worded %q", msg)
	}
}

// TestHTTPSocket: --socket pointed at limend's HTTP hook socket says so
// and names the socket to use, instead of gRPC's "http2: frame too large".
func TestHTTPSocket(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	l := limentest.Start(t, func(c *daemon.Config) { c.HTTPSocket = filepath.Join(filepath.Dir(c.Socket), "limend-http.sock") })
	_, errOut, code := runCtl("--socket", l.Config.HTTPSocket, "status")
	if code != exitUnreachable || !strings.Contains(errOut, "this is limend's HTTP hook socket (limend-http.sock); point --socket at the gRPC socket (limend.sock)") {
		t.Errorf("status on the HTTP socket = %d, %q; want exit 3 naming the right socket", code, errOut)
	}
	if strings.Contains(errOut, "start it with") {
		t.Errorf("stderr tells to start limend, which is running: %q", errOut)
	}
}

// TestJSONWhenUnreachable: with --json, a command that cannot reach limend
// still prints JSON on stdout; decide and await give the verdict a runtime
// must take without limend (ask).
func TestJSONWhenUnreachable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{
		{"decide", "git", "status"},
		{"await", "3"},
		{"answer", "3", "--approve"},
		{"pending"},
		{"history"},
		{"status"},
	} {
		t.Run(args[0], func(t *testing.T) {
			out, errOut, code := runCtl(append([]string{"--json", "--socket", sock}, args...)...)
			if code != exitUnreachable {
				t.Fatalf("exit %d; want %d (stderr %q)", code, exitUnreachable, errOut)
			}
			var got struct {
				Verdict  string `json:"verdict"`
				Error    string `json:"error"`
				Hint     string `json:"hint"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("stdout is not JSON (%v): %q", err, out)
			}
			if !strings.Contains(got.Error, "limend is not running: there is no socket at "+sock) || got.ExitCode != exitUnreachable || got.Hint == "" {
				t.Errorf("JSON = %+v; want the error, its hint and exit code 3", got)
			}
			wantVerdict := ""
			if args[0] == "decide" || args[0] == "await" {
				wantVerdict = "VERDICT_ASK"
			}
			if got.Verdict != wantVerdict {
				t.Errorf("verdict %q; want %q", got.Verdict, wantVerdict)
			}
			if !strings.Contains(errOut, "limend is not running") {
				t.Errorf("stderr %q lacks the error", errOut)
			}
		})
	}
	// Without --json, stdout stays empty.
	if out, _, _ := runCtl("--socket", sock, "decide", "git", "status"); out != "" {
		t.Errorf("stdout without --json: %q", out)
	}
}

// TestSlowLimendIsNotMissing: a socket that accepts and never answers is
// a slow or stuck limend: the message says to wait longer or look at it,
// not to start one.
func TestSlowLimendIsNotMissing(t *testing.T) {
	sock := limentest.HangingSocket(t)
	_, errOut, code := runCtl("--socket", sock, "--timeout", "200ms", "status")
	if code != exitUnreachable || !strings.Contains(errOut, "did not answer within --timeout") || strings.Contains(errOut, "start it with") {
		t.Errorf("status on a hung socket = %d, %q; want exit 3 saying it did not answer in time", code, errOut)
	}
}
