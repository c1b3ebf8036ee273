// Package hookout writes the answers agent runtimes expect from their hooks
// (Claude Code, Codex, Gemini CLI), including the fail-closed answer when
// limen could not decide.
//
// It is the part of hookfmt that limen-hook links: limen-hook starts as a
// new process on every tool call, so this package imports neither
// encoding/json nor fmt (nor anything that does); it writes its few JSON
// shapes by hand, byte for byte as encoding/json would (see the tests).
// limend parses the runtime's input and renders the answer with the same
// functions, through hookfmt.
//
// The shapes, as of the versions we checked:
//
//	Claude Code PreToolUse:  {"hookSpecificOutput":{"hookEventName":"PreToolUse",
//	                          "permissionDecision":"allow|deny|ask","permissionDecisionReason":"…"}}
//	Claude Code / Codex PermissionRequest:
//	                         {"hookSpecificOutput":{"hookEventName":"PermissionRequest",
//	                          "decision":{"behavior":"allow|deny","message":"…"}}}
//	                          no decision (ask): {} — Claude Code 2.1.328 rejects a
//	                          hookSpecificOutput without "decision" as malformed
//	Codex PreToolUse:        only "deny" is honoured; allow is {} (no opinion:
//	                          Codex's own approval rules still apply)
//	Gemini CLI BeforeTool:   {"decision":"allow|deny","reason":"…"}
package hookout

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

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
	return "", errors.New("format " + strconv.Quote(s) + ": use claude-code, codex or gemini")
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

