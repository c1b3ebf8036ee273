package store

import (
	"errors"
	"slices"
	"testing"

	storev1 "github.com/limenhq/limen/store/storev1"
)

func walkIDs(t *testing.T, s *Store, stopAfter int) ([]uint64, error) {
	t.Helper()
	errStop := errors.New("stop")
	var ids []uint64
	err := s.Decisions(func(d *storev1.Decision) error {
		id, err := ParseID(d.GetDecisionId())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if len(ids) == stopAfter {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return ids, err
}

func TestDecisions(t *testing.T) {
	for _, n := range []int{0, 1, decisionPage - 1, decisionPage, decisionPage + 1, 2*decisionPage + 7} {
		s := openStore(t, "", Options{})
		ids := logged(t, s, n)
		slices.Reverse(ids)

		got, err := walkIDs(t, s, -1)
		if err != nil {
			t.Fatalf("n=%d: Decisions: %v", n, err)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("n=%d: walked %d ids %v…; want all %d, newest first", n, len(got), got[:min(len(got), 5)], len(ids))
		}
	}
}

func TestDecisionsStopsAtTheCallersError(t *testing.T) {
	s := openStore(t, "", Options{})
	ids := logged(t, s, decisionPage+10)
	slices.Reverse(ids)
	for _, stop := range []int{1, decisionPage, decisionPage + 1} {
		got, err := walkIDs(t, s, stop)
		if err != nil {
			t.Fatalf("stop after %d: %v", stop, err)
		}
		if !slices.Equal(got, ids[:stop]) {
			t.Errorf("stop after %d: walked %d decisions; want exactly the %d newest", stop, len(got), stop)
		}
	}
}

// TestDecisionsCallsOutsideTransactions writes from inside the callback, as
// a simulation that records something would, and keeps every message: both
// are allowed because fn runs outside any read transaction with fresh
// messages.
func TestDecisionsCallsOutsideTransactions(t *testing.T) {
	s := openStore(t, "", Options{})
	logged(t, s, decisionPage+3)
	var kept []*storev1.Decision
	err := s.Decisions(func(d *storev1.Decision) error {
		kept = append(kept, d)
		if len(kept)%100 == 0 {
			addAsk(t, s, "carol") // a synchronous write mid-walk
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != decisionPage+3 {
		t.Fatalf("walked %d decisions; want %d (those added during the walk are newer and not seen)", len(kept), decisionPage+3)
	}
	seen := map[string]bool{}
	for _, d := range kept {
		if seen[d.GetDecisionId()] {
			t.Fatalf("decision %s passed twice: messages were reused", d.GetDecisionId())
		}
		seen[d.GetDecisionId()] = true
	}
}
