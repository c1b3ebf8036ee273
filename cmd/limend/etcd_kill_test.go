package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestReplicaKilledMidWatch: the real limend binary runs as replica K of
// a team on a 3-member etcd cluster, beside replica A in this process.
// Asks decided on A are answered on K while K is killed with SIGKILL (its
// watches cut mid-stream) and started again, three times. Afterwards
// every answer K or A acknowledged is stored exactly once, and the last K
// and A have applied the same answers and hold the same counts.
func TestReplicaKilledMidWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend and kills it; skipped with -short")
	}
	c := etcdtest.Start(t, 3)
	bin := buildLimend(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "limend.sock")
	a := limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: c.Endpoints(), Prefix: "/kill/"}
	})
	startK := func(cycle int) (*exec.Cmd, *client.Client) {
		cmd := exec.Command(bin, "--socket", sock, "--http-socket", filepath.Join(dir, "run", "http.sock"),
			"--store", "etcd", "--etcd-endpoints", strings.Join(c.Endpoints(), ","), "--etcd-prefix", "/kill/",
			"--log-level", "info", "--rate", "1e9")
		serving := startWatched(t, cmd)
		t.Cleanup(func() { cmd.Process.Kill() })
		select {
		case <-serving:
		case <-time.After(20 * time.Second):
			t.Fatalf("cycle %d: limend on etcd did not come up", cycle)
		}
		k, err := client.Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		ready, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if _, err := k.Health.Check(ready, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		return cmd, k
	}
	var (
		mu    sync.Mutex
		acked = map[string]int{}
	)
	var k *client.Client
	for cycle := range 3 {
		var cmd *exec.Cmd
		cmd, k = startK(cycle)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				act := &limenv1.Action{User: "ana", Agent: "test", Session: "s1", Tool: "Bash", InputJson: fmt.Sprintf(`{"command":"make job-%d-%d"}`, cycle, i), Cwd: "/home/ana/shop"}
				resp, err := a.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: act})
				if err != nil || resp.GetDecision().GetAskId() == "" {
					continue
				}
				id := resp.GetDecision().GetAskId()
				if _, err := k.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY}); err == nil {
					mu.Lock()
					acked[id]++
					mu.Unlock()
				}
			}
		})
		// Kill K once it has taken a few answers in this cycle.
		deadline := time.After(20 * time.Second)
		tick := time.NewTicker(5 * time.Millisecond)
		for want := 5 * (cycle + 1); ; {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= want {
				break
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("cycle %d: only %d answers acknowledged", cycle, n)
			}
		}
		tick.Stop()
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		close(stop)
		wg.Wait()
		k.Close()
	}
	_, k = startK(3) // the last K, rebuilt after three kills

	st, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: c.Client(), Prefix: "/kill/"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored := map[string]int{}
	var seq uint64
	if err := st.Answers(func(rec *storev1.AnswerRecord) error {
		stored[rec.GetAskId()]++
		seq = rec.GetSeq()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, n := range acked {
		if n != 1 || stored[id] != 1 {
			t.Errorf("ask %s: acknowledged %d times, stored %d; want once each", id, n, stored[id])
		}
	}
	for id, n := range stored {
		if n > 1 {
			t.Errorf("ask %s stored %d answers; want at most one", id, n)
		}
	}
	// An answer may be stored and its acknowledgement lost with K.
	t.Logf("%d answers acknowledged across three SIGKILLs, %d stored", len(acked), seq)
	// Both replicas apply the same answers and count alike.
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ra, err := a.Client.API.GetCluster(t.Context(), &limenv1.GetClusterRequest{})
		if err != nil {
			t.Fatal(err)
		}
		rk, err := k.API.GetCluster(t.Context(), &limenv1.GetClusterRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if sa, sk := ra.GetSelf(), rk.GetSelf(); sa.GetAppliedSeq() == seq && sk.GetAppliedSeq() == seq {
			if sa.GetCountsHash() != sk.GetCountsHash() {
				t.Errorf("at answer %d: A's counts hash %s, the restarted K's %s; want equal", seq, sa.GetCountsHash(), sk.GetCountsHash())
			}
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("A and K not both at answer %d within 10s: %v, %v", seq, ra.GetSelf(), rk.GetSelf())
		}
	}
	k.Close()
}
