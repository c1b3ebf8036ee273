package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"sync"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// An answer's outcome is written behind (doc.go, "Answers and outcomes").
// Answer commits only what must survive a crash — the pending ask removed
// and the answer appended to the answer log, which holds everything the
// outcome says — and hands the outcome to the batcher, which sets it on
// the decision record with the next batch of decisions and advances
// meta/outcomes_through in the same transaction. Writing the decision in
// Answer's own transaction dirtied a third B-tree on every answer, and an
// fsync's time grows with the pages it flushes. Open applies, from the
// answer log, every outcome a crash kept from its decision; until the
// batcher has written one, the readers of decisions see it from memory.

// pendingOutcomes holds the outcomes handed to the batcher and not yet committed
// to their decisions, by ask id. A reader holds it (hold) from before its
// read transaction until it has filled in what it read, so that the
// batcher cannot commit an outcome after the reader's snapshot and forget
// it before the reader looks.
type pendingOutcomes struct {
	mu sync.RWMutex
	m  map[uint64]*storev1.AskOutcome
}

// hold keeps outcomes from being forgotten until the returned func runs.
func (u *pendingOutcomes) hold() (release func()) {
	u.mu.RLock()
	return u.mu.RUnlock
}

func (u *pendingOutcomes) add(id uint64, o *storev1.AskOutcome) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = make(map[uint64]*storev1.AskOutcome)
	}
	u.m[id] = o
}

func (u *pendingOutcomes) get(id uint64) *storev1.AskOutcome {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.m[id]
}

// remove forgets the outcomes of batch once it is committed.
func (u *pendingOutcomes) remove(batch []logItem) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, item := range batch {
		if item.outcome != nil {
			delete(u.m, item.id)
		}
	}
}

// fill sets, on each decision read from disk that has no outcome yet, the
// outcome still on its way there. The caller holds u (hold) since before
// it read them. The decisions are fresh messages, so setting a field is
// safe; the outcome is copied.
func (u *pendingOutcomes) fill(ds ...*storev1.Decision) {
	if len(u.m) == 0 {
		return
	}
	for _, d := range ds {
		if d.GetOutcome() != nil || d.GetVerdict() != storev1.Verdict_VERDICT_ASK {
			continue
		}
		if id, err := ParseID(d.GetDecisionId()); err == nil {
			if o := u.m[id]; o != nil {
				d.Outcome = proto.CloneOf(o)
			}
		}
	}
}

// logOutcome hands an answer's outcome to the batcher. A closed store drops
// it: the answer is on disk, and the next Open applies its outcome.
func (s *Store) logOutcome(id, seq uint64, o *storev1.AskOutcome) {
	s.enqueue(logItem{id: id, seq: seq, outcome: o})
}

// errDecode marks a stored record that does not decode.
var errDecode = errors.New("stored record does not decode")

// putOutcome sets o on decision id, unless it already has an outcome or
// has no record (Answer then wrote the whole decision itself).
func putOutcome(decisions *bolt.Bucket, id uint64, o *storev1.AskOutcome) error {
	key := u64(id)
	v := decisions.Get(key)
	if v == nil {
		return nil
	}
	var d storev1.Decision
	if err := proto.Unmarshal(v, &d); err != nil {
		return fmt.Errorf("decision %d: %w: %v", id, errDecode, err)
	}
	if d.GetOutcome() != nil {
		return nil
	}
	d.Outcome = o
	v, err := proto.Marshal(&d)
	if err != nil {
		return fmt.Errorf("encode decision %d: %w", id, err)
	}
	return decisions.Put(key, v)
}

// outcomeMark is meta/outcomes_through as the batcher keeps it: every
// answer up to through has its outcome on its decision; settled holds the
// seqs above it whose outcomes are set too, waiting for those before them.
// Outcomes may reach the batcher out of order, and a batch may fail to
// commit: the mark moves only over consecutive seqs, so it never passes an
// outcome that is not on disk, and Open applies everything past it.
type outcomeMark struct {
	through uint64
	settled map[uint64]bool
}

// advance returns the mark with the outcomes of the answers set added, and
// whether through moved. m is left as it was: the caller keeps the result
// once the transaction that set them has committed.
func (m outcomeMark) advance(set []uint64) (outcomeMark, bool) {
	if len(set) == 0 {
		return m, false
	}
	n := outcomeMark{through: m.through, settled: maps.Clone(m.settled)}
	if n.settled == nil {
		n.settled = make(map[uint64]bool)
	}
	for _, seq := range set {
		if seq > n.through {
			n.settled[seq] = true
		}
	}
	for n.settled[n.through+1] {
		delete(n.settled, n.through+1)
		n.through++
	}
	return n, n.through != m.through
}

// outcomeOf is the outcome an answer record describes.
func outcomeOf(rec *storev1.AnswerRecord) *storev1.AskOutcome {
	return &storev1.AskOutcome{
		State:      storev1.AskState_ASK_STATE_ANSWERED,
		Choice:     rec.GetChoice(),
		Scope:      rec.GetScope(),
		Note:       rec.GetNote(),
		AnsweredBy: rec.GetAnsweredBy(),
		Time:       rec.GetTime(),

		// Where it was given: the socket, the web app, a notification.
		Channel: rec.GetChannel(), DeviceId: rec.GetDeviceId(), ActionDigest: rec.GetActionDigest(),
	}
}

// applyAnswerOutcomes sets on their decisions the outcomes of the answers
// after meta/outcomes_through — those a crash kept the batcher from
// writing — and moves the mark to the last answer. It runs in Open's
// transaction. A decision record that does not decode is left as it is:
// History reports it when it reads it, and limend must still start. It
// returns the mark.
func applyAnswerOutcomes(tx *bolt.Tx) (uint64, error) {
	meta, answers, decisions := tx.Bucket(bucketMeta), tx.Bucket(bucketAnswers), tx.Bucket(bucketDecisions)
	var through uint64
	if v := meta.Get(keyOutcomesThrough); len(v) == 8 {
		through = binary.BigEndian.Uint64(v)
	}
	last := through
	c := answers.Cursor()
	for k, v := c.Seek(u64(through + 1)); k != nil; k, v = c.Next() {
		var rec storev1.AnswerRecord
		if err := proto.Unmarshal(v, &rec); err != nil {
			return 0, fmt.Errorf("decode answer %x: %w", k, err)
		}
		id, err := ParseID(rec.GetAskId())
		if err != nil {
			return 0, fmt.Errorf("answer %x: %w", k, err)
		}
		if err := putOutcome(decisions, id, outcomeOf(&rec)); err != nil && !errors.Is(err, errDecode) {
			return 0, fmt.Errorf("answer %x: %w", k, err)
		}
		last = binary.BigEndian.Uint64(k)
	}
	if last == through {
		return through, nil
	}
	return last, meta.Put(keyOutcomesThrough, u64(last))
}

// migrateOutcomesThrough starts the mark at the end of the answer log:
// before version 2, Answer set each outcome in its own transaction.
func migrateOutcomesThrough(tx *bolt.Tx) error {
	return tx.Bucket(bucketMeta).Put(keyOutcomesThrough, u64(tx.Bucket(bucketAnswers).Sequence()))
}
