package team_test

import (
	"context"
	"strings"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

func readme() *limenv1.Action {
	return &limenv1.Action{User: "ana", Agent: "test", Session: "s1", Tool: "Read", InputJson: `{"file_path":"/home/ana/shop/README.md"}`, Cwd: "/home/ana/shop"}
}

// waitHealth watches limend's health until it reports want, for up to 10s.
func waitHealth(t *testing.T, c *client.Client, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	w, err := c.Health.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		h, err := w.Recv()
		if err != nil {
			t.Fatalf("watch health for %v: %v", want, err)
		}
		if h.GetStatus() == want {
			return
		}
	}
}

// TestMinorityReplicaFailsClosed: the limend on the one member left when
// the other two of three are gone (the minority side of a partition: its
// member is alive and answers serializable reads, but has no leader)
// stops allowing within --etcd-staleness: a read its policy allows is
// asked (with no id: nothing can be queued), a block rule still blocks,
// health is NOT_SERVING, an answer is refused with a message that says it
// is not stored, and GetCluster reports the replica not fresh. Its
// teammate on a majority member would have gone on; here the majority is
// gone, so nothing else serves.
func TestMinorityReplicaFailsClosed(t *testing.T) {
	c := etcdtest.Start(t, 3)
	lone := c.Members[2]
	l := limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: []string{lone.ClientURL}, Prefix: "/team/", Staleness: 300 * time.Millisecond}
		cfg.ShutdownTimeout = 500 * time.Millisecond
	})
	l.SetPolicy(t, strings.Replace(strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1),
		"block = [", `block = ["Bash(terraform destroy*)",`, 1))
	if got := decide(t, l, readme()); got.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Read with an allow rule = %v (%s); want allow", got.GetVerdict(), got.GetReason())
	}
	pending := decide(t, l, bash("npm run deploy"))
	if pending.GetAskId() == "" {
		t.Fatalf("npm run deploy = %v; want a queued ask", pending.GetVerdict())
	}
	for _, m := range c.Members[:2] {
		m.Stop()
	}
	waitHealth(t, l.Client, healthpb.HealthCheckResponse_NOT_SERVING)
	if got := decide(t, l, readme()); got.GetVerdict() != limenv1.Verdict_VERDICT_ASK || got.GetAskId() != "" {
		t.Errorf("Read on the minority side = %v, ask id %q (%s); want an ask with no id", got.GetVerdict(), got.GetAskId(), got.GetReason())
	}
	if got := decide(t, l, bash("terraform destroy -auto-approve")); got.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("terraform destroy on the minority side = %v; want the block rule to block", got.GetVerdict())
	}
	_, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: pending.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
	if err == nil || !strings.Contains(err.Error(), "not stored") {
		t.Errorf("Answer on the minority side = %v; want it refused, saying the answer is not stored", err)
	}
	resp, err := l.Client.API.GetCluster(t.Context(), &limenv1.GetClusterRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSelf().GetFresh() {
		t.Errorf("GetCluster on the minority side reports %v; want not fresh", resp.GetSelf())
	}
	// Stopping cannot write the last records; it says so (and the
	// test's own cleanup would take that for a failure).
	if err := l.Stop(t.Context()); err == nil || !strings.Contains(err.Error(), "etcd not reached") {
		t.Errorf("Stop on the minority side = %v; want it to say etcd is not reached", err)
	}
}
