package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestRuleEditor: it opens on the suggestion, previews what the rule
// covers once the history is read, switches allow and block, refuses to
// confirm a rule that does not parse, and saves with compare-and-set
// before answering the ask the rule's way.
func TestRuleEditor(t *testing.T) {
	asks, history := fixtures()
	api := &fakeAPI{history: history, policy: &limenv1.Policy{Version: 3, Document: policy.DefaultDocument}}
	e := newRuleEditor(testCommon(t, api))
	e.SetWidth(60)
	cmd := e.Open(asks[0])
	if e.input.Value() != "Bash(git push:*)" || e.err != nil {
		t.Fatalf("opened with %q, %v; want the suggestion Bash(git push:*)", e.input.Value(), e.err)
	}
	if !strings.Contains(plain(e.View()), "loading recent actions") {
		t.Errorf("view before the history:\n%s", plain(e.View()))
	}
	var read historyMsg
	for _, msg := range runBatch(t, cmd) {
		if h, ok := msg.(historyMsg); ok {
			read = h
		}
	}
	if len(read.decisions) != len(history) {
		t.Fatalf("Open read %d decisions; want the %d recorded", len(read.decisions), len(history))
	}
	e.setRecent(read)
	if len(e.covered) != 2 || !strings.Contains(plain(e.View()), "Covers ask 41 and 2 of the 5 other actions recorded lately") {
		t.Errorf("covered %d:\n%s; want the two other git pushes", len(e.covered), plain(e.View()))
	}
	e.Update(keyMsg("tab"))
	if e.verdict != policy.Block || !strings.Contains(plain(e.View()), "[block] denies ask 41") {
		t.Errorf("verdict %v after tab:\n%s; want block", e.verdict, plain(e.View()))
	}
	e.Update(keyMsg("tab"))
	e.Update(keyMsg("backspace"))
	if _, res := e.Update(keyMsg("enter")); res != editorKept || e.err == nil {
		t.Errorf("enter on %q gave %v, err %v; want it refused", e.input.Value(), res, e.err)
	}
	e.Update(keyMsg(")"))
	if _, res := e.Update(keyMsg("enter")); res != editorConfirmed {
		t.Fatalf("enter on %q gave %v (err %v); want confirmed", e.input.Value(), res, e.err)
	}
	save := e.Save()
	if _, res := e.Update(keyMsg("x")); res != editorKept || e.input.Value() != "Bash(git push:*)" {
		t.Errorf("a key while saving changed the pattern to %q", e.input.Value())
	}
	if !strings.Contains(plain(e.View()), "saving the rule") {
		t.Errorf("view while saving:\n%s", plain(e.View()))
	}
	api.setErrs = []error{errConflict}
	out, ok := save().(ruleSavedMsg)
	if !ok || out.err != nil || out.version != 5 || out.list != "allow" || out.answer.err != nil {
		t.Fatalf("save = %+v; want the rule in allow at v5 after one conflict, and the answer sent", out)
	}
	if len(api.answers) != 1 || api.answers[0].GetChoice() != limenv1.Choice_CHOICE_APPROVE || api.answers[0].GetNote() != "made the rule Bash(git push:*)" {
		t.Errorf("answers %v; want ask 41 approved with the rule named", api.answers)
	}
}

// TestRuleEditorNoPreview: a history that cannot be read leaves the
// editor usable and says why there is no preview.
func TestRuleEditorNoPreview(t *testing.T) {
	asks, _ := fixtures()
	e := newRuleEditor(testCommon(t, &fakeAPI{}))
	e.SetWidth(60)
	e.Open(asks[0])
	e.setRecent(historyMsg{err: errors.New("history: limend is unreachable")})
	if v := plain(e.View()); !strings.Contains(v, "no preview: history: limend is unreachable") {
		t.Errorf("view:\n%s; want why there is no preview", v)
	}
	if _, res := e.Update(keyMsg("enter")); res != editorConfirmed {
		t.Errorf("enter gave %v; want the rule confirmed without a preview", res)
	}
}

// TestRuleEditorCountsOtherActions: the preview's count is out of the
// recent actions other than the ask's own, whose decision is among them
// (the trial read "Covers ask 6 and 0 of the last 7", ask 6 one of the 7).
func TestRuleEditorCountsOtherActions(t *testing.T) {
	asks, history := fixtures()
	api := &fakeAPI{history: history, policy: &limenv1.Policy{Version: 3, Document: policy.DefaultDocument}}
	e := newRuleEditor(testCommon(t, api))
	e.SetWidth(60)
	e.Open(asks[0])
	recent := append([]*limenv1.Decision{asks[0].GetDecision()}, history...) // the ask's own decision, newest
	recent = append(recent, history[0])                                      // and an action seen twice
	e.setRecent(historyMsg{decisions: recent})
	if v := plain(e.View()); !strings.Contains(v, "Covers ask 41 and 2 of the 5 other actions recorded lately") {
		t.Errorf("the count is not out of the 5 other actions:\n%s", v)
	}
}
