package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// History limits.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 1000
)

// HistoryQuery selects decisions for History. The zero value returns the 50
// newest decisions.
type HistoryQuery struct {
	// Limit caps the result: 0 or less means DefaultHistoryLimit, more than
	// MaxHistoryLimit means MaxHistoryLimit.
	Limit int
	// User, when set, keeps only that user's decisions.
	User string
	// BeforeID, when set, keeps only decisions older than that id; pass the
	// last id of one page to get the next.
	BeforeID uint64
	// AsksOnly keeps only decisions that asked a person.
	AsksOnly bool
}

// History returns stored decisions, newest first. Decisions handed to
// LogDecision appear once the batcher has committed them (see Flush).
func (s *Store) History(q HistoryQuery) ([]*storev1.Decision, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	limit = min(limit, MaxHistoryLimit)
	var out []*storev1.Decision
	defer s.outcomes.hold()()
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketDecisions).Cursor()
		var k, v []byte
		if q.BeforeID == 0 {
			k, v = c.Last()
		} else if k, _ = c.Seek(u64(q.BeforeID)); k == nil {
			k, v = c.Last() // every key is below BeforeID
		} else {
			k, v = c.Prev() // Seek lands on the first key >= BeforeID
		}
		for ; k != nil && len(out) < limit; k, v = c.Prev() {
			d := new(storev1.Decision)
			if err := proto.Unmarshal(v, d); err != nil {
				return fmt.Errorf("decode decision %x: %w", k, err)
			}
			if q.User != "" && d.GetAction().GetUser() != q.User {
				continue
			}
			if q.AsksOnly && d.GetVerdict() != storev1.Verdict_VERDICT_ASK {
				continue
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	s.outcomes.fill(out...)
	return out, nil
}

// Decision returns the decision with id, or ErrNotFound.
func (s *Store) Decision(id uint64) (*storev1.Decision, error) {
	d := new(storev1.Decision)
	defer s.outcomes.hold()()
	if err := s.get(bucketDecisions, id, d); err != nil {
		return nil, fmt.Errorf("decision %d: %w", id, err)
	}
	s.outcomes.fill(d)
	return d, nil
}

// get decodes the record at key id of bucket into m, or returns ErrNotFound.
func (s *Store) get(bucket []byte, id uint64, m proto.Message) error {
	return s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(u64(id))
		if v == nil {
			return ErrNotFound
		}
		return proto.Unmarshal(v, m) // copies out of the mmap
	})
}
