package hookapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestEventsRoute: observed events are taken on /v1/events/claude-code; an
// event limend cannot read is refused with the field named, and other
// runtimes' events have no route yet.
func TestEventsRoute(t *testing.T) {
	l := start(t)
	unix := l.d.HTTPAddrs()[0]
	for _, c := range []struct {
		name, path, body string
		code             int
		want             string
	}{
		{"a PostToolUse", "/v1/events/claude-code", strings.Replace(bashCall, "PreToolUse", "PostToolUse", 1), http.StatusOK, "{}"},
		{"no session", "/v1/events/claude-code", `{"hook_event_name":"SessionEnd"}`, http.StatusBadRequest, "session_id"},
		{"codex", "/v1/events/codex", bashCall, http.StatusNotFound, "only Claude Code"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := post(t, unix, c.path, c.body)
			if code != c.code || !strings.Contains(body, c.want) {
				t.Errorf("%d %s; want %d and %s", code, body, c.code, c.want)
			}
		})
	}
}

// TestOnAskQuery: on_ask=dialog leaves an ask to the runtime's dialog
// only for a hook that runs under an agent runtime limend recorded (this
// test's calls come from limend's own process, which is none, so the ask
// is printed: cmd/limen-hook's TestOnAskDialog runs the positive case from
// a real runtime process); a value that is not prompt or dialog is an ask
// that names the parameter; over TCP, where limend knows no runtime,
// nothing is tracked and the ask is printed.
func TestOnAskQuery(t *testing.T) {
	l := start(t)
	unix, tcp := l.d.HTTPAddrs()[0], l.d.HTTPAddrs()[1]
	call := strings.Replace(bashCall, `"cwd"`, `"permission_mode":"default","cwd"`, 1)
	for _, c := range []struct {
		name, path, body string
		unix             bool
		want             string
	}{
		{"dialog under no runtime", "/v1/hooks/claude-code?on_ask=dialog", call, true, `"permissionDecision":"ask"`},
		{"bypass", "/v1/hooks/claude-code?on_ask=dialog", strings.Replace(call, `"default"`, `"bypassPermissions"`, 1), true, `"permissionDecision":"ask"`},
		{"bad value", "/v1/hooks/claude-code?on_ask=later", call, true, `on_ask=\"later\"`},
		{"over TCP", "/v1/hooks/claude-code?on_ask=dialog", call, false, `"permissionDecision":"ask"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := unix
			if !c.unix {
				addr = tcp
			}
			body := strings.Replace(c.body, "toolu_1", "toolu_"+strings.ReplaceAll(c.name, " ", "_"), 1)
			code, got := post(t, addr, c.path, body)
			if code != http.StatusOK || (c.want == "{}" && got != "{}") || !strings.Contains(got, c.want) {
				t.Errorf("%d %s; want 200 and %s", code, got, c.want)
			}
		})
	}
}
