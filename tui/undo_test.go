package tui

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestUndoLastAnswer: against a real limend, u with nothing answered says
// there is nothing to undo; after a deny, u takes that answer back, and
// limend's history keeps it, marked forgotten.
func TestUndoLastAnswer(t *testing.T) {
	c, m, r, v := askShown(t, `make deploy`, 120)
	id := v.Decision.GetAskId()

	r.press("u")
	if !strings.Contains(m.c.status, "nothing to undo") {
		t.Errorf("u with nothing answered: status %q; want nothing to undo", m.c.status)
	}
	r.press("d")
	r.until("the deny is acknowledged", func() bool { return m.pending.asks[id] == nil && strings.Contains(m.c.status, "answered: block") })
	r.press("u")
	r.until("the undo comes back", func() bool { return strings.Contains(m.c.status, "took back your answer to ask "+id) })
	if len(m.c.status) > 100 {
		t.Errorf("status %q is longer than a 100-column window", m.c.status) // the trial's was cut off there
	}

	ds, err := c.History(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.GetAskId() == id {
			if o := d.GetOutcome(); o.GetForgottenAt() == nil || o.GetChoice() != limenv1.Choice_CHOICE_DENY {
				t.Errorf("ask %s after undo: outcome %v; want the deny kept, marked forgotten", id, o)
			}
			return
		}
	}
	t.Fatalf("ask %s is not in the history", id)
}

// TestUndoSaysTheRuleStays: against a real limend, undoing an answer
// given with a rule (r, enter) unlearns the answer but leaves the rule,
// and the status says so and how to remove it; the rule is still in the
// policy.
func TestUndoSaysTheRuleStays(t *testing.T) {
	c, m, r, v := askShown(t, `npm test`, 120)
	id := v.Decision.GetAskId()

	r.press("r")
	rule := m.pending.rule.input.Value()
	r.press("enter")
	r.until("the rule's answer is acknowledged", func() bool { return m.pending.asks[id] == nil && strings.Contains(m.c.status, "ask "+id+" approved") })
	r.press("u")
	want := "took back ask " + id + "; its rule " + rule + " stays: limenctl policy edit removes it"
	r.until("the undo comes back", func() bool { return strings.Contains(m.c.status, want) })
	if len(m.c.status) > 100 {
		t.Errorf("status %q is longer than a 100-column window", m.c.status) // the trial's was cut off there
	}
	pol, err := c.GetPolicy(t.Context())
	if err != nil || !strings.Contains(pol.GetDocument(), rule) {
		t.Errorf("the policy after undo (%v) lacks %s:\n%s", err, rule, pol.GetDocument())
	}
}
