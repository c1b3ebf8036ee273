package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// buildBin builds a package of this module into dir.
func buildBin(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// TestMCPGateEndToEnd runs everything as processes, as an MCP client would:
// a go-sdk client starts `limenctl mcp-gate -- mcpserver`, which asks a
// real limend about each tools/call.
func TestMCPGateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	bins := t.TempDir()
	limenctlBin := buildBin(t, bins, "limenctl", ".")
	serverBin := buildBin(t, bins, "mcpserver", "./testdata/mcpserver")

	dir := t.TempDir()
	d, err := daemon.Start(daemon.Config{
		Socket: filepath.Join(dir, "g.sock"), DB: filepath.Join(dir, "limen.db"),
		ShutdownTimeout: 2 * time.Second, LockTimeout: 200 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop(context.Background())
	c, err := client.Dial(d.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	doc := strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["mcp__echo__echo"]`, 1)
	doc = strings.Replace(doc, "block = [\n", "block = [\n  \"mcp__echo__wipe\",\n", 1)
	cur, err := c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc}); err != nil {
		t.Fatal(err)
	}

	connect := func(t *testing.T, socket, calls string) (*mcp.ClientSession, *lockedBuffer) {
		t.Helper()
		cmd := exec.Command(limenctlBin, "--socket", socket, "mcp-gate", "--name", "echo", "--ask-timeout", "300ms", "--log-level", "warn", "--", serverBin, calls)
		stderr := &lockedBuffer{}
		cmd.Stderr = io.MultiWriter(os.Stderr, stderr)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("start the gate: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, stderr
	}
	const warning = "every tools/call will be refused until it is"
	reached := func(t *testing.T, calls, tool string) bool {
		t.Helper()
		m, _ := filepath.Glob(filepath.Join(calls, tool+"-*"))
		return len(m) > 0
	}

	t.Run("limend up", func(t *testing.T) {
		calls := t.TempDir()
		cs, stderr := connect(t, d.Socket(), calls)
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(tools.Tools) != 3 {
			t.Fatalf("tools/list through the gate = %v, %v; want the server's 3 tools", tools, err)
		}
		if tools.CacheScope == "" {
			t.Errorf("tools/list through the gate has an empty cacheScope")
		}
		tests := []struct {
			tool    string
			isError bool
			want    string
		}{
			{"echo", false, "echo: hi"},
			{"wipe", true, "limen did not allow mcp__echo__wipe"},
			{"post", true, "nobody answered ask"},
		}
		for _, tt := range tests {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatalf("%s: %v", tt.tool, err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tt.isError || !strings.Contains(text, tt.want) {
				t.Errorf("%s: isError=%v %q; want isError=%v mentioning %q", tt.tool, res.IsError, text, tt.isError, tt.want)
			}
			if reached(t, calls, tt.tool) == tt.isError {
				t.Errorf("%s: reached the server = %v; want %v", tt.tool, !tt.isError, !tt.isError)
			}
		}
		if strings.Contains(stderr.String(), warning) {
			t.Errorf("the gate warns that a running limend is unreachable:\n%s", stderr)
		}
	})

	t.Run("remote server over HTTP", func(t *testing.T) {
		var ran sync.Map
		srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
		for _, name := range []string{"echo", "wipe"} {
			mcp.AddTool(srv, &mcp.Tool{Name: name}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				Text string `json:"text"`
			}) (*mcp.CallToolResult, any, error) {
				ran.Store(name, true)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": " + in.Text}}}, nil, nil
			})
		}
		up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		defer up.Close()
		cmd := exec.CommandContext(t.Context(), limenctlBin, "--socket", d.Socket(), "mcp-gate", "--listen", "127.0.0.1:0", "--upstream", up.URL+"/mcp", "--name", "echo", "--ask-timeout", "300ms")
		stderr := &lockedBuffer{}
		cmd.Stderr = io.MultiWriter(os.Stderr, stderr)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}()
		listening := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)
		var endpoint string
		for deadline := time.Now().Add(10 * time.Second); endpoint == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if m := listening.FindStringSubmatch(stderr.String()); m != nil {
				endpoint = m[1]
			}
		}
		if endpoint == "" {
			t.Fatalf("the gate never said where it listens:\n%s", stderr)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for tool, isError := range map[string]bool{"echo": false, "wipe": true} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			_, reached := ran.Load(tool)
			if res.IsError != isError || reached == isError {
				t.Errorf("%s: isError=%v, reached the server=%v; want isError=%v", tool, res.IsError, reached, isError)
			}
		}
	})

	t.Run("limend down", func(t *testing.T) {
		calls := t.TempDir()
		nobody := filepath.Join(t.TempDir(), "nobody.sock")
		cs, stderr := connect(t, nobody, calls)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || reached(t, calls, "echo") {
			t.Fatalf("with limend down: isError=%v, reached the server=%v; want a tool error and nothing forwarded", res.IsError, reached(t, calls, "echo"))
		}
		// The warning is printed at start, beside the server's start.
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), warning) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if got := stderr.String(); !strings.Contains(got, "limend is not reachable at "+nobody) || !strings.Contains(got, warning) {
			t.Errorf("with limend down the gate's stderr is %q; want a warning naming the socket", got)
		}
	})
}

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServerName(t *testing.T) {
	for in, want := range map[string]string{
		"github-mcp-server":        "github-mcp-server",
		"/usr/local/bin/server.py": "server",
		"./my server (beta)":       "my-server--beta-",
		"weird__name":              "weird_name",
		"npx":                      "npx",
	} {
		if got := serverName(in); got != want {
			t.Errorf("serverName(%q) = %q; want %q", in, got, want)
		}
	}
}
