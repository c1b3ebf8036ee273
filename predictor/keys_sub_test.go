package predictor

import "testing"

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
