package team_test

import (
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// TestSessionGrantsLiveInEtcd: approved for the session on B, the action
// is allowed by the grant on A, and on C started after the approval (it
// lists the grant); when the grant's lease ends, etcd deletes it and no
// limend allows by it any more, although none ran a timer for it.
func TestSessionGrantsLiveInEtcd(t *testing.T) {
	c := etcdtest.Start(t, 1)
	start := func() *limentest.Limend {
		return limentest.Start(t, func(cfg *daemon.Config) {
			cfg.Store = daemon.StoreEtcd
			cfg.Etcd = daemon.Etcd{Endpoints: c.Endpoints(), Prefix: "/team/", GrantTTL: 2 * time.Second}
		})
	}
	a, b := start(), start()
	asked := decide(t, a, bash("terraform apply"))
	if asked.GetAskId() == "" {
		t.Fatalf("terraform apply on A = %v; want a queued ask", asked.GetVerdict())
	}
	if !listed(t, b, asked.GetAskId()) {
		t.Fatal("the ask never reached B")
	}
	if _, err := b.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE, Scope: limenv1.Scope_SCOPE_SESSION}); err != nil {
		t.Fatal(err)
	}
	approved := time.Now()
	if _, err := a.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: asked.GetAskId()}); err != nil {
		t.Fatal(err)
	}
	cc := start()
	byGrant := func(l *limentest.Limend) bool {
		return decide(t, l, bash("terraform apply")).GetDecidedBy() == limenv1.Decider_DECIDER_HUMAN
	}
	for name, l := range map[string]*limentest.Limend{"A": a, "B": b, "C (started after)": cc} {
		if !byGrant(l) {
			t.Errorf("terraform apply on %s in the approved session: not allowed by the grant", name)
		}
	}
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for byGrant(a) || byGrant(b) || byGrant(cc) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("a limend still allows by the 2s grant 15s after it was given")
		}
	}
	if took := time.Since(approved); took < 2*time.Second {
		t.Errorf("the 2s grant ended after %v; want no sooner than its lifetime", took)
	} else {
		t.Logf("the 2s grant ended on every limend %v after the approval", took.Round(time.Millisecond))
	}
}
