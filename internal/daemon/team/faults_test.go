package team_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// TestFaultsUnderAnswerLoad: two limends (A, B) on every member of a
// 3-member cluster take asks and answers in a bounded loop, some asks
// answered on both at once, while the etcd leader is stopped at once (as
// its machine dying), etcd's history is compacted, and B is stopped and
// a new limend started in its place mid-watch. A third limend (D) talks
// only to the leader's member. Afterwards: every acknowledged answer is
// stored exactly once and no ask was answered twice; D, cut off with its
// member, allowed nothing later than --etcd-staleness after; the pending
// lists of the survivors agree, and so do their predictors' counts.
func TestFaultsUnderAnswerLoad(t *testing.T) {
	const staleness = 500 * time.Millisecond
	c := etcdtest.Start(t, 3)
	leader := c.WaitLeader()
	start := func(eps ...string) *limentest.Limend {
		return limentest.Start(t, func(cfg *daemon.Config) {
			cfg.Store = daemon.StoreEtcd
			cfg.Etcd = daemon.Etcd{Endpoints: eps, Prefix: "/team/", Staleness: staleness}
			cfg.ShutdownTimeout = time.Second
		})
	}
	all := c.Endpoints()
	a, b, d := start(all...), start(all...), start(leader.ClientURL)
	a.SetPolicy(t, strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1))
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for decide(t, d, readme()).GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		<-tick.C // the policy reaches D within the watch's delay
	}

	var (
		mu    sync.Mutex
		acked = map[string]int{} // ask id → answers acknowledged
		live  atomic.Pointer[[]*limentest.Limend]
		done  = make(chan struct{})
		// stopLoad ends the workers, once the faults are over.
		stopLoad = make(chan struct{})
	)
	live.Store(&[]*limentest.Limend{a, b})
	// answer reports whether the ask is settled: answered here, or
	// already (by the other person, or by an answer whose reply was lost).
	answer := func(l *limentest.Limend, id string, choice limenv1.Choice) bool {
		_, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: choice})
		if err == nil {
			mu.Lock()
			acked[id]++
			mu.Unlock()
		}
		return err == nil || status.Code(err) == codes.FailedPrecondition
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	var workers sync.WaitGroup
	for w := range 2 {
		workers.Go(func() {
			pause := time.NewTicker(20 * time.Millisecond)
			defer pause.Stop()
			for i := 0; ; i++ { // until the faults are over (stopLoad)
				select {
				case <-stopLoad:
					return
				default:
				}
				ls := *live.Load()
				on, by := ls[(w+i)%len(ls)], ls[(w+i+1)%len(ls)]
				resp, err := on.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash(fmt.Sprintf("npm run job-%d-%d", w, i))})
				id := resp.GetDecision().GetAskId()
				if err != nil || id == "" || !listed(t, by, id) {
					<-pause.C // a fault: no ask queued, or not seen in time
					continue
				}
				choice := limenv1.Choice_CHOICE_APPROVE
				if i%2 == 1 {
					choice = limenv1.Choice_CHOICE_DENY
				}
				if i%4 == 0 && on != by { // two people answer at once
					var both sync.WaitGroup
					both.Go(func() { answer(on, id, limenv1.Choice_CHOICE_APPROVE) })
					both.Go(func() { answer(by, id, limenv1.Choice_CHOICE_DENY) })
					both.Wait()
					continue
				}
				// A person whose answer is refused (etcd has no leader,
				// the replica's view is stale) answers again a little
				// later, rather than leave the ask for a new one: asks
				// left behind fill the user's queue (--max-pending, 200)
				// within the outage, and once it is full nothing is
				// queued, so nothing could be answered again.
				for try := 0; !answer(by, id, choice) && try < 100; try++ {
					select {
					case <-stopLoad:
						return
					case <-pause.C:
					}
				}
			}
		})
	}
	// D reads while its member lives and after: note when it allowed.
	var allows []time.Time
	var reader sync.WaitGroup
	reader.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			at := time.Now()
			if resp, err := d.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: readme()}); err == nil && resp.GetDecision().GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
				allows = append(allows, at)
			}
		}
	})
	waitFor := func(n int) {
		deadline := time.After(20 * time.Second)
		for count() < n {
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("only %d answers acknowledged after 20s; want %d", count(), n)
			}
		}
	}

	waitFor(4)
	leader.Stop()
	lost := time.Now()
	c.WaitLeader()
	waitFor(8)
	resp, err := c.Client(c.Endpoints()...).Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client(c.Endpoints()...).Compact(t.Context(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	live.Store(&[]*limentest.Limend{a})
	b.Stop(t.Context()) // mid-watch; what it held in memory is gone
	b2 := start(c.Endpoints()...)
	live.Store(&[]*limentest.Limend{a, b2})
	waitFor(count() + 4) // answers go on with the new B
	close(stopLoad)
	workers.Wait()
	close(done)
	reader.Wait()
	// D, cut off, cannot write its last records; it says so (the test's
	// cleanup would take that for a failure).
	if err := d.Stop(t.Context()); err == nil {
		t.Error("D stopped cleanly although its only member was gone")
	}

	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d answers acknowledged; D allowed %d reads", len(acked), len(allows))
	stored := storedAnswers(t, c)
	for id, n := range acked {
		if n != 1 {
			t.Errorf("ask %s: %d answers acknowledged; want one (the first wins, the other fails)", id, n)
		}
		if stored[id] != 1 {
			t.Errorf("ask %s: acknowledged, stored %d times; want once", id, stored[id])
		}
	}
	for id, n := range stored {
		if n > 1 {
			t.Errorf("ask %s stored %d answers; want at most one", id, n)
		}
	}
	if n := len(allows); n > 0 {
		t.Logf("D's last allow was decided %v after its member stopped (staleness %v)", allows[n-1].Sub(lost).Round(time.Millisecond), staleness)
	}
	for _, at := range allows {
		if at.After(lost.Add(staleness)) {
			t.Errorf("D allowed a read decided %v after its only member was stopped; want none after %v", at.Sub(lost), staleness)
		}
	}
	// The survivors converge: the same answers applied, the same counts,
	// the same asks pending.
	var maxSeq uint64
	for range stored {
		maxSeq++
	}
	reps := quiesce(t, []*limentest.Limend{a, b2}, maxSeq)
	if reps[0].GetCountsHash() != reps[1].GetCountsHash() {
		t.Errorf("counts hash A %s, new B %s; want equal", reps[0].GetCountsHash(), reps[1].GetCountsHash())
	}
	pendingOf := func(l *limentest.Limend) string {
		resp, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range resp.GetAsks() {
			ids = append(ids, p.GetAskId())
		}
		return strings.Join(ids, ",")
	}
	deadline := time.After(5 * time.Second)
	for pendingOf(a) != pendingOf(b2) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("pending on A [%s], on the new B [%s]; want them equal within 5s", pendingOf(a), pendingOf(b2))
		}
	}
}
