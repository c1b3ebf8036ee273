package tui

import (
	"encoding/json"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestRulePreviewHomeAgreesWithLimend: the rule editor's preview resolves
// `~` as limend does, from the user's account and not from the working
// directory, so a rule it says covers an ask is the rule limend applies.
func TestRulePreviewHomeAgreesWithLimend(t *testing.T) {
	me, err := user.Current()
	if err != nil || me.HomeDir == "" {
		t.Skipf("no home directory for the current user: %v", err)
	}
	l := limentest.Start(t)
	l.SetPolicy(t, "[rules]\nblock = [\"Edit(~/.ssh/**)\"]\n")
	input, _ := json.Marshal(map[string]string{"file_path": filepath.Join(me.HomeDir, ".ssh", "config"), "old_string": "a", "new_string": "b"})
	act := &limenv1.Action{Tool: "Edit", InputJson: string(input), Cwd: "/Users/someone-else/code"}
	resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: act, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.GetDecision()
	if d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || d.GetDecidedBy() != limenv1.Decider_DECIDER_RULE {
		t.Fatalf("limend: %s by %s (%s); want block by the rule", d.GetVerdict(), d.GetDecidedBy(), d.GetReason())
	}
	r, err := policy.ParseRule(policy.Block, "Edit(~/.ssh/**)")
	if err != nil {
		t.Fatal(err)
	}
	if !covers(r, d.GetAction()) {
		t.Errorf("the preview says Edit(~/.ssh/**) does not cover %s, which limend blocked with it", d.GetAction())
	}
}
