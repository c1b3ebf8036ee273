package engine_test

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// e2e is a real limend and the few calls the semantics of docs/policy.md
// are stated in: decide an action, and answer its ask.
type e2e struct {
	t *testing.T
	l *limentest.Limend
}

func startE2E(t *testing.T) *e2e { return &e2e{t: t, l: limentest.Start(t)} }

func (e *e2e) decide(user, session, cmd string) *limenv1.Decision {
	e.t.Helper()
	a := bash(user, cmd)
	a.Session = session
	v := e.l.Client.Decide(e.t.Context(), a)
	if v.Err != nil {
		e.t.Fatalf("decide %q: %v", cmd, v.Err)
	}
	return v.Decision
}

// ask decides cmd, which must ask, and answers it.
func (e *e2e) ask(user, session, cmd string, choice limenv1.Choice, scope limenv1.Scope) {
	e.t.Helper()
	d := e.decide(user, session, cmd)
	if d.GetAskId() == "" {
		e.t.Fatalf("%s: %s (%s); want an ask to answer", cmd, d.GetVerdict(), d.GetReason())
	}
	if _, err := e.l.Client.Answer(e.t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: choice, Scope: scope}); err != nil {
		e.t.Fatalf("answer %s: %v", cmd, err)
	}
}

func (e *e2e) want(user, session, cmd string, want limenv1.Verdict, reason string) *limenv1.Decision {
	e.t.Helper()
	d := e.decide(user, session, cmd)
	if d.GetVerdict() != want || !strings.Contains(d.GetReason(), reason) {
		e.t.Errorf("%s for %s in %s: %s (%s); want %s, the reason saying %q", cmd, user, session, d.GetVerdict(), d.GetReason(), want, reason)
	}
	return d
}

const (
	approve = limenv1.Choice_CHOICE_APPROVE
	deny    = limenv1.Choice_CHOICE_DENY
	once    = limenv1.Scope_SCOPE_ONCE
	session = limenv1.Scope_SCOPE_SESSION
	asks    = limenv1.Verdict_VERDICT_ASK
	allows  = limenv1.Verdict_VERDICT_ALLOW
	blocks  = limenv1.Verdict_VERDICT_BLOCK
)

// TestOneDenyBlocksNothingElse (docs/policy.md, When a prediction
// blocks): one deny of `ls -la /etc` blocks neither `ls` nor
// `ls -la /var`, nor `ls -la /etc` itself again; another user's deny of
// `make deploy` does not block a never-seen `make test`.
func TestOneDenyBlocksNothingElse(t *testing.T) {
	e := startE2E(t)
	e.ask("ana", "s1", "ls -la /etc", deny, once)
	for _, cmd := range []string{"ls", "ls -la /var", "ls -la /etc"} {
		if d := e.decide("ana", "s2", cmd); d.GetVerdict() == blocks {
			t.Errorf("%s after one deny of ls -la /etc: block (%s); want it asked or allowed", cmd, d.GetReason())
		}
	}
	e.ask("bob", "s1", "make deploy", deny, once)
	e.ask("bob", "s2", "make deploy", deny, once)
	if d := e.decide("ana", "s3", "make test"); d.GetVerdict() == blocks {
		t.Errorf("make test for ana after bob denied make deploy: block (%s); want ask", d.GetReason())
	}
	// The person's own repeated refusals of the exact action do block it.
	e.ask("ana", "s4", "ls -la /etc", deny, once)
	e.want("ana", "s5", "ls -la /etc", blocks, "below")
}

// TestApproveOnceIsNoStandingPermission (docs/policy.md, What an answer
// does): one approval "once" lets that call run and teaches limen one
// approval; in the session it was given the prediction may allow the
// same command again, but in a fresh session it is asked again, and says
// why: once never reaches farther than "for the session". A second
// approval lets the prediction allow it anywhere.
func TestApproveOnceIsNoStandingPermission(t *testing.T) {
	e := startE2E(t)
	e.ask("ana", "s1", "make build", approve, once)
	e.want("ana", "s2", "make build", asks, "only once, and not in this session")
	e.want("ana", "s1", "make build", allows, "above")
	e.ask("ana", "s3", "make build", approve, once)
	e.want("ana", "s4", "make build", allows, "above")
	// The same for a command only an exact approval can allow.
	e.ask("ana", "s1", "python3 -c 'print(1)'", approve, once)
	e.want("ana", "s1", "python3 -c 'print(1)'", allows, "above")
	e.want("ana", "s5", "python3 -c 'print(1)'", asks, "only once, and not in this session")
}

// TestApproveForTheSession: an approval for the session allows the same
// action in that session by the person's answer, and in another session
// counts as the one approval it is.
func TestApproveForTheSession(t *testing.T) {
	e := startE2E(t)
	e.ask("ana", "s1", "make build", approve, session)
	d := e.want("ana", "s1", "make build", allows, "approved this for the session")
	if d.GetDecidedBy() != limenv1.Decider_DECIDER_HUMAN {
		t.Errorf("decided by %s; want the person", d.GetDecidedBy())
	}
	e.want("ana", "s2", "make build", asks, "only once")
}

// TestForgettingIsAControl: an agent's shell running limenctl forget is
// blocked as one of limen's own controls, however many approvals there are
// (the server refuses the call from an agent's process too: doors_test).
func TestForgettingIsAControl(t *testing.T) {
	e := startE2E(t)
	for _, cmd := range []string{"limenctl forget --last", "limenctl --json forget --key Bash:rm"} {
		e.want("ana", "s1", cmd, blocks, "limen protects itself: limenctl forget takes back a person's answers")
	}
}
