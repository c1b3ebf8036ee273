package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// logItem is one message to the batcher: a record to write, or (flushed set)
// a request to commit everything before it and report.
type logItem struct {
	id       uint64
	decision *limenv1.Decision // encoded by the batcher
	// outcome, with seq its answer's place in the answer log, is an
	// answered ask's outcome to set on decision id (outcomes.go).
	outcome *limenv1.AskOutcome
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
func (s *Store) LogDecision(d *limenv1.Decision) {
	item := logItem{decision: d}
	if id, err := ParseID(d.GetDecisionId()); err != nil {
		item.err = fmt.Errorf("log decision: %w", err)
	} else {
		item.id = id
	}
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if s.closed {
		return
	}
	s.logCh <- item
}

// Flush returns once every record handed to LogDecision before the call is
// committed, with any error the batcher met since the previous Flush.
func (s *Store) Flush(ctx context.Context) error {
	done := make(chan error, 1) // buffered: the batcher never waits for us
	if err := s.sendFlush(ctx, done); err != nil {
		return err
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

func (s *Store) sendFlush(ctx context.Context, done chan error) error {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if s.closed {
		return fmt.Errorf("flush decision log: %w", ErrClosed)
	}
	select {
	case s.logCh <- logItem{flushed: done}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush decision log: %w", ctx.Err())
	}
}

// runBatcher collects LogDecision records and commits them in one
// transaction per MaxBatch records or FlushInterval, whichever comes first.
// It exits, after a last commit, when Close closes logCh.
func (s *Store) runBatcher() {
	defer close(s.batcherDone)
	var (
		batch   []logItem
		errs    []error // since the last Flush
		timer   = time.NewTimer(time.Hour)
		pending bool // timer armed for the current batch
		gap     bool // a batch with outcomes failed: stop moving outcomes_through
	)
	timer.Stop()
	commit := func() {
		if pending {
			timer.Stop()
			pending = false
		}
		if len(batch) == 0 {
			return
		}
		skipped, held, err := s.writeBatch(batch, !gap)
		if err != nil {
			errs = append(errs, fmt.Errorf("write %d decision records: %w", len(batch), err))
			// Outcomes in the lost batch stay in memory for readers and
			// are applied from the answer log at the next Open; the mark
			// must not pass them meanwhile.
			gap = gap || hasOutcome(batch)
		} else {
			s.outcomes.remove(batch)
		}
		errs = append(errs, skipped...)
		gap = gap || held
		clear(batch) // drop references to the encoded records
		batch = batch[:0]
	}
	for {
		select {
		case item, ok := <-s.logCh:
			switch {
			case !ok:
				commit()
				s.batcherErr = errors.Join(errs...)
				return
			case item.flushed != nil:
				commit()
				item.flushed <- errors.Join(errs...)
				errs = nil
			case item.err != nil:
				errs = append(errs, item.err)
			default:
				batch = append(batch, item)
				if len(batch) >= s.opts.MaxBatch {
					commit()
				} else if !pending {
					timer.Reset(s.opts.FlushInterval)
					pending = true
				}
			}
		case <-timer.C:
			pending = false
			commit()
		}
	}
}

// writeBatch commits batch in one transaction: new decision records (ids
// already stored are skipped) and answered asks' outcomes, moving
// meta/outcomes_through past the last outcome when mark is set and every
// outcome was set. A record that cannot be encoded, or an outcome that
// cannot be set (its decision record does not decode, while the answer is
// safe in the answer log), costs nothing else in the batch: it is skipped
// and its error returned in skipped; held says an outcome was not set, so
// the mark stayed where it was.
func (s *Store) writeBatch(batch []logItem, mark bool) (skipped []error, held bool, err error) {
	tx, err := s.db.Begin(true)
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback()
	b := tx.Bucket(bucketDecisions)
	// Ids grow, so records are appended: fill pages before splitting them
	// rather than leaving each half empty (bbolt's default is for random
	// keys). A little room stays for outcomes set on asks later.
	b.FillPercent = appendFill
	var through uint64
	for _, item := range batch {
		key := u64(item.id)
		if item.outcome != nil {
			if err := putOutcome(b, item.id, item.outcome); err != nil {
				skipped = append(skipped, fmt.Errorf("set the outcome of ask %d: %w", item.id, err))
				held = true
			}
			through = item.seq
			continue
		}
		if b.Get(key) != nil {
			continue
		}
		v, err := proto.Marshal(item.decision)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("encode decision %d: %w", item.id, err))
			continue
		}
		if err := b.Put(key, v); err != nil {
			return nil, false, fmt.Errorf("put decision %d: %w", item.id, err)
		}
	}
	if mark && !held && through > 0 {
		if err := tx.Bucket(bucketMeta).Put(keyOutcomesThrough, u64(through)); err != nil {
			return nil, false, fmt.Errorf("move outcomes_through: %w", err)
		}
	}
	return skipped, held, tx.Commit()
}

// appendFill is the bbolt fill percent for trees whose keys are appended.
const appendFill = 0.9

func hasOutcome(batch []logItem) bool {
	for _, item := range batch {
		if item.outcome != nil {
			return true
		}
	}
	return false
}
