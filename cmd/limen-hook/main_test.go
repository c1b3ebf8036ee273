package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/limenhq/limen/internal/limentest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// hookBin is limen-hook built once for the tests: they run it as Claude Code
// does, as a process with the call on stdin.
var hookBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "limen-hook-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hookBin = filepath.Join(dir, "limen-hook")
	if out, err := exec.Command("go", "build", "-o", hookBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build limen-hook: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}

// limend is a real daemon with its HTTP socket, and a gRPC client to it for
// playing the person who answers.
type limend struct {
	http string
	c    *client.Client
}

func start(t testing.TB) limend { return startWith(t, nil) }

// startWith is start with the configuration changed by with.
func startWith(t testing.TB, with func(*daemon.Config)) limend {
	t.Helper()
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "g.sock"),
		HTTPSocket:      filepath.Join(dir, "h.sock"),
		DB:              filepath.Join(dir, "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     200 * time.Millisecond,
	}
	if with != nil {
		with(&cfg)
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("start limend: %v", err)
	}
	c, err := client.Dial(d.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if err := d.Stop(context.Background()); err != nil {
			t.Errorf("stop limend: %v", err)
		}
	})
	return limend{http: filepath.Join(dir, "h.sock"), c: c}
}

// rules puts allow and ask rules into the default policy, so the tests do
// not depend on how the default priors are tuned.
func (l limend) rules(t testing.TB, allow, ask []string) {
	t.Helper()
	list := func(rs []string) string {
		q := make([]string, len(rs))
		for i, r := range rs {
			q[i] = fmt.Sprintf("%q", r)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	doc := strings.Replace(policy.DefaultDocument, "allow = []", "allow = "+list(allow), 1)
	doc = strings.Replace(doc, "ask = []", "ask = "+list(ask), 1)
	cur, err := l.c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc}); err != nil {
		t.Fatalf("set policy: %v", err)
	}
}

// askBash makes the golden Bash call an ask whatever the priors say.
var askBash = []string{"Bash(npm run test *)"}

// answerNext answers the next ask that becomes pending, as a person in
// limen's TUI would. It stops when the test ends.
func (l limend) answerNext(t *testing.T, choice limenv1.Choice) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	watch, err := l.c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ev, err := watch.Recv()
			if err != nil {
				return
			}
			if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED {
				l.c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ev.GetAsk().GetAskId(), Choice: choice})
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

