// Package hookfmt reads the tool-call JSON that agent runtimes hand their
// hooks (Claude Code, Codex, Gemini CLI) and writes the answer each of them
// understands. It also holds the small JSON protocol limen-hook speaks with
// limend over the HTTP socket.
//
// It imports only a few standard library packages: limen-hook links it, and
// limen-hook has to start in a few milliseconds because the runtime starts a
// new process for every tool call.
//
// The shapes, as of the versions we checked:
//
//	Claude Code PreToolUse:  {"hookSpecificOutput":{"hookEventName":"PreToolUse",
//	                          "permissionDecision":"allow|deny|ask","permissionDecisionReason":"…"}}
//	Claude Code / Codex PermissionRequest:
//	                         {"hookSpecificOutput":{"hookEventName":"PermissionRequest",
//	                          "decision":{"behavior":"allow|deny","message":"…"}}}
//	Codex PreToolUse:        only "deny" is honoured; allow is {} (no opinion:
//	                          Codex's own approval rules still apply)
//	Gemini CLI BeforeTool:   {"decision":"allow|deny","reason":"…"}
package hookfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/limenhq/limen/internal/paths"
)

// Format names a runtime's hook protocol.
type Format string

// The formats limen-hook speaks.
const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	Gemini     Format = "gemini"
)

// Formats lists every format, for flag help and validation.
var Formats = []Format{ClaudeCode, Codex, Gemini}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("format %q: use claude-code, codex or gemini", s)
}

// Agent is the name limen records as the action's agent.
func (f Format) Agent() string { return string(f) }

// Verdict is the answer a hook gives: allow, ask or deny.
type Verdict string

// The three answers. limend's "block" is Deny here, the runtimes' word.
const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// FromLimen turns a verdict as limend words it (allow, ask, block) into a
// hook verdict. Anything else is ask: an unknown word never allows.
func FromLimen(v string) Verdict {
	switch v {
	case "allow":
		return Allow
	case "block", "deny":
		return Deny
	}
	return Ask
}

// Event names the hook events limen answers.
const (
	PreToolUse        = "PreToolUse"
	PermissionRequest = "PermissionRequest"
	BeforeTool        = "BeforeTool"
)

// MaxInput bounds the hook JSON read from stdin or an HTTP body. Tool input
// beyond limend's 64 KiB is refused there anyway; this leaves room for the
// envelope.
const MaxInput = 1 << 20

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
}

// Parse reads a runtime's hook JSON. Errors name the field and what was
// expected, because they end up in the reason the model and the person see.
func Parse(f Format, data []byte) (Call, error) {
	if len(data) > MaxInput {
		return Call{}, fmt.Errorf("hook input is larger than %d bytes", MaxInput)
	}
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
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
		c.Event = DefaultEvent(f)
	}
	return c, nil
}

// DefaultEvent is the event a format's hook is installed on, used when the
// input does not say (or cannot be read).
func DefaultEvent(f Format) string {
	if f == Gemini {
		return BeforeTool
	}
	return PreToolUse
}

// HTTPSocketFor is where limend serves the hook API when only its gRPC
// socket was chosen: beside it, "limend.sock" → "limend-http.sock". The
// default socket so gives the default HTTP socket, and two limends started
// with different --socket values do not fight over one HTTP socket.
func HTTPSocketFor(grpcSocket string) string {
	return strings.TrimSuffix(grpcSocket, ".sock") + "-http.sock"
}

