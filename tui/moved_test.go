package tui

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestAnswerKeyAfterTheCursorMoved: when the ask under the cursor leaves
// the queue without this window's answer (an agent can settle its own
// ask), the cursor lands on another; the first answer key then only says
// so, and answers nothing: the person aimed it at the ask that left. The
// next one answers the ask now shown. Moving the cursor oneself is no
// surprise, and the next answer key answers at once.
func TestAnswerKeyAfterTheCursorMoved(t *testing.T) {
	m, api := newTestModel(t, 120, 40)
	leave := func() {
		t.Helper()
		m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_REMOVED,
			Ask: m.pending.asks[selectedID(m)], Outcome: &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED}}})
	}
	extra := proto.CloneOf(m.pending.asks[selectedID(m)])
	extra.AskId = "99"
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: extra}})

	first := selectedID(m)
	leave()
	if now := selectedID(m); now == "" || now == first {
		t.Fatalf("after ask %s left, the cursor is on %q; want another ask", first, now)
	}
	press(t, m, "down", "up")
	on := selectedID(m)
	press(t, m, "a")
	if len(api.answers) != 1 || api.answers[0].GetAskId() != on {
		t.Fatalf("a after moving the cursor oneself: answers %v; want ask %s approved", api.answers, on)
	}

	gone := selectedID(m)
	leave()
	next := selectedID(m)
	if next == "" || next == gone {
		t.Fatalf("after ask %s left, the cursor is on %q; want another ask", gone, next)
	}
	press(t, m, "a")
	if len(api.answers) != 1 || !strings.Contains(m.c.status, "the cursor moved to ask "+next) {
		t.Fatalf("a after the cursor moved: answers %v, status %q; want none sent and why", api.answers, m.c.status)
	}
	press(t, m, "a")
	if len(api.answers) != 2 || api.answers[1].GetAskId() != next {
		t.Fatalf("a pressed again: answers %v; want ask %s approved", api.answers, next)
	}
}
