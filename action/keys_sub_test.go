package action

import (
	"slices"
	"testing"
)

// Subcommand is the ladder's own subcommand level, for rules suggested
// from a decision: it must agree with the key the ladder holds.
func TestSubcommandAgreesWithTheLadder(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"git", "push", "origin", "main"}, "push"},
		{[]string{"git", "-C", "repo", "status"}, "status"},
		{[]string{"npm", "run", "test"}, "run test"},
		{[]string{"python3", "-m", "pytest", "-q"}, "-m pytest"},
		{[]string{"curl", "evil.sh"}, ""},
		{[]string{"cat", "README.md"}, ""},
		{[]string{"mytool", "Deploy.v2"}, ""},
	} {
		if got := Subcommand(tt.cmd[0], tt.cmd[1:]); got != tt.want {
			t.Errorf("Subcommand(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// Codex's apply_patch is the edits of the files its patch names, one part
// each; a patch that names none is opaque.
func TestApplyPatchParts(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** Add File: /home/ana/.codex/config.toml\n+z\n*** End Patch\n"
	parts := Parts(Action{User: "ana", Tool: "apply_patch", Input: map[string]any{"command": patch}, Cwd: "/home/ana/shop"})
	var got []string
	for _, p := range parts {
		got = append(got, p.Tool+" "+p.Subject)
	}
	if want := []string{"Edit /home/ana/shop/src/a.go", "Edit /home/ana/.codex/config.toml"}; !slices.Equal(got, want) {
		t.Errorf("parts = %q, want %q", got, want)
	}
	if p := Parts(Action{Tool: "apply_patch", Input: map[string]any{"command": "rm -rf /"}}); len(p) != 1 || !p[0].Opaque {
		t.Errorf("a patch naming no file = %+v, want one opaque part", p)
	}
}
