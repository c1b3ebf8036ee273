package mcpgate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/mcpgate"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// seen is one HTTP request that reached the upstream.
type seen struct {
	method, session, auth, body string
}

// upstream is a real go-sdk server over Streamable HTTP that records the
// HTTP requests reaching it and the tools it ran. read reports progress
// three times; before its second report it waits for release, if set, so a
// test can see the first one arrive while the call still runs.
type upstream struct {
	files
	release chan struct{}
	mu      sync.Mutex
	reqs    []seen
	url     string
}

// A stateless upstream speaks 2026-07-28 (the go-sdk serves that revision
// over HTTP only without sessions); the other kind, the older revisions
// with a session.
func newUpstream(t *testing.T, stateless bool, wrap func(http.Handler) http.Handler) *upstream {
	t.Helper()
	u := &upstream{}
	s := u.server()
	s.RemoveTools("read")
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "read a file"}, func(ctx context.Context, req *mcp.CallToolRequest, in pathArg) (*mcp.CallToolResult, any, error) {
		u.files.mu.Lock()
		u.calls = append(u.calls, "read "+in.Path)
		u.files.mu.Unlock()
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 1; i <= 3; i++ {
				if i == 2 && u.release != nil {
					select {
					case <-u.release:
					case <-ctx.Done():
						return nil, nil, ctx.Err()
					}
				}
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read done: " + in.Path}}}, nil, nil
	})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		u.mu.Lock()
		u.reqs = append(u.reqs, seen{r.Method, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Authorization"), string(body)})
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u.url = srv.URL + "/mcp"
	return u
}

func (u *upstream) seen() []seen {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.reqs)
}

// gateFor serves an HTTP gate in front of upstreamURL; the gate's log
// goes to logs.
func gateFor(t *testing.T, d mcpgate.Decider, upstreamURL string, logs io.Writer, tune func(*mcpgate.HTTPOptions)) string {
	t.Helper()
	up, err := url.Parse(upstreamURL)
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = io.Discard
	}
	opts := mcpgate.HTTPOptions{
		Options: mcpgate.Options{Name: "files", Decider: d, AskTimeout: 300 * time.Millisecond, Session: "t",
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))},
		Upstream: up, LoopbackHost: true, CallTimeout: 10 * time.Second,
	}
	if tune != nil {
		tune(&opts)
	}
	g, err := mcpgate.NewHTTPGate(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func dialGate(t *testing.T, endpoint, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, so)
	if err != nil {
		t.Fatalf("connect through the HTTP gate: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPGate: the real go-sdk client and server over Streamable HTTP,
// the gate between them, a real limend deciding; once for the stateless
// revision and once for an older one with a session.
func TestHTTPGate(t *testing.T) {
	c := startLimend(t)
	for _, tt := range []struct {
		name, version string
		session       bool
	}{
		{"stateless 2026-07-28", "", false},
		{"2025-06-18 with a session", "2025-06-18", true},
		{"2025-03-26 with a session", "2025-03-26", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up := newUpstream(t, !tt.session, nil)
			cs := dialGate(t, gateFor(t, c, up.url, nil, nil), tt.version, nil)
			want := tt.version
			if want == "" {
				want = mcpgate.Stateless
			}
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Errorf("negotiated %s through the gate; want %s", got, want)
			}
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil || len(list.Tools) != 3 {
				t.Fatalf("tools/list = %v, %v; want the server's three tools", list, err)
			}
			for _, call := range []struct {
				tool    string
				isError bool
				want    string
				ran     bool
			}{
				{"read", false, "read done: /tmp/a", true},
				{"delete", true, "limen did not allow mcp__files__delete", false},
				{"write", true, "nobody answered ask", false},
			} {
				before := len(up.ran())
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: call.tool, Arguments: map[string]any{"path": "/tmp/a"}})
				if err != nil {
					t.Fatalf("%s: %v", call.tool, err)
				}
				if res.IsError != call.isError || !strings.Contains(text(res), call.want) {
					t.Errorf("%s: isError=%v %q; want isError=%v mentioning %q", call.tool, res.IsError, text(res), call.isError, call.want)
				}
				if ran := len(up.ran()) > before; ran != call.ran {
					t.Errorf("%s: the server ran it: %v; want %v", call.tool, ran, call.ran)
				}
			}
			cs.Close()

			var methods []string
			sessions := map[string]bool{}
			for _, s := range up.seen() {
				methods = append(methods, s.method)
				if s.method == http.MethodPost && !strings.Contains(s.body, `"initialize"`) {
					sessions[s.session] = true
				}
				if strings.Contains(s.body, `"delete"`) || strings.Contains(s.body, `"write"`) {
					t.Errorf("a refused call reached the upstream: %s", s.body)
				}
			}
			if tt.session {
				if len(sessions) != 1 || sessions[""] {
					t.Errorf("the upstream saw Mcp-Session-Id %v after initialize; want the one it gave, on every request", sessions)
				}
				if !slices.Contains(methods, http.MethodDelete) || !slices.Contains(methods, http.MethodGet) {
					t.Errorf("the upstream saw %v; want the client's GET stream and its DELETE at close passed on", methods)
				}
			} else {
				if len(sessions) != 1 || !sessions[""] || slices.ContainsFunc(methods, func(m string) bool { return m != http.MethodPost }) {
					t.Errorf("the upstream saw methods %v, sessions %v; want POSTs only, without a session", methods, sessions)
				}
			}
		})
	}
}

