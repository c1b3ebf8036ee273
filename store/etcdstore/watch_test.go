package etcdstore_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

func open(t *testing.T, cli *clientv3.Client) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// watch starts s's watch and returns its changes.
func watch(t *testing.T, s *etcdstore.Store) <-chan store.PendingChange {
	t.Helper()
	ch := make(chan store.PendingChange, 16)
	if err := s.WatchPending(t.Context(), func(c store.PendingChange) { ch <- c }); err != nil {
		t.Fatal(err)
	}
	return ch
}

func next(t *testing.T, ch <-chan store.PendingChange) store.PendingChange {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported in 5s")
		return store.PendingChange{}
	}
}

func addAsk(t *testing.T, s store.Backend, user string) uint64 {
	t.Helper()
	id, err := s.NextID()
	if err != nil {
		t.Fatal(err)
	}
	d := storetest.Decision(id, user, storev1.Verdict_VERDICT_ASK)
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWatchPendingSeesTheOtherLimend: what one Store adds, answers or
// expires reaches the other's watch, with the outcome; its own changes do
// not come back to it.
func TestWatchPendingSeesTheOtherLimend(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	a, b := open(t, cli), open(t, cli)
	if _, err := b.Pending(); err != nil {
		t.Fatal(err)
	}
	fromA, fromB := watch(t, a), watch(t, b)

	id := addAsk(t, a, "ana")
	if c := next(t, fromB); c.Added.GetAskId() != store.FormatID(id) || c.Added.GetDecision().GetAction().GetUser() != "ana" {
		t.Fatalf("b saw %+v; want ask %d added", c, id)
	}
	if _, err := b.Answer(id, storetest.AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	c := next(t, fromA)
	if c.Resolved.GetDecisionId() != store.FormatID(id) || c.Resolved.GetOutcome().GetChoice() != storev1.Choice_CHOICE_APPROVE {
		t.Fatalf("a saw %+v; want ask %d approved", c, id)
	}
	if c.Answer.GetAskId() != store.FormatID(id) || c.Answer.GetSeq() == 0 || len(c.Answer.GetLadders()) != 1 {
		t.Errorf("a saw answer %v with the resolution; want b's answer record, ladders and all", c.Answer)
	}
	expired := addAsk(t, b, "bo")
	if c := next(t, fromA); c.Added.GetAskId() != store.FormatID(expired) {
		t.Fatalf("a saw %+v; want ask %d added", c, expired)
	}
	if _, err := a.Expire(expired, nil); err != nil {
		t.Fatal(err)
	}
	if c := next(t, fromB); c.Resolved.GetOutcome().GetState() != storev1.AskState_ASK_STATE_EXPIRED || c.Answer != nil {
		t.Fatalf("b saw %+v; want ask %d expired, with no answer", c, expired)
	}
	// Neither heard its own changes: the next thing each hears is the
	// other's next ask.
	last := addAsk(t, a, "cy")
	if c := next(t, fromB); c.Added.GetAskId() != store.FormatID(last) {
		t.Fatalf("b saw %+v; want ask %d added", c, last)
	}
	last = addAsk(t, b, "cy")
	if c := next(t, fromA); c.Added.GetAskId() != store.FormatID(last) {
		t.Fatalf("a saw %+v (its own change?); want b's ask %d added", c, last)
	}
}

// TestWatchPendingResyncsAfterCompaction: a watch that must start in
// history etcd has compacted lists the pending asks instead.
func TestWatchPendingResyncsAfterCompaction(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	a, b := open(t, cli), open(t, cli)
	if _, err := b.Pending(); err != nil {
		t.Fatal(err)
	}
	first, second := addAsk(t, a, "ana"), addAsk(t, a, "bo")
	if _, err := a.Answer(first, storetest.AnswerRecord(first, storev1.Choice_CHOICE_DENY)); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(t.Context(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	c := next(t, watch(t, b))
	if !c.Resync || len(c.Pending) != 1 || c.Pending[0].GetAskId() != store.FormatID(second) {
		t.Fatalf("after compaction b saw %+v; want a resync listing ask %d", c, second)
	}
}

// TestWatchPolicySeesEveryVersion: a limend watching the policy hears the
// newest version at once and every one set after, by anyone.
func TestWatchPolicySeesEveryVersion(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	a, b := open(t, cli), open(t, cli)
	if _, err := a.SetPolicy(0, &storev1.Policy{Document: "one"}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan *storev1.Policy, 8)
	if err := b.WatchPolicy(t.Context(), func(p *storev1.Policy) { seen <- p }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint64{1, 2, 3} {
		if want > 1 {
			if _, err := a.SetPolicy(want-1, &storev1.Policy{Document: "next"}); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case p := <-seen:
			if p.GetVersion() != want {
				t.Fatalf("b heard version %d; want %d", p.GetVersion(), want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("b did not hear version %d in 5s", want)
		}
	}
}
