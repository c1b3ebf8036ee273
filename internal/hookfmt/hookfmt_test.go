package hookfmt

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     Call
		err      string
	}{
		{"claude code", `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t","permission_mode":"default","effort":{"level":"medium"}}`,
			Call{Event: "PreToolUse", Session: "s", Cwd: "/p", Tool: "Bash", ToolUseID: "t", PermissionMode: "default", Input: json.RawMessage(`{"command":"ls"}`)}, ""},
		{"no event", `{"tool_name":"Read","tool_input":{"file_path":"a"}}`, Call{Event: "PreToolUse", Tool: "Read", Input: json.RawMessage(`{"file_path":"a"}`)}, ""},
		{"no input", `{"tool_name":"mcp__x__list"}`, Call{Event: "PreToolUse", Tool: "mcp__x__list", Input: json.RawMessage(`{}`)}, ""},
		{"null input", `{"tool_name":"X","tool_input":null}`, Call{Event: "PreToolUse", Tool: "X", Input: json.RawMessage(`{}`)}, ""},
		{"no tool", `{"tool_input":{}}`, Call{}, "no tool_name"},
		{"after the tool ran", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, Call{}, "ran on PostToolUse: install it on PreToolUse"},
		{"input is a string", `{"tool_name":"Bash","tool_input":"ls"}`, Call{}, "tool_input is not a JSON object"},
		{"not JSON", `Bash ls`, Call{}, "not the JSON object"},
		{"too big", `{"tool_name":"Bash","tool_input":{"c":"` + strings.Repeat("x", hookout.MaxInput) + `"}}`, Call{}, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(hookout.ClaudeCode, []byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v; want one mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil || got.Event != tt.want.Event || got.Session != tt.want.Session || got.Cwd != tt.want.Cwd || got.Tool != tt.want.Tool ||
				got.ToolUseID != tt.want.ToolUseID || got.PermissionMode != tt.want.PermissionMode || string(got.Input) != string(tt.want.Input) {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if c, _ := Parse(hookout.Gemini, []byte(`{"tool_name":"run_shell_command","tool_input":{}}`)); c.Event != hookout.BeforeTool {
		t.Errorf("gemini default event = %q; want BeforeTool", c.Event)
	}
	// Gemini CLI's tools are Claude Code's under other names: limen's
	// rules and classes must see them as such.
	for in, want := range map[string]Call{
		`{"tool_name":"run_shell_command","tool_input":{"command":"rm -rf /","directory":"x"}}`: {Tool: "Bash", Input: json.RawMessage(`{"command":"cd 'x' && rm -rf /"}`)},
		`{"tool_name":"read_file","tool_input":{"absolute_path":"/root/.ssh/id_rsa"}}`:          {Tool: "Read", Input: json.RawMessage(`{"file_path":"/root/.ssh/id_rsa"}`)},
		`{"tool_name":"mcp__github__create_issue","tool_input":{"title":"x"}}`:                  {Tool: "mcp__github__create_issue", Input: json.RawMessage(`{"title":"x"}`)},
	} {
		got, err := Parse(hookout.Gemini, []byte(in))
		if err != nil || got.Tool != want.Tool || string(got.Input) != string(want.Input) {
			t.Errorf("Parse(gemini, %s) = %s %s, %v; want %s %s", in, got.Tool, got.Input, err, want.Tool, want.Input)
		}
	}
	if c, _ := Parse(hookout.ClaudeCode, []byte(`{"tool_name":"read_file","tool_input":{"absolute_path":"a"}}`)); c.Tool != "read_file" {
		t.Errorf("a Claude Code call was renamed: %s", c.Tool)
	}
}

// TestFailClosedNeverAllows: every format and event, every verdict word
// limend might send (or garble), and every failure: never allow unless
// limend said allow.
func TestFailClosedNeverAllows(t *testing.T) {
	for _, f := range hookout.Formats {
		for _, event := range []string{hookout.PreToolUse, hookout.PermissionRequest, hookout.BeforeTool, ""} {
			out := string(hookout.Render(f, event, hookout.FailClosed(f, event, errors.New("boom")).Verdict, "r"))
			if strings.Contains(out, `allow`) {
				t.Errorf("%s %s: failure rendered %s", f, event, out)
			}
			for _, v := range []string{"", "ALLOW", "yes", "unspecified", "ask", "block"} {
				a := Explain(f, event, DecideResponse{Verdict: v, Reason: "r"})
				if a.Verdict == Allow {
					t.Errorf("%s %s: limend verdict %q became allow", f, event, v)
				}
			}
		}
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		f     Format
		event string
		v     Verdict
		want  string
	}{
		{hookout.ClaudeCode, hookout.PreToolUse, Ask, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"why"}}`},
		{hookout.ClaudeCode, hookout.PreToolUse, Allow, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"why"}}`},
		{hookout.ClaudeCode, hookout.PermissionRequest, Deny, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"why"}}}`},
		{hookout.Codex, hookout.PreToolUse, Allow, `{}`},
		{hookout.Codex, hookout.PreToolUse, Ask, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"why"}}`},
		{hookout.Codex, hookout.PermissionRequest, Allow, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{hookout.Codex, hookout.PermissionRequest, Ask, `{}`},
		{hookout.ClaudeCode, hookout.PermissionRequest, Ask, `{}`},
		{hookout.ClaudeCode, hookout.PermissionRequest, "", `{}`},
		{hookout.Gemini, hookout.BeforeTool, Allow, `{"decision":"allow","reason":"why"}`},
		{hookout.Gemini, hookout.BeforeTool, Ask, `{"decision":"deny","reason":"why"}`},
	}
	for _, tt := range tests {
		if got := string(hookout.Render(tt.f, tt.event, tt.v, "why")); got != tt.want {
			t.Errorf("Render(%s, %s, %s) = %s; want %s", tt.f, tt.event, tt.v, got, tt.want)
		}
	}
}

