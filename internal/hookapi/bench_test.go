package hookapi_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// BenchmarkDecide is limend's share of a hook call: one /v1/decide, and one
// /v1/hooks/claude-code as limen-hook makes it, over a new Unix socket
// connection, against the same
// decision made over gRPC by a connected client. Read is allowed by a rule,
// so no ask is queued.
func BenchmarkDecide(b *testing.B) {
	// Thousands of decisions a second are the point here, not a runaway
	// agent: lift the rate limit.
	l := start(b, func(c *daemon.Config) { c.Limits.Rate, c.Limits.Burst = 1e9, 1e9 })
	doc, err := l.c.API.GetPolicy(b.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Replace(doc.GetPolicy().GetDocument(), "allow = []", `allow = ["Read"]`, 1)
	if _, err := l.c.API.SetPolicy(b.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: doc.GetPolicy().GetVersion(), Document: text}); err != nil {
		b.Fatal(err)
	}
	body := `{"agent":"bench","session":"s","tool":"Read","input":{"file_path":"/home/ana/shop/README.md"},"cwd":"/home/ana/shop"}`
	req := []byte("POST /v1/decide HTTP/1.1\r\nHost: limend\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		itoa(len(body)) + "\r\n\r\n" + body)
	addr := l.d.HTTPAddrs()[0].String()
	b.Run("http-unix-new-connection", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("unix", addr)
			if err != nil {
				b.Fatal(err)
			}
			c.Write(req)
			resp, _ := io.ReadAll(c)
			c.Close()
			if !bytes.Contains(resp, []byte(`"verdict":"allow"`)) {
				b.Fatalf("reply %s", resp)
			}
		}
	})
	// What limen-hook sends since limend parses and renders for it: the
	// runtime's own JSON to /v1/hooks, the finished answer back.
	call := `{"session_id":"s","cwd":"/home/ana/shop","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/home/ana/shop/README.md"},"tool_use_id":"t"}`
	hookReq := []byte("POST /v1/hooks/claude-code HTTP/1.1\r\nHost: limend\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		itoa(len(call)) + "\r\n\r\n" + call)
	b.Run("http-unix-new-connection-hooks-route", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("unix", addr)
			if err != nil {
				b.Fatal(err)
			}
			c.Write(hookReq)
			resp, _ := io.ReadAll(c)
			c.Close()
			if !bytes.Contains(resp, []byte(`"permissionDecision":"allow"`)) || !bytes.Contains(resp, []byte("Limen-Verdict: allow")) {
				b.Fatalf("reply %s", resp)
			}
		}
	})
	b.Run("grpc-connected-client", func(b *testing.B) {
		a := &limenv1.Action{Agent: "bench", Session: "s", Tool: "Read", InputJson: `{"file_path":"/home/ana/shop/README.md"}`, Cwd: "/home/ana/shop"}
		for b.Loop() {
			if v := l.c.Decide(b.Context(), a); v.Verdict != limenv1.Verdict_VERDICT_ALLOW {
				b.Fatalf("verdict %v: %s", v.Verdict, v.Reason)
			}
		}
	})
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