type output struct {
	Specific struct {
		Event    string `json:"hookEventName"`
		Decision string `json:"permissionDecision"`
		Reason   string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// runHook runs limen-hook as a process and returns its one line of stdout.
func runHook(t *testing.T, stdin []byte, args ...string) ([]byte, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookBin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "LIMEN_HTTP_SOCKET=/nonexistent/limen-test.sock")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	if err != nil {
		t.Fatalf("limen-hook %v: %v (it must always exit 0)\nstderr: %s", args, err, stderr.String())
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if bytes.Count(out, []byte("\n")) != 0 || !json.Valid(out) {
		t.Fatalf("limen-hook %v printed %q; want exactly one line of JSON", args, stdout.String())
	}
	return out, took
}

func claude(t *testing.T, stdin []byte, args ...string) (output, time.Duration) {
	t.Helper()
	raw, took := runHook(t, stdin, args...)
	var o output
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("output %s is not Claude Code's hook output: %v", raw, err)
	}
	if o.Specific.Event != "PreToolUse" || o.Specific.Reason == "" {
		t.Fatalf("output %s: want hookEventName PreToolUse and a reason", raw)
	}
	return o, took
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden feeds the hook the JSON Claude Code sends for each kind of
// tool, and checks that it printed what limend decided (the verdicts
// themselves are the policy's business and tested there) and that limend
// recorded the call as Claude Code sent it.
func TestGolden(t *testing.T) {
	tests := []struct {
		file, tool string
		want       string // expected decision; empty: whatever limend decided
	}{
		{"bash.json", "Bash", ""},
		{"edit.json", "Edit", ""},
		{"read.json", "Read", ""},
		{"webfetch.json", "WebFetch", ""},
		{"mcp.json", "mcp__github__create_issue", ""},
		{"bash-rm-root.json", "Bash", "deny"},
	}
	l := start(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in := golden(t, tt.file)
			out, _ := claude(t, in, "--socket", l.http)
			hist, err := l.c.API.History(t.Context(), &limenv1.HistoryRequest{Limit: 1})
			if err != nil || len(hist.GetDecisions()) != 1 {
				t.Fatalf("history: %v, %v", hist, err)
			}
			dec := hist.GetDecisions()[0]
			var want, mention string
			switch dec.GetVerdict() {
			case limenv1.Verdict_VERDICT_ALLOW:
				want, mention = "allow", "limen allows this: "+dec.GetReason()
			case limenv1.Verdict_VERDICT_BLOCK:
				want, mention = "deny", "limen blocks this: "+dec.GetReason()
			default:
				want, mention = "ask", "`limenctl answer "+dec.GetAskId()+" --approve`"
			}
			if tt.want != "" && want != tt.want {
				t.Fatalf("limend decided %v; the test wants %s", dec.GetVerdict(), tt.want)
			}
			if out.Specific.Decision != want || !strings.Contains(out.Specific.Reason, mention) {
				t.Fatalf("decision = %s %q; limend decided %v, so want %s mentioning %q", out.Specific.Decision, out.Specific.Reason, dec.GetVerdict(), want, mention)
			}
			got := dec.GetAction()
			var sent struct {
				Session   string          `json:"session_id"`
				Cwd       string          `json:"cwd"`
				ToolUseID string          `json:"tool_use_id"`
				Input     json.RawMessage `json:"tool_input"`
			}
			if err := json.Unmarshal(in, &sent); err != nil {
				t.Fatal(err)
			}
			if got.GetTool() != tt.tool || got.GetAgent() != "claude-code" || got.GetSession() != sent.Session ||
				got.GetCwd() != sent.Cwd || got.GetToolUseId() != sent.ToolUseID || got.GetInputJson() != string(sent.Input) {
				t.Errorf("limend recorded %v; want the call as Claude Code sent it", got)
			}
			if got.GetUser() == "" || got.GetUser() == "anonymous" {
				t.Errorf("recorded user %q; want the OS user from the socket's credentials", got.GetUser())
			}
		})
	}
}

// TestAllowed: with an allow rule the hook prints allow.
func TestAllowed(t *testing.T) {
	l := start(t)
	l.rules(t, []string{"Read"}, nil)
	out, _ := claude(t, golden(t, "read.json"), "--socket", l.http)
	if out.Specific.Decision != "allow" {
		t.Fatalf("decision = %s %q; want allow", out.Specific.Decision, out.Specific.Reason)
	}
}

// TestWait: --on-ask=wait returns a person's answer, or ask at the deadline.
func TestWait(t *testing.T) {
	tests := []struct {
		name    string
		answer  limenv1.Choice
		timeout string
		want    string
		reason  string
	}{
		{"approved", limenv1.Choice_CHOICE_APPROVE, "20s", "allow", "approved by"},
		{"denied", limenv1.Choice_CHOICE_DENY, "20s", "deny", "denied by"},
		{"nobody answers", limenv1.Choice_CHOICE_UNSPECIFIED, "1s", "ask", "still waiting for a person"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := start(t)
			l.rules(t, nil, askBash)
			if tt.answer != limenv1.Choice_CHOICE_UNSPECIFIED {
				l.answerNext(t, tt.answer)
			}
			out, took := claude(t, golden(t, "bash.json"), "--socket", l.http, "--on-ask=wait", "--timeout="+tt.timeout)
			if out.Specific.Decision != tt.want || !strings.Contains(out.Specific.Reason, tt.reason) {
				t.Fatalf("decision = %s %q; want %s mentioning %q", out.Specific.Decision, out.Specific.Reason, tt.want, tt.reason)
			}
			if d, _ := time.ParseDuration(tt.timeout); took > d {
				t.Errorf("the hook took %v, past its --timeout %v", took, d)
			}
		})
	}
}

