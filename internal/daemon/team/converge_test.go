package team_test

import (
	"context"
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

// onMember starts a limend on member m of c, on the team's prefix.
func onMember(t *testing.T, m *etcdtest.Member) *limentest.Limend {
	t.Helper()
	return limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: []string{m.ClientURL}, Prefix: "/team/"}
	})
}

// answerLoad decides asks on the replicas and answers each on another,
// from one worker per replica at once, so that the answers of different
// replicas interleave in etcd. It returns the ask ids whose answer was
// acknowledged.
func answerLoad(t *testing.T, ls []*limentest.Limend, perWorker int, tag string) []string {
	t.Helper()
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range ls {
		wg.Go(func() {
			for i := range perWorker {
				on, by := ls[w], ls[(w+1+i)%len(ls)]
				progs := []string{"npm run", "git push origin", "make", "cargo build --bin"}
				cmd := fmt.Sprintf("%s %s-%d-%d", progs[(w+i)%len(progs)], tag, w, i)
				resp, err := on.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash(cmd)})
				if err != nil {
					t.Errorf("Decide(%s): %v", cmd, err)
					return
				}
				id := resp.GetDecision().GetAskId()
				if id == "" {
					continue // allowed by what was learned: nothing to answer
				}
				// A person answers what their replica lists.
				if !listed(t, by, id) {
					t.Errorf("ask %s not listed on the other replica within 5s", id)
					return
				}
				choice := limenv1.Choice_CHOICE_APPROVE
				if i%2 == 1 { // denials keep the next ones asked
					choice = limenv1.Choice_CHOICE_DENY
				}
				if _, err := by.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: choice}); err != nil {
					t.Errorf("Answer(%s) on another replica: %v", id, err)
					continue
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return acked
}

// listed waits until l lists ask id, for up to 5s.
func listed(t *testing.T, l *limentest.Limend, id string) bool {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := l.Client.API.ListPending(ctx, &limenv1.ListPendingRequest{})
		if err != nil {
			return false
		}
		for _, p := range resp.GetAsks() {
			if p.GetAskId() == id {
				return true
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return false
		}
	}
}

// quiesce waits until every replica has applied the answers up to seq,
// and returns their reports.
func quiesce(t *testing.T, ls []*limentest.Limend, seq uint64) []*limenv1.Replica {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var reps []*limenv1.Replica
		for _, l := range ls {
			resp, err := l.Client.API.GetCluster(ctx, &limenv1.GetClusterRequest{})
			if err != nil {
				t.Fatalf("GetCluster: %v", err)
			}
			if resp.GetStore() != "etcd" {
				t.Fatalf("GetCluster store = %q; want etcd", resp.GetStore())
			}
			reps = append(reps, resp.GetSelf())
		}
		done := true
		for _, r := range reps {
			done = done && r.GetAppliedSeq() >= seq
		}
		if done {
			return reps
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("replicas not at answer %d within 10s: %v", seq, reps)
		}
	}
}

