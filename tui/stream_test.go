package tui

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func added(a *limenv1.PendingAsk) *limenv1.WatchPendingResponse {
	return &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: a}
}

func removed(a *limenv1.PendingAsk) *limenv1.WatchPendingResponse {
	return &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_REMOVED, Ask: a,
		Outcome: &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED}}
}

var synced = &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_SYNCED}

// TestWatchSnapshot: a new stream's events are collected until it is
// synced, and only the synced snapshot reaches the queue; after that each
// event passes on as it comes.
func TestWatchSnapshot(t *testing.T) {
	asks, _ := fixtures()
	w := newWatch(testCommon(t, &fakeAPI{}))
	w.open()
	gen := w.gen
	if _, ev := w.Update(watchOpenedMsg{gen: gen}); !isNone(ev) {
		t.Fatalf("opening the stream changed the queue: %+v", ev)
	}
	for _, e := range []*limenv1.WatchPendingResponse{added(asks[0]), added(asks[1]), added(asks[2]), removed(asks[1])} {
		if _, ev := w.Update(watchEventMsg{gen: gen, ev: e}); !isNone(ev) {
			t.Fatalf("an event before the sync reached the queue: %+v", ev)
		}
	}
	if w.conn != connConnecting {
		t.Errorf("conn %v before the sync; want connecting", w.conn)
	}
	_, ev := w.Update(watchEventMsg{gen: gen, ev: synced})
	if len(ev.snapshot) != 2 || ev.snapshot["41"] == nil || ev.snapshot["57"] == nil || !ev.first || ev.wasOut {
		t.Fatalf("synced event %+v; want the first snapshot with asks 41 and 57", ev)
	}
	if w.conn != connLive || !w.synced {
		t.Errorf("conn %v, synced %v; want live", w.conn, w.synced)
	}
	if _, ev := w.Update(watchEventMsg{gen: gen, ev: added(asks[1])}); ev.added != asks[1] {
		t.Errorf("an ask after the sync: %+v; want it added", ev)
	}
	if _, ev := w.Update(watchEventMsg{gen: gen, ev: removed(asks[0])}); ev.removed != asks[0] || ev.outcome.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Errorf("a removal after the sync: %+v; want it removed with its outcome", ev)
	}
	if _, ev := w.Update(watchEventMsg{gen: gen, ev: synced}); !isNone(ev) {
		t.Errorf("a second sync on one stream: %+v; want nothing", ev)
	}
	// An older stream's messages are dropped.
	w.open()
	if cmd, ev := w.Update(watchEventMsg{gen: gen, ev: added(asks[2])}); cmd != nil || !isNone(ev) {
		t.Errorf("an event of the old stream: %+v; want it dropped", ev)
	}
}

// TestWatchBackoff: each failure waits twice as long up to the cap, says
// so once per outage, and schedules a reconnect of this stream; a sync
// resets it.
func TestWatchBackoff(t *testing.T) {
	c := testCommon(t, &fakeAPI{})
	w := newWatch(c)
	w.open()
	down := status.Error(codes.Unavailable, "connection refused")
	var waits []time.Duration
	for i := range 4 {
		waits = append(waits, w.backoff)
		cmd, _ := w.Update(watchErrMsg{gen: w.gen, err: down})
		if msg, ok := cmd().(reconnectMsg); !ok || msg.gen != w.gen {
			t.Fatalf("failure %d scheduled %v; want a reconnect of stream %d", i, msg, w.gen)
		}
		if i == 0 {
			if !strings.Contains(c.status, "cannot reach limend at /run/limend.sock (limend is unreachable)") || !c.statusErr {
				t.Errorf("status %q; want the first failure said", c.status)
			}
			c.setStatus(false, "something the person did")
		} else if c.status != "something the person did" {
			t.Errorf("failure %d overwrote the status with %q", i, c.status)
		}
	}
	want := []time.Duration{minBackoff, 2 * minBackoff, maxBackoff, maxBackoff}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("waits %v; want %v", waits, want)
			break
		}
	}
	if v := plain(w.View()); !strings.Contains(v, "limend unreachable · retrying in 2s") {
		t.Errorf("view %q; want the retry counted down", v)
	}
	w.open()
	w.Update(watchOpenedMsg{gen: w.gen})
	if _, ev := w.Update(watchEventMsg{gen: w.gen, ev: synced}); !ev.first || !ev.wasOut || w.backoff != minBackoff {
		// Never synced before: the first snapshot, after an outage.
		t.Errorf("sync after the outage: %+v, backoff %v; want first and wasOut, backoff reset", ev, w.backoff)
	}
	if v := plain(w.View()); !strings.Contains(v, "● live · /run/limend.sock") {
		t.Errorf("view %q; want live", v)
	}
}

// isNone reports whether ev changes nothing in the queue.
func isNone(ev queueEvent) bool { return ev.added == nil && ev.removed == nil && ev.snapshot == nil }