// TestFailsClosed: every failure prints ask with the reason and exits 0,
// within the hook's own deadline.
func TestFailsClosed(t *testing.T) {
	bash := golden(t, "bash.json")
	// limend parses the input; the hook only finds where it ends.
	l := start(t)
	daemon := func(*testing.T) []string { return []string{"--socket", l.http} }
	tests := []struct {
		name   string
		stdin  []byte
		args   func(t *testing.T) []string
		reason string
		within time.Duration
	}{
		{"daemon down", bash, func(t *testing.T) []string {
			return []string{"--socket", filepath.Join(t.TempDir(), "nobody.sock")}
		}, "limend is unreachable", 2 * time.Second},
		{"daemon slower than the deadline", bash, func(t *testing.T) []string {
			return []string{"--socket", limentest.HangingSocket(t), "--timeout", "300ms"}
		}, "did not answer within", 1500 * time.Millisecond},
		{"daemon slower than the deadline, waiting", bash, func(t *testing.T) []string {
			return []string{"--socket", limentest.HangingSocket(t), "--timeout", "300ms", "--on-ask=wait"}
		}, "did not answer within", 1500 * time.Millisecond},
		{"not JSON", []byte("Bash ls"), nil, "malformed hook input", 2 * time.Second},
		{"empty stdin", nil, nil, "malformed hook input", 2 * time.Second},
		{"not an object", []byte(`["Bash"]`), nil, "malformed hook input", 2 * time.Second},
		{"cut short", bash[:len(bash)/2], nil, "malformed hook input", 2 * time.Second},
		{"two calls", append(append([]byte{}, bash...), []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)...), daemon, "more than one JSON object", 2 * time.Second},
		{"no tool_name", []byte(`{"tool_input":{"command":"ls"}}`), daemon, "malformed hook input: hook input has no tool_name", 2 * time.Second},
		{"tool_input not an object", []byte(`{"tool_name":"Bash","tool_input":["ls"]}`), daemon, "tool_input is not a JSON object", 2 * time.Second},
		{"invalid JSON inside", []byte(`{"tool_name":"Bash" "tool_input":{}}`), daemon, "malformed hook input", 2 * time.Second},
		{"unknown format", bash, func(*testing.T) []string { return []string{"--format", "cursor"} }, "format \"cursor\"", 2 * time.Second},
		{"unknown on-ask", bash, func(*testing.T) []string { return []string{"--on-ask", "later"} }, "--on-ask", 2 * time.Second},
		{"unknown flag", bash, func(*testing.T) []string { return []string{"--colour"} }, "misconfigured", 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			if tt.args != nil {
				args = tt.args(t)
			}
			out, took := claude(t, tt.stdin, args...)
			if out.Specific.Decision != "ask" || !strings.Contains(out.Specific.Reason, tt.reason) {
				t.Fatalf("decision = %s %q; want ask mentioning %q", out.Specific.Decision, out.Specific.Reason, tt.reason)
			}
			if took > tt.within {
				t.Errorf("the hook took %v; want within %v", took, tt.within)
			}
		})
	}
}

