package etcdstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// waitFresh polls s until its freshness is want, for up to 5s.
func waitFresh(t *testing.T, s *etcdstore.Store, want bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		if _, fresh := s.Freshness(); fresh == want {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			age, _ := s.Freshness()
			t.Fatalf("freshness not %v within 5s (last proven %v ago)", want, age)
		}
	}
}

// TestFreshOnlyWhileTheWatchKeepsUp: with the answer watch running, a
// store is fresh only while the watch has delivered what a linearizable
// read saw within Staleness. An idle watch stays fresh while other keys
// change (progress notifications prove it); a watch held behind turns
// the store stale although etcd is reachable, with a message that says
// so, refusing answers; let go, it is fresh again.
func TestFreshOnlyWhileTheWatchKeepsUp(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	prefix := "/" + t.Name() + "/"
	const staleness = 300 * time.Millisecond
	a, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: prefix, Staleness: staleness})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b := open(t, cli) // the same prefix: another limend
	hold := make(chan struct{})
	held := make(chan struct{}, 1)
	if err := a.WatchAnswers(t.Context(), 0, func(rec *storev1.AnswerRecord, rev int64) {
		held <- struct{}{}
		<-hold
	}); err != nil {
		t.Fatal(err)
	}
	if _, fresh := a.Freshness(); !fresh {
		t.Fatal("not fresh right after the answers were listed")
	}
	// Other keys change, no answer does: progress notifications keep the
	// idle watch proven, for several Staleness.
	until := time.Now().Add(4 * staleness)
	for time.Now().Before(until) {
		addAsk(t, b, "ana")
		if age, fresh := a.Freshness(); !fresh {
			t.Fatalf("an idle answer watch went stale (proven %v ago) while etcd was reachable", age)
		}
	}
	// An answer on b reaches a's watch and is held there.
	id := addAsk(t, b, "ana")
	if _, err := b.Answer(id, storetest.AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	<-held
	addAsk(t, b, "ana") // the revision moves on past the held answer
	waitFresh(t, a, false)
	err = a.LogErr()
	if !errors.Is(err, store.ErrLogUnwritable) || !strings.Contains(err.Error(), "watches of etcd are behind") {
		t.Errorf("LogErr with the watch behind = %v; want ErrLogUnwritable saying the watch is behind", err)
	}
	other := addAsk(t, b, "ana")
	if _, err := a.Answer(other, storetest.AnswerRecord(other, storev1.Choice_CHOICE_DENY)); err == nil || !strings.Contains(err.Error(), "not stored") {
		t.Errorf("Answer with the watch behind = %v; want it refused, saying it is not stored", err)
	}
	close(hold)
	waitFresh(t, a, true)
}

// TestFreshOnlyWhileThePolicyWatchKeepsUp: the policy is part of the view
// too: a policy watch held behind a new version turns the store stale
// although the answer watch keeps up.
func TestFreshOnlyWhileThePolicyWatchKeepsUp(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	prefix := "/" + t.Name() + "/"
	a, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: prefix, Staleness: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b := open(t, cli)
	if err := a.WatchAnswers(t.Context(), 0, func(*storev1.AnswerRecord, int64) {}); err != nil {
		t.Fatal(err)
	}
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	if err := a.WatchPolicy(t.Context(), func(p *storev1.Policy) {
		if p.GetVersion() >= 2 {
			held <- struct{}{}
			<-hold
		}
	}); err != nil {
		t.Fatal(err)
	}
	for v := range uint64(2) {
		if _, err := b.SetPolicy(v, &storev1.Policy{Document: "# v"}); err != nil {
			t.Fatal(err)
		}
	}
	<-held
	addAsk(t, b, "ana") // the revision moves on past the held version
	waitFresh(t, a, false)
	close(hold)
	waitFresh(t, a, true)
}
