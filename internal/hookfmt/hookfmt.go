// Package hookfmt reads the tool-call JSON that agent runtimes hand their
// hooks (Claude Code, Codex, Gemini CLI) and writes the answer each of them
// understands. It also holds the small JSON protocol clients speak with
// limend over the HTTP socket.
//
// Writing answers lives in hookout, which imports no encoding/json or fmt:
// limen-hook links only that, because the runtime starts a new process for
// every tool call, and leaves everything that parses JSON to limend (see
// hookapi's /v1/hooks routes). The two cannot be one package for that
// reason, so callers use hookout's names (hookout.Render, hookout.MaxInput)
// from hookout itself; the few aliases below are the types and verdicts of
// this package's own functions (Parse, Explain, FromLimen).
package hookfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Format names a runtime's hook protocol (hookout.ClaudeCode, …).
type Format = hookout.Format

// Verdict is the answer a hook gives: allow, ask or deny.
type Verdict = hookout.Verdict

// The three answers. limend's "block" is Deny here, the runtimes' word.
const (
	Allow = hookout.Allow
	Ask   = hookout.Ask
	Deny  = hookout.Deny
)

// FromLimen turns a verdict as limend words it (allow, ask, block) into a
// hook verdict. Anything else is ask: an unknown word never allows.
func FromLimen(v string) Verdict {
	if v == "deny" {
		return Deny
	}
	switch convert.ParseVerdictName(v) {
	case limenv1.Verdict_VERDICT_ALLOW:
		return Allow
	case limenv1.Verdict_VERDICT_BLOCK:
		return Deny
	}
	return Ask
}

// Answer is a verdict with the text to show for it.
type Answer = hookout.Answer

// ErrTooLarge is Parse's error for input larger than hookout.MaxInput; its
// answer is hookout.TooLarge, not the fail-closed ask.
var ErrTooLarge = fmt.Errorf("hook input is larger than %d bytes", hookout.MaxInput)

// Call is one tool call as a hook receives it, whatever the runtime.
type Call struct {
	Event          string
	Session        string
	Cwd            string
	Tool           string
	ToolUseID      string
	PermissionMode string
	// Input is the tool's arguments, a JSON object.
	Input json.RawMessage
}

