package action

import (
	"strings"
	"testing"
)

// TestCheckedParts: CheckedParts reads every part of a command that Parts
// leaves to one opaque part, and says when even it had to stop.
func TestCheckedParts(t *testing.T) {
	bash := func(cmd string) Action {
		return Action{Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/ana/shop"}
	}
	tests := []struct {
		name        string
		a           Action
		parts       int  // CheckedParts' count
		complete    bool // CheckedParts' verdict
		lastSubject string
		capped      bool // Parts stopped short of it
	}{
		{"short", bash("git status && rm -rf /"), 2, true, "rm -rf /", false},
		{"100 parts", bash(strings.Repeat("true; ", 99) + "rm -rf /"), 100, true, "rm -rf /", true},
		{"past 32 KiB", bash(strings.Repeat("echo "+strings.Repeat("x", 95)+"; ", 400) + "rm -rf /"), 401, true, "rm -rf /", true},
		{"four shells deep", bash("bash -c 'bash -c \"bash -c \\\"bash -c rm\\\\ -rf\\\\ /\\\"\"'"), 1, true, "rm -rf /", true},
		{"too many parts", bash(strings.Repeat("true; ", MaxCheckedParts+1)), MaxCheckedParts + 1, false, "", true},
		{"too deep", bash(strings.Repeat("eval ", MaxCheckedDepth+1) + "true"), 0, false, "", true},
		{"does not parse", bash("echo 'oops"), 1, true, "", false},
		{"not Bash", Action{Tool: "Read", Input: map[string]any{"file_path": "a"}, Cwd: "/home/ana/shop"}, 1, true, "/home/ana/shop/a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, complete := CheckedParts(tt.a)
			if complete != tt.complete || (tt.parts > 0 && len(parts) != tt.parts) {
				t.Fatalf("CheckedParts = %d parts, complete %v; want %d, %v", len(parts), complete, tt.parts, tt.complete)
			}
			if last := parts[len(parts)-1]; tt.lastSubject != "" && last.Subject != tt.lastSubject {
				t.Errorf("last part %q %v; want the subject %q", last.Subject, last.Keys, tt.lastSubject)
			}
			// Parts says where it stopped short, and only there.
			p := Parts(tt.a)
			if got := Capped(p[len(p)-1]); got != tt.capped {
				t.Errorf("Capped(%v) = %v; want %v", p[len(p)-1].Keys, got, tt.capped)
			}
			// Parts, for learning, stays small: at most maxParts and an opaque part.
			if len(p) > maxParts+1 || (len(parts) > maxParts && !p[len(p)-1].Opaque) {
				t.Errorf("Parts = %d parts (last opaque %v); want at most %d and an opaque last", len(p), p[len(p)-1].Opaque, maxParts+1)
			}
		})
	}
}
