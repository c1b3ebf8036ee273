package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

var _ store.AnswerWatcher = (*Store)(nil)

// WatchAnswers delivers the answers after seq after, as
// store.AnswerWatcher says: first those stored now, listed at one
// revision, before it returns; then, from a watch that starts at that
// revision, each one committed after, by any limend on the prefix. Every
// limend applies the same answers in the same order (seq order, which is
// their etcd revision order), so their predictors count alike.
//
// The watch resumes from the last answer delivered whenever it ends: a
// lost leader, a broken connection, or a compaction of the history it
// needed (the answers are never deleted, so a new list from the last seq
// delivered finds every one it missed). An answer that comes with a gap
// before it (a missed event) makes it list again too.
func (s *Store) WatchAnswers(ctx context.Context, after uint64, fn func(rec *storev1.AnswerRecord, rev int64)) error {
	last, rev, err := s.listAnswers(ctx, after, fn)
	if err != nil {
		return fmt.Errorf("watch answers: %w", err)
	}
	return s.watchAnswersFrom(ctx, last, rev, fn)
}

// watchAnswersFrom watches the answers after revision rev, having
// delivered those up to seq last.
func (s *Store) watchAnswersFrom(ctx context.Context, last uint64, rev int64, fn func(*storev1.AnswerRecord, int64)) error {
	ch, stop := s.watchFrom(ctx, s.keys.answers, rev, clientv3.WithCreatedNotify(), clientv3.WithProgressNotify())
	first, ok := <-ch
	// A start in compacted history is no error: follow lists instead.
	if !ok || (first.Err() != nil && first.CompactRevision == 0) {
		stop()
		return fmt.Errorf("watch answers: %w", errors.Join(ctx.Err(), first.Err(), errors.New("the watch ended at once")))
	}
	if first.Err() == nil {
		s.watched(rev)
	}
	go s.followAnswers(ctx, ch, stop, last, fn)
	return nil
}

// followAnswers delivers the answers the watch reports, after seq last,
// until ctx ends; a watch that ends, or skips a seq, is replaced by a new
// list from last and a watch from the list's revision.
func (s *Store) followAnswers(ctx context.Context, ch clientv3.WatchChan, stop context.CancelFunc, last uint64, fn func(*storev1.AnswerRecord, int64)) {
	for {
	events:
		for resp := range ch {
			if resp.Err() != nil {
				break // compacted, or no leader: list again below
			}
			for _, ev := range resp.Events {
				seq, ok := s.keys.id(s.keys.answers, ev.Kv.Key)
				if ev.Type != clientv3.EventTypePut || !ok || seq <= last {
					continue
				}
				if seq != last+1 {
					break events // an event was missed: list again below
				}
				last = seq
				if rec := decodeAnswer(seq, ev.Kv.Value); rec != nil {
					fn(rec, ev.Kv.ModRevision)
				}
			}
			// Every answer committed up to this revision is delivered
			// (etcd sends a watch's events in revision order, and a
			// progress notification only once it has sent them all).
			s.watched(resp.Header.Revision)
		}
		stop()
		var rev int64
		for {
			if ctx.Err() != nil {
				return
			}
			var err error
			if last, rev, err = s.listAnswers(ctx, last, fn); err == nil {
				break
			}
			select { // etcd is unreachable: try again, not in a busy loop
			case <-ctx.Done():
				return
			case <-time.After(s.opts.Staleness / 10):
			}
		}
		ch, stop = s.watchFrom(ctx, s.keys.answers, rev, clientv3.WithProgressNotify())
	}
}

// listAnswers delivers the answers stored after seq after, in pages read
// at the revision of the first, and returns the last seq delivered (after
// if none) and that revision.
func (s *Store) listAnswers(ctx context.Context, after uint64, fn func(*storev1.AnswerRecord, int64)) (last uint64, rev int64, err error) {
	last = after
	rctx, cancel := context.WithTimeout(ctx, min(s.opts.Timeout, s.opts.Staleness))
	defer cancel()
	from, end := s.keys.answer(after+1), clientv3.GetPrefixRangeEnd(s.keys.answers)
	sent := time.Now().UnixNano()
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(scanPage)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.cli.Get(rctx, from, opts...)
		if err != nil {
			return last, rev, fmt.Errorf("list answers after %d: %w", after, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			seq, ok := s.keys.id(s.keys.answers, kv.Key)
			if !ok || seq <= last {
				continue
			}
			last = seq
			if rec := decodeAnswer(seq, kv.Value); rec != nil {
				fn(rec, kv.ModRevision)
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			// A linearizable list, delivered whole: the view was complete
			// at rev when it was sent (fresh.go).
			s.provenAt(sent)
			s.watched(rev)
			return last, rev, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// decodeAnswer decodes the answer stored under seq (its Seq is the key's,
// whatever the record says), or returns nil for one this build cannot
// read: every limend of one build skips the same ones, and AnswerViews
// fails on it, so an operator hears of it.
func decodeAnswer(seq uint64, v []byte) *storev1.AnswerRecord {
	rec := new(storev1.AnswerRecord)
	if proto.Unmarshal(v, rec) != nil {
		return nil
	}
	rec.Seq = seq
	return rec
}