// TestHTTPGateAskApproved: an ask a person approves in time is forwarded;
// one refused at the ask deadline is never forwarded, even when approved
// later.
func TestHTTPGateAskApproved(t *testing.T) {
	c := startLimend(t)
	up := newUpstream(t, true, nil)
	cs := dialGate(t, gateFor(t, c, up.url, nil, func(o *mcpgate.HTTPOptions) { o.AskTimeout = 20 * time.Second }), "", nil)
	approve := answerAsks(t, c, "/tmp/b", limenv1.Choice_CHOICE_APPROVE)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "/tmp/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-approve; err != nil {
		t.Fatal(err)
	}
	if res.IsError || text(res) != "write done: /tmp/b" {
		t.Fatalf("approved ask: isError=%v %q; want the server's result", res.IsError, text(res))
	}

	short := dialGate(t, gateFor(t, c, up.url, nil, nil), "", nil)
	res, err = short.CallTool(t.Context(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "/tmp/late"}})
	if err != nil || !res.IsError {
		t.Fatalf("unanswered ask = %v, %v; want a refusal", res, err)
	}
	// Approve it now, after the refusal, then make sure the server has
	// still not run it once a later call came back.
	pend, err := c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range pend.GetAsks() {
		if strings.Contains(a.GetDecision().GetAction().GetInputJson(), "/tmp/late") {
			c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: a.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
		}
	}
	if _, err := short.CallTool(t.Context(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/tmp/c"}}); err != nil {
		t.Fatal(err)
	}
	if ran := up.ran(); slices.Contains(ran, "write /tmp/late") {
		t.Errorf("the server ran %v; want the refused call never forwarded", ran)
	}
}

// answerAsks answers the first ask whose arguments mention marker.
func answerAsks(t *testing.T, c *client.Client, marker string, choice limenv1.Choice) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	watch, err := c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
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
			if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED && strings.Contains(ev.GetAsk().GetDecision().GetAction().GetInputJson(), marker) {
				_, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ev.GetAsk().GetAskId(), Choice: choice})
				answered <- err
				return
			}
		}
	}()
	return answered
}

// TestHTTPGateProgressStreams: the server's progress notifications reach
// the client in order, and the first while the call still runs (the
// gate does not hold the stream back until it ends).
func TestHTTPGateProgressStreams(t *testing.T) {
	c := startLimend(t)
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("revision "+version, func(t *testing.T) {
			up := newUpstream(t, version == "", nil)
			up.release = make(chan struct{})
			progress := make(chan string, 8)
			cs := dialGate(t, gateFor(t, c, up.url, nil, nil), version, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					progress <- r.Params.Message
				},
			})
			done := make(chan error, 1)
			var res *mcp.CallToolResult
			go func() {
				params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/tmp/p"}}
				params.SetProgressToken("tok")
				var err error
				res, err = cs.CallTool(t.Context(), params)
				done <- err
			}()
			wait, stop := context.WithTimeout(t.Context(), 10*time.Second)
			defer stop()
			select {
			case msg := <-progress:
				if msg != "step 1" {
					t.Errorf("first progress %q; want step 1", msg)
				}
			case <-wait.Done():
				t.Fatal("no progress reached the client while the call ran")
			}
			close(up.release)
			if err := <-done; err != nil || res.IsError {
				t.Fatalf("call = %v, %v", res, err)
			}
			got := []string{"step 1"}
			for len(got) < 3 {
				select {
				case msg := <-progress:
					got = append(got, msg)
				case <-wait.Done():
					t.Fatalf("progress %v; want three", got)
				}
			}
			if !slices.Equal(got, []string{"step 1", "step 2", "step 3"}) {
				t.Errorf("progress %v; want steps 1, 2, 3 in order", got)
			}
		})
	}
}

