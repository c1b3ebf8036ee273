package main

import (
	"time"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// Observing (issue 14). Installed on the Claude Code events that decide
// nothing, limen-hook only tells limend what happened, so that limend
// learns what the person answered in Claude Code's own dialog
// (internal/outcome). It prints {} on PermissionRequest ("no decision", so
// Claude Code shows its dialog) and nothing on the others, where no output
// is due, and exits 0 whatever happens: an observer that fails must never
// stop the person's work.

// observedEvents are the Claude Code events limen-hook observes; the same
// list as outcome.Observed (TestObservedEventsMatch), which limen-hook
// cannot import: it brings encoding/json.
var observedEvents = []string{"PermissionRequest", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionEnd"}

// observeTimeout bounds how long an observing call may hold the runtime up
// (it waits for limend's reply so that the events reach limend in the
// order the runtime sent them).
const observeTimeout = 2 * time.Second

// observing reports whether limen-hook only observes event in format f.
func observing(f hookout.Format, event string) bool {
	if f != hookout.ClaudeCode {
		return false
	}
	for _, e := range observedEvents {
		if e == event {
			return true
		}
	}
	return false
}

// observe posts the event to limend and prints no decision. Errors are
// dropped: there is nothing the runtime should do about them.
func observe(o options, event string, call []byte, deadline time.Time, out *answerer) {
	if event == hookout.PermissionRequest {
		out.print([]byte("{}"))
	}
	out.printed = true // nothing else is printed, not even on a panic
	if call == nil {
		return
	}
	deadline = minTime(deadline, time.Now().Add(observeTimeout))
	post(o.socket, o.serverUID, "/v1/events/"+string(hookout.ClaudeCode), call, deadline)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// dialogNoDecision reports whether limend answered a PreToolUse asked with
// --on-ask dialog with no decision: an ask it leaves to Claude Code's own
// rules and dialog (only in the permission modes where those ask the
// person; internal/hookapi/events.go). check would refuse it, rightly in
// every other case: to a PreToolUse, {} is no opinion, which
// bypassPermissions runs.
func (r reply) dialogNoDecision(event string) bool {
	return r.code == 200 && r.verdict == string(hookout.Ask) && string(r.body) == "{}" && event == hookout.PreToolUse
}
