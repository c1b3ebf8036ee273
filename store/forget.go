package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// bucketForgotten holds the forget marks (forgotten/<seq>). It is made by
// the first Forget, not by a migration: a file with no marks is the same
// under both, and an older limen that opens a file with marks still
// reads it (it only learns again from the answers it does not know were
// forgotten; see docs/policy.md).
var bucketForgotten = []byte("forgotten")

// Forget marks answers forgotten, each mark naming its answer by seq, in
// one transaction, durably, before it returns. The answers stay as they
// were given. An answer already marked keeps its first mark; a seq with
// no answer fails the whole call with ErrNotFound and marks nothing.
func (s *Store) Forget(marks []*storev1.ForgetMark) error {
	s.answerMu.Lock()
	defer s.answerMu.Unlock()
	return s.update(func(tx *bolt.Tx) error {
		answers := tx.Bucket(bucketAnswers)
		for _, m := range marks {
			if answers.Get(u64(m.GetSeq())) == nil {
				return fmt.Errorf("answer %d: %w", m.GetSeq(), ErrNotFound)
			}
		}
		b, err := tx.CreateBucketIfNotExists(bucketForgotten)
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketForgotten, err)
		}
		for _, m := range marks {
			k := u64(m.GetSeq())
			if b.Get(k) != nil {
				continue
			}
			v, err := proto.Marshal(m)
			if err != nil {
				return fmt.Errorf("encode forget mark: %w", err)
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Forgotten calls fn for every forget mark, in the order of the answers
// they mark. fn may keep the mark.
func (s *Store) Forgotten(fn func(m *storev1.ForgetMark) error) error {
	var fnErr error
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketForgotten)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			m := new(storev1.ForgetMark)
			if err := proto.Unmarshal(v, m); err != nil {
				return fmt.Errorf("decode forget mark %x: %w", k, err)
			}
			if fnErr = fn(m); fnErr != nil {
				return fnErr
			}
			return nil
		})
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read forget marks: %w", err)
	}
	return nil
}