// hookInput is the union of the fields the three runtimes send. They share
// the snake_case names Claude Code introduced.
type hookInput struct {
	Event          *string         `json:"hook_event_name"`
	Session        string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	Tool           *string         `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	PermissionMode string          `json:"permission_mode"`
	Input          json.RawMessage `json:"tool_input"`
	// MCPContext is Gemini CLI's account of an MCP tool: which server and
	// which of its tools, so that mcp_<server>_<tool> need not be split by
	// guessing where a server name with underscores ends.
	MCPContext *geminiMCPContext `json:"mcp_context"`
}

// inputKeys are hookInput's keys. encoding/json matches keys ignoring case,
// and the runtimes read them exactly: a "Tool_Input" beside "tool_input"
// would be what limen decides on and not what the runtime runs.
var inputKeys = []string{"hook_event_name", "session_id", "cwd", "tool_name", "tool_use_id", "permission_mode", "tool_input", "mcp_context"}

// decodeInput reads a hook input and refuses a key that differs from one
// of inputKeys only in case: encoding/json would take "Tool_Input" for
// "tool_input", and the runtimes read their keys exactly, so limen must
// not decide on a spelling the runtime would not run. The keys are found
// by a scan of the object's top level (topKeys), not a second decode:
// this runs on every tool call (BenchmarkStart).
func decodeInput(data []byte) (hookInput, error) {
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return in, err
	}
	var err error
	topKeys(data, func(k string) bool {
		for _, want := range inputKeys {
			if k != want && strings.EqualFold(k, want) {
				err = fmt.Errorf("it has the key %q beside or instead of %q: the runtime reads %q exactly, so limen does not decide on a spelling it would not run", k, want, want)
				return false
			}
		}
		return true
	})
	return in, err
}

// topKeys calls key with each key of the JSON object in data (valid JSON,
// as json.Unmarshal found it) at its top level, until key returns false.
// A key is passed as written between its quotes; escapes in keys are
// decoded (a "\u0054ool_input" is Tool_input).
func topKeys(data []byte, key func(string) bool) {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			start := i
			esc := false
			for i++; i < len(data); i++ {
				if data[i] == '\\' {
					esc = true
					i++
					continue
				}
				if data[i] == '"' {
					break
				}
			}
			if depth != 1 {
				continue
			}
			// A key is a string followed by a colon.
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
				j++
			}
			if j >= len(data) || data[j] != ':' {
				continue
			}
			k := string(data[start+1 : i])
			if esc {
				if err := json.Unmarshal(data[start:i+1], &k); err != nil {
					continue
				}
			}
			if !key(k) {
				return
			}
		}
	}
}

// ExactKeys refuses a JSON object with a key that differs from one of
// v's (a struct's json tags) only in case: encoding/json would take
// "Input" for "input", and of two such keys the last, which is not what
// another reader of the same bytes may take.
func ExactKeys(data []byte, v any) error {
	k, want, err := caseTwin(data, jsonKeys(reflect.TypeOf(v)))
	if err != nil {
		return err
	}
	if k != "" {
		return fmt.Errorf("the key %q is not %q: keys are matched exactly; send %q", k, want, want)
	}
	return nil
}

// caseTwin returns a top-level key of the object in data that is one of
// keys in another case, and that key.
func caseTwin(data []byte, keys []string) (key, want string, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", "", err
	}
	for k := range top {
		for _, w := range keys {
			if k != w && strings.EqualFold(k, w) {
				return k, w, nil
			}
		}
	}
	return "", "", nil
}

// jsonKeys are the json names of a struct type's fields.
func jsonKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// Parse reads a runtime's hook JSON. Errors name the field and what was
// expected, because they end up in the reason the model and the person see.
func Parse(f Format, data []byte) (Call, error) {
	if len(data) > hookout.MaxInput {
		return Call{}, ErrTooLarge
	}
	in, err := decodeInput(data)
	if err != nil {
		return Call{}, fmt.Errorf("hook input is not the JSON object %s sends: %w", f, err)
	}
	if in.Tool == nil || *in.Tool == "" {
		return Call{}, errors.New("hook input has no tool_name")
	}
	input := []byte(strings.TrimSpace(string(in.Input)))
	switch {
	case len(input) == 0 || string(input) == "null":
		input = []byte("{}") // a tool without arguments
	case input[0] != '{':
		return Call{}, fmt.Errorf("hook input's tool_input is not a JSON object (it starts with %q)", input[:1])
	}
	c := Call{
		Session: in.Session, Cwd: in.Cwd, Tool: *in.Tool, ToolUseID: in.ToolUseID,
		PermissionMode: in.PermissionMode, Input: input,
	}
	if in.Event != nil {
		c.Event = *in.Event
	}
	if c.Event == "" {
		c.Event = hookout.DefaultEvent(f)
	}
	if f == hookout.Gemini {
		var err error
		if c.Tool, c.Input, err = geminiAsClaude(c.Tool, c.Input, in.MCPContext, c.Cwd); err != nil {
			return Call{}, err
		}
	}
	if !decisionEvent(c.Event) {
		// After the fact (PostToolUse, say) there is nothing to decide,
		// and queuing an ask for it would only puzzle a person.
		return Call{}, fmt.Errorf("limen-hook decides before a tool runs, and this hook ran on %s: install it on %s", c.Event, hookout.DefaultEvent(f))
	}
	return c, nil
}

// decisionEvent reports whether a hook runs at event before the tool does,
// when its answer can still stop it. The runtimes' names for it are taken
// alike, whichever format was asked for.
func decisionEvent(event string) bool {
	return event == hookout.PreToolUse || event == hookout.PermissionRequest || event == hookout.BeforeTool
}

// DecideRequest is what limen-hook POSTs to limend's /v1/decide.
type DecideRequest struct {
	Agent     string          `json:"agent"`
	Session   string          `json:"session,omitempty"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	Cwd       string          `json:"cwd,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// WaitMS, when positive, makes limend wait up to that many
	// milliseconds for a person's answer to an ask before it replies.
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// RequestFor builds the /v1/decide request for a call.
func RequestFor(f Format, c Call, waitMS int64) DecideRequest {
	return DecideRequest{Agent: f.Agent(), Session: c.Session, Tool: c.Tool, Input: c.Input, Cwd: c.Cwd, ToolUseID: c.ToolUseID, WaitMS: waitMS}
}

// DecideResponse is limend's answer on /v1/decide and /v1/await.
type DecideResponse struct {
	// Verdict is allow, ask or block.
	Verdict    string `json:"verdict"`
	Reason     string `json:"reason"`
	DecisionID string `json:"decision_id,omitempty"`
	// AskID is set when a person was asked; State then says where the ask
	// stands: pending, answered or expired.
	AskID string `json:"ask_id,omitempty"`
	State string `json:"state,omitempty"`
	// WaitedMS is how long limend waited for a person before replying.
	WaitedMS int64 `json:"waited_ms,omitempty"`
}

// AwaitRequest is the body of /v1/await.
type AwaitRequest struct {
	AskID  string `json:"ask_id"`
	WaitMS int64  `json:"wait_ms"`
}

// ErrorResponse is the body of a non-2xx reply.
type ErrorResponse struct {
	Error string `json:"error"`
}

// Explain words limend's answer for the runtime: what happened and, for ask
// and deny, what the model should do next. The format matters because a
// runtime without ask (Codex PreToolUse, Gemini CLI) gets a deny that must
// say how a person approves.
func Explain(f Format, event string, r DecideResponse) Answer {
	v := FromLimen(r.Verdict)
	reason := strings.TrimSpace(r.Reason)
	switch v {
	case Allow:
		return Answer{Verdict: Allow, Reason: "limen allows this: " + reason}
	case Deny:
		if r.State == "expired" {
			return Answer{Verdict: Deny, Reason: fmt.Sprintf("limen: nobody answered ask %s in time, so this call is denied. Ask the user to approve it in limen (`limenctl answer` or the limen TUI), then try again.", r.AskID)}
		}
		return Answer{Verdict: Deny, Reason: "limen blocks this: " + reason + ". Do not retry the same action; tell the user what was blocked and why, or find another way."}
	}
	return hookout.AskAnswer(f, event, r.AskID, reason, r.WaitedMS > 0)
}
