package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

var _ store.PendingWatcher = (*Store)(nil)

// ownChanges counts, per ask, this Store's writes of the pending ask in
// flight or committed and not yet seen on the watch: adds, and resolutions
// (answers, expiries). The watch skips that many of its events for the
// ask, so WatchPending reports only the changes of others.
type ownChanges struct {
	mu       sync.Mutex
	adds     map[uint64]int
	resolves map[uint64]int
}

func (o *ownChanges) counts(resolve bool) map[uint64]int {
	m := &o.adds
	if resolve {
		m = &o.resolves
	}
	if *m == nil {
		*m = make(map[uint64]int)
	}
	return *m
}

// mark notes a write of ask id about to be made.
func (o *ownChanges) mark(id uint64, resolve bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.counts(resolve)[id]++
}

// unmark takes back a mark whose write did not (or may not) commit.
func (o *ownChanges) unmark(id uint64, resolve bool) { o.seen(id, resolve) }

// seen consumes a mark for an event of ask id, and says whether there was
// one (the event is this Store's own).
func (o *ownChanges) seen(id uint64, resolve bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.counts(resolve)
	if m[id] == 0 {
		return false
	}
	if m[id]--; m[id] == 0 {
		delete(m, id)
	}
	return true
}

// WatchPending reports the changes of the pending asks made by other
// Stores on the same prefix (other limends) after the snapshot the last
// Pending read, as store.PendingWatcher says: asks added, and asks
// answered or expired with their decision and outcome. An answer on one
// limend thus wakes an Await on another as soon as the watch delivers it
// (milliseconds). If etcd compacted the history the watch needs, it
// starts again at the present and reports a Resync with every pending ask.
// It returns once the watch is set up; fn runs on the watch's goroutine.
func (s *Store) WatchPending(ctx context.Context, fn func(store.PendingChange)) error {
	from := s.pendingRev.Load()
	if from == 0 {
		rctx, cancel := s.ctx()
		resp, err := s.cli.Get(rctx, s.keys.schema)
		cancel()
		if err != nil {
			return fmt.Errorf("watch pending asks: %w", err)
		}
		from = resp.Header.Revision
	}
	// The watch is set up when its first response (created) arrives.
	ch, stop := s.watch(ctx, from, clientv3.WithCreatedNotify())
	first, ok := <-ch
	// A start in compacted history is no error: follow lists instead.
	if !ok || (first.Err() != nil && first.CompactRevision == 0) {
		stop()
		return fmt.Errorf("watch pending asks: %w", errors.Join(ctx.Err(), first.Err(), errors.New("the watch ended at once")))
	}
	go s.follow(ctx, ch, stop, fn)
	return nil
}

// follow delivers the watch's events to fn until ctx ends. A watch that
// ends before ctx (etcd compacted the history it needed, or lost its
// leader) is set up again at the present, after a Resync.
func (s *Store) follow(ctx context.Context, ch clientv3.WatchChan, stop context.CancelFunc, fn func(store.PendingChange)) {
	for {
		for resp := range ch {
			if resp.Err() != nil {
				break // compacted, or no leader: list again below
			}
			for _, ev := range resp.Events {
				s.deliver(ev, fn)
			}
		}
		stop()
		if ctx.Err() != nil {
			return
		}
		list, rev, err := s.pending()
		for err != nil && ctx.Err() == nil {
			list, rev, err = s.pending() // bounded by Options.Timeout each
		}
		if ctx.Err() != nil {
			return
		}
		fn(store.PendingChange{Resync: true, Pending: list})
		ch, stop = s.watch(ctx, rev)
	}
}

// watch watches the pending asks after revision rev.
func (s *Store) watch(ctx context.Context, rev int64, opts ...clientv3.OpOption) (clientv3.WatchChan, context.CancelFunc) {
	return s.watchFrom(ctx, s.keys.pendingAsks, rev, opts...)
}

// watchFrom watches the keys under prefix after revision rev, on a watch
// stream of its own that it keeps proven alive: it asks etcd for a
// progress notification every Staleness/5, and ends the watch (its
// channel closes, and the caller lists and watches again) when nothing,
// not even that, came for Staleness. A member that stopped serving but
// holds its connections open (paused, or wedged) would otherwise keep a
// watch silent forever; on a stream of its own, the next watch is not
// queued behind the silent one, and etcd's client may pick another
// member for it.
func (s *Store) watchFrom(ctx context.Context, prefix string, rev int64, opts ...clientv3.OpOption) (clientv3.WatchChan, context.CancelFunc) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wctx = metadata.AppendToOutgoingContext(wctx, "limen-watch", strconv.FormatUint(s.watches.Add(1), 10))
	opts = append(opts, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	in := s.cli.Watch(wctx, prefix, opts...)
	out := make(chan clientv3.WatchResponse)
	go func() {
		defer close(out)
		defer cancel()
		every := s.opts.Staleness / 5
		tick := time.NewTicker(every)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case resp, ok := <-in:
				if !ok {
					return
				}
				last = time.Now()
				select {
				case out <- resp:
				case <-wctx.Done():
					return
				}
			case <-tick.C:
				if time.Since(last) > s.opts.Staleness {
					return // silent: a new watch, on a new stream
				}
				pctx, pcancel := context.WithTimeout(wctx, every)
				s.cli.RequestProgress(pctx)
				pcancel()
			case <-wctx.Done():
				return
			}
		}
	}()
	return out, cancel
}

