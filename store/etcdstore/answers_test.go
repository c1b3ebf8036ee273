package etcdstore_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
	"github.com/limenhq/limen/store/storetest"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// delivered is an answer as WatchAnswers gave it.
type delivered struct {
	seq uint64
	ask string
	rev int64
}

func collect(ch chan<- delivered) func(*storev1.AnswerRecord, int64) {
	return func(rec *storev1.AnswerRecord, rev int64) { ch <- delivered{rec.GetSeq(), rec.GetAskId(), rev} }
}

// answerAsk queues an ask on s and answers it there, returning its seq.
func answerAsk(t *testing.T, s *etcdstore.Store) uint64 {
	t.Helper()
	id := addAsk(t, s, "ana")
	rec := storetest.AnswerRecord(id, storev1.Choice_CHOICE_APPROVE)
	if _, err := s.Answer(id, rec); err != nil {
		t.Fatal(err)
	}
	return rec.GetSeq()
}

// expectSeqs reads from ch the answers want, in that order, each once,
// at increasing revisions.
func expectSeqs(t *testing.T, ch <-chan delivered, want ...uint64) {
	t.Helper()
	var rev int64
	for _, w := range want {
		select {
		case d := <-ch:
			if d.seq != w || d.rev <= rev {
				t.Fatalf("delivered answer %d at revision %d (after revision %d); want answer %d at a later revision", d.seq, d.rev, rev, w)
			}
			rev = d.rev
		case <-time.After(5 * time.Second):
			t.Fatalf("answer %d not delivered in 5s", w)
		}
	}
	select {
	case d := <-ch:
		t.Fatalf("delivered answer %d more than expected", d.seq)
	default:
	}
}

// TestWatchAnswersInOrder: a watcher gets the answers stored before it
// began before WatchAnswers returns, and then those of every Store on the
// prefix, its own too, in seq order, each once.
func TestWatchAnswersInOrder(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	a, b := open(t, cli), open(t, cli)
	answerAsk(t, a)
	answerAsk(t, a)
	ch := make(chan delivered, 64)
	if err := b.WatchAnswers(t.Context(), 0, collect(ch)); err != nil {
		t.Fatal(err)
	}
	if len(ch) != 2 {
		t.Fatalf("%d answers delivered when WatchAnswers returned; want the 2 stored", len(ch))
	}
	for range 3 {
		answerAsk(t, b)
		answerAsk(t, a)
	}
	expectSeqs(t, ch, 1, 2, 3, 4, 5, 6, 7, 8)

	// Started after seq 6, it delivers only 7 and 8.
	late := make(chan delivered, 64)
	if err := a.WatchAnswers(t.Context(), 6, collect(late)); err != nil {
		t.Fatal(err)
	}
	expectSeqs(t, late, 7, 8)
	if rev := b.WatchedRevision(); rev == 0 {
		t.Error("WatchedRevision = 0 after the watch delivered answers")
	}
}

// TestWatchAnswersAfterCompaction: a replica that applied answers up to
// seq 2 and stopped watching while etcd compacted past it lists the
// answers it missed, each once and in order, and then follows the new
// ones.
func TestWatchAnswersAfterCompaction(t *testing.T) {
	cli := etcdtest.Start(t, 1).Client()
	a, b := open(t, cli), open(t, cli)
	answerAsk(t, a)
	answerAsk(t, a)
	resp, err := cli.Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	behind := resp.Header.Revision
	for range 3 {
		answerAsk(t, a)
	}
	resp, err = cli.Get(t.Context(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(t.Context(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	// The history b needs is gone: a plain watch from there is refused.
	wctx, cancel := context.WithCancel(t.Context())
	w := cli.Watch(wctx, "/", clientv3.WithPrefix(), clientv3.WithRev(behind+1))
	if r := <-w; r.CompactRevision == 0 {
		t.Fatalf("a watch from revision %d after compaction = %+v; want it refused as compacted (the test needs that)", behind+1, r)
	}
	cancel()

	ch := make(chan delivered, 64)
	if err := b.WatchAnswersFrom(t.Context(), 2, behind, collect(ch)); err != nil {
		t.Fatal(err)
	}
	answerAsk(t, a)
	expectSeqs(t, ch, 3, 4, 5, 6)
}

var _ store.AnswerWatcher = (*etcdstore.Store)(nil)
