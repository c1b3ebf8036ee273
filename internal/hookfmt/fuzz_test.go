package hookfmt

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// FuzzHookInput feeds arbitrary stdin to every format: parsing never
// panics, and whatever limend is then said to have answered (including
// nothing usable), the rendered output is one JSON document that never
// allows unless limend said allow.
func FuzzHookInput(f *testing.F) {
	for _, seed := range []string{
		`{"session_id":"s","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"mcp__github__create_issue","tool_input":{"owner":"a","repo":"b"}}`,
		`{"tool_name":"Edit","tool_input":"not an object"}`,
		`{"tool_name":""}`,
		`[]`, `null`, ``, `{"tool_name":"Bash","tool_input":{"command":"` + "\x00\xff" + `"}}`,
	} {
		f.Add([]byte(seed), "block")
	}
	f.Fuzz(func(t *testing.T, stdin []byte, limenVerdict string) {
		for _, format := range []Format{hookout.ClaudeCode, hookout.Codex, hookout.Gemini} {
			event := hookout.DefaultEvent(format)
			var a Answer
			if _, err := Parse(format, stdin); err != nil {
				a = hookout.FailClosed(format, event, err)
			} else {
				a = Explain(format, event, DecideResponse{Verdict: limenVerdict, Reason: "r", AskID: "7"})
			}
			if a.Verdict == Allow && limenVerdict != "allow" {
				t.Fatalf("%s: limend said %q and the hook allows", format, limenVerdict)
			}
			if a.Verdict == Ask && hookout.NoAsk(format, event) {
				t.Fatalf("%s %s cannot ask, yet the answer is ask", format, event)
			}
			out := hookout.Render(format, event, a.Verdict, a.Reason)
			if !json.Valid(out) {
				t.Fatalf("%s: rendered output is not JSON: %q", format, out)
			}
		}
		if a := hookout.FailClosed(hookout.ClaudeCode, hookout.DefaultEvent(hookout.ClaudeCode), errors.New(string(stdin))); a.Verdict != Ask {
			t.Fatalf("FailClosed = %v; want ask", a.Verdict)
		}
	})
}
