package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// logItem is one message to the batcher: a record to write, or (flushed set)
// a request to commit everything before it and report.
type logItem struct {
	id       uint64
	decision *storev1.Decision // encoded by the batcher
	// outcome, with seq its answer's place in the answer log, is an
	// answered ask's outcome to set on decision id (outcomes.go).
	outcome *storev1.AskOutcome
	seq     uint64
	err     error // a record that could not be prepared; reported by Flush
	flushed chan error
}

// LogDecision hands a decision record to the background batcher, which
// commits it within Options.FlushInterval. It does not wait for the disk; it
// blocks only when the batcher is Options.MaxBatch*2 (at least 1024) records
// behind, so records are never dropped. The batcher encodes d, so that
// Decide's caller does not wait for it: d belongs to the store from then on,
// and the caller may read it (gRPC encodes it into the reply) but must not
// change it.
//
// A record whose id already exists is ignored: asks are written by
// AddPending, and their outcome must not be overwritten. Errors (a bad
// DecisionId, a failed write) are reported by the next Flush or by Close.
// Records logged after Close are dropped.
func (s *Store) LogDecision(d *storev1.Decision) {
	item := logItem{decision: d}
	if id, err := ParseID(d.GetDecisionId()); err != nil {
		item.err = fmt.Errorf("log decision: %w", err)
	} else {
		item.id = id
	}
	s.enqueue(item)
}

// enqueue hands item to the batcher, unless the store is closed.
func (s *Store) enqueue(item logItem) bool {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if s.closed {
		return false
	}
	s.log.put(item)
	return true
}

// Flush returns once every record handed to LogDecision before the call is
// committed, with any error the batcher met since the previous Flush.
func (s *Store) Flush(ctx context.Context) error {
	done := make(chan error, 1) // buffered: the batcher never waits for us
	if !s.enqueue(logItem{flushed: done}) {
		return fmt.Errorf("flush decision log: %w", ErrClosed)
	}
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("flush decision log: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush decision log: %w", ctx.Err())
	}
}

// logQueue passes records to the batcher without waking it for each one.
// A channel send per record woke the batcher's goroutine, and on an idle
// core a thread, on every Decide; now a record is appended under a mutex,
// and the batcher is woken only when a batch starts (to arm its timer),
// fills, or must be committed at once (a Flush, Close).
type logQueue struct {
	mu      sync.Mutex
	room    sync.Cond // broadcast when the batcher takes records, or at close
	items   []logItem
	flushes int // Flush requests among items
	closed  bool
	batch   int // Options.MaxBatch: a batch this long is committed at once
	limit   int // put waits while this many records are queued
	wake    chan struct{}
}

func newLogQueue(batch int) *logQueue {
	q := &logQueue{batch: batch, limit: max(1024, 2*batch), wake: make(chan struct{}, 1)}
	q.room.L = &q.mu
	return q
}

// put appends item, waiting while the queue is full; a Flush request does
// not wait (Flush honours its context while it waits for the commit).
func (q *logQueue) put(item logItem) {
	q.mu.Lock()
	for len(q.items) >= q.limit && !q.closed && item.flushed == nil {
		q.room.Wait()
	}
	q.items = append(q.items, item)
	if item.flushed != nil {
		q.flushes++
	}
	wake := len(q.items) == 1 || len(q.items) >= q.batch || item.flushed != nil
	q.mu.Unlock()
	if wake {
		q.poke()
	}
}

