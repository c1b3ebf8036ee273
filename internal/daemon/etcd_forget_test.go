package daemon_test

import (
	"context"
	"testing"
	"time"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// TestForgettingReachesEveryLimend: answers forgotten on A are unlearned
// on B, which shares the etcd prefix: B's block on two denials becomes an
// ask, without a restart.
func TestForgettingReachesEveryLimend(t *testing.T) {
	c := etcdtest.Start(t, 1)
	a, b := onEtcd(t, c, "/team/"), onEtcd(t, c, "/team/")
	for range 2 {
		d := decide(t, a.Client, bash("make deploy"))
		if d.GetAskId() == "" {
			t.Fatalf("make deploy on A = %v; want a queued ask", d.GetVerdict())
		}
		if err := answer(a.Client, d.GetAskId(), limenv1.Choice_CHOICE_DENY); err != nil {
			t.Fatal(err)
		}
	}
	// B sees what A does only through etcd's watches:
	// look until it shows, for a bounded time.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	until := func(what string, ok func(*limenv1.Decision) bool) {
		t.Helper()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if d := dryDecide(t, b.Client, bash("make deploy")); ok(d) {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("B never %s", what)
			case <-tick.C:
			}
		}
	}
	until("learned A's two denials", func(d *limenv1.Decision) bool { return d.GetVerdict() == limenv1.Verdict_VERDICT_BLOCK })
	resp, err := a.Client.Forget(t.Context(), &limenv1.ForgetRequest{User: "ana", Key: "Bash:make deploy"})
	if err != nil || len(resp.GetAnswers()) != 2 {
		t.Fatalf("Forget on A = %v, %v; want the two denials", resp.GetAnswers(), err)
	}
	until("unlearned the denials A forgot", func(d *limenv1.Decision) bool {
		return d.GetVerdict() == limenv1.Verdict_VERDICT_ASK && d.GetEvidence().GetDenials() == 0
	})
}
