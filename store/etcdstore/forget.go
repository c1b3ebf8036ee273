package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// forgottenPrefix is where the forget marks live, beside answers/:
//
//	forgotten/<seq>       -> storev1.ForgetMark  (the answer at seq was taken back)
//
// It is derived from the answers' prefix rather than kept in keys, so that
// the schema of doc.go gains one key kind without a version: a prefix
// with no marks reads the same to every build.
func (k keys) forgottenPrefix() string {
	return strings.TrimSuffix(k.answers, "answers/") + "forgotten/"
}

func (k keys) forgotten(seq uint64) string { return k.key(k.forgottenPrefix(), seq) }

// forgetChunk bounds the marks of one transaction: each takes two
// comparisons and one put, and etcd takes 128 operations a request by
// default.
const forgetChunk = 40

// Forget marks answers forgotten, as store.Store.Forget: each chunk of
// marks is one transaction that puts the marks not yet there if every
// answer they name exists. A seq with no answer fails with
// store.ErrNotFound; the chunks before it stay marked.
func (s *Store) Forget(marks []*storev1.ForgetMark) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	for len(marks) > 0 {
		n := min(len(marks), forgetChunk)
		if err := s.forgetChunk(marks[:n]); err != nil {
			return err
		}
		marks = marks[n:]
	}
	return nil
}

func (s *Store) forgetChunk(marks []*storev1.ForgetMark) error {
	ctx, cancel := s.ctx()
	defer cancel()
	var cmps []clientv3.Cmp
	var puts []clientv3.Op
	for _, m := range marks {
		v, err := proto.Marshal(m)
		if err != nil {
			return fmt.Errorf("encode forget mark: %w", err)
		}
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.keys.answer(m.GetSeq())), ">", 0))
		fk := s.keys.forgotten(m.GetSeq())
		// A mark already there stays: put only where there is none.
		puts = append(puts, clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(fk), "=", 0)},
			[]clientv3.Op{clientv3.OpPut(fk, string(v))}, nil))
	}
	resp, err := s.cli.Txn(ctx).If(cmps...).Then(puts...).Commit()
	if err != nil {
		return fmt.Errorf("forget answers: %w", err)
	}
	if resp.Succeeded {
		return nil
	}
	for _, m := range marks {
		got, err := s.cli.Get(ctx, s.keys.answer(m.GetSeq()), clientv3.WithCountOnly())
		if err != nil {
			return fmt.Errorf("forget answers: %w", err)
		}
		if got.Count == 0 {
			return fmt.Errorf("answer %d: %w", m.GetSeq(), store.ErrNotFound)
		}
	}
	return fmt.Errorf("forget answers: the answers changed while they were marked; try again")
}

// Forgotten calls fn for every forget mark, in answer order, as
// store.Store.Forgotten.
func (s *Store) Forgotten(fn func(m *storev1.ForgetMark) error) error {
	var fnErr error
	err := s.scan(s.keys.forgottenPrefix(), false, 0, func(k, v []byte) (bool, error) {
		m := new(storev1.ForgetMark)
		if err := proto.Unmarshal(v, m); err != nil {
			return false, fmt.Errorf("decode forget mark %s: %w", k, err)
		}
		if fnErr = fn(m); fnErr != nil {
			return false, fnErr
		}
		return true, nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read forget marks: %w", err)
	}
	return nil
}

var _ store.ForgetWatcher = (*Store)(nil)

// WatchForgotten calls fn when forget marks are added under the prefix
// (store.ForgetWatcher), so that every limend sharing it rebuilds its
// predictor without the answers one of them forgot. A watch that ends
// (compaction, no leader) is set up again at the present, with one call
// of fn for what it may have missed.
func (s *Store) WatchForgotten(ctx context.Context, fn func()) error {
	rev, err := s.revision()
	if err != nil {
		return fmt.Errorf("watch forget marks: %w", err)
	}
	prefix := s.keys.forgottenPrefix()
	ch, stop := s.watchFrom(ctx, prefix, rev, clientv3.WithCreatedNotify())
	first, ok := <-ch
	if !ok || (first.Err() != nil && first.CompactRevision == 0) {
		stop()
		return fmt.Errorf("watch forget marks: %w", errors.Join(ctx.Err(), first.Err(), errors.New("the watch ended at once")))
	}
	go func() {
		for {
			for wr := range ch {
				if wr.Err() != nil {
					break
				}
				if len(wr.Events) > 0 {
					fn()
				}
			}
			stop()
			if ctx.Err() != nil {
				return
			}
			rev, err := s.revision()
			if err != nil {
				continue // ch is closed: try again
			}
			fn()
			ch, stop = s.watchFrom(ctx, prefix, rev)
		}
	}()
	return nil
}

// revision is etcd's revision now.
func (s *Store) revision() (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.keys.schema)
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}
