package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storev1"
)

// heldAnswers is the etcd store with its answer watch held at a gate:
// each answer after start waits there before the server applies it.
type heldAnswers struct {
	*etcdstore.Store
	arrived chan struct{} // an answer reached the gate
	release chan struct{} // let it through
	live    atomic.Bool
}

func (h *heldAnswers) WatchAnswers(ctx context.Context, after uint64, fn func(*storev1.AnswerRecord, int64)) error {
	return h.Store.WatchAnswers(ctx, after, func(rec *storev1.AnswerRecord, rev int64) {
		if h.live.Load() {
			h.arrived <- struct{}{}
			<-h.release
		}
		fn(rec, rev)
	})
}

// TestAnswerWaitsUntilApplied: on etcd, Answer does not return while the
// answer, committed, is not yet applied on this replica, and once it
// returns the predictor has counted it.
func TestAnswerWaitsUntilApplied(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	st, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := &heldAnswers{Store: st, arrived: make(chan struct{}), release: make(chan struct{})}
	s, err := New(Options{Store: h, Limits: Limits{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	h.live.Store(true)
	ctx := callerCtx(t, s.guard, kindOwner)
	act := &limenv1.Action{User: "owner", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"terraform apply"}`, Cwd: "/home/owner/shop"}
	resp, err := s.Decide(ctx, &limenv1.DecideRequest{Action: act})
	if err != nil || resp.GetDecision().GetAskId() == "" {
		t.Fatalf("Decide = %v, %v; want a queued ask", resp, err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := s.Answer(ctx, &limenv1.AnswerRequest{AskId: resp.GetDecision().GetAskId(), Choice: limenv1.Choice_CHOICE_DENY})
		answered <- err
	}()
	select {
	case <-h.arrived:
	case err := <-answered:
		t.Fatalf("Answer returned (%v) before its answer reached the watch", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the answer never reached the watch")
	}
	// Committed, held before it is applied: Answer must still wait. The
	// bound only gives a wrong early return time to show.
	select {
	case err := <-answered:
		t.Fatalf("Answer returned (%v) while its answer was not yet applied here", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(h.release)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	again, err := s.Decide(ctx, &limenv1.DecideRequest{Action: act, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := again.GetDecision().GetEvidence().GetDenials(); d < 0.99 {
		t.Errorf("after Answer returned, evidence %v; want the denial counted", again.GetDecision().GetEvidence())
	}
}

// unreadable is the etcd store as a replica sees it in a fault: while
// failing is set, reading a decision fails, and the pending watch reports
// an ask's end without its outcome (as the store does when its own read
// fails); noPending keeps Pending failing, so that nothing but the
// watch's event can settle an ask.
type unreadable struct {
	*etcdstore.Store
	failing, noPending atomic.Bool
	applied            chan string // the ask ids of resolutions applied
}

func (u *unreadable) Decision(id uint64) (*storev1.Decision, error) {
	if u.failing.Load() {
		return nil, context.DeadlineExceeded
	}
	return u.Store.Decision(id)
}

func (u *unreadable) Pending() ([]*storev1.PendingAsk, error) {
	if u.noPending.Load() {
		return nil, context.DeadlineExceeded
	}
	return u.Store.Pending()
}

func (u *unreadable) WatchPending(ctx context.Context, fn func(store.PendingChange)) error {
	return u.Store.WatchPending(ctx, func(c store.PendingChange) {
		if c.Resolved != nil && u.failing.Load() {
			c.Resolved = &storev1.Decision{DecisionId: c.Resolved.GetDecisionId(), AskId: c.Resolved.GetAskId()}
			c.Answer = nil
		}
		fn(c)
		if c.Resolved != nil {
			u.applied <- c.Resolved.GetAskId()
		}
	})
}

// TestEndedAskSettlesAfterUnreadableEvent: an ask answered on replica A
// whose end reaches replica B while B cannot read the decision (a fault
// of etcd) is settled on B once the read works again. The event does not
// come twice: B dropped it, and listed the ask as pending for good (the
// rare divergence of TestFaultsUnderAnswerLoad's pending lists).
func TestEndedAskSettlesAfterUnreadableEvent(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	open := func() *etcdstore.Store {
		st, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, err := New(Options{Store: open(), Limits: Limits{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	u := &unreadable{Store: open(), applied: make(chan string, 16)}
	b, err := New(Options{Store: u, Limits: Limits{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	u.noPending.Store(true) // from now on only the watch settles asks on B
	actx, bctx := callerCtx(t, a.guard, kindOwner), callerCtx(t, b.guard, kindOwner)
	pendingOnB := func(id string) bool {
		resp, err := b.ListPending(bctx, &limenv1.ListPendingRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range resp.GetAsks() {
			if p.GetAskId() == id {
				return true
			}
		}
		return false
	}
	act := &limenv1.Action{User: "owner", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"terraform apply"}`, Cwd: "/home/owner/shop"}
	resp, err := a.Decide(actx, &limenv1.DecideRequest{Action: act})
	id := resp.GetDecision().GetAskId()
	if err != nil || id == "" {
		t.Fatalf("Decide on A = %v, %v; want a queued ask", resp, err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !pendingOnB(id) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("ask %s never reached B", id)
		}
	}
	u.failing.Store(true)
	if _, err := a.Answer(actx, &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-u.applied:
		if got != id {
			t.Fatalf("B applied the end of ask %s; want %s", got, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the end of the ask never reached B's watch")
	}
	u.failing.Store(false) // the fault is over
	deadline = time.After(10 * time.Second)
	for pendingOnB(id) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("ask %s, answered on A, is still pending on B 10s after B could read it again", id)
		}
	}
}