// TestRecordedPermissionRequestReply: the no-decision reply Claude Code
// 2.1.328 accepted in a real session (testdata/claude-code-2.1.328) is what
// Render writes, and the one it rejected is not.
func TestRecordedPermissionRequestReply(t *testing.T) {
	reply := func(name string) string {
		b, err := os.ReadFile("testdata/claude-code-2.1.328/" + name)
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(strings.TrimSpace(string(b)), " -> ")
		if !ok {
			t.Fatalf("%s has no reply", name)
		}
		return after
	}
	got := string(hookout.Render(hookout.ClaudeCode, hookout.PermissionRequest, Ask, "limen asks"))
	if want := reply("permreq-ask-fixed.limen-hook.txt"); got != want {
		t.Errorf("Render = %s; Claude Code accepted %s", got, want)
	}
	if rejected := reply("permreq-ask-before.limen-hook.txt"); got == rejected {
		t.Errorf("Render = %s, which Claude Code rejected", got)
	}
}

// TestKeysInAnotherCase: a key the runtime would not read (Tool_Input
// beside tool_input) must not be what limen decides on.
func TestKeysInAnotherCase(t *testing.T) {
	for _, in := range []string{
		`{"tool_name":"Bash","tool_input":{"command":"cat ~/.ssh/id_rsa"},"Tool_Input":{"command":"git status"}}`,
		`{"tool_name":"Bash","Tool_Name":"Read","tool_input":{"command":"rm -rf ~"}}`,
		`{"TOOL_NAME":"Bash","tool_input":{"command":"ls"}}`,
	} {
		if _, err := Parse(hookout.ClaudeCode, []byte(in)); err == nil {
			t.Errorf("Parse(%s) accepted a key in another case", in)
		}
	}
	if _, err := Parse(hookout.ClaudeCode, []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/x"}`)); err != nil {
		t.Errorf("exact keys refused: %v", err)
	}
}

// TestTopKeys: the scan finds exactly the top-level keys that a decode
// into a map finds, escapes, nesting and strings that look like keys
// included.
func TestTopKeys(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"a":1,"b":{"c":2,"d":[{"e":3}]},"f":"g:h"}`,
		`{ "tool_input" : {"Tool_Input":"x"}, "x" : ["\"tool_name\":", "y"] }`,
		`{"\u0054ool_input":{},"tool_input":{"command":"ls"}}`,
		`{"s":"a\\\"b:","t":"\\","u":{}}`,
		"{\n\t\"k\"\n:\n1\n}",
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got []string
		topKeys([]byte(in), func(k string) bool { got = append(got, k); return true })
		want := slices.Sorted(maps.Keys(m))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("topKeys(%s) = %q; want %q", in, got, want)
		}
	}
}
