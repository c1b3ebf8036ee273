package store

import (
	storev1 "github.com/limenhq/limen/store/storev1"
)

// What other implementations of Backend (store/etcdstore) share with this
// one, so that the same record means the same thing in every store.

// AnswerOutcome is the outcome an answer record describes: what Answer
// sets on the ask's decision.
func AnswerOutcome(rec *storev1.AnswerRecord) *storev1.AskOutcome { return outcomeOf(rec) }

// ExpiryOutcome is the outcome Expire sets: o, with its state defaulted to
// ASK_STATE_EXPIRED (a new outcome if o is nil). o is not changed.
func ExpiryOutcome(o *storev1.AskOutcome) *storev1.AskOutcome {
	return withState(o, storev1.AskState_ASK_STATE_EXPIRED)
}

// Decode fills v from the encoded AnswerRecord b, the answer at position
// seq of the log, as AnswerViews does: v's slices are reused and point
// into b.
func (v *AnswerView) Decode(seq uint64, b []byte) error {
	if err := v.decode(b); err != nil {
		return err
	}
	v.Seq = seq
	return nil
}
