package hookapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/hookapi"
	"github.com/limenhq/limen/internal/hookfmt"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type limend struct {
	d *daemon.Daemon
	c *client.Client
}

func start(t testing.TB, opts ...func(*daemon.Config)) limend {
	t.Helper()
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "g.sock"),
		HTTPSocket:      filepath.Join(dir, "h.sock"),
		HTTPTCP:         "127.0.0.1:0",
		DB:              filepath.Join(dir, "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     200 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
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
	return limend{d, c}
}

// post sends body to path over addr (a Unix socket or TCP address).
func post(t *testing.T, addr net.Addr, path, body string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, addr.Network(), addr.String())
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://limend"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const bashCall = `{"session_id":"s1","cwd":"/home/ana/shop","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"toolu_1"}`

// TestHookRoutes: the runtimes' own JSON in, their own answer out, and
// always 200 so that a runtime never falls through to its own rules.
func TestHookRoutes(t *testing.T) {
	l := start(t)
	unix := l.d.HTTPAddrs()[0]
	tests := []struct {
		name, path, body string
		want             []string
	}{
		{"claude code ask", "/v1/hooks/claude-code", bashCall, []string{`"permissionDecision":"ask"`, "limenctl answer"}},
		{"claude code block", "/v1/hooks/claude-code", strings.Replace(bashCall, "npm test", "rm -rf /", 1), []string{`"permissionDecision":"deny"`, "blocks"}},
		{"claude code wait runs out", "/v1/hooks/claude-code?wait=100ms", bashCall, []string{`"permissionDecision":"ask"`, "still waiting"}},
		{"bad wait", "/v1/hooks/claude-code?wait=soon", bashCall, []string{`"permissionDecision":"ask"`, `wait=\"soon\"`}},
		{"malformed call", "/v1/hooks/claude-code", `{"tool_input":{}}`, []string{`"permissionDecision":"ask"`, "no tool_name"}},
		{"Bash without a command", "/v1/hooks/claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, []string{`"permissionDecision":"ask"`, `has no \"command\"`}},
		{"tool_input an array", "/v1/hooks/claude-code", strings.Replace(bashCall, `{"command":"npm test"}`, strings.Repeat("[", 40)+strings.Repeat("]", 40), 1), []string{`"permissionDecision":"ask"`, "tool_input is not a JSON object"}},
		{"codex ask is deny", "/v1/hooks/codex", bashCall, []string{`"permissionDecision":"deny"`, "This runtime cannot ask"}},
		{"gemini ask is deny", "/v1/hooks/gemini", strings.Replace(bashCall, "PreToolUse", "BeforeTool", 1), []string{`{"decision":"deny"`, "limenctl answer"}},
		{"gemini shell under the shipped block rules", "/v1/hooks/gemini", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"limenctl answer 3 --approve"}}`, []string{`{"decision":"deny"`, "blocked by the policy rule Bash(limenctl answer:*)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, unix, tt.path, tt.body)
			if code != http.StatusOK {
				t.Fatalf("status %d %s; want 200 always", code, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body %s; want it to contain %s", body, w)
				}
			}
		})
	}
	// A malformed call is refused, not queued for a person to puzzle over.
	pending, err := l.d.Store().Pending()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pending {
		if in := p.GetDecision().GetAction().GetInputJson(); !strings.Contains(in, "npm test") {
			t.Errorf("a malformed call was queued as an ask: %s", in)
		}
	}
}

// TestDecideRoute checks the neutral protocol: errors name the field, the
// user comes from the socket, and waiting returns a person's answer.
func TestDecideRoute(t *testing.T) {
	l := start(t)
	unix, tcp := l.d.HTTPAddrs()[0], l.d.HTTPAddrs()[1]
	tests := []struct {
		name, body string
		code       int
		want       string
	}{
		{"unknown field", `{"tool":"Bash","input":{},"user":"root"}`, 400, `unknown field \"user\"`},
		{"not JSON", `tool=Bash`, 400, "request body"},
		// encoding/json would take the second "Input" for "input":
		// keys are matched as written, as the runtimes match theirs.
		{"key in another case", `{"tool":"Bash","input":{"command":"ls"},"Input":{"command":"rm -rf ~"}}`, 400, `the key \"Input\" is not \"input\"`},
		{"tool in another case", `{"Tool":"Bash","input":{}}`, 400, `the key \"Tool\" is not \"tool\"`},
		{"no tool", `{"input":{"command":"ls"}}`, 400, "action.tool is empty"},
		{"input not an object", `{"tool":"Bash","input":["ls"]}`, 400, "input_json must be a JSON object"},
		{"negative wait", `{"tool":"Bash","input":{},"wait_ms":-1}`, 400, "wait_ms"},
		{"ok", `{"agent":"test","tool":"Bash","input":{"command":"make"}}`, 200, `"verdict":"ask"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, unix, "/v1/decide", tt.body)
			if code != tt.code || !strings.Contains(body, tt.want) {
				t.Fatalf("= %d %s; want %d containing %s", code, body, tt.code, tt.want)
			}
		})
	}

	t.Run("user from the socket, anonymous over TCP", func(t *testing.T) {
		for addr, anonymous := range map[net.Addr]bool{unix: false, tcp: true} {
			_, body := post(t, addr, "/v1/decide", `{"agent":"test","tool":"Bash","input":{"command":"make"}}`)
			var r hookfmt.DecideResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil {
				t.Fatal(err)
			}
			hist, err := l.c.API.History(t.Context(), &limenv1.HistoryRequest{Limit: 1})
			if err != nil || len(hist.GetDecisions()) == 0 || hist.GetDecisions()[0].GetDecisionId() != r.DecisionID {
				t.Fatalf("history: %v, %v; want decision %s first", hist, err, r.DecisionID)
			}
			if user := hist.GetDecisions()[0].GetAction().GetUser(); (user == "anonymous") != anonymous || user == "" {
				t.Errorf("over %s the user is %q; want anonymous only over TCP", addr.Network(), user)
			}
		}
	})

	t.Run("wait for a person", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		watch, err := l.c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
		if err != nil {
			t.Fatal(err)
		}
		answered := make(chan error, 1)
		go func() {
			for {
				ev, err := watch.Recv()
				if err != nil {
					answered <- err
					return
				}
				if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED && ev.GetAsk().GetDecision().GetAction().GetAgent() == "waiter" {
					_, err := l.c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ev.GetAsk().GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
					answered <- err
					return
				}
			}
		}()
		code, body := post(t, unix, "/v1/decide", `{"agent":"waiter","tool":"Bash","input":{"command":"make"},"wait_ms":10000}`)
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
		if code != 200 || !strings.Contains(body, `"verdict":"allow"`) || !strings.Contains(body, `"state":"answered"`) {
			t.Fatalf("= %d %s; want allow, answered", code, body)
		}
	})
}

// panicky is a service whose Decide panics: the answer must be ask.
type panicky struct {
	limenv1.UnimplementedDecisionServiceServer
}

func (panicky) Decide(context.Context, *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	panic("corrupt state")
}

func TestPanicIsAsk(t *testing.T) {
	srv := hookapi.NewServer(hookapi.New(panicky{}, nil), nil)
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "h.sock"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	defer func() { srv.Close(); <-done }()
	code, body := post(t, l.Addr(), "/v1/hooks/claude-code", bashCall)
	if code != 200 || !strings.Contains(body, `"permissionDecision":"ask"`) || !strings.Contains(body, "corrupt state") {
		t.Fatalf("= %d %s; want 200 ask naming the panic", code, body)
	}
}

// TestHTTPSocket: the hook API's socket gets the same care as the gRPC one:
// a 0700 directory, a 0600 socket, a stale file replaced, removed on stop,
// and TCP only on loopback.
func TestHTTPSocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "h.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	// A socket left behind by a crash: bound, then nobody listening.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	d, err := daemon.Start(daemon.Config{
		Socket: filepath.Join(dir, "run", "g.sock"), HTTPSocket: sock, DB: filepath.Join(dir, "db"),
		ShutdownTimeout: time.Second, LockTimeout: 200 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatalf("start over a stale HTTP socket: %v", err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("HTTP socket = %v, %v; want a socket with mode 0600", fi, err)
	}
	if fi, err := os.Stat(filepath.Dir(sock)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	if code, body := get(t, d.HTTPAddrs()[0], "/v1/health"); code != 200 || !strings.Contains(body, "serving") {
		t.Errorf("health = %d %s", code, body)
	}
	if err := d.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("HTTP socket still there after stop (%v)", err)
	}

	_, err = daemon.Start(daemon.Config{Socket: filepath.Join(dir, "x.sock"), DB: filepath.Join(dir, "db2"), HTTPTCP: "0.0.0.0:7412"}, nil)
	if err == nil || !strings.Contains(err.Error(), "--http-tcp") || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("--http-tcp 0.0.0.0:7412: %v; want a refusal naming the flag and loopback", err)
	}
}

func get(t *testing.T, addr net.Addr, path string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, addr.Network(), addr.String())
	}}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://limend"+path, nil)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHookVerdictHeader: every /v1/hooks reply says in Limen-Verdict what
// its body answers, with a Content-Length: limen-hook checks both before it
// prints the body.
func TestHookVerdictHeader(t *testing.T) {
	l := start(t)
	doc, err := l.c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(doc.GetPolicy().GetDocument(), "allow = []", `allow = ["Read"]`, 1)
	if _, err := l.c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: doc.GetPolicy().GetVersion(), Document: text}); err != nil {
		t.Fatal(err)
	}
	read := strings.Replace(strings.Replace(bashCall, `"Bash"`, `"Read"`, 1), `{"command":"npm test"}`, `{"file_path":"/home/ana/shop/README.md"}`, 1)
	tests := []struct {
		name, path, body, verdict string
	}{
		{"allow", "/v1/hooks/claude-code", read, "allow"},
		{"ask", "/v1/hooks/claude-code", bashCall, "ask"},
		{"block", "/v1/hooks/claude-code", strings.Replace(bashCall, "npm test", "rm -rf /", 1), "deny"},
		{"malformed", "/v1/hooks/claude-code", `{"tool_input":{}}`, "ask"},
		{"codex allow", "/v1/hooks/codex", read, "allow"},
		{"codex ask", "/v1/hooks/codex", bashCall, "deny"},
		{"gemini ask", "/v1/hooks/gemini", bashCall, "deny"},
	}
	addr := l.d.HTTPAddrs()[0].String()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("unix", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "POST "+tt.path+" HTTP/1.1\r\nHost: limend\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(tt.body))+"\r\n\r\n"+tt.body)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get(hookapi.VerdictHeader) != tt.verdict || resp.ContentLength != int64(len(body)) {
				t.Fatalf("= %d %s=%q Content-Length %d, %s; want 200 %s with the body's length", resp.StatusCode, hookapi.VerdictHeader,
					resp.Header.Get(hookapi.VerdictHeader), resp.ContentLength, body, tt.verdict)
			}
			if hookout.Allows(hookout.PreToolUse, body) != (tt.verdict == "allow") {
				t.Fatalf("body %s does not answer %s", body, tt.verdict)
			}
		})
	}
}

// TestAwaitOverTCPOnlyOwnAsks: a caller of --http-tcp, which limend cannot
// identify, awaits its own asks but not anyone else's.
func TestAwaitOverTCPOnlyOwnAsks(t *testing.T) {
	l := start(t)
	unix, tcp := l.d.HTTPAddrs()[0], l.d.HTTPAddrs()[1]
	ask := func(addr net.Addr) string {
		t.Helper()
		_, body := post(t, addr, "/v1/decide", `{"agent":"test","tool":"Bash","input":{"command":"make deploy"}}`)
		var r hookfmt.DecideResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.AskID == "" {
			t.Fatalf("decide over %s = %s; want an ask", addr.Network(), body)
		}
		return r.AskID
	}
	owners, anonymous := ask(unix), ask(tcp)
	if code, body := post(t, tcp, "/v1/await", `{"ask_id":"`+anonymous+`","wait_ms":1}`); code != 200 || !strings.Contains(body, `"state":"pending"`) {
		t.Errorf("await of its own ask over TCP = %d %s; want 200, pending", code, body)
	}
	if code, body := post(t, tcp, "/v1/await", `{"ask_id":"`+owners+`","wait_ms":1}`); code != 403 || !strings.Contains(body, "belongs to") {
		t.Errorf("await of the owner's ask over TCP = %d %s; want 403 saying whose it is", code, body)
	}
}
