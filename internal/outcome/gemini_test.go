package outcome

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The logs in testdata/gemini-0.61.0/ are the real hook events of Gemini
// CLI 0.61.0 (`gemini -p --approval-mode yolo`, the mock model calling
// run_shell_command, the gemini-harness), with limen-hook on
// BeforeTool (its reply kept) and a logger on AfterTool: limen allowed
// (allow.jsonl) or blocked (deny.jsonl) the call.
//
// TestGeminiEventsCarryNoCallID records why limen binds no Gemini event to
// an ask: neither BeforeTool nor AfterTool names the call (no tool_use_id),
// a refused call sends no AfterTool at all, and limen's ask reaches Gemini
// CLI as a deny, so no confirmation of Gemini's ever shows a person what
// limen asked about. If a Gemini CLI release adds an id, this test fails.
func TestGeminiEventsCarryNoCallID(t *testing.T) {
	for name, wantEvents := range map[string][]string{
		"allow": {"BeforeTool", "AfterTool"},
		"deny":  {"BeforeTool"},
	} {
		f, err := os.Open(filepath.Join("testdata", "gemini-0.61.0", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l struct {
				Event string         `json:"event"`
				Input map[string]any `json:"input"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			events = append(events, l.Event)
			for _, k := range []string{"tool_use_id", "call_id", "id"} {
				if _, ok := l.Input[k]; ok {
					t.Errorf("%s: %s carries %s now: Gemini CLI's events could be bound to asks", name, l.Event, k)
				}
			}
		}
		f.Close()
		if len(events) != len(wantEvents) || events[0] != wantEvents[0] || events[len(events)-1] != wantEvents[len(wantEvents)-1] {
			t.Errorf("%s: events %v; want %v", name, events, wantEvents)
		}
	}
}
