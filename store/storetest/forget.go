package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// answered stores n answered asks and returns their answer records.
func (h *harness) answered(n int) []*storev1.AnswerRecord {
	h.t.Helper()
	var out []*storev1.AnswerRecord
	for range n {
		id := h.addAsk("ana")
		rec := AnswerRecord(id, storev1.Choice_CHOICE_DENY)
		if _, err := h.s.Answer(id, rec); err != nil {
			h.t.Fatalf("Answer: %v", err)
		}
		out = append(out, rec)
	}
	return out
}

func (h *harness) marks() []*storev1.ForgetMark {
	h.t.Helper()
	var out []*storev1.ForgetMark
	if err := h.s.Forgotten(func(m *storev1.ForgetMark) error {
		out = append(out, m)
		return nil
	}); err != nil {
		h.t.Fatalf("Forgotten: %v", err)
	}
	return out
}

func mark(rec *storev1.AnswerRecord, by string) *storev1.ForgetMark {
	return &storev1.ForgetMark{Seq: rec.GetSeq(), AskId: rec.GetAskId(), By: by, Time: timestamppb.New(time.Unix(1700001000, 0))}
}

// testForget: marks are kept in answer order, survive a reopen, keep the
// first mark of an answer marked twice, and leave the answers as they
// were given.
func testForget(t *testing.T, h *harness) {
	if got := h.marks(); len(got) != 0 {
		t.Fatalf("a new store has marks: %v", got)
	}
	recs := h.answered(3)
	if err := h.s.Forget([]*storev1.ForgetMark{mark(recs[2], "ana"), mark(recs[0], "ana")}); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if err := h.s.Forget([]*storev1.ForgetMark{mark(recs[0], "bo")}); err != nil {
		t.Fatalf("Forget of a forgotten answer: %v", err)
	}
	h.reopen()
	got := h.marks()
	var seqs []uint64
	for _, m := range got {
		seqs = append(seqs, m.GetSeq())
	}
	if want := []uint64{recs[0].GetSeq(), recs[2].GetSeq()}; !slices.Equal(seqs, want) {
		t.Fatalf("marks of answers %v, want %v (answer order)", seqs, want)
	}
	if !proto.Equal(got[0], mark(recs[0], "ana")) {
		t.Errorf("mark %v, want the first one, by ana", got[0])
	}
	if all := h.answers(); len(all) != 3 || !proto.Equal(all[0], recs[0]) {
		t.Errorf("answers after Forget = %v; want the three as given", all)
	}
}

// testForgetUnknown: a seq with no answer fails with ErrNotFound and
// marks nothing of its call.
func testForgetUnknown(t *testing.T, h *harness) {
	recs := h.answered(1)
	err := h.s.Forget([]*storev1.ForgetMark{mark(recs[0], "ana"), {Seq: recs[0].GetSeq() + 100, AskId: "x"}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Forget of an unknown answer = %v, want ErrNotFound", err)
	}
	if got := h.marks(); len(got) != 0 {
		t.Errorf("a refused Forget left marks: %v", got)
	}
}