// storedAnswers reads the answers stored under the team's prefix, checking
// that each ask is answered at most once, and returns their count by ask.
func storedAnswers(t *testing.T, c *etcdtest.Cluster) map[string]int {
	t.Helper()
	st, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: c.Client(), Prefix: "/team/"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := map[string]int{}
	var seq uint64
	err = st.Answers(func(rec *storev1.AnswerRecord) error {
		if rec.GetSeq() != seq+1 {
			t.Errorf("stored answer seq %d after %d: want no gaps", rec.GetSeq(), seq)
		}
		seq = rec.GetSeq()
		got[rec.GetAskId()]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReplicasLearnAlike: three limends on a 3-member cluster take asks
// and answers at once, each answer given on another replica than the one
// that asked. Every acknowledged answer is stored exactly once, and once
// quiet the three predictors hold the same counts, bit for bit (equal
// hashes), because each applied the same answers in etcd's order, its own
// included. A fourth limend started after a compaction of etcd's history
// rebuilds to the same counts.
func TestReplicasLearnAlike(t *testing.T) {
	c := etcdtest.Start(t, 3)
	var ls []*limentest.Limend
	for _, m := range c.Members {
		ls = append(ls, onMember(t, m))
	}
	acked := answerLoad(t, ls, 8, "a")
	if len(acked) < 9 {
		t.Fatalf("%d answers acknowledged; want most of the 24 asks asked and answered", len(acked))
	}
	stored := storedAnswers(t, c)
	if len(stored) != len(acked) {
		t.Errorf("%d answers stored for %d acknowledged", len(stored), len(acked))
	}
	for _, id := range acked {
		if stored[id] != 1 {
			t.Errorf("ask %s answered %d times in the store; want once", id, stored[id])
		}
	}
	reps := quiesce(t, ls, uint64(len(acked)))
	for i, r := range reps {
		if r.GetCountsHash() == "" || r.GetCountsHash() != reps[0].GetCountsHash() {
			t.Errorf("replica %d counts hash %q, replica 0 %q; want all equal", i, r.GetCountsHash(), reps[0].GetCountsHash())
		}
	}

	// Every replica shows the cluster: three members, one leader, and the
	// three replicas' reports (each published at its start).
	cl, err := ls[0].Client.API.GetCluster(t.Context(), &limenv1.GetClusterRequest{})
	if err != nil {
		t.Fatal(err)
	}
	leaders := 0
	for _, m := range cl.GetMembers() {
		if m.GetLeader() {
			leaders++
		}
		if m.GetError() != "" || m.GetRevision() == 0 {
			t.Errorf("member %s: revision %d, error %q; want its status", m.GetName(), m.GetRevision(), m.GetError())
		}
	}
	if len(cl.GetMembers()) != 3 || leaders != 1 {
		t.Errorf("GetCluster lists %d members, %d leading; want 3 and 1", len(cl.GetMembers()), leaders)
	}
	if len(cl.GetReplicas()) != 3 {
		t.Errorf("GetCluster lists %d replica reports; want 3: %v", len(cl.GetReplicas()), cl.GetReplicas())
	}

	// The history every replica followed is compacted away; a new replica
	// lists the answers and counts as the others do.
	resp, err := c.Client().Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client().Compact(t.Context(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	late := onMember(t, c.Members[0])
	if got := quiesce(t, []*limentest.Limend{late}, uint64(len(acked)))[0]; got.GetCountsHash() != reps[0].GetCountsHash() {
		t.Errorf("a replica started after compaction: counts hash %q; want the others' %q", got.GetCountsHash(), reps[0].GetCountsHash())
	}
}

// TestAnswerReturnsAppliedHere: an Answer on a replica returns only once
// the answer is in etcd and applied there: right after it returns, the
// answer is stored, the replica reports it applied, and its next Decide
// counts it; and the replica that asked has it applied once its Await
// returns.
func TestAnswerReturnsAppliedHere(t *testing.T) {
	c := etcdtest.Start(t, 3)
	a, b := onMember(t, c.Members[0]), onMember(t, c.Members[1])
	for i := range 5 {
		cmd := []string{"helm upgrade shop", "kubectl apply -f shop.yaml", "terraform apply", "docker push shop", "npm publish"}[i]
		asked := decide(t, a, bash(cmd))
		if asked.GetAskId() == "" {
			t.Fatalf("round %d: %s on A = %v; want a queued ask", i, cmd, asked.GetVerdict())
		}
		if !listed(t, b, asked.GetAskId()) {
			t.Fatalf("round %d: the ask never reached B", i)
		}
		awaited := make(chan error, 1)
		go func() {
			_, err := a.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: asked.GetAskId()})
			awaited <- err
		}()
		if _, err := b.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
			t.Fatal(err)
		}
		if n := storedAnswers(t, c)[asked.GetAskId()]; n != 1 {
			t.Fatalf("round %d: answer stored %d times when Answer returned; want once", i, n)
		}
		resp, err := b.Client.API.GetCluster(t.Context(), &limenv1.GetClusterRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.GetSelf().GetAppliedSeq(); got != uint64(i+1) {
			t.Errorf("round %d: B reports answer %d applied when its Answer returned; want %d", i, got, i+1)
		}
		if err := <-awaited; err != nil {
			t.Fatal(err)
		}
		for name, l := range map[string]*limentest.Limend{"A (asked)": a, "B (answered)": b} {
			if got := decide(t, l, bash(cmd)).GetEvidence(); got.GetDenials() < 0.99 {
				t.Errorf("round %d: %s's evidence for %s is %v; want the denial counted", i, name, cmd, got)
			}
		}
	}
}

// TestTwoAnswersAtOnce: an ask answered on two replicas at the same
// moment is answered once; the replica whose answer lost settles it too,
// rather than listing it as pending for good (it did: its store skipped
// the winner's change on its watch, taking it for its own).
func TestTwoAnswersAtOnce(t *testing.T) {
	c := etcdtest.Start(t, 1)
	a, b := onMember(t, c.Members[0]), onMember(t, c.Members[0])
	for i := range 6 {
		asked := decide(t, a, bash(fmt.Sprintf("make release-%d", i)))
		if asked.GetAskId() == "" || !listed(t, b, asked.GetAskId()) {
			t.Fatalf("round %d: no ask listed on both", i)
		}
		won := make(chan bool, 2)
		for _, l := range []*limentest.Limend{a, b} {
			go func() {
				_, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY})
				won <- err == nil
			}()
		}
		if w1, w2 := <-won, <-won; w1 == w2 {
			t.Fatalf("round %d: both answers won: %v", i, w1)
		}
		for name, l := range map[string]*limentest.Limend{"A": a, "B": b} {
			resp, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range resp.GetAsks() {
				if p.GetAskId() == asked.GetAskId() {
					t.Errorf("round %d: %s still lists ask %s after both answers returned", i, name, p.GetAskId())
				}
			}
		}
	}
}

// TestAnswerRightAfterTheAsk: an answer sent to a replica right after the
// ask was decided on another, before its watch can have delivered the
// ask, is taken: the replica waits for the ask to arrive rather than
// calling it unknown.
func TestAnswerRightAfterTheAsk(t *testing.T) {
	c := etcdtest.Start(t, 1)
	a, b := onMember(t, c.Members[0]), onMember(t, c.Members[0])
	for i := range 10 {
		asked := decide(t, a, bash(fmt.Sprintf("make deploy-%d", i)))
		if asked.GetAskId() == "" {
			t.Fatalf("round %d: no ask queued", i)
		}
		if _, err := b.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
			t.Fatalf("round %d: Answer on B right after the ask on A: %v", i, err)
		}
	}
}
