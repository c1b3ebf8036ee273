package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// Policy returns the newest stored policy, or ErrNotFound if none is stored.
func (s *Store) Policy() (*storev1.Policy, error) {
	p := new(storev1.Policy)
	err := s.db.View(func(tx *bolt.Tx) error {
		_, v := tx.Bucket(bucketPolicies).Cursor().Last()
		if v == nil {
			return ErrNotFound
		}
		return proto.Unmarshal(v, p)
	})
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return p, nil
}

// PolicyVersion returns version v of the policy, or ErrNotFound.
func (s *Store) PolicyVersion(v uint64) (*storev1.Policy, error) {
	p := new(storev1.Policy)
	if err := s.get(bucketPolicies, v, p); err != nil {
		return nil, fmt.Errorf("policy version %d: %w", v, err)
	}
	return p, nil
}

// PolicyVersions returns every stored policy version, oldest first.
func (s *Store) PolicyVersions() ([]*storev1.Policy, error) {
	var out []*storev1.Policy
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPolicies).ForEach(func(k, v []byte) error {
			p := new(storev1.Policy)
			if err := proto.Unmarshal(v, p); err != nil {
				return fmt.Errorf("decode policy %x: %w", k, err)
			}
			out = append(out, p)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("policy versions: %w", err)
	}
	return out, nil
}

// SetPolicy stores p as the next policy version if the newest stored version
// is still expected (0: no policy stored yet), and returns the stored copy
// with Version set to expected+1. Otherwise it stores nothing and fails with
// ErrVersionConflict. The check and the write are one synchronous
// transaction, so two concurrent callers cannot both win. p is not changed.
func (s *Store) SetPolicy(expected uint64, p *storev1.Policy) (*storev1.Policy, error) {
	if p == nil {
		return nil, fmt.Errorf("set policy: no policy given")
	}
	stored := proto.CloneOf(p)
	stored.Version = expected + 1
	v, err := proto.Marshal(stored)
	if err != nil {
		return nil, fmt.Errorf("set policy: %w", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPolicies)
		var current uint64
		if k, _ := b.Cursor().Last(); len(k) == 8 {
			current = binary.BigEndian.Uint64(k)
		}
		if current != expected {
			return fmt.Errorf("%w: policy is at version %d, not %d", ErrVersionConflict, current, expected)
		}
		return b.Put(u64(stored.Version), v)
	})
	if err != nil {
		return nil, fmt.Errorf("set policy: %w", err)
	}
	return stored, nil
}
