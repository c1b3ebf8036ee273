package store

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// slowBatcher makes the batcher hold everything until Flush or Close, so a
// test sees the state between an answer's commit and its outcome's.
var slowBatcher = Options{FlushInterval: time.Hour, MaxBatch: 1 << 20}

// rawOutcome reads decision id's stored outcome and meta/outcomes_through
// from the file itself, past the in-memory overlay.
func rawOutcome(t *testing.T, db *bolt.DB, id uint64) (*storev1.AskOutcome, uint64) {
	t.Helper()
	var d storev1.Decision
	var through uint64
	if err := db.View(func(tx *bolt.Tx) error {
		if err := proto.Unmarshal(tx.Bucket(bucketDecisions).Get(u64(id)), &d); err != nil {
			return err
		}
		if v := tx.Bucket(bucketMeta).Get(keyOutcomesThrough); len(v) == 8 {
			through = binary.BigEndian.Uint64(v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return d.GetOutcome(), through
}

func TestAnswerOutcomeIsReadAtOnceAndWrittenBehind(t *testing.T) {
	s := openStore(t, "", slowBatcher)
	id := addAsk(t, s, "ana")
	rec := answerRecord(id, storev1.Choice_CHOICE_APPROVE)
	if _, err := s.Answer(id, rec); err != nil {
		t.Fatal(err)
	}
	if o, through := rawOutcome(t, s.db, id); o != nil || through != 0 {
		t.Fatalf("before the batcher ran, the file has outcome %v and outcomes_through %d; want none and 0", o, through)
	}
	// Every reader sees the outcome already.
	d, err := s.Decision(id)
	if err != nil || d.GetOutcome().GetState() != storev1.AskState_ASK_STATE_ANSWERED {
		t.Errorf("Decision = %v, %v; want it answered", d, err)
	}
	h, err := s.History(HistoryQuery{})
	if err != nil || len(h) != 1 || h[0].GetOutcome().GetChoice() != storev1.Choice_CHOICE_APPROVE {
		t.Errorf("History = %v, %v; want the approved ask", h, err)
	}
	var walked *storev1.Decision
	if err := s.Decisions(func(d *storev1.Decision) error { walked = d; return nil }); err != nil || walked.GetOutcome() == nil {
		t.Errorf("Decisions gave %v, %v; want the answered ask", walked, err)
	}
	if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_DENY)); err == nil || !strings.Contains(err.Error(), "already resolved") {
		t.Errorf("second answer: %v, want ErrResolved", err)
	}
	if _, err := s.Expire(id, nil); err == nil || !strings.Contains(err.Error(), "already resolved") {
		t.Errorf("expire after the answer: %v, want ErrResolved", err)
	}

	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	o, through := rawOutcome(t, s.db, id)
	if o.GetChoice() != storev1.Choice_CHOICE_APPROVE || through != rec.GetSeq() {
		t.Errorf("after Flush the file has outcome %v and outcomes_through %d; want approve and %d", o, through, rec.GetSeq())
	}
	if n := len(s.outcomes.m); n != 0 {
		t.Errorf("%d outcomes still held in memory after they were written", n)
	}
}

// A crash between an answer's commit and its outcome's loses nothing:
// Open sets the outcome from the answer log.
func TestOpenAppliesOutcomesACrashLeftBehind(t *testing.T) {
	s := openStore(t, "", slowBatcher)
	first := addAsk(t, s, "ana")
	if _, err := s.Answer(first, answerRecord(first, storev1.Choice_CHOICE_DENY)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	ids := []uint64{addAsk(t, s, "ana"), addAsk(t, s, "ana")}
	for _, id := range ids {
		if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
			t.Fatal(err)
		}
	}
	crashed := filepath.Join(t.TempDir(), "crashed.db")
	if err := s.db.View(func(tx *bolt.Tx) error { return tx.CopyFile(crashed, 0o600) }); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, crashed)
	for _, id := range ids {
		if o, through := rawOutcome(t, db, id); o != nil || through != 1 {
			t.Fatalf("snapshot: ask %d has outcome %v, outcomes_through %d; want none and 1", id, o, through)
		}
	}
	db.Close()

	after := openStore(t, crashed, Options{})
	for _, id := range ids {
		o, through := rawOutcome(t, after.db, id)
		if o.GetState() != storev1.AskState_ASK_STATE_ANSWERED || o.GetChoice() != storev1.Choice_CHOICE_APPROVE || o.GetAnsweredBy() != "ana" {
			t.Errorf("after Open, ask %d has outcome %v; want approved by ana", id, o)
		}
		if through != 3 {
			t.Errorf("after Open, outcomes_through = %d, want 3", through)
		}
	}
	if o, _ := rawOutcome(t, after.db, first); o.GetChoice() != storev1.Choice_CHOICE_DENY {
		t.Errorf("the outcome written before the crash became %v", o)
	}
}

// An outcome the batcher cannot set because its decision record does not
// decode is reported and costs no other record; the answer is safe in the
// answer log, and the mark moves on, as Open's recovery would (limend must
// still start).
func TestUndecodableDecisionCostsNothingElse(t *testing.T) {
	s := openStore(t, "", slowBatcher)
	bad, good := addAsk(t, s, "ana"), addAsk(t, s, "ana")
	if _, err := s.Answer(bad, answerRecord(bad, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDecisions).Put(u64(bad), []byte{0xff}) }); err != nil {
		t.Fatal(err)
	}
	logged := newID(t, s)
	s.LogDecision(decision(logged, "ana", storev1.Verdict_VERDICT_ALLOW))
	if err := s.Flush(t.Context()); err == nil || !strings.Contains(err.Error(), "outcome of ask") {
		t.Errorf("Flush = %v, want the unset outcome reported", err)
	}
	if _, err := s.Decision(logged); err != nil {
		t.Errorf("the decision logged beside the bad outcome: %v", err)
	}
	if _, err := s.Answer(good, answerRecord(good, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if o, through := rawOutcome(t, s.db, good); o == nil || through != 2 {
		t.Errorf("after the bad outcome: good ask's outcome %v, outcomes_through %d; want set and 2", o, through)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatalf("Open with an undecodable decision: %v", err)
	}
	after.Close()
}

// The mark moves only over consecutive answers whose outcomes are set:
// outcomes may reach the batcher out of order, and a batch may fail, and
// Open applies only what lies past the mark.
func TestOutcomeMarkNeverPassesAGap(t *testing.T) {
	m := outcomeMark{through: 4}
	m2, moved := m.advance([]uint64{6, 7})
	if moved || m2.through != 4 {
		t.Fatalf("6 and 7 before 5: mark %d (moved %v); want it held at 4", m2.through, moved)
	}
	if m.settled != nil || m.through != 4 {
		t.Fatalf("advance changed the mark it was called on: %+v", m)
	}
	m3, moved := m2.advance([]uint64{5})
	if !moved || m3.through != 7 || len(m3.settled) != 0 {
		t.Fatalf("after 5: %+v (moved %v); want through 7 and nothing waiting", m3, moved)
	}
	if m4, moved := m3.advance([]uint64{3, 7}); moved || m4.through != 7 {
		t.Errorf("seqs at or below the mark moved it: %+v", m4)
	}
	if _, moved := m3.advance(nil); moved {
		t.Error("nothing set moved the mark")
	}
}

// Concurrent answers reach the batcher in any order; every answer at or
// below the mark on disk has its outcome on disk.
func TestConcurrentAnswersKeepTheMarkHonest(t *testing.T) {
	s := openStore(t, "", Options{FlushInterval: time.Millisecond})
	const n = 64
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = addAsk(t, s, "ana")
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	var through uint64
	if err := s.db.View(func(tx *bolt.Tx) error {
		through = binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keyOutcomesThrough))
		c := tx.Bucket(bucketAnswers).Cursor()
		for k, v := c.First(); k != nil && binary.BigEndian.Uint64(k) <= through; k, v = c.Next() {
			var rec storev1.AnswerRecord
			if err := proto.Unmarshal(v, &rec); err != nil {
				return err
			}
			id, _ := ParseID(rec.GetAskId())
			var d storev1.Decision
			if err := proto.Unmarshal(tx.Bucket(bucketDecisions).Get(u64(id)), &d); err != nil {
				return err
			}
			if d.GetOutcome() == nil {
				t.Errorf("answer %d is at or below the mark %d but ask %d has no outcome on disk", binary.BigEndian.Uint64(k), through, id)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if through != n {
		t.Errorf("outcomes_through = %d after %d answers and a Flush; want %d", through, n, n)
	}
}

// Version 1 set every outcome in Answer's own transaction: the mark starts
// at the end of the answer log, and nothing is applied again.
func TestMigration2StartsTheMarkAtTheLastAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limen.db")
	db := rawDB(t, path)
	d := decision(7, "ana", storev1.Verdict_VERDICT_ASK)
	d.Outcome = &storev1.AskOutcome{State: storev1.AskState_ASK_STATE_ANSWERED, Choice: storev1.Choice_CHOICE_DENY, Note: "as v1 wrote it"}
	dv, _ := proto.Marshal(d)
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := migrateCreateBuckets(tx); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMeta).Put(keySchemaVersion, u64(1)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketDecisions).Put(u64(7), dv); err != nil {
			return err
		}
		// A decision without an outcome whose answer is in the log: no v1
		// store wrote that, so applying outcomes from seq 1 would show.
		bare, _ := proto.Marshal(decision(8, "ana", storev1.Verdict_VERDICT_ASK))
		if err := tx.Bucket(bucketDecisions).Put(u64(8), bare); err != nil {
			return err
		}
		answers := tx.Bucket(bucketAnswers)
		for _, id := range []uint64{7, 7, 8} {
			seq, _ := answers.NextSequence()
			rv, _ := proto.Marshal(answerRecord(id, storev1.Choice_CHOICE_APPROVE))
			if err := answers.Put(u64(seq), rv); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := openStore(t, path, Options{})
	o, through := rawOutcome(t, s.db, 7)
	if through != 3 {
		t.Errorf("outcomes_through = %d, want 3", through)
	}
	if o.GetNote() != "as v1 wrote it" {
		t.Errorf("the v1 outcome was rewritten: %v", o)
	}
	if o, _ := rawOutcome(t, s.db, 8); o != nil {
		t.Errorf("answers v1 had applied were applied again: decision 8 got %v", o)
	}
}
