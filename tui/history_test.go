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
