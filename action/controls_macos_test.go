package action

import "testing"

// limen's macOS locations (internal/paths): the spellings an agent would
// try next are controls too, not only the table's own rows. The /tmp
// fallback for a long home is not in the table (a container given /tmp
// would then be a control everywhere): a running limend protects its own
// sockets there through Self.
func TestMacOSLimenPathsAreControls(t *testing.T) {
	for _, cmd := range []string{
		`rm -rf ~/Library/Application\ Support/limen`,
		`rm -rf "$HOME/Library/Application Support/limen/limen.db"`,
		`rm -f ~/library/application\ support/LIMEN/limend.sock`,
		`rm -rf "/Users/ana/Library/Application Support/limen"`,
	} {
		if why, parts := control(nil, cmd); why == "" {
			t.Errorf("%s is no control:\n%s", cmd, describeParts(parts))
		}
	}
	for _, cmd := range []string{
		`ls ~/Library/Application\ Support/limen`,
	} {
		if why, _ := control(nil, cmd); why != "" {
			t.Errorf("%s is a control: %s", cmd, why)
		}
	}
}
