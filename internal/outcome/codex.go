package outcome

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Codex (issue 14, item 6). Codex 0.171.0 sends Claude Code's hook JSON
// (session_id, tool_use_id, tool_name, tool_input), with turn_id for
// prompt_id. What it sent around one escalated shell call in `codex exec
// --approve-for-me`, recorded through the codex-harness
// (testdata/codex-0.171.0/):
//
//	approved   UserPromptSubmit → PreToolUse(id) → PermissionRequest → PostToolUse(id) → Stop
//	refused    UserPromptSubmit → PreToolUse(id) → PermissionRequest → Stop
//
// and in the interactive TUI, where a person answered:
//
//	Yes (y)    the same as approved, event for event, key for key
//	Esc (No)   UserPromptSubmit → PreToolUse(id) → PermissionRequest, then
//	           nothing until the next prompt's UserPromptSubmit
//
// Its PermissionRequest, like Claude Code's, carries no tool_use_id, and
// its Bash tool_input adds the model's "description" (the justification it
// gave for the escalation), which PreToolUse's lacks: the binding leaves it
// out. A refusal sends no event of its own: the turn's Stop closes the ask.
//
// Who answered Codex's approval the events do not say: a person in the
// TUI, or Codex's automatic reviewer (a model: --approve-for-me, or
// approvals_reviewer in the config), with the same permission_mode. So an
// outcome bound through a Codex PermissionRequest is never taken as a
// person's answer (Outcome.Approver says why).

// Stop is the end of a Codex turn (Claude Code sends it too; limen does
// not observe it there).
const Stop = "Stop"

// CodexApproval is the Approver of an ask that Codex's own approval
// decided: a person or Codex's automatic reviewer.
const CodexApproval = "Codex's approval (a person, or Codex's automatic reviewer: the hook events do not say which)"

// ParseCodex reads one Codex hook event.
func ParseCodex(raw []byte) (Event, error) {
	e, err := ParseClaudeCode(raw)
	if err != nil {
		return Event{}, err
	}
	var r struct {
		TurnID string `json:"turn_id"`
	}
	json.Unmarshal(raw, &r) // ParseClaudeCode read it as an object already
	if e.PromptID == "" {
		e.PromptID = r.TurnID
	}
	if e.Tool == "Bash" {
		if e.Input, err = withoutMember(e.Input, "description"); err != nil {
			return Event{}, fmt.Errorf("%s event's tool_input: %w", e.Name, err)
		}
	}
	if e.Name == PermissionRequest {
		e.Approver = CodexApproval
	}
	return e, nil
}

// withoutMember is a canonical JSON object without member key (other
// values as they are).
func withoutMember(canonical, key string) (string, error) {
	if canonical == "" || canonical[0] != '{' {
		return canonical, nil
	}
	d := json.NewDecoder(bytes.NewReader([]byte(canonical)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return "", err
	}
	delete(m, key)
	b, err := json.Marshal(m)
	return string(b), err
}
