package action_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestRecordsAtARealDBPath runs a real limend, whose database is in a
// temporary directory rather than ~/.local/share/limen (as with
// XDG_DATA_HOME or --db): after a person has approved cat and grep of the
// workspace until limend allows them, no read of that database is
// allowed, by its path, a relative path, a glob or a recursive read of
// its directory.
func TestRecordsAtARealDBPath(t *testing.T) {
	l := limentest.Start(t)
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "exploration = 0.01", "exploration = 0.0", 1))
	const cwd = "/home/ana/shop"
	decide := func(cmd string) *limenv1.Decision {
		t.Helper()
		in, _ := json.Marshal(map[string]string{"command": cmd})
		resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{
			User: "ana", Agent: "claude-code", Session: "s1", Tool: "Bash", InputJson: string(in), Cwd: cwd}})
		if err != nil {
			t.Fatalf("Decide(%s): %v", cmd, err)
		}
		return resp.GetDecision()
	}
	ordinary := []string{"cat README.md", "cat src/app.js", "grep -ra TODO src", "grep -rn cart src", "cat go.mod", "grep -r func cmd"}
	for i := range 60 {
		cmd := ordinary[i%len(ordinary)]
		if i >= len(ordinary) {
			cmd = fmt.Sprintf("%s%d", cmd, i) // new files, so that the program level learns
		}
		if d := decide(cmd); d.GetVerdict() == limenv1.Verdict_VERDICT_ASK {
			if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := decide("cat src/new.js"); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("after the approvals cat src/new.js is %s (%s): the test would pass for the wrong reason", d.GetVerdict(), d.GetReason())
	}
	db := l.Config.DB
	if strings.Contains(db, ".local/share/limen") {
		t.Fatalf("limentest's database %s is at the default location: the test shows nothing", db)
	}
	rel, err := filepath.Rel(cwd, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"cat " + db,
		"cat " + rel,
		"grep -ra allow " + db,
		"cat " + strings.TrimSuffix(db, "b") + "?",
		"cat " + filepath.Dir(db) + "/*",
		"grep -ra allow " + filepath.Dir(db),
		"strings " + db,
	} {
		if d := decide(cmd); d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("%s: allowed (%s, key %s)", cmd, d.GetReason(), d.GetKey())
		}
	}
}
