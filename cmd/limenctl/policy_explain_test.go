package main

import (
	"encoding/json"
	"os/user"
	"path/filepath"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestExplainHomeAgreesWithLimend: policy explain resolves `~` in a rule
// as limend does, from the user's account and not from the working
// directory, so it shows the rule limend applied.
func TestExplainHomeAgreesWithLimend(t *testing.T) {
	me, err := user.Current()
	if err != nil || me.HomeDir == "" {
		t.Skipf("no home directory for the current user: %v", err)
	}
	_, api := polDaemon(t)
	polSet(t, api, "[rules]\nblock = [\"Edit(~/.ssh/**)\"]\n")
	input, _ := json.Marshal(map[string]string{"file_path": filepath.Join(me.HomeDir, ".ssh", "config"), "old_string": "a", "new_string": "b"})
	// A working directory that looks like another person's home: a rule
	// home inferred from it would miss the user's own ~/.ssh.
	act := &limenv1.Action{Tool: "Edit", InputJson: string(input), Cwd: "/Users/someone-else/code"}
	resp, err := api.API.Decide(t.Context(), &limenv1.DecideRequest{Action: act, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.GetDecision()
	if d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || d.GetDecidedBy() != limenv1.Decider_DECIDER_RULE {
		t.Fatalf("limend: %s by %s (%s); want block by the rule Edit(~/.ssh/**)", d.GetVerdict(), d.GetDecidedBy(), d.GetReason())
	}
	ex := explain(d, polCurrent(t, api))
	if len(ex.Parts) != 1 || ex.Parts[0].Rule != "block Edit(~/.ssh/**)" {
		t.Errorf("explain parts = %+v; want the one part under block Edit(~/.ssh/**), as limend decided", ex.Parts)
	}
}
