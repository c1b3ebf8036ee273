package store

import (
	"fmt"
	"path/filepath"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
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
				s.LogDecision(decision(id, "ana", limenv1.Verdict_VERDICT_ALLOW))
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
