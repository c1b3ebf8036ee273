package store

import (
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// BenchmarkAnswer is the durable Answer: one transaction with fsync that
// deletes the pending ask and appends the answer (the decision's outcome
// follows with the batcher's next commit).
// Compare with BenchmarkBareUpdate, the floor bbolt sets on this disk.
func BenchmarkAnswer(b *testing.B) {
	s := openStore(b, "", Options{})
	ids := pendingAsks(b, s, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Answer(ids[i], answerRecord(ids[i], storev1.Choice_CHOICE_APPROVE)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareUpdate is one bbolt Update of one key on a plain database:
// the cost of a commit with fsync and nothing else.
func BenchmarkBareUpdate(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "bare.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("b"))
		return err
	}); err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("b")).Put(u64(uint64(i)), value)
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogDecision is the Decide path's cost of logging: NextID plus
// LogDecision, with the batcher committing in the background. The final
// Flush is included so the figure cannot hide a backlog.
func BenchmarkLogDecision(b *testing.B) {
	s := openStore(b, "", Options{})
	b.ReportAllocs()
	w0 := writes(s.db)
	b.ResetTimer()
	for range b.N {
		id, err := s.NextID()
		if err != nil {
			b.Fatal(err)
		}
		// A new record each time, as Decide makes: the store owns it
		// once logged.
		d := decision(id, "ana", storev1.Verdict_VERDICT_ALLOW)
		d.Reason = "p=0.991 is above the read-only allow threshold 0.950 (12 approved, 0 denied)"
		s.LogDecision(d)
	}
	if err := s.Flush(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(writes(s.db)-w0)/float64(b.N), "pagewrites/op")
}

// BenchmarkNextID is the hot-path id counter under contention.
func BenchmarkNextID(b *testing.B) {
	s := openStore(b, "", Options{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.NextID(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAnswers replays the answer log as the predictor does at start.
// One op is one full replay; ns/answer is the figure to watch (1M answers
// must replay in well under 2s).
func BenchmarkAnswers(b *testing.B) {
	sizes := []int{100_000}
	if !testing.Short() {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := openStore(b, "", Options{NoSync: true})
			fillAnswers(b, s, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				seen := 0
				if err := s.Answers(func(*storev1.AnswerRecord) error {
					seen++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if seen != n {
					b.Fatalf("replayed %d answers, want %d", seen, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/answer")
		})
	}
}

// fillAnswers appends n realistic answer records in large transactions.
func fillAnswers(b *testing.B, s *Store, n int) {
	b.Helper()
	const perTx = 20_000
	for done := 0; done < n; {
		if err := s.db.Update(func(tx *bolt.Tx) error {
			answers := tx.Bucket(bucketAnswers)
			for end := min(n, done+perTx); done < end; done++ {
				seq, err := answers.NextSequence()
				if err != nil {
					return err
				}
				rec := answerRecord(seq, storev1.Choice_CHOICE_APPROVE)
				rec.Seq = seq
				rec.Ladders = []*storev1.Ladder{{Keys: []string{"Bash", "git", "git push", "git push --force", "git push --force origin main"}}}
				v, err := proto.Marshal(rec)
				if err != nil {
					return err
				}
				if err := answers.Put(u64(seq), v); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// pendingAsks stores n pending asks in one commit, for benchmarks that
// answer them, and returns their ids.
func pendingAsks(b *testing.B, s *Store, n int) []uint64 {
	b.Helper()
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = newID(b, s) // not inside the Update below: NextID may write
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		for _, id := range ids {
			d := decision(id, "ana", storev1.Verdict_VERDICT_ASK)
			dv, _ := proto.Marshal(d)
			pv, _ := proto.Marshal(&storev1.PendingAsk{AskId: d.AskId, Decision: d})
			if err := tx.Bucket(bucketDecisions).Put(u64(id), dv); err != nil {
				return err
			}
			if err := tx.Bucket(bucketPending).Put(u64(id), pv); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return ids
}
