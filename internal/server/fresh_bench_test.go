package server

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

// BenchmarkDecideHandlerFresh is BenchmarkDecideHandler for actions the
// plan cache has not seen: each call's working directory is spelled anew
// (/home/u/shop/d17/.. is /home/u/shop), so every Decide parses its action
// into parts and matches rules and classes, as limend does for a command
// it meets for the first time.
func BenchmarkDecideHandlerFresh(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "limen.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := New(Options{Store: st, Limits: Limits{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	ctx := peercred.NewContext(b.Context(), peercred.AuthInfo{User: DefaultTrustedGateways()[0], UID: uint32(os.Getuid()), PID: int32(os.Getpid()), Start: self.Start})
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		b.Fatal(err)
	}
	for range 3 {
		for _, a := range acts {
			resp, err := s.Decide(ctx, &limenv1.DecideRequest{Action: a.Action})
			if err != nil {
				b.Fatal(err)
			}
			if id := resp.GetDecision().GetAskId(); id != "" {
				choice := limenv1.Choice_CHOICE_DENY
				if a.Approve {
					choice = limenv1.Choice_CHOICE_APPROVE
				}
				if _, err := s.Answer(ctx, &limenv1.AnswerRequest{AskId: id, Choice: choice}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
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
