package predictor

import (
	"os"
	"strings"
	"testing"
)

func TestDebugParts(t *testing.T) {
	src := os.Getenv("PARTS")
	if src == "" {
		t.Skip()
	}
	for _, c := range strings.Split(src, "\n") {
		if c == "" {
			continue
		}
		ps := Parts(Action{Tool: "Bash", Input: map[string]any{"command": c}, Cwd: "/home/ana/shop", User: "ana"})
		t.Logf("%s", c)
		for _, p := range ps {
			t.Logf("    opaque=%v subj=%q keys=%q", p.Opaque, p.Subject, p.Keys)
		}
	}
}
