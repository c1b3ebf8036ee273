package team_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// TestSlowMemberUnderAnswers: one follower of a 3-member cluster is made
// slow while three replicas take asks and answers, one of them (S) on the
// slow member alone.
//
// What is delayed, honestly: not the member's disk. etcd's failpoints
// need a gofail build, and the embedded members share one process and
// disk; instead a proxy in front of the member's peer port
// (etcdtest.StartProxied, go.etcd.io/etcd/pkg/v3/proxy) holds every byte
// it sends its peers, and every request they send it, for 100ms. Its raft
// acknowledgements, the proposals and read-index requests it forwards to
// the leader all arrive 100ms late — what a follower whose fsync takes
// 100ms looks like to the others (issue 17's "follower with 100 ms
// fsyncs") — while its own apply runs at full speed.
//
// Under that: every acknowledged answer is stored exactly once, two
// people answering one ask at once get one acknowledgement, S gives no
// allow on a view older than its staleness (a policy change that removes
// the allowing rule reaches it, or it asks), the replicas converge to the
// same counts, and their pending lists to the same asks. (With
// --etcd-staleness 1s, which also bounds each of the store's calls, an
// answer through S once ran out of that second here: keep the default.)
func TestSlowMemberUnderAnswers(t *testing.T) {
	const (
		delay     = 100 * time.Millisecond
		staleness = 5 * time.Second
	)
	c := etcdtest.StartProxied(t, 3)
	leader := c.WaitLeader()
	var slow *etcdtest.Member
	var healthy []string
	for _, m := range c.Members {
		if m != leader && slow == nil {
			slow = m
		} else {
			healthy = append(healthy, m.ClientURL)
		}
	}
	start := func(eps ...string) *limentest.Limend {
		return limentest.Start(t, func(cfg *daemon.Config) {
			cfg.Store = daemon.StoreEtcd
			cfg.Etcd = daemon.Etcd{Endpoints: eps, Prefix: "/team/", Staleness: staleness}
			cfg.ShutdownTimeout = time.Second
		})
	}
	s, a, b := start(slow.ClientURL), start(healthy[0]), start(healthy[1])
	a.SetPolicy(t, strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1))
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for decide(t, s, readme()).GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		<-tick.C
	}

	slow.DelayPeer(delay)
	// The delay is in the way: a linearizable read through the slow member
	// waits for its read-index request to reach the leader.
	t0 := time.Now()
	if _, err := c.Client(slow.ClientURL).Get(t.Context(), "/probe"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took < delay {
		t.Fatalf("a read through the slow member took %v; want at least the %v delay", took, delay)
	} else {
		t.Logf("a read through the slow member took %v", took)
	}
	// S decides reads all along: note when it allowed.
	var (
		allows []time.Time
		done   = make(chan struct{})
		reader sync.WaitGroup
	)
	reader.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			at := time.Now()
			if resp, err := s.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: readme()}); err == nil && resp.GetDecision().GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
				allows = append(allows, at)
			}
			<-tick.C
		}
	})
	ls := []*limentest.Limend{s, a, b}
	acked := answerLoad(t, ls, 6, "slow")

	// Two people answer one ask at once, one of them through S.
	doubles := 0
	for i := range 4 {
		asked := decide(t, a, bash("make double-"+string(rune('a'+i))))
		if asked.GetAskId() == "" || !listed(t, s, asked.GetAskId()) || !listed(t, b, asked.GetAskId()) {
			t.Fatalf("make double-%c = %v; want an ask listed on S and B", 'a'+i, asked.GetVerdict())
		}
		var both sync.WaitGroup
		var mu sync.Mutex
		oks := 0
		for _, l := range []*limentest.Limend{s, b} {
			both.Go(func() {
				if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err == nil {
					mu.Lock()
					oks++
					mu.Unlock()
				}
			})
		}
		both.Wait()
		if oks != 1 {
			t.Errorf("ask %s answered at once on S and B: %d acknowledged; want exactly one", asked.GetAskId(), oks)
		}
		if oks > 0 {
			acked = append(acked, asked.GetAskId())
			doubles++
		}
	}

	// The rule that allows reads goes; S must not allow one on an older
	// view than its staleness.
	a.SetPolicy(t, policy.DefaultDocument)
	removed := time.Now()
	for decide(t, s, readme()).GetVerdict() == limenv1.Verdict_VERDICT_ALLOW && time.Since(removed) < staleness+2*time.Second {
		<-tick.C
	}
	close(done)
	reader.Wait()
	slow.DelayPeer(0)
	if slow.IsLeader() {
		t.Log("the slow member became the leader during the test")
	}

	t.Logf("%d answers acknowledged (%d of them raced); S allowed %d reads", len(acked), doubles, len(allows))
	stored := storedAnswers(t, c)
	for _, id := range acked {
		if stored[id] != 1 {
			t.Errorf("ask %s: acknowledged, stored %d times; want once", id, stored[id])
		}
	}
	for _, at := range allows {
		if at.After(removed.Add(staleness)) {
			t.Errorf("S allowed a read decided %v after the rule allowing it was removed; want none past its staleness %v", at.Sub(removed), staleness)
		}
	}
	if d := decide(t, s, readme()); d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("S still allows a read after the rule was removed and the delay lifted: %s", d.GetReason())
	}
	reps := quiesce(t, ls, uint64(len(stored)))
	for i, r := range reps[1:] {
		if r.GetCountsHash() != reps[0].GetCountsHash() {
			t.Errorf("counts hash of replica %d %s, of S %s; want equal", i+1, r.GetCountsHash(), reps[0].GetCountsHash())
		}
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
		slices.Sort(ids)
		return strings.Join(ids, ",")
	}
	deadline := time.After(5 * time.Second)
	for pendingOf(s) != pendingOf(a) || pendingOf(a) != pendingOf(b) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("pending on S [%s], A [%s], B [%s]; want them equal within 5s", pendingOf(s), pendingOf(a), pendingOf(b))
		}
	}
}
