package store

import (
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// BenchmarkAnswerVsBareUpdate times a durable Answer and a bare bbolt
// Update of one key (its floor: one commit with fsync) in alternation, in
// the same directory, so that the disk's mood swings hit both alike; the
// figure to watch is answer/bare. The store holds 20,000 logged decisions
// first, so its trees and freelist are those of a store in use, not of an
// empty file. writes/answer and writes/bare count bbolt's page writes per
// commit: an Answer touches two buckets (the pending ask removed, the
// answer appended) where the floor touches one; the batcher's later commits
// of the outcomes (doc.go, "Answers and outcomes") run meanwhile and are
// counted in writes/answer.
func BenchmarkAnswerVsBareUpdate(b *testing.B) {
	dir := b.TempDir()
	s := openStore(b, filepath.Join(dir, "limen.db"), Options{})
	for range 20_000 {
		id := newID(b, s)
		d := decision(id, "ana", storev1.Verdict_VERDICT_ALLOW)
		d.Reason = "p=0.991 is above the read-only allow threshold 0.800 (12 approved, 0 denied)"
		s.LogDecision(d)
	}
	if err := s.Flush(b.Context()); err != nil {
		b.Fatal(err)
	}
	ids := pendingAsks(b, s, b.N)

	bare, err := bolt.Open(filepath.Join(dir, "bare.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	if err := bare.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("b"))
		return err
	}); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 200)

	var answerTime, bareTime time.Duration
	w0, bw0 := writes(s.db), writes(bare)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := s.Answer(ids[i], answerRecord(ids[i], storev1.Choice_CHOICE_APPROVE)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := bare.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("b")).Put(u64(uint64(i)), value)
		}); err != nil {
			b.Fatal(err)
		}
		answerTime += t1.Sub(t0)
		bareTime += time.Since(t1)
	}
	b.ReportMetric(float64(answerTime.Nanoseconds())/float64(b.N), "ns/answer")
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "ns/bare")
	b.ReportMetric(float64(answerTime)/float64(bareTime), "answer/bare")
	// Page writes per commit, besides the meta page: what the fsync flushes.
	b.ReportMetric(float64(writes(s.db)-w0)/float64(b.N), "writes/answer")
	b.ReportMetric(float64(writes(bare)-bw0)/float64(b.N), "writes/bare")
}

// writes returns how many page writes db's commits have made.
func writes(db *bolt.DB) int64 {
	st := db.Stats()
	return st.TxStats.GetWrite()
}
