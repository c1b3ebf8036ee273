package team_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestPausedLeaderUnderAnswers: the etcd leader, a process of its own, is
// paused with SIGSTOP (its connections stay open, nothing answers on
// them) while two limends take asks and answers, then continued. The
// answers go on again on the two members left before the leader is
// continued (the log says how long they stalled: seconds, while the
// clients find the paused member out); every acknowledged answer is
// stored once; afterwards both replicas hold the same counts.
func TestPausedLeaderUnderAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs etcd member processes; skipped with -short")
	}
	pc := etcdtest.StartProcesses(t, 3)
	start := func() *limentest.Limend {
		return limentest.Start(t, func(cfg *daemon.Config) {
			cfg.Store = daemon.StoreEtcd
			cfg.Etcd = daemon.Etcd{Endpoints: pc.Endpoints(), Prefix: "/paused/", Staleness: time.Second}
			cfg.ShutdownTimeout = time.Second
		})
	}
	a, b := start(), start()
	var (
		mu    sync.Mutex
		acked = map[string]int{}
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	wg.Go(func() {
		pause := time.NewTicker(20 * time.Millisecond)
		defer pause.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := a.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash(fmt.Sprintf("make step-%d", i))})
			id := resp.GetDecision().GetAskId()
			if err != nil || id == "" || !listed(t, b, id) {
				<-pause.C
				continue
			}
			if _, err := b.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY}); err == nil {
				mu.Lock()
				acked[id]++
				mu.Unlock()
			}
		}
	})
	waitFor := func(n int, what string) time.Duration {
		t.Helper()
		began := time.Now()
		deadline := time.After(30 * time.Second)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for count() < n {
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("%s: only %d answers acknowledged after 30s; want %d", what, count(), n)
			}
		}
		return time.Since(began)
	}
	waitFor(5, "before the pause")
	leader := pc.Leader()
	if leader == nil {
		t.Fatal("no leader")
	}
	leader.Pause()
	took := waitFor(count()+5, "with the leader paused")
	t.Logf("with the leader paused, 5 more answers took %v", took.Round(time.Millisecond))
	leader.Resume()
	waitFor(count()+5, "after the leader resumed")
	close(stop)
	wg.Wait()

	st, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: pc.Client(), Prefix: "/paused/"})
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
	mu.Lock()
	defer mu.Unlock()
	for id, n := range acked {
		if n != 1 || stored[id] != 1 {
			t.Errorf("ask %s: acknowledged %d times, stored %d; want once each", id, n, stored[id])
		}
	}
	reps := quiesce(t, []*limentest.Limend{a, b}, seq)
	if reps[0].GetCountsHash() != reps[1].GetCountsHash() {
		t.Errorf("counts hash A %s, B %s; want equal", reps[0].GetCountsHash(), reps[1].GetCountsHash())
	}
}