// DefaultHTTPSocket is the HTTP socket a client uses when told none:
// $LIMEN_HTTP_SOCKET, else the one beside the gRPC socket ($LIMEN_SOCKET or
// the default), the same rule limend follows.
func DefaultHTTPSocket() (string, error) {
	if s := os.Getenv(paths.EnvHTTPSocket); s != "" {
		return s, nil
	}
	sock, err := paths.Socket()
	if err != nil {
		return "", err
	}
	return HTTPSocketFor(sock), nil
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

// Render writes the answer for a format and event. reason is shown to the
// model (deny, and ask in non-interactive runs) or to the person (ask).
func Render(f Format, event string, v Verdict, reason string) []byte {
	var out any
	switch {
	case f == Gemini:
		// Gemini CLI has no ask: a person must approve in limen.
		if v == Allow {
			out = geminiOut{Decision: "allow", Reason: reason}
		} else {
			out = geminiOut{Decision: "deny", Reason: reason}
		}
	case event == PermissionRequest:
		switch v {
		case Allow:
			out = hookOut{Specific: specific{Event: PermissionRequest, Decision: &permDecision{Behavior: "allow"}}}
		case Deny:
			out = hookOut{Specific: specific{Event: PermissionRequest, Decision: &permDecision{Behavior: "deny", Message: reason}}}
		default:
			// No decision: the runtime shows its own approval prompt, which
			// is a person deciding.
			out = hookOut{Specific: specific{Event: PermissionRequest}}
		}
	case f == Codex:
		// Codex's PreToolUse honours only deny; allow leaves Codex's own
		// approval rules in charge, and ask must be a deny that says how a
		// person approves.
		if v == Allow {
			out = struct{}{}
		} else {
			out = hookOut{Specific: specific{Event: PreToolUse, Permission: "deny", Reason: reason}}
		}
	default:
		out = hookOut{Specific: specific{Event: PreToolUse, Permission: string(v), Reason: reason}}
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Cannot happen with these types; keep the ask anyway.
		return []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"limen could not encode its answer"}}`)
	}
	return b
}

type hookOut struct {
	Specific specific `json:"hookSpecificOutput"`
}

type specific struct {
	Event      string        `json:"hookEventName"`
	Permission string        `json:"permissionDecision,omitempty"`
	Reason     string        `json:"permissionDecisionReason,omitempty"`
	Decision   *permDecision `json:"decision,omitempty"`
}

type permDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

type geminiOut struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Answer is a verdict with the text to show for it.
type Answer struct {
	Verdict Verdict
	Reason  string
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
		return Answer{Allow, "limen allows this: " + reason}
	case Deny:
		if r.State == "expired" {
			return Answer{Deny, fmt.Sprintf("limen: nobody answered ask %s in time, so this call is denied. Ask the user to approve it in limen (`limenctl answer` or the limen TUI), then try again.", r.AskID)}
		}
		return Answer{Deny, "limen blocks this: " + reason + ". Do not retry the same action; tell the user what was blocked and why, or find another way."}
	}
	return askAnswer(f, event, r.AskID, reason, r.WaitedMS > 0)
}

// askAnswer words an ask. waited says limend already waited for a person.
func askAnswer(f Format, event, askID, reason string, waited bool) Answer {
	var b strings.Builder
	if askID != "" {
		if waited {
			fmt.Fprintf(&b, "limen: ask %s is still waiting for a person (%s). ", askID, reason)
		} else {
			fmt.Fprintf(&b, "limen asks a person about this (ask %s): %s. ", askID, reason)
		}
		fmt.Fprintf(&b, "A person (not the agent: limen blocks agents from answering) can approve it with `limenctl answer %s --approve` in their own terminal, or in the limen TUI. ", askID)
	} else {
		fmt.Fprintf(&b, "limen needs a person to approve this: %s. ", reason)
	}
	if noAsk(f, event) {
		b.WriteString("This runtime cannot ask, so the call is denied until then: tell the user it needs approval in limen, then retry once approved.")
		return Answer{Deny, b.String()}
	}
	b.WriteString("If nobody can answer now, tell the user this waits for approval in limen and carry on with work that does not need it.")
	return Answer{Ask, b.String()}
}

// noAsk reports runtimes and events where ask cannot be expressed.
func noAsk(f Format, event string) bool {
	return f == Gemini || (f == Codex && event != PermissionRequest)
}

// FailClosed is the answer when limen could not decide (limend unreachable,
// too slow, malformed input or reply, any internal error): ask with the
// reason, or deny where the runtime has no ask. Never allow.
func FailClosed(f Format, event string, err error) Answer {
	return askAnswer(f, event, "", "limen could not decide ("+err.Error()+"), so it fails closed", false)
}
