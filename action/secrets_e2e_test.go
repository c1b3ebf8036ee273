package action_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestSecretReadsAreNotLearnedFromOrdinaryReads runs a real limend: a
// person approves ordinary reads and greps of the workspace through real
// asks until limend allows them by learning, and then no read of a secret
// by pattern, by credential file or by another tool's name is allowed, and
// each is classed secrets.
func TestSecretReadsAreNotLearnedFromOrdinaryReads(t *testing.T) {
	l := limentest.Start(t)
	// No exploration: every would-be allow is an allow, so the test sees
	// what learning alone decides.
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "exploration = 0.01", "exploration = 0.0", 1))
	const cwd = "/home/ana/shop"
	action := func(tool string, in map[string]any) *limenv1.Action {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		return &limenv1.Action{User: "ana", Agent: "claude-code", Session: "s1", Tool: tool, InputJson: string(b), Cwd: cwd}
	}
	decide := func(a *limenv1.Action) *limenv1.Decision {
		t.Helper()
		resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
		if err != nil {
			t.Fatalf("Decide(%s %s): %v", a.GetTool(), a.GetInputJson(), err)
		}
		return resp.GetDecision()
	}

	// Ordinary work, approved by a person whenever limend asks.
	ordinary := func(i int) *limenv1.Action {
		switch i % 4 {
		case 0:
			return action("Read", map[string]any{"file_path": fmt.Sprintf("%s/src/file%d.go", cwd, i)})
		case 1:
			return action("Read", map[string]any{"file_path": fmt.Sprintf("%s/README%d.md", cwd, i)})
		case 2:
			return action("Grep", map[string]any{"pattern": "TODO", "path": "src"})
		default:
			return action("Grep", map[string]any{"pattern": fmt.Sprintf("func F%d", i), "path": "src", "glob": "*.go"})
		}
	}
	asked, allowed := 0, 0
	for i := range 120 {
		d := decide(ordinary(i))
		switch d.GetVerdict() {
		case limenv1.Verdict_VERDICT_ASK:
			asked++
			if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
				t.Fatalf("Answer(%s): %v", d.GetAskId(), err)
			}
		case limenv1.Verdict_VERDICT_ALLOW:
			allowed++
		default:
			t.Fatalf("ordinary action %d: %v (%s)", i, d.GetVerdict(), d.GetReason())
		}
	}
	if asked == 0 || allowed == 0 {
		t.Fatalf("after 120 ordinary reads: %d asked, %d allowed; want both, so that learning is what is tested", asked, allowed)
	}
	// Learning has happened: a new workspace read and grep are allowed.
	for _, a := range []*limenv1.Action{
		action("Read", map[string]any{"file_path": cwd + "/src/new.go"}),
		action("Grep", map[string]any{"pattern": "TODO", "path": "src"}),
	} {
		if d := decide(a); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Fatalf("after the approvals, %s %s: %v (%s); want allow", a.GetTool(), a.GetInputJson(), d.GetVerdict(), d.GetReason())
		}
	}

	secrets := []*limenv1.Action{
		action("Grep", map[string]any{"pattern": ".", "path": "src", "glob": ".env*", "output_mode": "content"}),
		action("Grep", map[string]any{"pattern": "KEY", "glob": ".en?", "output_mode": "content"}),
		action("Grep", map[string]any{"pattern": "TODO", "glob": "**/*.pem"}),
		action("Grep", map[string]any{"pattern": "token", "path": "/home/ana"}),
		action("Glob", map[string]any{"pattern": "**/.env*"}),
		action("Glob", map[string]any{"pattern": ".env*", "path": "src"}),
		action("Read", map[string]any{"file_path": cwd + "/.env"}),
		action("Read", map[string]any{"file_path": "/home/ana/.config/gh/hosts.yml"}),
		action("Read", map[string]any{"file_path": "/home/ana/.vault-token"}),
		action("Read", map[string]any{"file_path": "/home/ana/.codex/auth.json"}),
		action("Read", map[string]any{"file_path": "/proc/self/environ"}),
		action("Read", map[string]any{"file_path": cwd + "/src/.[e]nv"}),
		action("LS", map[string]any{"path": "/home/ana/.ssh"}),
		action("read_many_files", map[string]any{"include": []any{"src/*.go", "**/.env*"}}),
		action("grep_search", map[string]any{"pattern": "KEY", "include": ".env*"}),
		action("mcp__filesystem__read_text_file", map[string]any{"path": "/home/ana/.aws/credentials"}),
		action("Bash", map[string]any{"command": "cat .en?"}),
		action("Bash", map[string]any{"command": "cat ~/.ss?/id_*"}),
	}
	for _, a := range secrets {
		d := decide(a)
		if d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("%s %s: allowed (%s), want ask or block", a.GetTool(), a.GetInputJson(), d.GetReason())
		}
		if d.GetRiskClass() != "secrets" {
			t.Errorf("%s %s: risk class %q, want secrets", a.GetTool(), a.GetInputJson(), d.GetRiskClass())
		}
	}
}
