package etcdstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// TestLogRetention: one retention pass keeps the newest LogRecords
// decision records and deletes those older than LogRetention, but never
// a pending ask's; the records it keeps read back whole (they are stored
// compressed).
func TestLogRetention(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/", LogRecords: 10, LogRetention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Now()
	pending := addAsk(t, s, "ana") // the oldest record, and pending
	var ids []uint64
	for i := range 30 {
		id, err := s.NextID()
		if err != nil {
			t.Fatal(err)
		}
		d := storetest.Decision(id, "ana", storev1.Verdict_VERDICT_ALLOW)
		d.Reason = strings.Repeat("a reason long enough to be compressed. ", 20)
		d.Time = timestamppb.New(now.Add(time.Duration(i-30) * time.Minute))
		if i < 5 {
			d.Time = timestamppb.New(now.Add(-2 * time.Hour)) // past retention
		}
		s.LogDecision(d)
		ids = append(ids, id)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	deleted, err := s.TrimLog(t.Context(), now)
	if err != nil {
		t.Fatal(err)
	}
	if deleted != 21 {
		t.Errorf("retention deleted %d records; want 21 (31 stored, 10 kept, the pending ask spared)", deleted)
	}
	if _, err := s.Decision(pending); err != nil {
		t.Errorf("the pending ask's decision after retention: %v; want it kept", err)
	}
	for _, id := range ids[:21] { // the pending ask counts among the 10 kept
		if _, err := s.Decision(id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("decision %d, among the oldest, after retention: %v; want it deleted", id, err)
		}
	}
	for _, id := range ids[21:] {
		d, err := s.Decision(id)
		if err != nil || !strings.HasPrefix(d.GetReason(), "a reason long enough") {
			t.Errorf("decision %d, among the newest, after retention: %v, %v; want it kept whole", id, d.GetReason(), err)
		}
	}
}

// TestLogStopsAtItsCeiling: once etcd's database is past LogMaxDB, the
// decision log is not written (LogErr says why, so allows become asks),
// while answers still are.
func TestLogStopsAtItsCeiling(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	s, err := etcdstore.Open(t.Context(), etcdstore.Options{Client: cli, Prefix: "/" + t.Name() + "/", LogMaxDB: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.MeasureDB(t.Context())
	id, err := s.NextID()
	if err != nil {
		t.Fatal(err)
	}
	s.LogDecision(storetest.Decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
	if err := s.Flush(t.Context()); !errors.Is(err, store.ErrLogUnwritable) || !strings.Contains(err.Error(), "ceiling") {
		t.Errorf("Flush past the ceiling = %v; want ErrLogUnwritable naming the ceiling", err)
	}
	if err := s.LogErr(); !errors.Is(err, store.ErrLogUnwritable) {
		t.Errorf("LogErr past the ceiling = %v; want ErrLogUnwritable", err)
	}
	ask := addAsk(t, s, "ana")
	if _, err := s.Answer(ask, storetest.AnswerRecord(ask, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Errorf("Answer past the log's ceiling: %v; want it stored", err)
	}
}
