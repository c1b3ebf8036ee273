package tui

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestNoteEditor: every key but enter and esc is text (q and a included),
// enter confirms what was typed, esc cancels, and closing forgets it.
func TestNoteEditor(t *testing.T) {
	asks, _ := fixtures()
	e := newNoteEditor(testCommon(t, &fakeAPI{}))
	e.SetWidth(60)
	e.Open(asks[0], limenv1.Choice_CHOICE_DENY)
	for _, k := range []string{"q", "a", " ", "n", "o"} {
		if _, res := e.Update(keyMsg(k)); res != editorKept {
			t.Fatalf("key %q gave %v; want it taken as text", k, res)
		}
	}
	if e.note() != "qa no" || e.target() != "41" {
		t.Errorf("note %q on ask %s; want \"qa no\" on 41", e.note(), e.target())
	}
	v := plain(e.View())
	for _, want := range []string{"Deny ask 41 with a note", "git push --force origin main", "note: qa no"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if _, res := e.Update(keyMsg("enter")); res != editorConfirmed {
		t.Errorf("enter gave %v; want confirmed", res)
	}
	if _, res := e.Update(keyMsg("esc")); res != editorCancelled {
		t.Errorf("esc gave %v; want cancelled", res)
	}
	e.Close()
	e.Open(asks[1], limenv1.Choice_CHOICE_APPROVE)
	if e.note() != "" || !strings.Contains(plain(e.View()), "Approve ask 42 with a note") {
		t.Errorf("reopened with note %q:\n%s; want an empty note on ask 42", e.note(), plain(e.View()))
	}
}
