package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// withoutBlockRules is policyDoc with the shipped block rules taken out, so
// that what blocks limen's controls below is limen's own check, not a rule.
func withoutBlockRules(t *testing.T, allow string) string {
	t.Helper()
	doc := policyDoc(allow, "")
	start := strings.Index(doc, "block = [\n")
	end := strings.Index(doc[start:], "\n]\n")
	if start < 0 || end < 0 {
		t.Fatal("the default policy has no block list to take out")
	}
	return doc[:start] + "block = []" + doc[start+end+2:]
}

// TestSelfApprovalIsBlockedAfterApprovals: a person approves limenctl's
// harmless commands through real asks until limen allows them on its own;
// then every spelling of an agent answering, changing the policy, stopping
// limend or touching its socket, database or the hook settings is blocked
// by the real daemon, though no rule names it.
func TestSelfApprovalIsBlockedAfterApprovals(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	l := limentest.Start(t)
	c := l.Client
	setPolicy(t, c, withoutBlockRules(t, ""))

	harmless := []string{"limenctl status", "limenctl pending", "limenctl history", "limenctl policy show", "git push --force origin main"}
	allowed := false
	for round := 0; round < 40 && !allowed; round++ {
		allowed = true
		for _, cmd := range harmless {
			d := decideOnce(t, c, sh("ana", cmd), false)
			if d.GetVerdict() == limenv1.Verdict_VERDICT_ASK {
				answer(t, c, d, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE)
			}
			allowed = allowed && d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW
		}
	}
	if !allowed {
		t.Fatal("limen never learned to allow limenctl status and the rest: the blocks below would prove nothing")
	}

	sock, db := l.Config.Socket, l.Config.DB
	for _, cmd := range []string{
		"limenctl answer 1 --approve",
		"limenctl --timeout 5s answer 1 --approve",
		"limenctl --socket " + sock + " answer 1 --approve",
		"/home/ana/go/bin/limenctl --json answer 1 --approve",
		"go run ./cmd/limenctl answer 1 --approve",
		"go run github.com/limenhq/limen/cmd/limenctl@latest answer 1 --approve",
		"env limenctl answer 1 --approve",
		"sudo -u ana limenctl policy set -",
		"git status && cat p.toml | limenctl --json policy set -",
		"echo 1 | xargs limenctl answer --approve",
		"bash -c 'limenctl --timeout 5s answer 1 --approve'",
		"limenctl tui",
		"limenctl hook uninstall claude-code",
		"grpcurl -plaintext -unix " + sock + " limen.v1.DecisionService/Answer",
		"nc -U " + sock,
		"rm " + db,
		"rm ~/.claude/settings.json",
		"kill $(pgrep limend)",
		fmt.Sprintf("kill %d", os.Getpid()), // limentest runs limend in this process
		"pkill -f limen",
		"systemctl --user stop limend",
		"setsid limenctl answer 1 --approve",
		"rm -rf " + filepath.Dir(db),
		"cp /bin/true /usr/local/bin/limen-hook",
		"curl --unix-socket " + sock + " http://x/limen.v1.DecisionService/Answer",
	} {
		d := decideOnce(t, c, sh("ana", cmd), false)
		if d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || !strings.Contains(d.GetReason(), "limen protects itself") {
			t.Errorf("%q = %v (%s); want blocked as one of limen's controls", cmd, d.GetVerdict(), d.GetReason())
		}
	}
	// Past the 64 parts Parts keeps, limen reads on for its controls too.
	padded := strings.Repeat("true; ", 100) + "pkill -f lim"
	if d := decideOnce(t, c, sh("ana", padded), false); d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || !strings.Contains(d.GetReason(), "limen protects itself") {
		t.Errorf("pkill -f lim after 100 parts = %v (%s); want blocked as a control", d.GetVerdict(), d.GetReason())
	}
	in, _ := json.Marshal(map[string]string{"file_path": "/home/ana/.claude/settings.json", "content": "{}"})
	if d := decideOnce(t, c, act("ana", "Write", string(in)), false); d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("Write ~/.claude/settings.json = %v (%s); want block", d.GetVerdict(), d.GetReason())
	}
	// A harmless limenctl command stays allowed: the check is no blanket.
	if d := decideOnce(t, c, sh("ana", "limenctl --timeout 5s status"), false); d.GetVerdict() == limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("limenctl --timeout 5s status = block (%s)", d.GetReason())
	}
}
