package main

import "testing"

// TestCodexHookHash: the trust hash is Codex's, checked against hashes a
// real Codex recorded (as published in the tests of tools that pre-trust
// their hooks: a command hook with matcher "*" and no timeout).
func TestCodexHookHash(t *testing.T) {
	star := "*"
	for _, tt := range []struct {
		event, command, want string
	}{
		{"PostToolUse", "'/Applications/GWT.app/Contents/MacOS/gwtd' hook event PostToolUse",
			"sha256:9c3ce103f03f0b27a28bc4a30883f7e98a80b5df566b4572fcbb2955ebf5ba62"},
		{"UserPromptSubmit", `gwt_bin="${GWT_BIN_PATH:-/Applications/GWT.app/Contents/MacOS/gwtd}"; "$gwt_bin" hook event UserPromptSubmit`,
			"sha256:1a86ba6796c5b5bf1601fd1af1d6094846287ec85e9f1ad4d39335c6b306e2fa"},
		{"Stop", `gwt_bin="${GWT_BIN_PATH:-/Applications/GWT.app/Contents/MacOS/gwtd}"; "$gwt_bin" hook event Stop`,
			"sha256:984e12cd30ef54cf4c63af8aabce1849705e5de09c70d039367ba68de9760389"},
	} {
		s := hookSite{event: tt.event, matcher: &star, command: tt.command, handler: map[string]any{"type": "command", "command": tt.command}}
		if got := codexHookHash(s); got != tt.want {
			t.Errorf("codexHookHash(%s %q) = %s; want %s", tt.event, tt.command, got, tt.want)
		}
	}
	for event, want := range map[string]string{"PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request", "Stop": "stop"} {
		if got := snakeCase(event); got != want {
			t.Errorf("snakeCase(%s) = %s; want %s", event, got, want)
		}
	}
}

// TestOlderVersion: dotted versions compare number by number.
func TestOlderVersion(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"2.1.327", "2.1.328", true}, {"2.1.328", "2.1.328", false}, {"2.1.400", "2.1.328", false},
		{"2.10.0", "2.9.9", false}, {"0.61", "0.61.0", false}, {"0.9.0", "0.61.0", true}, {"3", "2.1.328", false},
	} {
		if got := olderVersion(tt.a, tt.b); got != tt.want {
			t.Errorf("olderVersion(%s, %s) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