// post sends one raw JSON-RPC POST to the gate.
func post(t *testing.T, endpoint, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const clientMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

func statelessCall(id int, tool string) (string, map[string]string) {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"/tmp/a"},%s}}`, id, tool, clientMeta),
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// TestHTTPGateCredentials: the client's Authorization reaches the
// upstream as sent; the upstream's 401 and WWW-Authenticate reach the
// client; neither the token nor the challenge is in limen's records or the
// gate's log.
func TestHTTPGateCredentials(t *testing.T) {
	c := startLimend(t)
	const token = "Bearer tok-s3cret-7f2a"
	const challenge = `Bearer resource_metadata="https://auth.example/.well-known/oauth-protected-resource/mcp", scope="files"`
	up := newUpstream(t, true, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != token {
				w.Header().Set("WWW-Authenticate", challenge)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	logs := &syncBuffer{}
	gate := gateFor(t, c, up.url, logs, nil)

	body, header := statelessCall(1, "read")
	resp, _ := post(t, gate, body, header)
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
		t.Fatalf("without credentials the client got %d, WWW-Authenticate %q; want 401 and the upstream's challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	header["Authorization"] = token
	resp, got := post(t, gate, body, header)
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, "read done: /tmp/a") || !strings.Contains(got, `"resultType":"complete"`) {
		t.Fatalf("with credentials the client got %d %s; want the tool's complete result", resp.StatusCode, got)
	}
	if s := up.seen(); s[len(s)-1].auth != token {
		t.Errorf("the upstream got Authorization %q; want the client's, as sent", s[len(s)-1].auth)
	}
	hist, err := c.API.History(t.Context(), &limenv1.HistoryRequest{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	records := fmt.Sprint(hist) + logs.String()
	for _, secret := range []string{"tok-s3cret", "resource_metadata", "auth.example"} {
		if strings.Contains(records, secret) {
			t.Errorf("limen's records or the gate's log hold %q:\n%s", secret, records)
		}
	}
	if !strings.Contains(fmt.Sprint(hist), "mcp__files__read") {
		t.Errorf("limen recorded no decision for the call: %v", hist)
	}
}

// TestHTTPGateHangingUpstream: an allowed call the upstream never answers
// is refused at the deadline, and the upstream request is cancelled.
func TestHTTPGateHangingUpstream(t *testing.T) {
	c := startLimend(t)
	cancelled := make(chan struct{})
	var once sync.Once
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server notices a closed connection only after the body
		<-r.Context().Done()
		once.Do(func() { close(cancelled) })
	}))
	defer hang.Close()
	gate := gateFor(t, c, hang.URL+"/mcp", nil, func(o *mcpgate.HTTPOptions) { o.CallTimeout = 300 * time.Millisecond })
	body, header := statelessCall(7, "read")
	start := time.Now()
	resp, got := post(t, gate, body, header)
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "did not answer within 300ms") || !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, `"id":7`) {
		t.Fatalf("a hanging upstream: %d %s; want a complete tool error result for id 7 naming the deadline", resp.StatusCode, got)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refusal took %s; want it at the 300ms deadline", took)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream request was not cancelled after the refusal")
	}
}

// TestHTTPGateRefusesBeforeUpstream: what the gate refuses whole never
// touches the upstream.
func TestHTTPGateRefusesBeforeUpstream(t *testing.T) {
	c := startLimend(t)
	var touched sync.Mutex
	var hits []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		touched.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path)
		touched.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	gate := gateFor(t, c, up.URL+"/mcp", nil, func(o *mcpgate.HTTPOptions) { o.Origins = []string{"https://app.example.com"} })
	call, _ := statelessCall(1, "read")
	for _, tt := range []struct {
		name, method, body string
		header             map[string]string
		host               string
		status             int
		want               string
	}{
		{"PUT", http.MethodPut, call, nil, "", http.StatusMethodNotAllowed, "not part of MCP"},
		{"PATCH", http.MethodPatch, call, nil, "", http.StatusMethodNotAllowed, "not part of MCP"},
		{"OPTIONS", http.MethodOptions, "", nil, "", http.StatusMethodNotAllowed, "not part of MCP"},
		{"GET in the stateless revision", http.MethodGet, "", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", http.StatusMethodNotAllowed, "send POST"},
		{"DELETE in the stateless revision", http.MethodDelete, "", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", http.StatusMethodNotAllowed, "send POST"},
		{"another site's Origin", http.MethodPost, call, map[string]string{"Origin": "https://evil.example"}, "", http.StatusForbidden, "--allow-origin"},
		{"an Origin named like loopback", http.MethodPost, call, map[string]string{"Origin": "http://127.0.0.1.evil.example"}, "", http.StatusForbidden, "not allowed"},
		{"the null Origin", http.MethodPost, call, map[string]string{"Origin": "null"}, "", http.StatusForbidden, "not allowed"},
		{"a rebound Host", http.MethodGet, "", nil, "evil.example:80", http.StatusForbidden, "loopback"},
		{"a batch in 2025-06-18", http.MethodPost, "[" + call + "]", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, "", http.StatusBadRequest, "no JSON-RPC batches"},
		{"a key given twice", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"delete"}}`, nil, "", http.StatusBadRequest, "appears twice"},
		{"a method given twice in another case", http.MethodPost, `{"jsonrpc":"2.0","id":1,"METHOD":"tools/call","method":"tools/list","params":{"name":"delete"}}`, nil, "", http.StatusBadRequest, "appears twice"},
		{"headers that name another tool", http.MethodPost, call, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "delete"}, "", http.StatusBadRequest, "Mcp-Name"},
		{"headers that name another method", http.MethodPost, call, map[string]string{"Mcp-Method": "tools/list"}, "", http.StatusBadRequest, "Mcp-Method"},
		{"a blocked call", http.MethodPost, strings.Replace(call, `"read"`, `"delete"`, 1), map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, "", http.StatusOK, `"resultType":"complete"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, gate, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("%d %s; want %d mentioning %q", resp.StatusCode, b, tt.status, tt.want)
			}
		})
	}
	touched.Lock()
	defer touched.Unlock()
	if len(hits) != 0 {
		t.Errorf("the upstream was touched: %v", hits)
	}
	// What is allowed does reach it: a loopback or configured Origin.
	for _, origin := range []string{"http://localhost:3000", "https://app.example.com"} {
		h := map[string]string{"Origin": origin}
		touched.Unlock()
		resp, _ := post(t, gate, `{"jsonrpc":"2.0","method":"notifications/x"}`, h)
		touched.Lock()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("Origin %s: %d; want the upstream's 202", origin, resp.StatusCode)
		}
	}
}

// TestHTTPGateBatch: a 2025-03-26 batch is decided per call: the refused
// call is answered by the gate, the rest goes upstream as a batch, and the
// client gets one array with every answer.
func TestHTTPGateBatch(t *testing.T) {
	c := startLimend(t)
	var got []json.RawMessage
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		var out []string
		for _, m := range got {
			var env struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(m, &env)
			if env.ID != nil {
				out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[],"x-server":true}}`, env.ID))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "[%s]", strings.Join(out, ","))
	}))
	defer up.Close()
	gate := gateFor(t, c, up.URL+"/mcp", nil, nil)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete","arguments":{"path":"/a"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"},` +
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]`
	resp, body := post(t, gate, batch, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if len(got) != 3 || strings.Contains(string(bytes.Join(bytesOfRaw(got), nil)), "delete") {
		t.Errorf("the upstream got %s; want the batch without the blocked call", got)
	}
	var answers []struct {
		ID     int `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
			Server  bool `json:"x-server"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	byID := map[int]bool{}
	for _, a := range answers {
		byID[a.ID] = a.Result.IsError
		if a.ID == 2 && (a.Result.Server || !a.Result.IsError) {
			t.Errorf("id 2 answered %+v; want limen's refusal", a)
		}
		if a.ID != 2 && !a.Result.Server {
			t.Errorf("id %d answered %+v; want the server's result", a.ID, a)
		}
	}
	if len(answers) != 3 || len(byID) != 3 {
		t.Errorf("the client got %s; want three answers, ids 1, 2, 3", body)
	}
	if strings.Contains(body, "resultType") {
		t.Errorf("a 2025-03-26 answer carries resultType: %s", body)
	}
}

func bytesOfRaw(r []json.RawMessage) [][]byte {
	out := make([][]byte, len(r))
	for i := range r {
		out[i] = r[i]
	}
	return out
}

func TestCheckUpstream(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://api.example.com/mcp":     true,
		"http://127.0.0.1:8080/mcp":       true,
		"http://localhost/mcp":            true,
		"http://[::1]:9/mcp":              true,
		"http://api.example.com/mcp":      false,
		"ftp://api.example.com/mcp":       false,
		"api.example.com/mcp":             false,
		"https://user:pw@api.example.com": false,
		"https:///mcp":                    false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := mcpgate.CheckUpstream(u); (err == nil) != ok {
			t.Errorf("CheckUpstream(%s) = %v; want ok=%v", raw, err, ok)
		}
	}
}