// deliver reports one event of the watch unless it is this Store's own.
func (s *Store) deliver(ev *clientv3.Event, fn func(store.PendingChange)) {
	id, ok := s.keys.id(s.keys.pendingAsks, ev.Kv.Key)
	if !ok {
		return
	}
	if ev.Type == clientv3.EventTypePut {
		if s.own.seen(id, false) {
			return
		}
		p := new(storev1.PendingAsk)
		if err := proto.Unmarshal(ev.Kv.Value, p); err != nil {
			return // not an ask this build can read; Pending reports it
		}
		fn(store.PendingChange{Added: p})
		return
	}
	if s.own.seen(id, true) {
		return
	}
	// The decision with its outcome, and for an answer the answer and
	// meta/answer_seq, were written in the same transaction: read them as
	// of its revision.
	ctx, cancel := s.ctx()
	defer cancel()
	rev := ev.Kv.ModRevision
	resp, err := s.cli.Txn(ctx).Then(
		clientv3.OpGet(s.keys.decision(id), clientv3.WithRev(rev)),
		clientv3.OpGet(s.keys.answerSeq, clientv3.WithRev(rev)),
	).Commit()
	change := store.PendingChange{Resolved: &storev1.Decision{DecisionId: store.FormatID(id), AskId: store.FormatID(id)}}
	if err != nil {
		fn(change) // no outcome: the server reads the decision itself
		return
	}
	if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) == 1 {
		d := new(storev1.Decision)
		if unmarshal(kvs[0].Value, d) == nil {
			change.Resolved = d
		}
	}
	if kvs := resp.Responses[1].GetResponseRange().GetKvs(); len(kvs) == 1 && kvs[0].ModRevision == rev {
		change.Answer = s.answerAt(ctx, kvs[0].Value, rev, id)
	}
	fn(change)
}

// answerAt reads the answer whose seq is the decimal seq, as of revision
// rev, if it answers ask id.
func (s *Store) answerAt(ctx context.Context, seq []byte, rev int64, id uint64) *storev1.AnswerRecord {
	n, err := strconv.ParseUint(string(seq), 10, 64)
	if err != nil {
		return nil
	}
	resp, err := s.cli.Get(ctx, s.keys.answer(n), clientv3.WithRev(rev))
	if err != nil || len(resp.Kvs) != 1 {
		return nil
	}
	rec := new(storev1.AnswerRecord)
	if proto.Unmarshal(resp.Kvs[0].Value, rec) != nil || rec.GetAskId() != store.FormatID(id) {
		return nil
	}
	return rec
}

var _ store.PolicyWatcher = (*Store)(nil)

// WatchPolicy reports the policy versions stored on the prefix, by any
// limend, as store.PolicyWatcher says: the newest one first, then each
// one put after the watch began. A watch that ends (compaction, no
// leader) is set up again, after reporting the newest version again.
func (s *Store) WatchPolicy(ctx context.Context, fn func(*storev1.Policy)) error {
	rctx, cancel := s.ctx()
	resp, err := s.cli.Get(rctx, s.keys.policies, clientv3.WithLastKey()...)
	cancel()
	if err != nil {
		return fmt.Errorf("watch policy: %w", err)
	}
	ch, stop := s.watchFrom(ctx, s.keys.policies, resp.Header.Revision, clientv3.WithCreatedNotify())
	first, ok := <-ch
	if !ok || (first.Err() != nil && first.CompactRevision == 0) {
		stop()
		return fmt.Errorf("watch policy: %w", errors.Join(ctx.Err(), first.Err(), errors.New("the watch ended at once")))
	}
	policyOf := func(v []byte) {
		p := new(storev1.Policy)
		if proto.Unmarshal(v, p) == nil {
			fn(p)
		}
	}
	go func() {
		if len(resp.Kvs) == 1 {
			policyOf(resp.Kvs[0].Value)
		}
		s.watchedOn(&s.policyRev, resp.Header.Revision) // fresh.go
		for {
			for wr := range ch {
				if wr.Err() != nil {
					break
				}
				for _, ev := range wr.Events {
					if ev.Type == clientv3.EventTypePut {
						policyOf(ev.Kv.Value)
					}
				}
				s.watchedOn(&s.policyRev, wr.Header.Revision)
			}
			stop()
			if ctx.Err() != nil {
				return
			}
			p, err := s.Policy()
			for err != nil && ctx.Err() == nil {
				p, err = s.Policy()
			}
			if ctx.Err() != nil {
				return
			}
			fn(p)
			rctx, cancel := s.ctx()
			resp, err := s.cli.Get(rctx, s.keys.schema)
			cancel()
			if err != nil {
				continue // ch is closed: the loop lists and tries again
			}
			ch, stop = s.watchFrom(ctx, s.keys.policies, resp.Header.Revision)
		}
	}()
	return nil
}
