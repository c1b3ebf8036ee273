package server

import (
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// BenchmarkDecideHandlerDry is BenchmarkDecideHandler with every decision
// a dry run: the deciding alone, without the asks it queues and the
// records it writes, so that builds whose rules ask about different
// actions compare on the same work (docs/BENCHMARKS.md).
func BenchmarkDecideHandlerDry(b *testing.B) {
	s, ctx, acts := taughtServer(b)
	reqs := make([]*limenv1.DecideRequest, len(acts))
	for i, a := range acts {
		reqs[i] = &limenv1.DecideRequest{Action: a.Action, DryRun: true}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Decide(ctx, reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
