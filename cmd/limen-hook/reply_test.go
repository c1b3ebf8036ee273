package main

import (
	"bytes"
	"debug/buildinfo"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/version"
)

// fakeLimend answers every connection with reply once it has read the
// request's headers, and then closes it.
func fakeLimend(t *testing.T, reply string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fake.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			var req []byte
			buf := make([]byte, 4096)
			for !bytes.Contains(req, []byte("\r\n\r\n")) {
				n, err := c.Read(buf)
				req = append(req, buf[:n]...)
				if err != nil {
					break
				}
			}
			io.WriteString(c, reply)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); wg.Wait() })
	return sock
}

func httpReply(verdict, body string) string {
	h := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if verdict != "" {
		h += "Limen-Verdict: " + verdict + "\r\n"
	}
	return h + "\r\n" + body
}

// TestReplyChecked: the hook prints limend's answer only when it is a
// complete 200 reply whose verdict header and body agree; anything else is
// the fail-closed ask. Above all a garbled reply never becomes allow.
func TestReplyChecked(t *testing.T) {
	allow := string(hookout.Render(hookout.ClaudeCode, hookout.PreToolUse, hookout.Allow, "limen allows this: fake"))
	ask := string(hookout.Render(hookout.ClaudeCode, hookout.PreToolUse, hookout.Ask, "fake ask"))
	tests := []struct {
		name, reply string
		want        string // decision printed
		reason      string // the reason mentions this
	}{
		{"allow", httpReply("allow", allow), "allow", "limen allows this: fake"},
		{"ask", httpReply("ask", ask), "ask", "fake ask"},
		{"allow body, ask header", httpReply("ask", allow), "ask", "disagree"},
		{"ask body, allow header", httpReply("allow", ask), "ask", "disagree"},
		{"no verdict header", httpReply("", allow), "ask", "no Limen-Verdict"},
		{"unknown verdict", httpReply("yes", allow), "ask", "not allow, ask or deny"},
		{"cut short", strings.Replace(httpReply("allow", allow), "Content-Length: ", "Content-Length: 1", 1), "ask", "cut short"},
		{"headers only", "HTTP/1.1 200 OK\r\nLimen-Verdict: allow\r\n", "ask", "before its headers"},
		{"not JSON", httpReply("allow", `"permissionDecision":"allow"`), "ask", "not one line holding one JSON object"},
		{"two lines", httpReply("allow", allow[:len(allow)-2]+"\n}}"), "ask", "not one line holding one JSON object"},
		{"cut after an inner brace", httpReply("ask", ask[:strings.LastIndex(ask, "}")]), "ask", "not one line holding one JSON object"},
		{"two objects", httpReply("ask", ask+ask), "ask", "not one line holding one JSON object"},
		{"no length, closed early", "HTTP/1.1 200 OK\r\nLimen-Verdict: ask\r\n\r\n" + ask[:strings.LastIndex(ask, "}")], "ask", "no Content-Length"},
		{"error", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 19\r\n\r\n{\"error\":\"too busy\"}", "ask", `HTTP 503: {"error":"too busy"`},
		{"nothing", "", "ask", "before its headers"},
		{"chunked", "HTTP/1.1 200 OK\r\nLimen-Verdict: allow\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{}\r\n0\r\n\r\n", "ask", "Transfer-Encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := claude(t, golden(t, "read.json"), "--socket", fakeLimend(t, tt.reply))
			if out.Specific.Decision != tt.want || !strings.Contains(out.Specific.Reason, tt.reason) {
				t.Fatalf("decision = %s %q; want %s mentioning %q", out.Specific.Decision, out.Specific.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestFailClosedEvent: when limend cannot be asked, the fail-closed answer
// still has the shape of the event the runtime sent.
func TestFailClosedEvent(t *testing.T) {
	permission := bytes.Replace(golden(t, "bash.json"), []byte(`"PreToolUse"`), []byte(`"PermissionRequest"`), 1)
	escaped := bytes.Replace(golden(t, "bash.json"), []byte(`"hook_event_name":"PreToolUse"`), []byte(`"Hook_Event_Name": "Permission\u0052equest"`), 1)
	if bytes.Equal(escaped, golden(t, "bash.json")) {
		t.Fatal("bash.json has no hook_event_name to rewrite")
	}
	want := `{}` // no decision: the runtime's own dialog asks the person
	for _, in := range [][]byte{permission, escaped} {
		for _, format := range []string{"claude-code", "codex"} {
			out, _ := runHook(t, in, "--format", format, "--socket", filepath.Join(t.TempDir(), "none.sock"))
			if string(out) != want {
				t.Errorf("%s with limend down printed %s; want %s", format, out, want)
			}
		}
	}
}

func TestObjectScanner(t *testing.T) {
	tests := []struct {
		in, object, event, err string
	}{
		{` {"a":1} trailing`, `{"a":1}`, "", ""},
		{`{"hook_event_name":"PreToolUse","tool_input":{"x":"}{\"]"}}`, `{"hook_event_name":"PreToolUse","tool_input":{"x":"}{\"]"}}`, "PreToolUse", ""},
		{`{"tool_input":{"hook_event_name":"Nested"},"s":"hook_event_name","t":"x"}`, "", "", ""},
		{`{"hook_event_name":"A","hook_event_name":"B"}`, "", "B", ""},
		{`{"hook_event_name":"A","hook_event_name":null}`, "", "", ""},
		{`{"HOOK_EVENT_NAME" : "Permission\u0052equest"}`, "", "PermissionRequest", ""},
		{`{"k":"hook_event_name","v":["a","b"]}`, "", "", ""},
		{`{"a":"\\"}`, `{"a":"\\"}`, "", ""},
		{`["a"]`, "", "", "starts with '['"},
		{`Bash`, "", "", "starts with 'B'"},
		{`{"a":`, "", "", "ended before"},
		{``, "", "", "empty"},
	}
	for _, tt := range tests {
		// Whole, and a byte at a time as a slow pipe would deliver it.
		for _, step := range []int{len(tt.in) + 1, 1} {
			var s objectScanner
			var buf []byte
			end, err := 0, error(nil)
			for i := 0; i < len(tt.in) && end == 0 && err == nil; i += step {
				buf = append(buf, tt.in[i:min(i+step, len(tt.in))]...)
				end, err = s.scan(buf)
			}
			if err == nil && end == 0 {
				if !s.started {
					err = errorString("stdin is empty")
				} else {
					err = errorString("ended before the object did")
				}
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("%s (step %d): err = %v; want %q", tt.in, step, err, tt.err)
				}
				continue
			}
			want := tt.object
			if want == "" {
				want = tt.in
			}
			if err != nil || string(buf[s.start:end]) != want || s.event != tt.event {
				t.Errorf("%s (step %d) = %q, event %q, %v; want %q, event %q", tt.in, step, buf[s.start:max(end, s.start)], s.event, err, want, tt.event)
			}
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestHelpIsCobraStyle: the hand-written flag parsing prints the flag list
// pflag (and so cobra, as in limenctl and limend) would print, and reads
// the same command lines the same way; bad ones fail with pflag's words.
func TestHelpIsCobraStyle(t *testing.T) {
	newFlags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("limen-hook", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.SetInterspersed(false) // the first argument that is no flag ends them
		fs.String("format", "claude-code", formatHelp)
		fs.String("on-ask", "prompt", onAskHelp)
		fs.Duration("timeout", defaultTimeout, timeoutHelp)
		fs.String("socket", "", socketHelp)
		fs.String("server-uid", "", serverUIDHelp)
		fs.BoolP("help", "h", false, "help for limen-hook")
		fs.BoolP("version", "v", false, "version for limen-hook")
		return fs
	}
	if got := newFlags().FlagUsages(); got != flagDefaults {
		t.Errorf("limen-hook --help lists\n%s\npflag lists\n%s", flagDefaults, got)
	}
	for _, want := range []string{"\nUsage:\n  limen-hook [flags]\n", "\nExamples:\n  limen-hook < call.json\n", "\nFlags:\n"} {
		if !strings.Contains(usage, want) {
			t.Errorf("the usage lacks cobra's section %q", want)
		}
	}
	for _, tt := range []struct {
		args []string
		err  error  // errHelp, errVersion, or nil for a good line
		msg  string // the error's words otherwise
	}{
		{args: []string{"--help"}, err: errHelp},
		{args: []string{"-h"}, err: errHelp},
		{args: []string{"--version"}, err: errVersion},
		{args: []string{"-v"}, err: errVersion},
		{args: []string{"--colour"}, msg: "unknown flag: --colour"},
		{args: []string{"--timeout"}, msg: "flag needs an argument: --timeout"},
		{args: []string{"--timeout=abc"}, msg: `invalid argument "abc" for "--timeout" flag: give a duration such as 5s or 50s`},
		{args: []string{"---x"}, msg: "bad flag syntax: ---x"},
		{args: []string{"--format", "codex", "--on-ask=wait", "--timeout", "2s", "--socket=/s"}},
		{args: []string{"--server-uid", "1000", "--format=codex"}},
		{args: []string{"-format", "codex", "-timeout=2s"}}, // one dash, as older installations wrote it
		{args: []string{"--format", "codex", "--", "--colour"}},
		{args: []string{"--format=gemini", "positional", "--colour"}},
		{args: []string{"--timeout", "1m", "--timeout=3s"}},
		{args: []string{}},
	} {
		var stderr bytes.Buffer
		o, err := parseFlags(tt.args, &stderr)
		switch {
		case tt.err != nil:
			if err != tt.err || stderr.Len() != 0 {
				t.Errorf("%q: err = %v, stderr %q; want %v and nothing printed", tt.args, err, stderr.String(), tt.err)
			}
		case tt.msg != "":
			want := "limen-hook: " + tt.msg + "\nhint: see limen-hook --help\n"
			if err == nil || err.Error() != tt.msg || stderr.String() != want {
				t.Errorf("%q: err = %v, stderr %q; want %q", tt.args, err, stderr.String(), want)
			}
		default:
			var args []string
			for _, a := range tt.args {
				if len(a) > 2 && a[0] == '-' && a[1] != '-' {
					a = "-" + a // pflag reads long flags with two dashes only
				}
				args = append(args, a)
			}
			fs := newFlags()
			if err := fs.Parse(args); err != nil {
				t.Fatalf("pflag refuses %q: %v", args, err)
			}
			f := func(name string) string { return fs.Lookup(name).Value.String() }
			if err != nil || o.format != f("format") || o.onAsk != f("on-ask") || o.timeout.String() != f("timeout") || o.socket != f("socket") || o.serverUID != f("server-uid") {
				t.Errorf("%q = %+v, %v; pflag has %s %s %s %s", tt.args, o, err, f("format"), f("on-ask"), f("timeout"), f("socket"))
			}
		}
	}
}

// TestVersionMatchesBuildInfo: limen-hook --version, read without
// runtime/debug, says what debug/buildinfo reads from the binary, in
// internal/version's words.
func TestVersionMatchesBuildInfo(t *testing.T) {
	out, err := exec.Command(hookBin, "--version").Output()
	if err != nil {
		t.Fatalf("limen-hook --version: %v", err)
	}
	bi, err := buildinfo.ReadFile(hookBin)
	if err != nil {
		t.Fatal(err)
	}
	want := version.Info{Module: "(unknown)", Go: bi.GoVersion, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi.Main.Version != "" {
		want.Module = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			want.Commit = s.Value
		case "vcs.modified":
			want.Dirty = s.Value == "true"
		}
	}
	if got := string(out); got != "limen-hook "+want.String()+"\n" {
		t.Errorf("limen-hook --version = %q; want %q", got, "limen-hook "+want.String())
	}
	// --help, like --version, is for a person: on stdout, with no answer.
	help, err := exec.Command(hookBin, "--help").Output()
	if err != nil || !strings.Contains(string(help), "\nUsage:\n  limen-hook [flags]\n") || strings.Contains(string(help), "hookSpecificOutput") {
		t.Errorf("limen-hook --help = %v:\n%s", err, help)
	}
	// A build with a commit, as go install makes: the sentinels are cut and
	// the commit shortened as version.Info.String does.
	mi := strings.Repeat("x", 16) + "path\tgithub.com/limenhq/limen/cmd/limen-hook\nmod\tgithub.com/limenhq/limen\tv1.2.3\th1:abc=\nbuild\tvcs.revision=0123456789abcdef\nbuild\tvcs.modified=true\n" + strings.Repeat("y", 16)
	info := version.Info{Module: "v1.2.3", Commit: "0123456789abcdef", Dirty: true, Go: "go1.26.8", Platform: "linux/amd64"}
	if got := buildVersion(mi, "go1.26.8", "linux/amd64"); got != info.String() {
		t.Errorf("buildVersion = %q; want %q", got, info.String())
	}
}
