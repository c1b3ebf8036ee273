package main

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestAnswerSaysWhatItWillDo: decide and answer without a choice show,
// before anything is answered, what once, for the session, always and
// deny each do; answer without a choice answers nothing, and --always
// adds the allow rule and approves.
func TestAnswerSaysWhatItWillDo(t *testing.T) {
	run, api := polDaemon(t)
	out, errOut, code := run("decide", "--session", "s1", "make build")
	if code != exitAsk {
		t.Fatalf("decide = %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"answers  limenctl answer 1 --approve            once: runs this call and teaches limen one approval of Bash:make build; not a standing permission",
		"limenctl answer 1 --approve --session  session: as once, and allows Bash:make build without asking in session s1",
		"limenctl answer 1 --approve --always   always: adds an allow rule to the policy",
		"limenctl answer 1 --deny               deny: refuses this call and teaches limen one refusal of Bash:make build",
	} {
		polContains(t, "decide", out, want)
	}
	out, errOut, code = run("answer", "1")
	if code != exitOK {
		t.Fatalf("answer 1 (no choice) = %d: %s", code, errOut)
	}
	polContains(t, "answer 1", out, "once: runs this call", "nothing was answered")
	if p, _ := api.API.ListPending(t.Context(), &limenv1.ListPendingRequest{}); len(p.GetAsks()) != 1 {
		t.Fatalf("answer without a choice left %d asks pending; want the one, unanswered", len(p.GetAsks()))
	}
	if _, errOut, code = run("answer", "1", "--deny", "--always"); code != exitUsage {
		t.Errorf("answer --deny --always = %d (%s); want a usage error", code, errOut)
	}
	out, errOut, code = run("answer", "1", "--approve", "--always")
	if code != exitOK {
		t.Fatalf("answer --always = %d: %s", code, errOut)
	}
	polContains(t, "answer --always", out, "ask 1 answered: allow", "the policy allows Bash(make build")
	if doc := polCurrent(t, api).GetDocument(); !strings.Contains(doc, "Bash(make build") {
		t.Errorf("the policy has no rule for make build after --always:\n%s", doc)
	}
	if out, _, code = run("decide", "--session", "s2", "make build"); code != exitOK {
		t.Errorf("make build in another session after --always = %d; want allow by the rule:\n%s", code, out)
	}
}
