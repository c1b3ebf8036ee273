package hookapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/hookapi"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
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

// geminiSample is a hook input Gemini CLI 0.61.0 really sent, with its
// tool_input replaced by input (and mcp_context kept).
func geminiSample(t *testing.T, name, input string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "hookfmt", "testdata", "gemini-0.61.0", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if input != "" {
		m["tool_input"] = json.RawMessage(input)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestGeminiToolsMeetTheRules: Gemini CLI's own tool names, sent as the
// real CLI sends them, meet the rules written in Claude Code's names: the
// shell's block rules, the Edit rule on Gemini's own settings, and an MCP
// rule on a server whose name holds an underscore.
func TestGeminiToolsMeetTheRules(t *testing.T) {
	l := startHTTP(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(policy.DefaultDocument, "block = [\n", "block = [\n  \"mcp__my_db__*\",\n", 1)
	if doc == policy.DefaultDocument {
		t.Fatal("the default policy has no block list to extend")
	}
	l.SetPolicy(t, doc)
	settings := filepath.Join(me.HomeDir, ".gemini", "settings.json")
	for _, tt := range []struct {
		name, sample, input, verdict, says string
	}{
		{"limenctl answer", "run_shell_command", `{"command":"limenctl answer 1 --approve","description":"x"}`, "deny", "limenctl answer"},
		{"rm -rf / in a dir", "run_shell_command", `{"command":"rm -rf /","dir_path":"sub"}`, "deny", "rm -rf /"},
		{"ordinary command", "run_shell_command", "", "deny", "limen asks a person"},
		{"its own settings", "write_file", `{"file_path":"` + settings + `","content":"{}"}`, "deny", "Edit(~/.gemini/settings.json)"},
		{"its own settings by replace", "replace", `{"file_path":"` + settings + `","old_string":"a","new_string":"b"}`, "deny", "Edit(~/.gemini/settings.json)"},
		{"mcp server with an underscore", "mcp_my_db_run_query", "", "deny", "mcp__my_db__*"},
		{"two spellings of one path", "read_file", `{"file_path":"README.md","absolute_path":"/root/.ssh/id_rsa"}`, "deny", "cannot tell which one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, a := hookReply(t, l, "gemini", geminiSample(t, tt.sample, tt.input))
			if v != tt.verdict || !strings.Contains(a, tt.says) || !strings.HasPrefix(a, `{"decision":"deny"`) {
				t.Fatalf("= %s %s; want %s saying %q", v, a, tt.verdict, tt.says)
			}
		})
	}
	// What limend recorded is the Claude Code tool.
	h, err := l.Client.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, d := range h.GetDecisions() {
		tools[d.GetAction().GetTool()] = true
	}
	for _, want := range []string{"Bash", "Write", "Edit", "mcp__my_db__run_query"} {
		if !tools[want] {
			t.Errorf("history has tools %v; want %s among them", tools, want)
		}
	}
}

// TestCodexApplyPatchHeaders: Codex trims each hunk header before matching
// it, so an indented "*** Add File:" edits that file, and limend blocks a
// patch of Codex's own configuration however its headers are spaced.
func TestCodexApplyPatchHeaders(t *testing.T) {
	l := startHTTP(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(me.HomeDir, ".codex", "config.toml")
	for name, patch := range map[string]string{
		"indented":  "*** Begin Patch\n  *** Add File: " + config + "\n+x\n*** End Patch\n",
		"tab, CRLF": "*** Begin Patch\r\n\t*** Update File: src/a.go\r\n@@\r\n-a\r\n+b\r\n\t*** Delete File: " + config + "\r\n*** End Patch\r\n",
		"bare CR":   "*** Begin Patch\r*** Add File: " + config + "\r+x\r*** End Patch",
		"moved":     "*** Begin Patch\n*** Update File: notes.md\n *** Move to: " + config + "\n@@\n-a\n+b\n*** End Patch",
	} {
		t.Run(name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{
				"session_id": "s1", "cwd": filepath.Join(me.HomeDir, "shop"), "hook_event_name": "PreToolUse",
				"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}, "tool_use_id": "c1",
			})
			v, a := hookReply(t, l, "codex", string(in))
			if v != "deny" || !strings.Contains(a, "Edit(~/.codex/**)") {
				t.Fatalf("= %s %s; want deny by Edit(~/.codex/**)", v, a)
			}
		})
	}
}
