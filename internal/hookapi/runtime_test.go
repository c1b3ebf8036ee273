package hookapi_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/hookapi"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/limentest"
)

// startHTTP runs the real limend with its HTTP socket.
func startHTTP(t *testing.T) *limentest.Limend {
	t.Helper()
	return limentest.Start(t, func(c *daemon.Config) {
		c.HTTPSocket = filepath.Join(filepath.Dir(c.Socket), "limend-http.sock")
	})
}

// hookReply posts a runtime's hook JSON to /v1/hooks/<format> and returns
// the verdict header and the body, failing on anything but a 200.
func hookReply(t *testing.T, l *limentest.Limend, format, body string) (verdict, answer string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", l.Config.HTTPSocket)
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://limend/v1/hooks/"+format, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr, Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST /v1/hooks/%s: %v", format, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/hooks/%s = %d %s; the hook routes always answer 200", format, resp.StatusCode, b)
	}
	return resp.Header.Get(hookapi.VerdictHeader), string(bytes.TrimSpace(b))
}

// TestPermissionRequestNoDecision: on a PermissionRequest an ask is "no
// decision", which Claude Code 2.1.328 accepts only as {} (it rejected
// {"hookSpecificOutput":{"hookEventName":"PermissionRequest"}} and, with
// onFailure: block, denied the call silently). Allow and block still
// answer the dialog.
func TestPermissionRequestNoDecision(t *testing.T) {
	l := startHTTP(t)
	perm := func(cmd string) string {
		return `{"session_id":"s1","cwd":"/home/ana/shop","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`
	}
	for _, tt := range []struct {
		format, cmd, verdict, answer string
	}{
		{"claude-code", "npm test", "ask", `{}`},
		{"codex", "npm test", "ask", `{}`},
		{"claude-code", "rm -rf /", "deny", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"limen blocks this: `},
	} {
		v, a := hookReply(t, l, tt.format, perm(tt.cmd))
		if v != tt.verdict || !strings.HasPrefix(a, tt.answer) {
			t.Errorf("%s PermissionRequest %q = %s %s; want %s %s…", tt.format, tt.cmd, v, a, tt.verdict, tt.answer)
		}
		if hookout.Allows(hookout.PermissionRequest, []byte(a)) {
			t.Errorf("%s PermissionRequest %q: %s counts as an allow", tt.format, tt.cmd, a)
		}
	}
	// The same {} on a PreToolUse is an allow (Codex's "no objection"), so
	// a reply {} that claims ask there is refused by limen-hook.
	if !hookout.Allows(hookout.PreToolUse, []byte(`{}`)) {
		t.Error("{} on PreToolUse must count as an allow, so that a garbled ask is refused")
	}
}
