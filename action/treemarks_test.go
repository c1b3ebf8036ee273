package action

import (
	"slices"
	"strings"
	"testing"
)

// TestTreeAndRemoverMarks: a recursive read of a directory that holds
// credentials reads them, and a remover's operand outside the workspace is
// a write there; the same commands inside the workspace carry neither mark.
func TestTreeAndRemoverMarks(t *testing.T) {
	cases := []struct {
		cmd, mark string
		want      bool
	}{
		{"grep -r token ~/.config", "secret-file", true},
		{"grep -rn password ~", "secret-file", true},
		{"grep -Rl key /home/ana", "secret-file", true},
		{"rg AKIA ~", "secret-file", true},
		{"tar czf /tmp/h.tgz ~", "secret-file", true},
		{"zip -r h.zip ~/.config", "secret-file", true},
		{"cp -a ~ /tmp/h", "secret-file", true},
		{"grep -r TODO src", "secret-file", false},
		{"grep token ~/.config", "secret-file", false}, // a directory operand without -r reads nothing
		{"rg foo .", "secret-file", false},
		{"mv ~ /dev/null", "write-outside", true},
		{"mv ~/projects/old /tmp/x", "write-outside", true},
		{"rm ~/notes.txt", "write-outside", true},
		{"chmod 600 /etc/passwd", "write-outside", true},
		{"truncate -s0 ../other/file", "write-outside", true},
		{"rm build.log", "write-outside", false},
		{"mv old.txt new.txt", "write-outside", false},
		{"rm /tmp/scratch", "write-outside", false},
	}
	for _, c := range cases {
		parts := Parts(Action{Tool: "Bash", Input: map[string]any{"command": c.cmd}, Cwd: "/home/ana/shop"})
		got := false
		for _, p := range parts {
			for _, k := range p.Keys {
				got = got || slices.ContainsFunc([]string{"[" + c.mark + "]", " " + c.mark + "]", "[" + c.mark + " ", " " + c.mark + " "}, func(s string) bool { return strings.Contains(k, s) })
			}
		}
		if got != c.want {
			t.Errorf("%s: %s mark %v; want %v (ladders %v)", c.cmd, c.mark, got, c.want, parts)
		}
	}
}
