package server

import (
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// BenchmarkDecideHandlerFresh is BenchmarkDecideHandler for actions the
// plan cache has not seen: each call's working directory is spelled anew
// (/home/u/shop/d17/.. is /home/u/shop), so every Decide parses its action
// into parts and matches rules and classes, as limend does for a command
// it meets for the first time.
func BenchmarkDecideHandlerFresh(b *testing.B) {
	s, ctx, acts := taughtServer(b)
	reqs := make([]*limenv1.DecideRequest, b.N+1)
	for i := range reqs {
		a := proto.Clone(acts[i%len(acts)].Action).(*limenv1.Action)
		a.Cwd += "/d" + strconv.Itoa(i) + "/.."
		reqs[i] = &limenv1.DecideRequest{Action: a}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Decide(ctx, reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
}
