package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// logItem is one message to the batcher: a record to write, or (flushed
// set) a request to commit everything before it and report.
type logItem struct {
	id       uint64
	decision *storev1.Decision // encoded by the batcher
	err      error             // a record that could not be prepared; reported by Flush
	flushed  chan error
}

// LogDecision hands a decision record to the background batcher, which
// commits it within Options.FlushInterval, as store.Store.LogDecision: it
// does not wait for etcd, blocks only when the batcher is far behind, and
// d belongs to the store from then on (read-only for the caller). A
// record whose id already exists is ignored, so an ask's record and
// outcome are never overwritten. Errors are reported by the next Flush or
// by Close; records logged after Close are dropped.
func (s *Store) LogDecision(d *storev1.Decision) {
	item := logItem{decision: d}
	if id, err := store.ParseID(d.GetDecisionId()); err != nil {
		item.err = fmt.Errorf("log decision: %w", err)
	} else {
		item.id = id
	}
	s.enqueue(item)
}

func (s *Store) enqueue(item logItem) bool {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if s.closed {
		return false
	}
	s.log <- item
	return true
}

// Flush returns once every record handed to LogDecision before the call is
// committed, with any error the batcher met since the previous Flush.
func (s *Store) Flush(ctx context.Context) error {
	done := make(chan error, 1) // buffered: the batcher never waits for us
	if !s.enqueue(logItem{flushed: done}) {
		return fmt.Errorf("flush decision log: %w", store.ErrClosed)
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

// health is whether the decision log can be written.
type health struct {
	err      atomic.Pointer[error]
	reported bool // batcher only
	dropped  int  // batcher only
}

// LogErr returns nil while the decision log is being written and etcd is
// being reached, and an error wrapping store.ErrLogUnwritable from a
// failed commit until one succeeds, or while no request has reached a
// quorum for Options.Staleness (fresh.go): limend turns every allow into
// ask meanwhile. It costs two atomic loads and a clock read.
func (s *Store) LogErr() error {
	if p := s.health.err.Load(); p != nil {
		return *p
	}
	return s.staleErr()
}

func (s *Store) commitFailed(cause error, unwritten, lost int) {
	s.health.dropped += lost
	err := fmt.Errorf("%w (%d records not written, %d dropped): %w", store.ErrLogUnwritable, unwritten, s.health.dropped, cause)
	s.health.err.Store(&err)
	if !s.health.reported && s.opts.OnLogHealth != nil {
		s.opts.OnLogHealth(store.LogHealth{Err: err, Unwritten: unwritten, Dropped: s.health.dropped})
	}
	s.health.reported = true
}

func (s *Store) commitWorked(written int) {
	s.health.err.Store(nil)
	if s.health.reported && s.opts.OnLogHealth != nil {
		s.opts.OnLogHealth(store.LogHealth{Unwritten: written, Dropped: s.health.dropped})
	}
	s.health.reported, s.health.dropped = false, 0
}

// probeEvery is how many FlushIntervals a failing decision log waits
// between retries when no new records come to retry it with.
const probeEvery = 4

// maxHeldBatches is how many MaxBatch of records a failing decision log
// keeps for its retries; beyond that the oldest are dropped.
const maxHeldBatches = 4

// runBatcher commits queued records every MaxBatch records or
// FlushInterval, whichever comes first, and at once for a Flush. It exits,
// after a last commit, when Close closes the queue.
func (s *Store) runBatcher() {
	defer close(s.batcherDone)
	var (
		errs   []error   // since the last Flush
		held   []logItem // records of commits that failed, retried first
		failed error     // the last commit's failure while held is not empty
	)
	commit := func(batch []logItem) {
		if len(batch) == 0 && len(held) == 0 {
			return
		}
		all := append(held, batch...)
		skipped, err := s.writeBatch(all)
		if err == nil {
			errs = append(errs, skipped...)
			if failed != nil || s.LogErr() != nil {
				s.commitWorked(len(all))
			}
			held, failed = nil, nil
			return
		}
		failed = fmt.Errorf("write %d decision records: %w", len(all), err)
		lost := 0
		if limit := maxHeldBatches * s.opts.MaxBatch; len(all) > limit {
			lost = len(all) - limit
			all = all[lost:]
		}
		held = all
		s.commitFailed(err, len(held), lost)
	}
	for {
		var first logItem
		var ok bool
		if len(held) > 0 {
			retry := time.NewTimer(probeEvery * s.opts.FlushInterval)
			select {
			case first, ok = <-s.log:
				retry.Stop()
			case <-retry.C:
				commit(nil)
				continue
			}
		} else {
			first, ok = <-s.log
		}
		if !ok {
			commit(nil)
			s.batcherErr = errors.Join(append(errs, failed)...)
			return
		}
		items, closed := s.gather(first)
		var batch []logItem
		for _, item := range items {
			switch {
			case item.flushed != nil:
				commit(batch)
				batch = nil
				item.flushed <- errors.Join(append(errs, failed)...)
				errs = nil
			case item.err != nil:
				errs = append(errs, item.err)
			default:
				batch = append(batch, item)
			}
		}
		commit(batch)
		if closed {
			s.batcherErr = errors.Join(append(errs, failed)...)
			return
		}
	}
}

// gather collects the items that follow first until MaxBatch records, a
// Flush, FlushInterval, or the queue closes (closed true).
func (s *Store) gather(first logItem) (items []logItem, closed bool) {
	items = append(items, first)
	if first.flushed != nil {
		return items, false
	}
	timer := time.NewTimer(s.opts.FlushInterval)
	defer timer.Stop()
	for len(items) < s.opts.MaxBatch {
		select {
		case item, ok := <-s.log:
			if !ok {
				return items, true
			}
			items = append(items, item)
			if item.flushed != nil {
				return items, false
			}
		case <-timer.C:
			return items, false
		}
	}
	return items, false
}

// logTxnRecords and logTxnBytes bound one transaction of the decision
// log, well inside etcd's defaults (128 operations, 1.5 MiB a request).
const (
	logTxnRecords = 64
	logTxnBytes   = 512 << 10
)

// logTxnsInFlight is how many of one batch's transactions are sent at
// once. One at a time, the batcher spent most of its time waiting for
// raft (a few ms a transaction) and could not keep up with a replica's
// decisions: its queue filled and Decide waited for room
// (docs/BENCHMARKS.md, "Decide's tail on a replica").
const logTxnsInFlight = 4

// writeBatch commits batch in transactions of at most logTxnRecords
// records and logTxnBytes: each record is a nested transaction that puts
// it only if its id has no record yet. A record that cannot be encoded is
// skipped and its error returned. The records are encoded (and
// compressed) on all CPUs at once and the transactions sent
// logTxnsInFlight at a time: they are independent, since no record's
// write depends on another's. After a failure the whole batch is tried
// again; the records already written are then skipped by etcd.
func (s *Store) writeBatch(batch []logItem) (skipped []error, err error) {
	if err := s.reachErr(); err != nil {
		return nil, err // held for a retry once etcd is reached again
	}
	if err := s.overBudget(); err != nil {
		return nil, err // held (then dropped), never written past the ceiling
	}
	vals := make([][]byte, len(batch))
	errs := make([]error, len(batch))
	var enc sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 4, len(batch))
	for w := range workers {
		enc.Go(func() {
			for i := w; i < len(batch); i += workers {
				v, err := proto.Marshal(batch[i].decision)
				if err != nil {
					errs[i] = fmt.Errorf("encode decision %d: %w", batch[i].id, err)
					continue
				}
				vals[i] = compress(v) // compress.go
			}
		})
	}
	enc.Wait()
	var txns [][]clientv3.Op
	var ops []clientv3.Op
	size := 0
	for i, item := range batch {
		if errs[i] != nil {
			skipped = append(skipped, errs[i])
			continue
		}
		v := vals[i]
		if len(ops) == logTxnRecords || (len(ops) > 0 && size+len(v) > logTxnBytes) {
			txns, ops, size = append(txns, ops), nil, 0
		}
		k := s.keys.decision(item.id)
		ops = append(ops, clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(k), "=", 0)},
			[]clientv3.Op{clientv3.OpPut(k, string(v))}, nil))
		size += len(k) + len(v)
	}
	if len(ops) > 0 {
		txns = append(txns, ops)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var (
		sent     sync.WaitGroup
		slots    = make(chan struct{}, logTxnsInFlight)
		errMu    sync.Mutex
		firstErr error
	)
	for _, ops := range txns {
		slots <- struct{}{}
		sent.Go(func() {
			defer func() { <-slots }()
			if _, err := s.cli.Txn(ctx).Then(ops...).Commit(); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				return
			}
			s.reached()
		})
	}
	sent.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return skipped, nil
}
