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
	id      uint64
	value   []byte
	err     error // a record that could not be prepared; reported by Flush
	flushed chan error
}

// LogDecision hands a decision record to the background batcher, which
// commits it within Options.FlushInterval. It does not wait for the disk; it
// blocks only when the batcher is Options.MaxBatch*2 (at least 1024) records
// behind, so records are never dropped. d is encoded before LogDecision
// returns, so the caller may change it afterwards.
//
// A record whose id already exists is ignored: asks are written by
// AddPending, and their outcome must not be overwritten. Errors (a bad
// DecisionId, a failed write) are reported by the next Flush or by Close.
// Records logged after Close are dropped.
func (s *Store) LogDecision(d *limenv1.Decision) {
	item := logItem{}
	if id, err := ParseID(d.GetDecisionId()); err != nil {
		item.err = fmt.Errorf("log decision: %w", err)
	} else if b, err := proto.Marshal(d); err != nil {
		item.err = fmt.Errorf("log decision %d: %w", id, err)
	} else {
		item.id, item.value = id, b
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
		if err := s.writeBatch(batch); err != nil {
			errs = append(errs, fmt.Errorf("write %d decision records: %w", len(batch), err))
		}
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

// writeBatch commits batch in one transaction, skipping ids already stored.
func (s *Store) writeBatch(batch []logItem) error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b := tx.Bucket(bucketDecisions)
	for _, item := range batch {
		key := u64(item.id)
		if b.Get(key) != nil {
			continue
		}
		if err := b.Put(key, item.value); err != nil {
			return fmt.Errorf("put decision %d: %w", item.id, err)
		}
	}
	return tx.Commit()
}
