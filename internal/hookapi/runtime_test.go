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

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/hookapi"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/server"
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
	doc := strings.Replace(policy.DefaultDocument, "block = [\n", "block = [\n  \"mcp__my_db__*\", \"WebFetch(domain:evil.example)\",\n", 1)
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
		{"fetch of a blocked domain", "web_fetch", `{"prompt":"summarise https://evil.example/x"}`, "deny", "WebFetch(domain:evil.example)"},
		{"blocked domain behind another URL", "web_fetch", `{"prompt":"compare https://go.dev/doc https://evil.example/x"}`, "deny", "names 2 URLs"},
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
		"indented":     "*** Begin Patch\n  *** Add File: " + config + "\n+x\n*** End Patch\n",
		"tab, CRLF":    "*** Begin Patch\r\n\t*** Update File: src/a.go\r\n@@\r\n-a\r\n+b\r\n\t*** Delete File: " + config + "\r\n*** End Patch\r\n",
		"bare CR":      "*** Begin Patch\r*** Add File: " + config + "\r+x\r*** End Patch",
		"moved":        "*** Begin Patch\n*** Update File: notes.md\n *** Move to: " + config + "\n@@\n-a\n+b\n*** End Patch",
		"from a shell": "cd ~ && apply_patch <<'EOF'\n*** Begin Patch\n  *** Add File: .codex/config.toml\n+x\n*** End Patch\nEOF",
	} {
		t.Run(name, func(t *testing.T) {
			tool := "apply_patch"
			if strings.HasPrefix(patch, "cd ") {
				tool = "Bash" // Codex's shell, running the apply_patch it puts on PATH
			}
			in, _ := json.Marshal(map[string]any{
				"session_id": "s1", "cwd": filepath.Join(me.HomeDir, "shop"), "hook_event_name": "PreToolUse",
				"tool_name": tool, "tool_input": map[string]any{"command": patch}, "tool_use_id": "c1",
			})
			v, a := hookReply(t, l, "codex", string(in))
			if v != "deny" || !strings.Contains(a, "Edit(~/.codex/**)") {
				t.Fatalf("= %s %s; want deny by Edit(~/.codex/**)", v, a)
			}
		})
	}
}

