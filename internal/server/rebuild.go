package server

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/predictor"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// rebuild replays every stored answer into the estimator. It reads the
// answers in place (store.AnswerViews) and hands their keys to the
// estimator as bytes, which copies only the keys it has not seen: a million
// answers cost a few thousand allocations rather than twenty per answer,
// and start takes a third of the time. An answer stored under another key
// scheme is decoded in full and has its ladders derived again.
//
// Answers a person took back (store.Backend.Forget) are skipped: they stay
// stored, and teach nothing. It returns the seq of the last answer it
// read.
func rebuild(est *predictor.Estimator, st store.Backend) (through uint64, err error) {
	forgotten := make(map[uint64]bool)
	if err := st.Forgotten(func(m *storev1.ForgetMark) error {
		forgotten[m.GetSeq()] = true
		return nil
	}); err != nil {
		return 0, err
	}
	rec := new(storev1.AnswerRecord)
	err = st.AnswerViews(func(v *store.AnswerView) error {
		through = max(through, v.Seq)
		if forgotten[v.Seq] || !attributed(string(v.AnsweredBy)) || v.Delegated {
			return nil // stored, but it never taught the predictor (Answer, or a delegate's), or no longer does (Forget)
		}
		approved := v.Choice == storev1.Choice_CHOICE_APPROVE
		if v.KeyScheme == action.KeyScheme {
			est.ObserveBytes(v.User, v.Ladders, approved, v.Time)
			return nil
		}
		if err := proto.Unmarshal(v.Record, rec); err != nil {
			return fmt.Errorf("decode answer %d: %w", v.Seq, err)
		}
		est.Observe(rec.GetAction().GetUser(), laddersOf(rec), approved, v.Time)
		return nil
	})
	return through, err
}

// laddersOf returns the answer's stored ladders, or derives them again when
// they were made by another version of the key scheme.
func laddersOf(rec *storev1.AnswerRecord) []action.Ladder {
	if rec.GetKeyScheme() == action.KeyScheme {
		out := make([]action.Ladder, len(rec.GetLadders()))
		for i, l := range rec.GetLadders() {
			out[i] = action.Ladder(l.GetKeys())
		}
		return out
	}
	act, err := convert.Action(apiAction(rec.GetAction()), rec.GetTime().AsTime())
	if err != nil {
		return nil
	}
	if rec.GetChannel() == inferredChannel && rec.GetChoice() == storev1.Choice_CHOICE_APPROVE {
		return ladders(inferable(action.Parts(act)))
	}
	return ladders(action.Parts(act))
}