// TestFormats checks the answers of Codex and Gemini CLI, which cannot
// express ask the way Claude Code does.
func TestFormats(t *testing.T) {
	l := start(t)
	l.rules(t, []string{"Read"}, askBash)
	permission := bytes.Replace(golden(t, "bash.json"), []byte(`"PreToolUse"`), []byte(`"PermissionRequest"`), 1)
	tests := []struct {
		name, format, file string
		stdin              []byte
		want               string // JSON the output must equal, or a prefix when reason is set
		reason             string
	}{
		{"codex allow is no opinion", "codex", "read.json", nil, `{}`, ""},
		{"codex ask is a deny saying how to approve", "codex", "bash.json", nil, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",`, "This runtime cannot ask"},
		{"codex block", "codex", "bash-rm-root.json", nil, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",`, "blocks"},
		{"codex permission request ask leaves Codex's prompt", "codex", "", permission, `{}`, ""},
		{"codex permission request allow", "codex", "", bytes.Replace(golden(t, "read.json"), []byte(`"PreToolUse"`), []byte(`"PermissionRequest"`), 1), `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, ""},
		{"gemini allow", "gemini", "read.json", nil, `{"decision":"allow",`, "allows"},
		{"gemini ask is a deny", "gemini", "bash.json", nil, `{"decision":"deny",`, "limenctl answer"},
		{"gemini block", "gemini", "bash-rm-root.json", nil, `{"decision":"deny",`, "blocks"},
		{"codex daemon down is a deny", "codex", "bash.json", nil, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",`, "unreachable"},
		{"gemini daemon down is a deny", "gemini", "bash.json", nil, `{"decision":"deny",`, "unreachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.stdin
			if in == nil {
				in = golden(t, tt.file)
			}
			sock := l.http
			if strings.Contains(tt.name, "daemon down") {
				sock = filepath.Join(t.TempDir(), "nobody.sock")
			}
			out, _ := runHook(t, in, "--socket", sock, "--format", tt.format)
			if tt.reason == "" {
				if string(out) != tt.want {
					t.Fatalf("output %s; want %s", out, tt.want)
				}
				return
			}
			if !strings.HasPrefix(string(out), tt.want) || !strings.Contains(string(out), tt.reason) {
				t.Fatalf("output %s; want it to start %s and mention %q", out, tt.want, tt.reason)
			}
		})
	}
}

func TestParseResponse(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		eof     bool
		done    bool
		code    int
		verdict string
		body    string
		err     string
	}{
		{"content length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nLimen-Verdict: ask\r\n\r\n{}", false, true, 200, "ask", "{}", ""},
		{"header case", "HTTP/1.1 200 OK\r\ncontent-length:2\r\nlimen-verdict:  allow \r\n\r\n{}trailing", false, true, 200, "allow", "{}", ""},
		{"body to come", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", false, false, 0, "", "", ""},
		{"headers to come", "HTTP/1.1 200 OK\r\n", false, false, 0, "", "", ""},
		{"no length, to the end", "HTTP/1.1 200 OK\r\n\r\n{}", true, false, 0, "", "", "no Content-Length"},
		{"no length, more to come", "HTTP/1.1 200 OK\r\n\r\n{}", false, false, 0, "", "", ""},
		{"error code", "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", false, true, 400, "", "", ""},
		{"cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", true, false, 0, "", "", "cut short"},
		{"no headers end", "HTTP/1.1 200 OK\r\n", true, false, 0, "", "", "before its headers"},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", false, false, 0, "", "", "not HTTP"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, false, 0, "", "", "Content-Length"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", true, false, 0, "", "", "Transfer-Encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, done, err := parseResponse([]byte(tt.raw), tt.eof)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want one mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil || done != tt.done || r.code != tt.code || r.verdict != tt.verdict || string(r.body) != tt.body {
				t.Fatalf("= %d %q %q %v %v; want %d %q %q %v", r.code, r.verdict, r.body, done, err, tt.code, tt.verdict, tt.body, tt.done)
			}
		})
	}
}

// TestStdinLeftOpen: a runtime that writes the call and keeps stdin open
// still gets its answer at once, not at the deadline.
func TestStdinLeftOpen(t *testing.T) {
	l := start(t)
	l.rules(t, []string{"Read"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookBin, "--socket", l.http, "--timeout", "10s")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(golden(t, "read.json"))
	began := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 5*time.Second || !strings.Contains(stdout.String(), `"permissionDecision":"allow"`) {
		t.Fatalf("printed %s after %v with stdin open; want allow at once", stdout.String(), took)
	}
}

// TestStdinLeftOpenEmpty: a runtime that keeps stdin open and writes
// nothing gets ask at the deadline, not a hook that hangs.
func TestStdinLeftOpenEmpty(t *testing.T) {
	l := start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookBin, "--socket", l.http, "--timeout", "300ms")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte(`{"tool_name":"Bash",`)) // and then nothing more
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 1500*time.Millisecond || !strings.Contains(stdout.String(), `"permissionDecision":"ask"`) ||
		!strings.Contains(stdout.String(), "did not finish writing the hook input within limen-hook's --timeout of 300ms") {
		t.Fatalf("printed %s after %v; want ask at the 300ms deadline", stdout.String(), took)
	}
}
