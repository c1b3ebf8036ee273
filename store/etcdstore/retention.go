package etcdstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// etcd is a poor home for an unbounded log: its database has a quota (2
// GiB by default), and past it etcd raises NOSPACE and refuses every
// write, answers too. The decision log therefore keeps inside a budget of
// its own, well below the quota:
//
//   - retention: every RetentionEvery, one pass (any limend's: it is
//     idempotent) deletes the oldest decision records beyond
//     Options.LogRecords, and those older than Options.LogRetention;
//     never a pending ask's;
//   - a ceiling: once etcd's database is larger than Options.LogMaxDB
//     (half the default quota), the batcher writes no more decision
//     records (LogErr reports it, so allows become asks) while answers,
//     asks and policy go on being written.
//
// Deleted records free space in etcd only once etcd compacts its history
// and is defragmented: run it with --auto-compaction-mode=periodic (see
// docs/scale-out.md).

// retentionEvery is how often a Store trims the log and measures etcd's
// database.
var retentionEvery = time.Minute

// dbSize is etcd's database size as last measured (bytes; 0 unknown).
type dbSize struct{ n atomic.Int64 }

// measureDB asks every endpoint for its database size and keeps the
// largest.
func (s *Store) measureDB(ctx context.Context) {
	var most int64
	for _, ep := range s.cli.Endpoints() {
		if st, err := s.cli.Status(ctx, ep); err == nil {
			most = max(most, st.DbSize)
		}
	}
	if most > 0 {
		s.db.n.Store(most)
	}
}

// overBudget is the batcher's check before it writes decision records.
func (s *Store) overBudget() error {
	if n := s.db.n.Load(); n > s.opts.LogMaxDB {
		return fmt.Errorf("%w: etcd's database is %d MiB, over the decision log's ceiling of %d MiB (--etcd-log-max-db): the log is not written, so that answers keep room; compact and defragment etcd, or lower the retention", store.ErrLogUnwritable, n>>20, s.opts.LogMaxDB>>20)
	}
	return nil
}

// runRetention trims the log and measures etcd every retentionEvery until
// Close.
func (s *Store) runRetention() {
	defer close(s.retentionDone)
	tick := time.NewTicker(retentionEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stopProber:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*s.opts.Timeout)
		s.measureDB(ctx)
		s.trimLog(ctx, time.Now())
		cancel()
	}
}

// trimLog deletes the oldest decision records beyond Options.LogRecords
// and those older than Options.LogRetention as of now, oldest first,
// never a pending ask's, and returns how many it deleted.
func (s *Store) trimLog(ctx context.Context, now time.Time) (int, error) {
	if s.reachErr() != nil {
		return 0, nil // no quorum: nothing to trim now
	}
	cnt, err := s.cli.Get(ctx, s.keys.decisions, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("trim decision log: %w", err)
	}
	count, cutoff, deleted := cnt.Count, now.Add(-s.opts.LogRetention), 0
	var ops []clientv3.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		_, err := s.cli.Txn(ctx).Then(ops...).Commit()
		ops = ops[:0]
		return err
	}
	d := new(storev1.Decision)
	err = s.scan(s.keys.decisions, false, 0, func(k, v []byte) (bool, error) {
		if err := unmarshal(v, d); err != nil {
			return true, nil // not this build's to judge
		}
		old := d.GetTime().AsTime().Before(cutoff)
		if count <= int64(s.opts.LogRecords) && !old {
			return false, nil // oldest first: the rest are kept
		}
		if d.GetAskId() != "" && d.GetOutcome() == nil {
			return true, nil // pending: an answer needs it
		}
		key := string(k)
		ops = append(ops, clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.Value(key), "=", string(v))},
			[]clientv3.Op{clientv3.OpDelete(key)}, nil))
		count--
		deleted++
		if len(ops) == logTxnRecords {
			return true, flush()
		}
		return true, nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return deleted, fmt.Errorf("trim decision log: %w", err)
	}
	return deleted, nil
}