func TestCheckListen(t *testing.T) {
	for _, tt := range []struct {
		addr          string
		tls, ok, loop bool
	}{
		{"127.0.0.1:8931", false, true, true},
		{"localhost:8931", false, true, true},
		{"[::1]:8931", false, true, true},
		{"127.0.0.1:0", false, true, true},
		{":8931", false, false, false},
		{"0.0.0.0:8931", false, false, false},
		{"10.0.0.5:8931", false, false, false},
		{"0.0.0.0:8931", true, true, false},
		{"127.0.0.1", false, false, false},
		{"127.0.0.1:", false, false, false},
	} {
		loop, err := mcpgate.CheckListen(tt.addr, tt.tls)
		if (err == nil) != tt.ok || loop != tt.loop {
			t.Errorf("CheckListen(%q, tls=%v) = %v, %v; want loopback=%v ok=%v", tt.addr, tt.tls, loop, err, tt.loop, tt.ok)
		}
	}
}

// TestHTTPGateStreamDeadline: an upstream that starts its SSE stream and
// then hangs: the client gets what was sent, then limen's refusal at the
// deadline, and the upstream request is cancelled. Also: the upstream's
// query (a key, here) is kept and never logged.
func TestHTTPGateStreamDeadline(t *testing.T) {
	c := startLimend(t)
	cancelled := make(chan struct{})
	var query string
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		query = r.URL.RawQuery
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\nid: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(cancelled)
	}))
	defer hang.Close()
	logs := &syncBuffer{}
	gate := gateFor(t, c, hang.URL+"/mcp?key=k3y-s3cret", logs, func(o *mcpgate.HTTPOptions) { o.CallTimeout = 300 * time.Millisecond })
	body, header := statelessCall(9, "read")
	resp, got := post(t, gate+"?client=1", body, header)
	progress := strings.Index(got, "notifications/progress")
	refusal := strings.Index(got, "did not answer within 300ms")
	if resp.StatusCode != http.StatusOK || progress < 0 || refusal < progress || !strings.Contains(got, "id: e1\n") {
		t.Fatalf("got %d:\n%s\nwant the server's event as sent, then limen's refusal", resp.StatusCode, got)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream request was not cancelled after the refusal")
	}
	if query != "key=k3y-s3cret&client=1" {
		t.Errorf("the upstream got query %q; want its own and then the client's", query)
	}
	if strings.Contains(logs.String(), "k3y-s3cret") {
		t.Errorf("the gate's log holds the upstream's key:\n%s", logs)
	}
}

