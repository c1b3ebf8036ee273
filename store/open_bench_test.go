package store

import (
	"fmt"
	"path/filepath"
	"testing"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// BenchmarkOpen is the cost of opening a store of n decision records,
// most of it verify reading every page once (see doc.go, "Damaged files").
//
//	go test -run '^$' -bench BenchmarkOpen -benchtime 10x ./store
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("decisions=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "limen.db")
			s, err := Open(path, Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			for range n {
				id, err := s.NextID()
				if err != nil {
					b.Fatal(err)
				}
				s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s, err := Open(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkLogErr is what every Decide pays to know that the decision log
// can be written: a clock read, two atomic loads and, once a millisecond,
// a statfs.
func BenchmarkLogErr(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "limen.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if s.LogErr() != nil {
				b.Fatal("the log is failing")
			}
		}
	})
}