// ParseVerdict reads a hook verdict as this package writes it (allow, ask
// or deny); ok is false for anything else.
func ParseVerdict(s string) (v Verdict, ok bool) {
	switch Verdict(s) {
	case Allow, Ask, Deny:
		return Verdict(s), true
	}
	return "", false
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

// DefaultEvent is the event a format's hook is installed on, used when the
// input does not say (or cannot be read).
func DefaultEvent(f Format) string {
	if f == Gemini {
		return BeforeTool
	}
	return PreToolUse
}

// DefaultHTTPSocket is the HTTP socket a client uses when told none
// (paths.HTTPSocket).
func DefaultHTTPSocket() (string, error) { return paths.HTTPSocket() }

// Answer is a verdict with the text to show for it.
type Answer struct {
	Verdict Verdict
	Reason  string
}

// Render writes the answer for a format and event. reason is shown to the
// model (deny, and ask in non-interactive runs) or to the person (ask).
// The output is one line of JSON, the same bytes encoding/json would write
// for the shapes in the package comment.
func Render(f Format, event string, v Verdict, reason string) []byte {
	b := make([]byte, 0, 96+len(reason)+len(reason)/8)
	switch {
	case f == Gemini:
		// Gemini CLI has no ask: a person must approve in limen.
		b = append(b, `{"decision":`...)
		if v == Allow {
			b = append(b, `"allow"`...)
		} else {
			b = append(b, `"deny"`...)
		}
		if reason != "" {
			b = append(b, `,"reason":`...)
			b = AppendString(b, reason)
		}
		return append(b, '}')
	case event == PermissionRequest:
		if v != Allow && v != Deny {
			// No decision: the runtime shows its own approval prompt, which
			// is a person deciding. It must be {}: Claude Code 2.1.328
			// rejects a hookSpecificOutput without a decision object
			// ("hookSpecificOutput.decision: expected object"), and with
			// onFailure: block that became a silent denial, no dialog.
			return append(b, "{}"...)
		}
		b = append(b, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest"`...)
		if v == Allow {
			b = append(b, `,"decision":{"behavior":"allow"}`...)
		} else {
			b = append(b, `,"decision":{"behavior":"deny"`...)
			if reason != "" {
				b = append(b, `,"message":`...)
				b = AppendString(b, reason)
			}
			b = append(b, '}')
		}
		return append(b, "}}"...)
	case f == Codex:
		// Codex's PreToolUse honours only deny; allow leaves Codex's own
		// approval rules in charge, and ask must be a deny that says how a
		// person approves.
		if v == Allow {
			return append(b, "{}"...)
		}
		return preToolUse(b, Deny, reason)
	}
	return preToolUse(b, v, reason)
}

func preToolUse(b []byte, v Verdict, reason string) []byte {
	b = append(b, `{"hookSpecificOutput":{"hookEventName":"PreToolUse"`...)
	if v != "" {
		b = append(b, `,"permissionDecision":`...)
		b = AppendString(b, string(v))
	}
	if reason != "" {
		b = append(b, `,"permissionDecisionReason":`...)
		b = AppendString(b, reason)
	}
	return append(b, "}}"...)
}

// allowMarks are the members by which a rendered answer allows, besides
// the empty object (see Allows). Inside an encoded string every quote is escaped,
// so these only match the answer's own structure, never a reason's text.
var allowMarks = [][]byte{
	[]byte(`"permissionDecision":"allow"`),
	[]byte(`"behavior":"allow"`),
	[]byte(`"decision":"allow"`),
}

// Allows reports whether a rendered answer to a hook on event allows the
// call. limen-hook uses it to check that limend's reply says what its
// verdict header says, so a garbled reply is never printed as an allow.
// The empty object is Codex's PreToolUse allow ("no objection"), but on a
// PermissionRequest it is "no decision": the runtime's own dialog asks a
// person. Everywhere but a PermissionRequest it counts as an allow, so a
// reply of {} that claims ask or deny is refused.
func Allows(event string, answer []byte) bool {
	if string(answer) == "{}" {
		return event != PermissionRequest
	}
	for _, m := range allowMarks {
		if bytes.Contains(answer, m) {
			return true
		}
	}
	return false
}

// AskAnswer words an ask. waited says limend already waited for a person.
// Runtimes and events that cannot ask get a deny that says how a person
// approves. Without an ask id nothing waits in limen (it failed closed, or
// its queue was full), so the answer does not send anyone there.
func AskAnswer(f Format, event, askID, reason string, waited bool) Answer {
	var b strings.Builder
	if askID == "" {
		b.WriteString("limen needs a person to decide this: " + reason + ". ")
		if NoAsk(f, event) {
			b.WriteString("This runtime cannot ask, so the call is denied; nothing waits for approval in limen: tell the user, and retry once the cause is fixed.")
			return Answer{Deny, b.String()}
		}
		b.WriteString("Nothing waits for approval in limen: the person decides in this runtime's own permission prompt.")
		return Answer{Ask, b.String()}
	}
	if waited {
		b.WriteString("limen: ask " + askID + " is still waiting for a person (" + reason + "). ")
	} else {
		b.WriteString("limen asks a person about this (ask " + askID + "): " + reason + ". ")
	}
	b.WriteString("A person (not the agent: limen blocks agents from answering) can approve it with `limenctl answer " + askID + " --approve` in their own terminal, or in the limen TUI. ")
	if NoAsk(f, event) {
		b.WriteString("This runtime cannot ask, so the call is denied until then: tell the user it needs approval in limen, then retry once approved.")
		return Answer{Deny, b.String()}
	}
	b.WriteString("If nobody can answer now, tell the user this waits for approval in limen and carry on with work that does not need it.")
	return Answer{Ask, b.String()}
}

// NoAsk reports runtimes and events where ask cannot be expressed.
func NoAsk(f Format, event string) bool {
	return f == Gemini || (f == Codex && event != PermissionRequest)
}

// FailClosed is the answer when limen could not decide (limend unreachable,
// too slow, malformed input or reply, any internal error): ask with the
// reason, or deny where the runtime has no ask. Never allow.
func FailClosed(f Format, event string, err error) Answer {
	return AskAnswer(f, event, "", "limen could not decide ("+err.Error()+"), so it fails closed", false)
}

// TooLarge is the answer to hook input larger than MaxInput: deny, in every
// runtime. limen reads no further, so its block rules were not checked on
// the rest; an ask would let a blocked command through a person's hurried
// Yes just by padding it past the limit, so it is refused instead, with
// what to do.
func TooLarge() Answer {
	return Answer{Deny, "limen blocks this: the hook input is larger than " + strconv.Itoa(MaxInput>>20) +
		" MiB, more than limen reads, so it could not check all of it against its block rules. " +
		"Split the work: write a large file in parts (a first Write, then edits that add the rest), and run a long script from a file."}
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped exactly as
// encoding/json.Marshal escapes it: HTML-safe (<, > and & as \u003c…),
// U+2028 and U+2029 escaped, and invalid UTF-8 replaced by U+FFFD.
// Hand-written, not encoding/json, because of limen-hook's BenchmarkStart (docs/BENCHMARKS.md, "Hook start").
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