// TestHTTPGateOAuthMetadata: a client that looks up OAuth metadata next to
// the gate's URL gets the upstream's.
func TestHTTPGateOAuthMetadata(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-protected-resource/v1/mcp" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"resource":"https://server.example/v1/mcp","authorization_servers":["https://auth.example"]}`)
	}))
	defer up.Close()
	gate := strings.TrimSuffix(gateFor(t, refuseAll{}, up.URL+"/v1/mcp", nil, nil), "/mcp")
	for path, want := range map[string]int{
		"/.well-known/oauth-protected-resource/mcp": http.StatusOK,
		"/.well-known/other":                        http.StatusNotFound,
	} {
		resp, err := http.Get(gate + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want == http.StatusOK && !strings.Contains(string(b), "authorization_servers")) {
			t.Errorf("GET %s: %d %s; want %d and the upstream's document", path, resp.StatusCode, b, want)
		}
	}
}

// TestHTTPGateRelaysAsSent: what the upstream answers reaches the client
// byte for byte (whitespace and unknown fields included), except a
// stateless tools/call result without resultType, which gains it.
func TestHTTPGateRelaysAsSent(t *testing.T) {
	c := startLimend(t)
	answers := map[string]struct{ contentType, body string }{
		"tools/list": {"application/json", `{"jsonrpc":"2.0", "id":1,"result":{"tools":[], "x-future": {"a" :1},"resultType":"complete"}}`},
		"json call":  {"application/json", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"x-future":true}}`},
		"sse call":   {"text/event-stream", "event: message\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"x\":[1]}}\n\n"},
	}
	var next string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		a := answers[next]
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("X-Upstream", "kept")
		io.WriteString(w, a.body)
	}))
	defer up.Close()
	gate := gateFor(t, c, up.URL+"/mcp", nil, nil)
	h26 := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}

	next = "tools/list"
	resp, got := post(t, gate, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+clientMeta+`}}`, h26)
	if got != answers[next].body || resp.Header.Get("X-Upstream") != "kept" {
		t.Errorf("tools/list: the client got %q (X-Upstream %q); want the upstream's bytes and headers", got, resp.Header.Get("X-Upstream"))
	}
	next = "json call"
	body, header := statelessCall(2, "read")
	if _, got := post(t, gate, body, header); got != `{"id":2,"jsonrpc":"2.0","result":{"content":[],"x-future":true,"resultType":"complete"}}` {
		t.Errorf("a JSON call result without resultType: the client got %s", got)
	}
	next = "sse call"
	body, header = statelessCall(3, "read")
	if _, got := post(t, gate, body, header); got != "event: message\nid: 9\ndata: {\"id\":3,\"jsonrpc\":\"2.0\",\"result\":{\"content\":[],\"x\":[1],\"resultType\":\"complete\"}}\n\n" {
		t.Errorf("an SSE call result without resultType: the client got %q", got)
	}
}

// TestHTTPGateCancelledWait: a client that cancels a call while limen
// waits for a person (notifications/cancelled, a POST of its own) ends the
// wait, and the call is never forwarded, even if approved afterwards.
func TestHTTPGateCancelledWait(t *testing.T) {
	c := startLimend(t)
	var mu sync.Mutex
	var bodies []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	gate := gateFor(t, c, up.URL+"/mcp", nil, func(o *mcpgate.HTTPOptions) { o.AskTimeout = time.Minute })

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watch, err := c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	body, header := statelessCall(42, "write")
	done := make(chan string, 1)
	go func() {
		_, got := post(t, gate, body, header)
		done <- got
	}()
	var askID string
	for askID == "" {
		ev, err := watch.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED {
			askID = ev.GetAsk().GetAskId()
		}
	}
	post(t, gate, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28"})
	var got string
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call still waits for limen")
	}
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `"id":42`) {
		t.Errorf("the cancelled call was answered %s; want a refusal", got)
	}
	c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: askID, Choice: limenv1.Choice_CHOICE_APPROVE})
	post(t, gate, `{"jsonrpc":"2.0","method":"notifications/marker"}`, nil)
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || strings.Contains(strings.Join(bodies, "\n"), `"tools/call"`) {
		t.Errorf("the upstream got %q; want the cancellation and the marker, never the call", bodies)
	}
}

// TestHTTPGateLimendUnreachable: with limend down (no socket) or hung (a
// socket that never answers), an allowed-looking tools/call is refused as
// a tool error and never reaches the upstream.
func TestHTTPGateLimendUnreachable(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	for name, socket := range map[string]string{
		"down": t.TempDir() + "/no-limend.sock",
		"hung": limentest.HangingSocket(t),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := client.Dial(socket)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			gate := gateFor(t, c, up.URL+"/mcp", nil, func(o *mcpgate.HTTPOptions) { o.CallTimeout = 500 * time.Millisecond })
			body, header := statelessCall(3, "read") // mcp__files__read is allowed by rule when limend is there
			resp, got := post(t, gate, body, header)
			if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `"id":3`) {
				t.Errorf("limend %s: %d %s; want a tool error result for id 3", name, resp.StatusCode, got)
			}
			t.Logf("limend %s: %s", name, got)
			mu.Lock()
			defer mu.Unlock()
			for _, m := range hits {
				if m == http.MethodPost {
					t.Errorf("limend %s: the call reached the upstream (%v)", name, hits)
				}
			}
		})
	}
}
