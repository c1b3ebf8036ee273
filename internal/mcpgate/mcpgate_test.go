package mcpgate_test

import (
	"context"
	"fmt"
	"github.com/limenhq/limen/internal/limentest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/mcpgate"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// files is a real go-sdk MCP server that records which tools really ran.
type files struct {
	mu    sync.Mutex
	calls []string
}

type pathArg struct {
	Path string `json:"path" jsonschema:"the file"`
}

func (f *files) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "file tools"})
	for _, name := range []string{"read", "delete", "write"} {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name + " a file"}, func(_ context.Context, _ *mcp.CallToolRequest, in pathArg) (*mcp.CallToolResult, any, error) {
			f.mu.Lock()
			f.calls = append(f.calls, name+" "+in.Path)
			f.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done: " + in.Path}}}, nil, nil
		})
	}
	return s
}

func (f *files) ran() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// startLimend runs a real limend whose policy allows mcp__files__read and
// blocks mcp__files__delete; mcp__files__write is left to the prediction
// (a new action: ask).
func startLimend(t *testing.T) *client.Client {
	t.Helper()
	l := limentest.Start(t)
	doc := strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["mcp__files__read"]`, 1)
	doc = strings.Replace(doc, "block = [\n", "block = [\n  \"mcp__files__delete\",\n", 1)
	l.SetPolicy(t, doc)
	return l.Client
}

// connect runs the gate between a real go-sdk client and f's server.
func connect(t *testing.T, f *files, decider mcpgate.Decider, askTimeout time.Duration) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	upGate, upServer := mcp.NewInMemoryTransports()
	ss, err := f.server().Connect(ctx, upServer, nil)
	if err != nil {
		t.Fatal(err)
	}
	downClient, downGate := mcp.NewInMemoryTransports()
	gateDone := make(chan error, 1)
	go func() {
		gateDone <- mcpgate.Run(ctx, downGate, upGate, mcpgate.Options{Name: "files", Decider: decider, AskTimeout: askTimeout, Session: "t"})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, downClient, nil)
	if err != nil {
		t.Fatalf("connect through the gate: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-gateDone; err != nil {
			t.Errorf("gate: %v", err)
		}
		cancel()
		ss.Close()
	})
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestGate(t *testing.T) {
	c := startLimend(t)
	f := &files{}
	cs := connect(t, f, c, 300*time.Millisecond)

	if got := cs.InitializeResult(); got.ServerInfo == nil || got.ServerInfo.Name != "files" || got.Instructions != "file tools" || got.Capabilities.Tools == nil {
		t.Errorf("initialize through the gate = %+v; want the server's own info, instructions and tools capability", got)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || !strings.Contains(fmt.Sprint(tool.InputSchema), "path") {
			t.Errorf("tool %s lost its input schema through the gate: %v", tool.Name, tool.InputSchema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"delete", "read", "write"}) {
		t.Fatalf("tools/list through the gate = %v; want the server's tools", names)
	}

	tests := []struct {
		name, tool string
		isError    bool
		want       string
		ran        bool
	}{
		{"allowed call is forwarded", "read", false, "read done: /tmp/a", true},
		{"blocked call is not", "delete", true, "limen did not allow mcp__files__delete", false},
		{"unanswered ask is a deny", "write", true, "nobody answered ask", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.ran())
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{"path": "/tmp/a"}})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if res.IsError != tt.isError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("result isError=%v %q; want isError=%v mentioning %q", res.IsError, text(res), tt.isError, tt.want)
			}
			if ran := len(f.ran()) > before; ran != tt.ran {
				t.Errorf("the server ran the tool: %v; want %v (calls %v)", ran, tt.ran, f.ran())
			}
		})
	}

	t.Run("approved ask is forwarded", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
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
				if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED && strings.Contains(ev.GetAsk().GetDecision().GetAction().GetInputJson(), "/tmp/b") {
					_, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ev.GetAsk().GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
					answered <- err
					return
				}
			}
		}()
		slow := connect(t, f, c, 20*time.Second)
		res, err := slow.CallTool(t.Context(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "/tmp/b"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(res) != "write done: /tmp/b" {
			t.Fatalf("result isError=%v %q; want the server's result", res.IsError, text(res))
		}
	})

	hist, err := c.API.History(t.Context(), &limenv1.HistoryRequest{Limit: 1})
	if err != nil || len(hist.GetDecisions()) == 0 {
		t.Fatal(err)
	}
	if a := hist.GetDecisions()[0].GetAction(); a.GetTool() != "mcp__files__write" || a.GetAgent() != mcpgate.Agent || a.GetInputJson() != `{"path":"/tmp/b"}` {
		t.Errorf("limend recorded %v; want tool mcp__files__write with the call's arguments", a)
	}
}

// TestDaemonDown: with limend unreachable no call is forwarded, not even one
// the policy would allow.
func TestDaemonDown(t *testing.T) {
	c, err := client.Dial(filepath.Join(t.TempDir(), "nobody.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := &files{}
	cs := connect(t, f, c, time.Second)
	for _, tool := range []string{"read", "delete", "write"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "/tmp/a"}})
		if err != nil {
			t.Fatalf("tools/call %s: %v", tool, err)
		}
		if !res.IsError || !strings.Contains(text(res), "limend did not decide") {
			t.Errorf("%s: result isError=%v %q; want isError saying limend did not decide", tool, res.IsError, text(res))
		}
	}
	if ran := f.ran(); len(ran) != 0 {
		t.Fatalf("with limend down the server ran %v; want nothing forwarded", ran)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"github": true, "my-server_2": true, "": false, "a__b": false, "a b": false, "x(y)": false} {
		if err := mcpgate.CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v; want ok=%v", name, err, ok)
		}
	}
}

// TestServerNotificationsPassThrough: what the server says on its own — a
// changed tool list, progress on a call — reaches the client through the
// gate.
func TestServerNotificationsPassThrough(t *testing.T) {
	c := startLimend(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	server := (&files{}).server()
	// "read" is allowed by the policy; make it report progress.
	server.RemoveTools("read")
	mcp.AddTool(server, &mcp.Tool{Name: "read"}, func(ctx context.Context, req *mcp.CallToolRequest, in pathArg) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + in.Path}}}, nil, nil
	})
	upGate, upServer := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, upServer, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	downClient, downGate := mcp.NewInMemoryTransports()
	gateDone := make(chan error, 1)
	go func() {
		gateDone <- mcpgate.Run(ctx, downGate, upGate, mcpgate.Options{Name: "files", Decider: c, AskTimeout: time.Second})
	}()
	changed := make(chan struct{}, 4)
	progress := make(chan string, 4)
	acked := &watchFor{text: "notifications/subscriptions/acknowledged", seen: make(chan struct{})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Message
		},
	}).Connect(ctx, &mcp.LoggingTransport{Transport: downClient, Writer: acked}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		<-gateDone
	}()
	// The stateless revision's client subscribes to list changes
	// (subscriptions/listen) without waiting for the server to take the
	// subscription; a change before the server's acknowledgement is not
	// sent. Wait for it.
	select {
	case <-acked.seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never acknowledged the client's subscription")
	}

	mcp.AddTool(server, &mcp.Tool{Name: "grep"}, func(context.Context, *mcp.CallToolRequest, pathArg) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	select {
	case <-changed:
	case <-wait.Done():
		t.Fatal("no tools/list_changed reached the client")
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "grep") || slices.Contains(names, "limen-mcp-gate-list-changed") {
		t.Errorf("tools after the change = %v; want grep, and nothing of the gate's own", names)
	}

	params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/tmp/a"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("call = %v, %v", res, err)
	}
	select {
	case msg := <-progress:
		if msg != "half way" {
			t.Errorf("progress %q; want the server's", msg)
		}
	case <-wait.Done():
		t.Fatal("no progress reached the client")
	}
}

// watchFor closes seen once text is written to it.
type watchFor struct {
	text string
	seen chan struct{}
	once sync.Once
}

func (w *watchFor) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.text) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}
