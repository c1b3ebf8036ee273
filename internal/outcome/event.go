// Package outcome learns what a person answered in an agent runtime's own
// permission dialog, from the hook events the runtime sends around it. It
// is pure: it takes the events in the order limend received them and
// yields outcomes; it does no I/O, keeps no clock and logs nothing, so a
// test can replay the real event sequences recorded from Claude Code
// (testdata/).
//
// What Claude Code 2.1.328 sends after a PreToolUse whose answer was ask
// (docs/integrations.md has the table and how it was recorded):
//
//	Yes                      PermissionRequest → PostToolUse(id) → PostToolBatch
//	Yes, the tool fails      PermissionRequest → PostToolUseFailure(id, is_interrupt:false) → PostToolBatch
//	Yes, don't ask again     as Yes; .claude/settings.local.json gains the rule first
//	No, with a note          PermissionRequest → PostToolBatch[id: rejection text + note]
//	No, Esc                  PermissionRequest, then nothing for id until the session moves on
//
// PermissionRequest carries no tool_use_id: it is bound to the oldest open
// ask of the same session with the same tool and the same input.
package outcome

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The hook events this package reads, as Claude Code names them.
const (
	PreToolUse         = "PreToolUse"
	PermissionRequest  = "PermissionRequest"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PostToolBatch      = "PostToolBatch"
	UserPromptSubmit   = "UserPromptSubmit"
	SessionEnd         = "SessionEnd"
)

// Observed lists the events limen-hook posts to limend only to be observed:
// they decide nothing, so a failure there must never stop the person's
// work. PreToolUse is observed too, but through the deciding route.
var Observed = []string{PermissionRequest, PostToolUse, PostToolUseFailure, PostToolBatch, UserPromptSubmit, SessionEnd}

// IsObserved reports whether event is one of Observed.
func IsObserved(event string) bool {
	for _, e := range Observed {
		if e == event {
			return true
		}
	}
	return false
}

// Rejection starts the tool_response Claude Code gives the model when the
// person answered No in its dialog; "the user said:\n" precedes their
// note, when they typed one.
const (
	Rejection  = "The user doesn't want to proceed with this tool use."
	noteMarker = "the user said:\n"
)

// Event is one hook event, reduced to what binds it to an ask.
type Event struct {
	Name      string // hook_event_name
	Session   string
	PromptID  string
	ToolUseID string
	Tool      string
	// Input is tool_input in a canonical form (keys sorted, no spaces),
	// so that PermissionRequest's copy compares equal to PreToolUse's.
	Input       string
	IsInterrupt bool   // PostToolUseFailure: the person interrupted the tool
	Cwd         string // where the runtime's project settings are
	Calls       []Call // PostToolBatch
	// Source names who sent the event (limend fills it in with the agent
	// runtime the posting process runs under, never from the event): an
	// ask listens only to events from the source that opened it.
	Source string
	// Rules is the project's allow list (.claude/settings.local.json's
	// permissions.allow) as limend read it when the event arrived; nil if
	// it was not read.
	Rules []string
	// HookAnswer is "allow" or "deny" when limen's own PermissionRequest
	// hook answered this PermissionRequest (the dialog was not shown).
	HookAnswer string
	// Approver names who other than a person may have answered this
	// PermissionRequest's dialog ("" for Claude Code's, which only a
	// person or a hook answers): CodexApproval.
	Approver string
	// Since is when the oldest process between the runtime and the one
	// that posted the event started (clock ticks since boot, as
	// /proc/<pid>/stat says; 0 when limend cannot tell). A runtime starts
	// a hook for each event, after the ask opened; a process older than
	// the ask is something else the runtime ran: a tool of the agent's.
	Since uint64
	// Opens says this PreToolUse opened an ask in limen (limend fills it
	// in): a PreToolUse that opened none is a call the runtime may run.
	Opens bool
}

// Call is one tool call of a PostToolBatch.
type Call struct {
	ToolUseID string
	Tool      string
	Input     string
	Response  string // tool_response as text (JSON when it was not a string)
}

// rawEvent is the hook JSON; unknown members are ignored, since every
// Claude Code release adds some.
type rawEvent struct {
	Event       string          `json:"hook_event_name"`
	Session     string          `json:"session_id"`
	PromptID    string          `json:"prompt_id"`
	ToolUseID   string          `json:"tool_use_id"`
	Tool        string          `json:"tool_name"`
	Input       json.RawMessage `json:"tool_input"`
	IsInterrupt bool            `json:"is_interrupt"`
	Cwd         string          `json:"cwd"`
	Calls       []struct {
		ToolUseID string          `json:"tool_use_id"`
		Tool      string          `json:"tool_name"`
		Input     json.RawMessage `json:"tool_input"`
		Response  json.RawMessage `json:"tool_response"`
	} `json:"tool_calls"`
}

// SessionOf reads only an event's session_id, which is cheaper than
// ParseClaudeCode when the session turns out to have nothing open.
func SessionOf(raw []byte) string {
	var r struct {
		Session string `json:"session_id"`
	}
	json.Unmarshal(raw, &r)
	return r.Session
}

// ParseClaudeCode reads one Claude Code hook event. It needs the event's
// name and session; what else an event carries depends on the event.
func ParseClaudeCode(raw []byte) (Event, error) {
	var r rawEvent
	if err := json.Unmarshal(raw, &r); err != nil {
		return Event{}, fmt.Errorf("hook event is not a JSON object: %w", err)
	}
	if r.Event == "" {
		return Event{}, errors.New("hook event has no hook_event_name")
	}
	if r.Session == "" {
		return Event{}, fmt.Errorf("%s event has no session_id", r.Event)
	}
	e := Event{Name: r.Event, Session: r.Session, PromptID: r.PromptID, ToolUseID: r.ToolUseID, Tool: r.Tool, IsInterrupt: r.IsInterrupt, Cwd: r.Cwd}
	var err error
	if e.Input, err = Canonical(r.Input); err != nil {
		return Event{}, fmt.Errorf("%s event's tool_input: %w", r.Event, err)
	}
	switch e.Name {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		if e.ToolUseID == "" {
			return Event{}, fmt.Errorf("%s event has no tool_use_id", e.Name)
		}
	}
	for i, c := range r.Calls {
		in, err := Canonical(c.Input)
		if err != nil {
			return Event{}, fmt.Errorf("PostToolBatch event's tool_calls[%d].tool_input: %w", i, err)
		}
		var text string
		if json.Unmarshal(c.Response, &text) != nil {
			text = string(c.Response)
		}
		e.Calls = append(e.Calls, Call{ToolUseID: c.ToolUseID, Tool: c.Tool, Input: in, Response: text})
	}
	return e, nil
}

// Canonical re-encodes a JSON value with sorted keys and no spaces;
// numbers keep their digits. Empty input is "".
func Canonical(raw []byte) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// rejectionNote returns whether a PostToolBatch response is the person's
// No, and the note they typed with it.
func rejectionNote(response string) (rejected bool, note string) {
	if !strings.HasPrefix(response, Rejection) {
		return false, ""
	}
	if _, n, ok := strings.Cut(response, noteMarker); ok {
		note = strings.TrimSpace(n)
	}
	return true, note
}
