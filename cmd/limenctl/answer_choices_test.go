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
		// Padded as the labels above it; decide has returned, so
		// nobody waits on the ask.
		"\nrisk class  unknown\n",
		"\nanswers     limenctl answer 1 --approve            once: nobody is waiting on this ask any more; the answer is only learned, as one approval of Bash:make build; not a standing permission",
		"limenctl answer 1 --approve --session  session: as once, and allows Bash:make build without asking in session s1",
		"limenctl answer 1 --approve --always   always: adds an allow rule to the policy",
		"limenctl answer 1 --deny               deny: nobody is waiting on this ask any more; the answer is only learned, as one refusal of Bash:make build",
	} {
		polContains(t, "decide", out, want)
	}
	out, errOut, code = run("answer", "1")
	if code != exitOK {
		t.Fatalf("answer 1 (no choice) = %d: %s", code, errOut)
	}
	// Later, a decide --wait may be waiting on it; it runs nothing.
	polContains(t, "answer 1", out, "\nanswers     limenctl answer 1 --approve", "once: lets a limenctl decide --wait still waiting on it return allow (decide runs nothing; if none waits, nobody is waiting on this ask any more; the answer is only learned)", "nothing was answered")
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

// TestAnswerWordsWithoutSession: an ask that names no session says what
// --session would need (a decide --session, an agent's run), rather than
// only that it is the same as once; an agent's ask says its call runs
// only if the agent still waits.
func TestAnswerWordsWithoutSession(t *testing.T) {
	run, _ := polDaemon(t)
	out, errOut, code := run("decide", "make build")
	if code != exitAsk {
		t.Fatalf("decide = %d: %s%s", code, out, errOut)
	}
	polContains(t, "decide", out, "session: the same as once here: the action names no agent session to allow it in (limenctl decide --session ID decides as part of one, as an agent's calls are)",
		"not a standing permission: the next one is asked again")
	if strings.Contains(out, "outside this agent session") {
		t.Errorf("an ask of no session speaks of its agent session:\n%s", out)
	}
	if _, errOut, code := run("decide", "--agent", "claude-code", "--session", "s1", "make test"); code != exitAsk {
		t.Fatalf("decide = %d: %s", code, errOut)
	}
	out, _, _ = run("answer", "2")
	polContains(t, "answer 2", out, "once: lets this call run if its agent still waits on the ask (if not, nobody is waiting on this ask any more; the answer is only learned)",
		"deny: refuses this call if its agent still waits on the ask")
}
