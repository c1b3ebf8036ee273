package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
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
