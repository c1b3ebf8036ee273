package mcpgate_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/mcpgate"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// refuseAll is a decider that refuses every call; lists never ask it.
type refuseAll struct{}

func (refuseAll) DecideAndWait(context.Context, *limenv1.Action, client.WaitOptions) client.Verdict {
	return client.Verdict{Verdict: limenv1.Verdict_VERDICT_BLOCK, Reason: "test"}
}

// syncBuffer is a bytes.Buffer safe for the transport's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCacheHintsPassThrough: the gate passes on the server's cache hint
// for lists, and never sends the empty cacheScope the trial saw (the SDK
// fills the default only in its own handlers, which the gate bypasses).
func TestCacheHintsPassThrough(t *testing.T) {
	for _, tt := range []struct {
		name      string
		set       func(context.Context, mcp.Request, *mcp.Cacheable)
		ttl       int
		scope     string
		wantWire  string
		wantWire2 string
	}{
		{"the server's own hint", func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs, c.CacheScope = 5000, "private" }, 5000, "private", `"ttlMs":5000`, `"cacheScope":"private"`},
		{"no hint: the protocol default", nil, 0, "public", `"cacheScope":"public"`, `"tools":[`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, &mcp.ServerOptions{SetCacheable: tt.set})
			mcp.AddTool(s, &mcp.Tool{Name: "read"}, func(context.Context, *mcp.CallToolRequest, pathArg) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			upGate, upServer := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, upServer, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			downClient, downGate := mcp.NewInMemoryTransports()
			wire := &syncBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- mcpgate.Run(ctx, &mcp.LoggingTransport{Transport: downGate, Writer: wire}, upGate, mcpgate.Options{Name: "files", Decider: refuseAll{}})
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, downClient, nil)
			if err != nil {
				t.Fatal(err)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if list.TTLMs != tt.ttl || list.CacheScope != tt.scope {
				t.Errorf("tools/list through the gate: ttlMs %d, cacheScope %q; want %d, %q", list.TTLMs, list.CacheScope, tt.ttl, tt.scope)
			}
			var sent string
			for _, line := range strings.Split(wire.String(), "\n") {
				if strings.Contains(line, `"tools":[`) {
					sent = line
				}
			}
			if sent == "" || strings.Contains(sent, `"cacheScope":""`) || !strings.Contains(sent, tt.wantWire) || !strings.Contains(sent, tt.wantWire2) {
				t.Errorf("the gate sent %q; want %s and %s, never an empty cacheScope", sent, tt.wantWire, tt.wantWire2)
			}
		})
	}
}
