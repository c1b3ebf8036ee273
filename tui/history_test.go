package tui

import (
	"errors"
	"strings"
	"testing"
)

// TestHistoryTab: loading, loaded (with the selected decision's reason
// and note below), filtered, and failed.
func TestHistoryTab(t *testing.T) {
	_, history := fixtures()
	h := newHistoryTab(testCommon(t, &fakeAPI{history: history}))
	h.SetSize(100, 12)
	if v := plain(h.View()); !strings.Contains(v, "loading…") {
		t.Errorf("view before loading:\n%s", v)
	}
	msg, ok := h.fetch()().(historyMsg)
	if !ok || len(msg.decisions) != 5 {
		t.Fatalf("fetch = %+v; want the 5 recorded decisions", msg)
	}
	h.Update(msg)
	v := plain(h.View())
	if !strings.Contains(v, "git push origin feature/cart") || !strings.Contains(v, "40 allow: p=0.962") {
		t.Errorf("loaded view lacks the newest decision and its reason:\n%s", v)
	}
	for _, k := range []string{"down", "down", "down"} {
		h.Update(keyMsg(k))
	}
	if v := plain(h.View()); !strings.Contains(v, `note: "deploys go through CI"`) {
		t.Errorf("the denied decision's note is not shown:\n%s", v)
	}
	for _, k := range []string{"/", "t", "e", "r", "r", "a", "enter"} {
		h.Update(keyMsg(k))
	}
	if n := len(h.list.VisibleItems()); n != 1 || !strings.Contains(plain(h.View()), "filter: terra · 1 shown") {
		t.Errorf("%d shown after filtering:\n%s; want terraform apply alone", n, plain(h.View()))
	}
	h.Update(historyMsg{err: errors.New("history: limend is unreachable")})
	if v := plain(h.View()); !strings.Contains(v, "could not load history: history: limend is unreachable") {
		t.Errorf("view after a failed read:\n%s", v)
	}
}

// TestHistoryForgottenKeepsColumns: an answer taken back is "forgotten"
// in the OUTCOME column, which keeps DECIDED BY, USER and ACTION under
// their headings at 80 columns (the trial saw "approved (forgotten)" push
// them right), and the line under the list says what the answer was.
func TestHistoryForgottenKeepsColumns(t *testing.T) {
	_, history := fixtures()
	history[2].Outcome.ForgottenAt = history[2].GetTime() // 38, approved by ana
	h := newHistoryTab(testCommon(t, &fakeAPI{history: history}))
	h.SetSize(80, 12)
	h.Update(h.fetch()())
	h.Update(keyMsg("down"))
	h.Update(keyMsg("down"))
	v := plain(h.View())
	lines := strings.Split(v, "\n")
	col := strings.Index(lines[0], "DECIDED BY")
	if col < 0 {
		t.Fatalf("no DECIDED BY heading:\n%s", v)
	}
	rows := 0
	for _, l := range lines[1:] {
		if !strings.Contains(l, "prediction") && !strings.Contains(l, "rule") && !strings.Contains(l, "person:") && !strings.Contains(l, "expiry") {
			continue
		}
		rows++
		if r := []rune(l); len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
			t.Errorf("DECIDED BY is not under its heading (column %d) in %q:\n%s", col, l, v)
		}
	}
	if rows != 5 {
		t.Errorf("%d rows; want 5:\n%s", rows, v)
	}
	if !strings.Contains(v, "ask     forgotten person:ana") {
		t.Errorf("the forgotten answer's row does not say forgotten:\n%s", v)
	}
	if !strings.Contains(v, "38 ask, approved (forgotten):") {
		t.Errorf("the line under the list does not say what the forgotten answer was:\n%s", v)
	}
}
