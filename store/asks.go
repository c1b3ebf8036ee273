package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// AddPending records an ask in one synchronous transaction: the decision
// that asked and the pending ask. p.AskId must equal d.DecisionId. If
// p.Decision is nil, the stored pending ask carries d. Neither message is
// changed. An ask that already has an outcome is refused with ErrResolved.
func (s *Store) AddPending(d *storev1.Decision, p *storev1.PendingAsk) error {
	id, err := ParseID(d.GetDecisionId())
	if err != nil {
		return fmt.Errorf("add pending: %w", err)
	}
	if p.GetAskId() != d.GetDecisionId() {
		return fmt.Errorf("add pending %d: ask id %q is not the decision id %q", id, p.GetAskId(), d.GetDecisionId())
	}
	if p.GetDecision() == nil {
		p = proto.CloneOf(p)
		p.Decision = d
	}
	dv, err := proto.Marshal(d)
	if err != nil {
		return fmt.Errorf("add pending %d: %w", id, err)
	}
	pv, err := proto.Marshal(p)
	if err != nil {
		return fmt.Errorf("add pending %d: %w", id, err)
	}
	// An answer's outcome reaches its decision record behind the answer
	// (outcomes.go): look in memory too, under the lock Answer holds while
	// it puts the outcome there, or an answered ask could be pending again.
	s.answerMu.Lock()
	defer s.answerMu.Unlock()
	err = s.update(func(tx *bolt.Tx) error {
		key := u64(id)
		if s.outcomes.get(id) != nil {
			return ErrResolved
		}
		decisions := tx.Bucket(bucketDecisions)
		decisions.FillPercent = appendFill
		if old := decisions.Get(key); old != nil {
			var prev storev1.Decision
			if err := proto.Unmarshal(old, &prev); err != nil {
				return fmt.Errorf("decode stored decision: %w", err)
			}
			if prev.GetOutcome() != nil {
				return ErrResolved
			}
		}
		if err := decisions.Put(key, dv); err != nil {
			return err
		}
		return tx.Bucket(bucketPending).Put(key, pv)
	})
	if err != nil {
		return fmt.Errorf("add pending %d: %w", id, err)
	}
	return nil
}

// Pending returns the asks that wait for a person, oldest first.
func (s *Store) Pending() ([]*storev1.PendingAsk, error) {
	var out []*storev1.PendingAsk
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPending).ForEach(func(k, v []byte) error {
			p := new(storev1.PendingAsk)
			if err := proto.Unmarshal(v, p); err != nil {
				return fmt.Errorf("decode pending ask %x: %w", k, err)
			}
			out = append(out, p)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list pending: %w", err)
	}
	return out, nil
}

// Answer records a person's answer to a pending ask, in one transaction that
// is committed and fsynced before Answer returns: the pending ask is
// removed and rec is appended to the answer log (rec.Seq is set to its
// position, and an empty rec.AskId to askID). The decision's outcome is
// what rec says (outcomeOf): it is written behind, with the next batch of
// logged decisions (outcomes.go); History, Decision and Decisions show it
// at once, and after a crash Open sets it from rec in the same way. It
// returns the decision with its outcome.
//
// Answer fails with ErrResolved if the ask was already answered or expired,
// and with ErrNotFound if no pending ask has that id; nothing is stored then.
func (s *Store) Answer(askID uint64, rec *storev1.AnswerRecord) (*storev1.Decision, error) {
	outcome := outcomeOf(rec)
	oldSeq, oldAskID := rec.GetSeq(), rec.GetAskId()
	s.answerMu.Lock()
	defer s.answerMu.Unlock()
	var d *storev1.Decision
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		var stored bool
		if d, stored, err = s.takePending(tx, askID); err != nil {
			return err
		}
		if !stored {
			// Rare: there is no decision record for the batcher to
			// complete, so write the whole of it now.
			v, err := proto.Marshal(withOutcome(d, outcome))
			if err != nil {
				return fmt.Errorf("encode decision: %w", err)
			}
			if err := tx.Bucket(bucketDecisions).Put(u64(askID), v); err != nil {
				return err
			}
		}
		answers := tx.Bucket(bucketAnswers)
		answers.FillPercent = appendFill
		seq, err := answers.NextSequence()
		if err != nil {
			return err
		}
		rec.Seq = seq
		if rec.AskId == "" {
			rec.AskId = FormatID(askID)
		}
		v, err := proto.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode answer: %w", err)
		}
		return answers.Put(u64(seq), v)
	})
	if err != nil {
		rec.Seq, rec.AskId = oldSeq, oldAskID
		return nil, fmt.Errorf("answer ask %d: %w", askID, err)
	}
	d.Outcome = outcome
	s.outcomes.add(askID, outcome)
	s.logOutcome(askID, rec.Seq, outcome)
	return d, nil
}

