package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// logged stores n decisions through LogDecision, alternating users ana and
// bob and making every third one an ask, and returns their ids oldest first.
func logged(t *testing.T, s *Store, n int) []uint64 {
	t.Helper()
	var ids []uint64
	for i := range n {
		id := newID(t, s)
		user := []string{"ana", "bob"}[i%2]
		if i%3 == 2 {
			addAskWithID(t, s, id, user)
		} else {
			s.LogDecision(decision(id, user, storev1.Verdict_VERDICT_ALLOW))
		}
		ids = append(ids, id)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ids
}

func addAskWithID(t *testing.T, s *Store, id uint64, user string) {
	t.Helper()
	d := decision(id, user, storev1.Verdict_VERDICT_ASK)
	if err := s.AddPending(d, &storev1.PendingAsk{AskId: d.AskId}); err != nil {
		t.Fatal(err)
	}
}

func historyIDs(t *testing.T, s *Store, q HistoryQuery) []uint64 {
	t.Helper()
	ds, err := s.History(q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, d := range ds {
		id, err := ParseID(d.GetDecisionId())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestHistory(t *testing.T) {
	s := openStore(t, "", Options{})
	ids := logged(t, s, 1200)
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	filter := func(keep func(i int) bool) []uint64 {
		var out []uint64
		for i := len(ids) - 1; i >= 0; i-- {
			if keep(i) {
				out = append(out, ids[i])
			}
		}
		return out
	}
	tests := []struct {
		name string
		q    HistoryQuery
		want []uint64
	}{
		{"default limit", HistoryQuery{}, newest[:DefaultHistoryLimit]},
		{"limit", HistoryQuery{Limit: 3}, newest[:3]},
		{"limit capped", HistoryQuery{Limit: 5000}, newest[:MaxHistoryLimit]},
		{"user", HistoryQuery{User: "bob", Limit: 4}, filter(func(i int) bool { return i%2 == 1 })[:4]},
		{"asks only", HistoryQuery{AsksOnly: true, Limit: 4}, filter(func(i int) bool { return i%3 == 2 })[:4]},
		{"user and asks", HistoryQuery{User: "ana", AsksOnly: true, Limit: 3}, filter(func(i int) bool { return i%2 == 0 && i%3 == 2 })[:3]},
		{"before an id", HistoryQuery{BeforeID: ids[10], Limit: 3}, []uint64{ids[9], ids[8], ids[7]}},
		{"before the first id", HistoryQuery{BeforeID: ids[0]}, nil},
		{"before an id above all", HistoryQuery{BeforeID: ids[len(ids)-1] + 100, Limit: 2}, newest[:2]},
		{"unknown user", HistoryQuery{User: "eve"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := historyIDs(t, s, tt.q); !slices.Equal(got, tt.want) {
				t.Errorf("History(%+v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}

	t.Run("paging walks everything once", func(t *testing.T) {
		var all []uint64
		q := HistoryQuery{Limit: 7, User: "ana"}
		for {
			page := historyIDs(t, s, q)
			if len(page) == 0 {
				break
			}
			all = append(all, page...)
			q.BeforeID = page[len(page)-1]
		}
		if want := filter(func(i int) bool { return i%2 == 0 }); !slices.Equal(all, want) {
			t.Errorf("paged %d ids, want %d", len(all), len(want))
		}
	})
}

func TestLogDecisionKeepsAskOutcome(t *testing.T) {
	s := openStore(t, "", Options{})
	id := addAsk(t, s, "ana")
	if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ASK)) // the Decide path logs asks too
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decision(id)
	if err != nil {
		t.Fatal(err)
	}
	if d.GetOutcome().GetState() != storev1.AskState_ASK_STATE_ANSWERED {
		t.Errorf("LogDecision clobbered the outcome: %v", d)
	}
}

// LogDecision's caller goes on reading d (gRPC encodes it into the reply)
// while the batcher encodes it: both only read, which the race detector
// checks here.
func TestLogDecisionSharesItsArgumentReadOnly(t *testing.T) {
	s := openStore(t, "", Options{})
	id := newID(t, s)
	d := decision(id, "ana", storev1.Verdict_VERDICT_ALLOW)
	d.Reason = "as logged"
	s.LogDecision(d)
	if _, err := proto.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Decision(id)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, d) {
		t.Errorf("stored %v, want the record as logged %v", got, d)
	}
}

func TestFlushReportsBadRecords(t *testing.T) {
	s := openStore(t, "", Options{})
	s.LogDecision(&storev1.Decision{DecisionId: "not-a-number"})
	if err := s.Flush(t.Context()); err == nil {
		t.Error("Flush after a record with a bad id reported nothing")
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Errorf("second Flush = %v; errors are reported once", err)
	}
}

func TestFlushAfterClose(t *testing.T) {
	s := openStore(t, "", Options{})
	closeStore(t, s)
	s.LogDecision(decision(1, "ana", storev1.Verdict_VERDICT_ALLOW)) // dropped, must not panic
	if err := s.Flush(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
}

func TestFlushHonoursContext(t *testing.T) {
	s := openStore(t, "", Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Flush(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Flush with a cancelled context = %v", err)
	}
}

// TestBatcherCommitsOnItsOwn shows that a logged decision reaches the file
// within FlushInterval without anyone calling Flush. The bubble's fake clock
// makes the wait exact and instant.
func TestBatcherCommitsOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 50 * time.Millisecond
		s := openStore(t, "", Options{FlushInterval: interval})
		id := newID(t, s)
		s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
		synctest.Wait()
		if _, err := s.Decision(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("decision committed before FlushInterval: %v", err)
		}
		time.Sleep(interval)
		synctest.Wait()
		if _, err := s.Decision(id); err != nil {
			t.Errorf("decision not committed after FlushInterval: %v", err)
		}
	})
}

func TestBatcherCommitsFullBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openStore(t, "", Options{FlushInterval: time.Hour, MaxBatch: 4})
		var ids []uint64
		for range 4 {
			id := newID(t, s)
			ids = append(ids, id)
			s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
		}
		synctest.Wait() // no clock advance: only a full batch can have been written
		for _, id := range ids {
			if _, err := s.Decision(id); err != nil {
				t.Errorf("decision %d of a full batch not committed: %v", id, err)
			}
		}
	})
}
