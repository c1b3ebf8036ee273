// Package team_test runs several limends on a multi-member etcd cluster.
// It is a package of its own because etcd's members leave idle peer
// connections behind for a while after they stop, which internal/daemon's
// goroutine-leak check (goleak) would take for limend's.
package team_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

func bash(cmd string) *limenv1.Action {
	return &limenv1.Action{User: "ana", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"` + strings.ReplaceAll(cmd, `"`, `\"`) + `"}`, Cwd: "/home/ana/shop"}
}

func decide(t *testing.T, l *limentest.Limend, a *limenv1.Action) *limenv1.Decision {
	t.Helper()
	resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
	if err != nil {
		t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
	}
	return resp.GetDecision()
}

// TestThreeLimendsOnThreeMembers: three limends, each on its own member of
// a 3-member cluster. An ask decided on A reaches the watchers of B and C;
// answered on C, A's Await returns; then all three predict the same for
// it, having learned the one answer.
func TestThreeLimendsOnThreeMembers(t *testing.T) {
	c := etcdtest.Start(t, 3)
	var ls []*limentest.Limend
	for _, m := range c.Members {
		ls = append(ls, limentest.Start(t, func(cfg *daemon.Config) {
			cfg.Store = daemon.StoreEtcd
			cfg.Etcd = daemon.Etcd{Endpoints: []string{m.ClientURL}, Prefix: "/team/"}
		}))
	}
	a, b, cc := ls[0], ls[1], ls[2]
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var watches []limenv1.DecisionService_WatchPendingClient
	for _, l := range []*limentest.Limend{b, cc} {
		w, err := l.Client.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if ev, err := w.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_SYNCED {
			t.Fatalf("first watch event = %v, %v; want SYNCED", ev, err)
		}
		watches = append(watches, w)
	}
	start := time.Now()
	asked := decide(t, a, bash("npm run build"))
	if asked.GetAskId() == "" {
		t.Fatalf("npm run build on A = %v; want a queued ask", asked.GetVerdict())
	}
	for i, w := range watches {
		if ev, err := w.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_ADDED || ev.GetAsk().GetAskId() != asked.GetAskId() {
			t.Fatalf("watch on replica %d = %v, %v; want ask %s added", i+1, ev, err, asked.GetAskId())
		}
	}
	// Issue 17 asks for 100ms; the bound here is loose for a loaded CI
	// machine, and the log shows the time (tens of ms here).
	if took := time.Since(start); took > time.Second {
		t.Errorf("decided on A and added on B and C in %v; want well under a second", took)
	} else {
		t.Logf("decided on A and added on B and C in %v", took)
	}

	awaited := make(chan *limenv1.AwaitResponse, 1)
	go func() {
		resp, _ := a.Client.API.Await(ctx, &limenv1.AwaitRequest{AskId: asked.GetAskId()})
		awaited <- resp
	}()
	if _, err := cc.Client.API.Answer(ctx, &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Fatal(err)
	}
	if resp := <-awaited; resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Await on A after C approved = %v; want allow", resp)
	}
	for i, w := range watches {
		if ev, err := w.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_REMOVED {
			t.Fatalf("watch on replica %d = %v, %v; want the ask removed", i+1, ev, err)
		}
	}
	// A learned before its Await returned, C when it answered, and B by
	// the time its watcher heard the ask removed.
	for i, l := range ls {
		got := decide(t, l, bash("npm run build")).GetEvidence()
		if got.GetApprovals() < 0.99 || got.GetApprovals() > 1 || got.GetDenials() != 0 {
			t.Errorf("replica %d after C's approval: evidence %v; want the one approval", i, got)
		}
	}
}
