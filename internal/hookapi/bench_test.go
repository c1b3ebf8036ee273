package hookapi_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// BenchmarkDecide is limend's share of a hook call: one /v1/decide over a
// new Unix socket connection, as limen-hook makes it, against the same
// decision made over gRPC by a connected client. Read is allowed by a rule,
// so no ask is queued.
func BenchmarkDecide(b *testing.B) {
	l := start(b)
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
