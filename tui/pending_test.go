package tui

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestPendingQueue: what the watch stream says changes the queue once,
// oldest first; an ask that leaves while our answer is on its way is not
// called settled elsewhere; a snapshot says whether it brought new asks.
func TestPendingQueue(t *testing.T) {
	asks, _ := fixtures()
	c := testCommon(t, &fakeAPI{})
	p := newPendingTab(c)
	p.SetSize(100, 20)
	if !strings.Contains(plain(p.View()), "Waiting for limend") {
		t.Errorf("view before any snapshot:\n%s", plain(p.View()))
	}
	if _, anyNew := p.replace(map[string]*limenv1.PendingAsk{"57": asks[2], "41": asks[0]}); !anyNew {
		t.Error("the first snapshot brought no new asks")
	}
	if _, isNew := p.add(asks[1]); !isNew {
		t.Error("ask 42 was not new")
	}
	if _, isNew := p.add(asks[1]); isNew {
		t.Error("ask 42 was new twice")
	}
	if got := strings.Join(queueIDs(p), " "); got != "41 42 57" {
		t.Errorf("order %s; want oldest first", got)
	}
	if p.remove(&limenv1.PendingAsk{AskId: "99"}, nil) != nil {
		t.Error("removing an ask not in the queue did something")
	}
	c.setStatus(false, "")
	p.sending["42"] = "deny"
	p.remove(asks[1], &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_ANSWERED, Choice: limenv1.Choice_CHOICE_DENY})
	if p.asks["42"] != nil || c.status != "" {
		t.Errorf("ask 42 kept %v, status %q; want it gone, and not as settled elsewhere (the answer was ours)", p.asks["42"] != nil, c.status)
	}
	if _, anyNew := p.replace(map[string]*limenv1.PendingAsk{"41": asks[0]}); anyNew {
		t.Error("a snapshot with only known asks brought new ones")
	}
	if v := plain(p.View()); !strings.Contains(v, "Ask 41 · asked 3m ago") || strings.Contains(v, "57") {
		t.Errorf("view after the snapshot:\n%s; want ask 41 alone, in the pane", v)
	}
}

// TestPendingEditorOnGoneAsk: an editor open on an ask that a snapshot no
// longer holds closes and says so, unless its rule is being saved.
func TestPendingEditorOnGoneAsk(t *testing.T) {
	asks, _ := fixtures()
	c := testCommon(t, &fakeAPI{})
	p := newPendingTab(c)
	p.SetSize(100, 20)
	p.replace(map[string]*limenv1.PendingAsk{"41": asks[0], "42": asks[1]})
	p.openRule(asks[0])
	p.rule.saving = true
	p.replace(map[string]*limenv1.PendingAsk{"42": asks[1]})
	p.closeIfGone()
	if p.mode() != modeRule {
		t.Errorf("mode %v; want the rule editor kept open while its save is on its way", p.mode())
	}
	p.rule.saving = false
	p.closeIfGone()
	if p.mode() != modeBrowse || c.status != "ask 41 is no longer pending" {
		t.Errorf("mode %v, status %q; want the editor closed and why", p.mode(), c.status)
	}
}
