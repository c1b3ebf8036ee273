package etcdstore_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestConformance runs the suite every store.Backend must pass on a real
// one-member etcd, each test under a prefix of its own.
func TestConformance(t *testing.T) {
	defer etcdstore.SetScanPage(3)() // so that every walk crosses pages
	cli := etcdtest.Start(t, 1).Client()
	storetest.Run(t, func(t *testing.T) storetest.Open {
		opts := etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/"}
		return func() (store.Backend, error) { return etcdstore.Open(t.Context(), opts) }
	})
}

// TestRefusesNewerSchema: a prefix written by a newer limen is not guessed at.
func TestRefusesNewerSchema(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	if _, err := cli.Put(t.Context(), "/limen/meta/schema_version", "99"); err != nil {
		t.Fatal(err)
	}
	if _, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli}); !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open of schema 99 = %v, want ErrSchemaTooNew", err)
	}
	if _, err := cli.Put(t.Context(), "/limen/meta/schema_version", "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli}); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Open of schema %q = %v, want ErrCorrupt", "one", err)
	}
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/other/"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := cli.Get(t.Context(), "/other/meta/schema_version")
	if err != nil || len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "1" {
		t.Fatalf("schema version of a new prefix = %v, %v; want 1", got, err)
	}
}

// TestAnswerSurvivesLosingAMember: on three members, an answer
// acknowledged is on a majority, so it is still there, and answers still
// go through, after the member the store talked to is stopped.
func TestAnswerSurvivesLosingAMember(t *testing.T) {
	c := etcdtest.Start(t, 3)
	victim := c.Leader()
	if victim == nil {
		t.Fatal("no leader")
	}
	// Timeout: this store's Close, after its member is gone, gives up
	// releasing its ids in a second rather than five.
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: c.Client(victim.ClientURL), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ask := func(s store.Backend) uint64 {
		t.Helper()
		id, err := s.NextID()
		if err != nil {
			t.Fatal(err)
		}
		d := storetest.Decision(id, "ana", storev1.Verdict_VERDICT_ASK)
		if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	answered := ask(s)
	if _, err := s.Answer(answered, storetest.AnswerRecord(answered, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	waiting := ask(s)

	victim.Stop()
	c.WaitLeader()
	var rest []string
	for _, m := range c.Members {
		if m != victim {
			rest = append(rest, m.ClientURL)
		}
	}
	s2, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: c.Client(rest...)})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	d, err := s2.Decision(answered)
	if err != nil || d.GetOutcome().GetChoice() != storev1.Choice_CHOICE_APPROVE {
		t.Fatalf("answered ask on the surviving members = %v, %v; want approved", d, err)
	}
	if _, err := s2.Answer(answered, storetest.AnswerRecord(answered, storev1.Choice_CHOICE_DENY)); !errors.Is(err, store.ErrResolved) {
		t.Errorf("replayed answer on the surviving members = %v, want ErrResolved", err)
	}
	if _, err := s2.Answer(waiting, storetest.AnswerRecord(waiting, storev1.Choice_CHOICE_DENY)); err != nil {
		t.Fatalf("answer with two members of three = %v", err)
	}
	var n int
	if err := s2.Answers(func(*storev1.AnswerRecord) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("answers on the surviving members = %d, %v; want 2", n, err)
	}
}

// TestTwoStoresOnOnePrefix: two limends' stores on one prefix never hand
// out the same id, and of their racing answers to one ask exactly one
// wins, with one answer in the log.
func TestTwoStoresOnOnePrefix(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	opts := etcdstore.Options{Client: cli, Prefix: "/shared/"}
	var stores [2]*etcdstore.Store
	for i := range stores {
		s, err := etcdstore.Open(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var mu sync.Mutex
	seen := make(map[uint64]int)
	var wg sync.WaitGroup
	// Across several blocks, each reserved ahead while the one before is
	// in use: no id twice, and each store's ids increase.
	for i, s := range stores {
		wg.Go(func() {
			last := uint64(0)
			for range 3*etcdstore.IDBlock + 7 {
				id, err := s.NextID()
				if err != nil {
					t.Error(err)
					return
				}
				if id <= last {
					t.Errorf("store %d handed out %d after %d", i, id, last)
				}
				last = id
				mu.Lock()
				if j, dup := seen[id]; dup {
					t.Errorf("id %d handed out by store %d and store %d", id, j, i)
				}
				seen[id] = i
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	for range 5 {
		id, err := stores[0].NextID()
		if err != nil {
			t.Fatal(err)
		}
		d := storetest.Decision(id, "ana", storev1.Verdict_VERDICT_ASK)
		if err := stores[0].AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); err != nil {
			t.Fatal(err)
		}
		wins := make(chan int, 4)
		for r := range 4 {
			wg.Go(func() {
				if _, err := stores[r%2].Answer(id, storetest.AnswerRecord(id, storev1.Choice(1+r%2))); err == nil {
					wins <- r
				} else if !errors.Is(err, store.ErrResolved) {
					t.Errorf("losing answer: %v, want ErrResolved", err)
				}
			})
		}
		wg.Wait()
		if len(wins) != 1 {
			t.Fatalf("ask %d: %d answers won across two stores, want 1", id, len(wins))
		}
	}
	n := 0
	if err := stores[1].Answers(func(*storev1.AnswerRecord) error { n++; return nil }); err != nil || n != 5 {
		t.Errorf("answers in the log = %d, %v; want 5", n, err)
	}
}

// TestLosingEtcdStopsAllows: once no request has reached a quorum for
// Options.Staleness, LogErr says so (limend turns allows into asks and
// reports NOT_SERVING), and OnLogHealth hears of it.
func TestLosingEtcdStopsAllows(t *testing.T) {
	c := etcdtest.Start(t, 1)
	heard := make(chan store.LogHealth, 4)
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{
		Client: c.Client(), Timeout: 300 * time.Millisecond, Staleness: 200 * time.Millisecond,
		OnLogHealth: func(h store.LogHealth) { heard <- h },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LogErr(); err != nil {
		t.Fatalf("LogErr with etcd up = %v", err)
	}
	c.Members[0].Stop()
	select {
	case h := <-heard:
		if !errors.Is(h.Err, store.ErrLogUnwritable) {
			t.Errorf("OnLogHealth heard %v; want ErrLogUnwritable", h.Err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnLogHealth heard nothing within 5s of losing etcd")
	}
	if err := s.LogErr(); !errors.Is(err, store.ErrLogUnwritable) || !strings.Contains(err.Error(), "etcd not reached") {
		t.Errorf("LogErr without etcd = %v; want ErrLogUnwritable saying etcd is not reached", err)
	}
}