// claudeCall is Claude Code's PreToolUse hook input for one tool call.
func claudeCall(t *testing.T, cwd, tool string, input map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "s1", "cwd": cwd, "hook_event_name": "PreToolUse",
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nested wraps cmd in depth levels of bash -c.
func nested(cmd string, depth int) string {
	for range depth {
		cmd = "bash -c '" + strings.ReplaceAll(cmd, "'", `'\''`) + "'"
	}
	return cmd
}

// padding is about n bytes of harmless commands of 200 bytes each.
func padding(n int) string {
	return strings.Repeat("echo "+strings.Repeat("x", 193)+"; ", n/200)
}

// TestPaddingNeverDowngradesABlock: a blocked command stays blocked however
// it is padded: past the 64 parts limen learns from, past the 32 KiB it
// parses for learning, past the 64 KiB input limit, nested past 3 shells.
// What is too big even to check is blocked too, never asked.
func TestPaddingNeverDowngradesABlock(t *testing.T) {
	l := startHTTP(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(me.HomeDir, "shop")
	for _, tt := range []struct {
		name, command, says string
	}{
		{"after 100 parts", strings.Repeat("true; ", 100) + "rm -rf /", "Bash(rm -rf /)"},
		{"first of 100 parts", "rm -rf / ; " + strings.Repeat("true; ", 100), "Bash(rm -rf /)"},
		{"at the end of 40 KiB", strings.Repeat("echo padding; ", 40<<10/14) + "limenctl answer 1 --approve", "limenctl answer"},
		{"at the end of a 70 KiB input", padding(70<<10) + "rm -rf ~", "Bash(rm -rf ~)"},
		{"at the end of a 700 KiB input", padding(700<<10) + "rm -rf ~", "Bash(rm -rf ~)"},
		{"in a 40 KiB bash -c", "bash -c '" + padding(40<<10) + "rm -rf /'", "Bash(rm -rf /)"},
		{"five shells deep", nested("rm -rf /", 5), "Bash(rm -rf /)"},
		{"six evals deep", strings.Repeat("eval ", 6) + "rm -rf /", "Bash(rm -rf /)"},
		{"in a pipeline of 200", strings.Repeat("cat x | ", 200) + "limenctl answer 7 --approve", "limenctl answer"},
		{"too many parts to check", strings.Repeat("true; ", action.MaxCheckedParts+10), "too big for limen to check"},
		{"too deep to check", strings.Repeat("eval ", action.MaxCheckedDepth+2) + "true", "too big for limen to check"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, a := hookReply(t, l, "claude-code", claudeCall(t, cwd, "Bash", map[string]any{"command": tt.command}))
			if v != "deny" || !strings.Contains(a, tt.says) {
				t.Fatalf("= %s %.300s; want deny saying %q", v, a, tt.says)
			}
		})
	}
}

// TestOversizedInput: an input past 64 KiB is decided, not refused. A Write
// is decided on its path (a 150 KB Write inside the workspace is allowed by
// the rule for it; one to Claude Code's settings is blocked); anything else
// is at most asked, even when a rule allows it; and the decision log and
// the queue of asks keep only the start of each long string.
func TestOversizedInput(t *testing.T) {
	l := startHTTP(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Edit(./**)", "Bash(echo *)"]`, 1)
	if doc == policy.DefaultDocument {
		t.Fatal("the default policy has no allow list to set")
	}
	l.SetPolicy(t, doc)
	cwd := filepath.Join(me.HomeDir, "shop")
	content := strings.Repeat("0123456789abcdef\n", 150_000/17)
	for _, tt := range []struct {
		name, tool string
		input      map[string]any
		verdict    string
		says       string
	}{
		{"150 KB Write in the workspace", "Write", map[string]any{"file_path": filepath.Join(cwd, "data.csv"), "content": content}, "allow", "Edit(./**) (decided on the path: the input is 155 KiB"},
		{"150 KB Edit in the workspace", "Edit", map[string]any{"file_path": filepath.Join(cwd, "data.csv"), "old_string": content, "new_string": content + "x"}, "allow", "Edit(./**)"},
		{"150 KB Write to Claude Code's settings", "Write", map[string]any{"file_path": filepath.Join(me.HomeDir, ".claude", "settings.json"), "content": content}, "deny", "Edit(~/.claude/settings*.json)"},
		{"150 KB Write outside the workspace", "Write", map[string]any{"file_path": "/opt/data.csv", "content": content}, "ask", "limen asks a person"},
		// "<" is six bytes in JSON as Go writes it: a 25 KB command that
		// Parts reads whole, in 75 KB of input. (Short words: a single
		// word longer than limen matches against credential patterns is
		// read as naming a secret, and no wildcard rule covers it.)
		{"75 KB command a rule allows", "Bash", map[string]any{"command": "echo " + strings.Repeat("'<<' ", 5000)}, "ask", "more than the 64 KiB limen learns from"},
		{"70 KiB description of a command a rule allows", "Bash", map[string]any{"command": "echo hi", "description": strings.Repeat("x", 70<<10)}, "ask", "more than the 64 KiB limen learns from"},
		{"70 KiB MCP call", "mcp__db__query", map[string]any{"sql": strings.Repeat("x", 70<<10)}, "ask", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, a := hookReply(t, l, "claude-code", claudeCall(t, cwd, tt.tool, tt.input))
			if v != tt.verdict || !strings.Contains(a, tt.says) {
				t.Fatalf("= %s %.400s; want %s saying %q", v, a, tt.verdict, tt.says)
			}
		})
	}
	// Nothing limend keeps holds the whole content.
	h, err := l.Client.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, d := range h.GetDecisions() {
		recorded++
		if in := d.GetAction().GetInputJson(); len(in) > server.MaxInputBytes || !strings.Contains(in, "limen kept 1024 of") {
			t.Errorf("decision %s keeps %d bytes of input (%.100s…); want the long strings cut", d.GetDecisionId(), len(in), in)
		}
	}
	for _, a := range p.GetAsks() {
		recorded++
		if in := a.GetDecision().GetAction().GetInputJson(); len(in) > server.MaxInputBytes || !json.Valid([]byte(in)) {
			t.Errorf("pending ask %s keeps %d bytes of input", a.GetAskId(), len(in))
		}
	}
	if recorded < 7 {
		t.Errorf("found %d recorded decisions and asks; want every call's", recorded)
	}
}

// TestDeepInputKeepsItsBlock: an input nested past limend's 32 levels was
// refused, which every runtime took as ask: nesting an argument deeper
// turned a block into an ask. It is now decided on what can be read, and
// never allowed.
func TestDeepInputKeepsItsBlock(t *testing.T) {
	l := startHTTP(t)
	doc := strings.Replace(policy.DefaultDocument, "block = [\n", "block = [\n  \"mcp__db__drop_table\",\n", 1)
	doc = strings.Replace(doc, "allow = []", `allow = ["Bash(echo *)"]`, 1)
	l.SetPolicy(t, doc)
	var deep any = "x"
	for range 40 {
		deep = []any{deep}
	}
	for _, tt := range []struct {
		name, tool string
		input      map[string]any
		verdict    string
		says       string
	}{
		{"blocked MCP tool", "mcp__db__drop_table", map[string]any{"table": "users", "opts": deep}, "deny", "mcp__db__drop_table"},
		{"blocked command", "Bash", map[string]any{"command": "rm -rf /", "x": deep}, "deny", "Bash(rm -rf /)"},
		{"allowed command", "Bash", map[string]any{"command": "echo hi", "x": deep}, "ask", "nested more than 32 levels deep"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, a := hookReply(t, l, "claude-code", claudeCall(t, "/home/ana/shop", tt.tool, tt.input))
			if v != tt.verdict || !strings.Contains(a, tt.says) {
				t.Fatalf("= %s %.300s; want %s saying %q", v, a, tt.verdict, tt.says)
			}
		})
	}
}

// TestHookInputPastTheHardLimit: hook input past the 1 MiB limend reads is
// denied, in every runtime's shape: limen could not check the rest against
// its block rules, so asking would let padding turn a block into an ask.
func TestHookInputPastTheHardLimit(t *testing.T) {
	l := startHTTP(t)
	body := claudeCall(t, "/home/ana/shop", "Bash", map[string]any{"command": "rm -rf / ; " + strings.Repeat("true; ", hookout.MaxInput/6)})
	for format, prefix := range map[string]string{
		"claude-code": `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"`,
		"codex":       `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"`,
		"gemini":      `{"decision":"deny"`,
	} {
		v, a := hookReply(t, l, format, body)
		if v != "deny" || !strings.HasPrefix(a, prefix) || !strings.Contains(a, "larger than 1 MiB") {
			t.Errorf("%s: = %s %.200s; want deny saying the input is larger than 1 MiB", format, v, a)
		}
	}
}