func (q *logQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// close makes the batcher take what is left and stop.
func (q *logQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.room.Broadcast()
	q.mu.Unlock()
	q.poke()
}

// due says whether the queued records must be committed now rather than
// when the batch's timer fires, and whether any are queued at all.
func (q *logQueue) due() (now, any bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed || q.flushes > 0 || len(q.items) >= q.batch, len(q.items) > 0
}

// take removes and returns every queued record (into spare's storage) and
// whether the queue is closed.
func (q *logQueue) take(spare []logItem) ([]logItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items, q.flushes = spare[:0], 0
	q.room.Broadcast()
	return items, q.closed
}

// runBatcher commits queued records in one transaction per MaxBatch
// records or FlushInterval, whichever comes first, and at once for a Flush.
// It exits, after a last commit, when Close closes the queue.
func (s *Store) runBatcher() {
	defer close(s.batcherDone)
	var (
		spare []logItem // the previous batch's storage, handed back to the queue
		errs  []error   // since the last Flush
		timer = time.NewTimer(time.Hour)
		armed bool // timer running for the queued batch
	)
	timer.Stop()
	// held are the records of commits that failed, retried before the
	// next ones (the newest maxHeld of them; older ones are dropped).
	var held []logItem
	// failed is the last commit's failure while held is not empty: Flush
	// and Close report it once rather than once per retry.
	var failed error
	commit := func(batch []logItem) {
		if len(batch) == 0 && len(held) == 0 {
			return
		}
		all := batch
		if len(held) > 0 {
			held = append(held, batch...)
			all = held
		}
		skipped, err := s.writeBatch(all)
		if err == nil {
			s.outcomes.remove(all)
			errs = append(errs, skipped...)
			s.commitWorked(countRecords(all))
			clear(held)
			held, failed = held[:0], nil
			return
		}
		// Outcomes not written stay in memory for readers and are applied
		// from the answer log at the next Open; the mark never passes them
		// (see outcomeMark). The decision records are kept for the next
		// try, and limend is told, so that no allow goes out unrecorded.
		failed = fmt.Errorf("write %d decision records: %w", countRecords(all), err)
		lost := 0
		if limit := maxHeldBatches * s.opts.MaxBatch; len(all) > limit {
			lost = countRecords(all[:len(all)-limit])
			all = all[len(all)-limit:]
		}
		n := copy(held[:cap(held)], all) // all may be a suffix of held
		if n < len(all) {
			held = append(held[:n], all[n:]...)
		} else {
			clear(held[n:cap(held)])
			held = held[:n]
		}
		s.commitFailed(err, countRecords(held), lost)
	}
	for {
		fired := false
		// Say so when LogErr found the disk full, or room again, since
		// the last time round.
		s.report(countRecords(held))
		if !armed && s.LogErr() != nil {
			// A failing log is retried even when no record comes to
			// retry it, so that limend recovers by itself.
			timer.Reset(probeEvery * s.opts.FlushInterval)
			armed = true
		}
		select {
		case <-s.log.wake:
		case <-timer.C:
			armed, fired = false, true
		}
		now, any := s.log.due()
		if fired && !now && !any && s.LogErr() != nil {
			if len(held) > 0 {
				commit(nil) // retry what failed
			} else if err := s.probeLog(); err != nil {
				s.commitFailed(err, 0, 0)
			} else {
				s.commitWorked(0)
			}
			continue
		}
		if !now && !fired {
			if any && !armed {
				timer.Reset(s.opts.FlushInterval)
				armed = true
			}
			continue
		}
		if armed {
			timer.Stop()
			armed = false
		}
		items, closed := s.log.take(spare)
		batch := items[:0] // records between two Flush requests, in order
		for _, item := range items {
			switch {
			case item.flushed != nil:
				commit(batch)
				batch = batch[len(batch):]
				item.flushed <- errors.Join(append(errs, failed)...)
				errs = nil
			case item.err != nil:
				errs = append(errs, item.err)
			default:
				batch = append(batch, item)
			}
		}
		commit(batch)
		clear(items) // drop references to the records
		spare = items
		if closed {
			s.batcherErr = errors.Join(append(errs, failed)...)
			return
		}
	}
}

// writeBatch commits batch in one transaction: new decision records (ids
// already stored are skipped) and answered asks' outcomes, and moves
// meta/outcomes_through as far as the outcomes set so far allow (see
// outcomeMark). A record that cannot be encoded, or an outcome whose
// decision record does not decode (the answer is safe in the answer log,
// and Open skips it too), costs nothing else in the batch: it is skipped
// and its error returned.
func (s *Store) writeBatch(batch []logItem) (skipped []error, err error) {
	if err := s.writeFault(); err != nil {
		return nil, err
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b := tx.Bucket(bucketDecisions)
	// Ids grow, so records are appended: fill pages before splitting them
	// rather than leaving each half empty (bbolt's default is for random
	// keys). A little room stays for outcomes set on asks later.
	b.FillPercent = appendFill
	var set []uint64 // seqs of the answers whose outcomes this batch settles
	// Ids above the tree's last key cannot be stored yet, so most records
	// skip the lookup that asks whether an id already has one.
	var last uint64
	if k, _ := b.Cursor().Last(); len(k) == 8 {
		last = binary.BigEndian.Uint64(k)
	}
	for _, item := range batch {
		key := u64(item.id)
		if item.outcome != nil {
			if err := putOutcome(b, item.id, item.outcome); err != nil {
				skipped = append(skipped, fmt.Errorf("set the outcome of ask %d: %w", item.id, err))
				if !errors.Is(err, errDecode) {
					continue // not settled: the mark must stay below it
				}
			}
			set = append(set, item.seq)
			continue
		}
		if item.id <= last && b.Get(key) != nil {
			continue
		}
		v, err := proto.Marshal(item.decision)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("encode decision %d: %w", item.id, err))
			continue
		}
		if err := b.Put(key, v); err != nil {
			return nil, fmt.Errorf("put decision %d: %w", item.id, err)
		}
		last = max(last, item.id)
	}
	mark, moved := s.mark.advance(set)
	if moved {
		if err := tx.Bucket(bucketMeta).Put(keyOutcomesThrough, u64(mark.through)); err != nil {
			return nil, fmt.Errorf("move outcomes_through: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	s.mark = mark
	return skipped, nil
}

// countRecords is how many decision records (not outcomes, which the
// answer log keeps) batch holds.
func countRecords(batch []logItem) int {
	n := 0
	for _, item := range batch {
		if item.outcome == nil {
			n++
		}
	}
	return n
}

// probeEvery is how many FlushIntervals a failing decision log waits
// between retries when no new records come to retry it with.
const probeEvery = 4

// maxHeldBatches is how many MaxBatch of records a failing decision log
// keeps for its retries; beyond that the oldest are dropped.
const maxHeldBatches = 4

// appendFill is the bbolt fill percent for trees whose keys are appended.
const appendFill = 0.9
