package main

import (
	"strings"
	"testing"
)

// TestTooLargeIsDenied: hook input past the 1 MiB limen reads is denied,
// not asked: limen could not check the rest against its block rules, and
// padding a blocked command must never make it an ask.
func TestTooLargeIsDenied(t *testing.T) {
	l := start(t)
	in := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf / ; ` + strings.Repeat("true; ", 1<<18) + `"}}`)
	out, _ := claude(t, in, "--socket", l.http)
	if out.Specific.Decision != "deny" || !strings.Contains(out.Specific.Reason, "larger than 1 MiB") {
		t.Fatalf("decision = %s %q; want deny saying the input is larger than 1 MiB", out.Specific.Decision, out.Specific.Reason)
	}
}