// Expire ends a pending ask that nobody answered: the pending ask is
// removed and the decision's outcome set (an outcome with no state, or nil,
// is stored as ASK_STATE_EXPIRED), in one transaction. Nothing is added to
// the answer log. The errors are Answer's.
func (s *Store) Expire(askID uint64, outcome *storev1.AskOutcome) (*storev1.Decision, error) {
	outcome = withState(outcome, storev1.AskState_ASK_STATE_EXPIRED)
	s.answerMu.Lock() // so that an answer's outcome is in s.outcomes when takePending looks
	defer s.answerMu.Unlock()
	var d *storev1.Decision
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		if d, _, err = s.takePending(tx, askID); err != nil {
			return err
		}
		d.Outcome = outcome
		v, err := proto.Marshal(d)
		if err != nil {
			return fmt.Errorf("encode decision: %w", err)
		}
		return tx.Bucket(bucketDecisions).Put(u64(askID), v)
	})
	if err != nil {
		return nil, fmt.Errorf("expire ask %d: %w", askID, err)
	}
	return d, nil
}

// withState returns a copy of o with its state defaulted to state.
func withState(o *storev1.AskOutcome, state storev1.AskState) *storev1.AskOutcome {
	if o == nil {
		return &storev1.AskOutcome{State: state}
	}
	o = proto.CloneOf(o)
	if o.State == storev1.AskState_ASK_STATE_UNSPECIFIED {
		o.State = state
	}
	return o
}

// takePending removes pending ask askID in tx and returns its decision;
// stored says whether the decision has a record of its own.
func (s *Store) takePending(tx *bolt.Tx, askID uint64) (d *storev1.Decision, stored bool, err error) {
	key := u64(askID)
	pending := tx.Bucket(bucketPending)
	pv := pending.Get(key)
	dv := tx.Bucket(bucketDecisions).Get(key)
	if pv == nil {
		return nil, false, s.notPending(askID, dv)
	}
	d = new(storev1.Decision)
	if dv != nil {
		if err := proto.Unmarshal(dv, d); err != nil {
			return nil, false, fmt.Errorf("decode decision: %w", err)
		}
	} else { // not expected: AddPending writes both; fall back to the pending copy
		var p storev1.PendingAsk
		if err := proto.Unmarshal(pv, &p); err != nil {
			return nil, false, fmt.Errorf("decode pending ask: %w", err)
		}
		if d = p.GetDecision(); d == nil {
			d = &storev1.Decision{DecisionId: FormatID(askID)}
		}
	}
	return d, dv != nil, pending.Delete(key)
}

// withOutcome returns a copy of d with outcome o.
func withOutcome(d *storev1.Decision, o *storev1.AskOutcome) *storev1.Decision {
	c := proto.CloneOf(d)
	c.Outcome = o
	return c
}

// notPending explains why askID has no pending ask, given its stored
// decision (nil if none).
func (s *Store) notPending(askID uint64, dv []byte) error {
	if o := s.outcomes.get(askID); o != nil {
		return fmt.Errorf("%w: %s", ErrResolved, o.GetState())
	}
	if dv == nil {
		return ErrNotFound
	}
	var d storev1.Decision
	if err := proto.Unmarshal(dv, &d); err != nil {
		return fmt.Errorf("decode decision: %w", err)
	}
	if d.GetOutcome() != nil {
		return fmt.Errorf("%w: %s", ErrResolved, d.GetOutcome().GetState())
	}
	return fmt.Errorf("decision %d is not an ask (verdict %s): %w", askID, d.GetVerdict(), ErrNotFound)
}

// Answers calls fn for every stored answer, in the order they were given,
// decoded in full, in one read transaction. limend's rebuild reads the
// few fields it needs with AnswerViews instead; Answers is the plain
// reading its tests hold AnswerViews to, and the way to read whole records.
//
// For speed the same message is reused for every record: fn must not keep
// rec or anything reachable from it after it returns (use proto.Clone to
// keep one). An error from fn stops the walk and is returned as is.
//
// The walk is one read transaction. While it is open, a commit that must
// grow the file waits for it (bbolt remaps under a lock readers hold), so
// call Answers at start before serving, and keep fn quick; Decisions pages
// instead, for walks that do real work per record.
func (s *Store) Answers(fn func(rec *storev1.AnswerRecord) error) error {
	var fnErr error
	err := s.db.View(func(tx *bolt.Tx) error {
		rec := new(storev1.AnswerRecord)
		c := tx.Bucket(bucketAnswers).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := proto.Unmarshal(v, rec); err != nil {
				return fmt.Errorf("decode answer %x: %w", k, err)
			}
			if err := fn(rec); err != nil {
				fnErr = err
				return err
			}
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read answers: %w", err)
	}
	return nil
}

// AnswerCount returns how many answers are stored.
func (s *Store) AnswerCount() (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketAnswers).Stats().KeyN
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count answers: %w", err)
	}
	return n, nil
}

// update runs fn in a write transaction and commits it (with fsync unless
// Options.NoSync), the raft-boltdb way: Begin, deferred Rollback, Commit.
func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
