package outcome

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The logs in testdata/codex-0.171.0/ are the real hook events of Codex
// 0.171.0 (the mock model of the codex-harness asking to run
// `touch` outside the sandbox), with every event's hook a logger that gave
// no decision; transcript_path dropped. review_*: `codex exec
// --approve-for-me`, so Codex's automatic reviewer (scripted: allow, deny)
// answered. tui_*: the interactive codex in tmux, approval_policy
// "on-request", where a person pressed y, or Esc and then sent another
// prompt. docs/integrations.md says how to record them again.

// replayCodex feeds a Codex log to a Tracker as limend would, as if
// limen's PreToolUse had asked for every call; source names who posted
// each event (the runtime above the hook, as limend finds it).
func replayCodex(t *testing.T, name string, source func(seq int) string) ([]Outcome, []string, *Tracker) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "codex-0.171.0", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tr Tracker
	var all []Outcome
	var refusedAll []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		e, err := ParseCodex(l.Input)
		if err != nil {
			t.Fatalf("%s seq %d: %v", name, l.Seq, err)
		}
		e.Source = source(l.Seq)
		done, refused := tr.Observe(e)
		all, refusedAll = append(all, done...), append(refusedAll, refused...)
		if e.Name == PreToolUse {
			if err := tr.Open(Ask{ID: e.ToolUseID, Session: e.Session, PromptID: e.PromptID, ToolUseID: e.ToolUseID, Tool: e.Tool, Input: e.Input, Source: e.Source}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return all, refusedAll, &tr
}

func codexSource(int) string { return "alice@4242/99" }

// TestReplayCodex: Codex's approval binds to the ask (its PermissionRequest
// adds the model's description to the input, which the binding leaves
// out); a run settles it approved, a refusal is closed by the turn's Stop;
// neither is taken as a person's answer, since Codex's events do not say
// whether a person or its automatic reviewer answered.
func TestReplayCodex(t *testing.T) {
	for _, c := range []struct {
		name  string
		want  Result
		proof string
	}{
		{"review_allow", Approved, "PostToolUse"},
		{"review_deny", Interrupted, "Stop"},
		// The TUI (approval_policy on-request): the person's Yes sends
		// what the reviewer's allow does; Esc sends nothing until the
		// next prompt.
		{"tui_yes", Approved, "PostToolUse"},
		{"tui_esc", Interrupted, "UserPromptSubmit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, refused, tr := replayCodex(t, c.name, codexSource)
			if len(refused) > 0 {
				t.Errorf("refused: %v", refused)
			}
			if len(got) != 1 {
				t.Fatalf("%d outcomes, want 1: %+v", len(got), got)
			}
			o := got[0]
			if o.Result != c.want || o.Proof != c.proof || !o.Dialog || o.Approver != CodexApproval || o.Person() {
				t.Errorf("got %s proof=%q dialog=%v approver=%q person=%v; want %s proof=%q, bound to the PermissionRequest, not a person's",
					o.Result, o.Proof, o.Dialog, o.Approver, o.Person(), c.want, c.proof)
			}
			if tr.Len() != 0 {
				t.Errorf("%d asks still open", tr.Len())
			}
		})
	}
}

// TestReplayCodexOtherSource: events posted from another runtime than the
// one that opened the ask (the ancestry limend records) do not bind: the
// PostToolUse is refused, with a line for the log, and the ask stays open.
func TestReplayCodexOtherSource(t *testing.T) {
	got, refused, tr := replayCodex(t, "review_allow", func(seq int) string {
		if seq == 3 { // the PostToolUse
			return "alice@"
		}
		return "alice@4242/99"
	})
	if len(got) != 1 || got[0].Proof != "Stop" || got[0].Result != Interrupted {
		t.Errorf("outcomes %+v; want only the Stop's close", got)
	}
	if len(refused) != 1 || !strings.Contains(refused[0], "PostToolUse for call_mock_") || !strings.Contains(refused[0], "not from alice@4242/99") {
		t.Errorf("refused %q; want the PostToolUse named", refused)
	}
	if tr.Len() != 0 {
		t.Errorf("%d asks still open", tr.Len())
	}
}

// TestParseCodex: turn_id stands for prompt_id, and only a Bash input
// loses "description".
func TestParseCodex(t *testing.T) {
	e, err := ParseCodex([]byte(`{"hook_event_name":"PermissionRequest","session_id":"s","turn_id":"t1","tool_name":"Bash","tool_input":{"description":"why","command":"ls"}}`))
	if err != nil || e.PromptID != "t1" || e.Input != `{"command":"ls"}` || e.Approver != CodexApproval {
		t.Errorf("got %+v, %v", e, err)
	}
	e, err = ParseCodex([]byte(`{"hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"c","tool_name":"apply_patch","tool_input":{"description":"d","command":"*** Begin Patch"}}`))
	if err != nil || e.Input != `{"command":"*** Begin Patch","description":"d"}` || e.Approver != "" {
		t.Errorf("got %+v, %v", e, err)
	}
	if _, err := ParseCodex([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash"}`)); err == nil || !strings.Contains(err.Error(), "tool_use_id") {
		t.Errorf("a PostToolUse without tool_use_id: %v", err)
	}
}

// TestCodexApproverUnknown records why a Codex outcome is no person's
// answer: the PermissionRequest a person answered in the TUI and the one
// Codex's automatic reviewer answered carry the same members with the same
// permission_mode. If a release adds what tells them apart, this fails.
func TestCodexApproverUnknown(t *testing.T) {
	members := func(name string) (keys []string, mode any) {
		f, err := os.Open(filepath.Join("testdata", "codex-0.171.0", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
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
			if l.Event == PermissionRequest {
				for k := range l.Input {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				return keys, l.Input["permission_mode"]
			}
		}
		t.Fatalf("%s: no PermissionRequest", name)
		return nil, nil
	}
	pk, pm := members("tui_yes")
	rk, rm := members("review_allow")
	if !slices.Equal(pk, rk) || pm != rm {
		t.Errorf("the person's PermissionRequest has %v (mode %v), the reviewer's %v (mode %v): they can be told apart now", pk, pm, rk, rm)
	}
}
