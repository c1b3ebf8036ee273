package store

import (
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// decisionPage is how many decisions Decisions reads per read transaction.
const decisionPage = 256

// Decisions calls fn for every committed decision, newest first, until fn
// returns an error, which stops the walk and is returned as is (return a
// sentinel of your own to stop early).
//
// Unlike Answers it reads the log in pages of a few hundred records, each in
// its own short read transaction, and calls fn outside any transaction: a
// replay over a long log (a policy simulation) does work per record, and one
// read transaction held that long would keep bbolt from growing its mapping,
// which stalls every writer, answers included. fn gets a fresh message each
// time and may keep it.
//
// The walk starts at the newest decision committed when it begins; decisions
// committed later are not seen. Call Flush first to include everything
// handed to LogDecision.
func (s *Store) Decisions(fn func(d *storev1.Decision) error) error {
	var next []byte // key of the next decision to read; nil means start at the newest
	for first := true; first || next != nil; first = false {
		page := make([]*storev1.Decision, 0, decisionPage)
		release := s.outcomes.hold()
		err := s.db.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketDecisions).Cursor()
			k, v := c.Last()
			if next != nil {
				// The log is append-only, so the key read last time is
				// still there and Seek lands on it.
				k, v = c.Seek(next)
			}
			for ; k != nil && len(page) < decisionPage; k, v = c.Prev() {
				d := new(storev1.Decision)
				if err := proto.Unmarshal(v, d); err != nil { // copies out of the mmap
					return fmt.Errorf("decode decision %x: %w", k, err)
				}
				page = append(page, d)
			}
			next = nil
			if k != nil {
				next = slices.Clone(k) // k lives in the mmap, valid only inside the transaction
			}
			return nil
		})
		if err == nil {
			s.outcomes.fill(page...)
		}
		release() // before fn, which may take its time
		if err != nil {
			return fmt.Errorf("read decisions: %w", err)
		}
		for _, d := range page {
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}
