package server

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

var (
	rebuildMillion = flag.Bool("limen.rebuild1m", false, "BenchmarkRebuild: also rebuild from 1,000,000 answers (filling the store takes minutes)")
	rebuildCache   = flag.String("limen.fixtures", "", "BenchmarkRebuild: keep the filled stores in this directory and reuse them on later runs")
)

// rebuildFixture names the cached store of n answers; bump the version
// whenever fillAnswers changes what it stores.
func rebuildFixture(n int) string { return fmt.Sprintf("rebuild-v1-%d.db", n) }

// BenchmarkRebuild is limend's start: New loads the policy and replays
// every stored answer into a fresh estimator. One op is one whole start;
// ns/answer is the figure to watch. The answers are the fixture stream's
// actions spread over 100 users, with their ladders stored as Answer
// stores them. 1M answers run with -limen.rebuild1m. Filling 1M answers
// through the store's API takes minutes; -limen.fixtures DIR keeps each
// filled store in DIR and opens it again on later runs, so that the rebuild,
// still from a real bbolt file, can be measured over and over.
func BenchmarkRebuild(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *rebuildMillion {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("answers=%d", n), func(b *testing.B) {
			st := rebuildStore(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := New(Options{Store: st}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/answer")
			b.StopTimer()
			b.ReportMetric(heapAfter(b, st), "heap-MiB")
		})
	}
}

// heapAfter reports the heap a fresh server holds once started: the
// predictor's counts, for the most part.
func heapAfter(b *testing.B, st *store.Store) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := New(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

// rebuildStore returns an open store of n answers, filled now or, with
// -limen.fixtures, possibly on an earlier run.
func rebuildStore(b *testing.B, n int) *store.Store {
	path := filepath.Join(b.TempDir(), "limen.db")
	cached := false
	if *rebuildCache != "" {
		path = filepath.Join(*rebuildCache, rebuildFixture(n))
		_, err := os.Stat(path)
		cached = err == nil
	}
	fill := path
	if !cached && *rebuildCache != "" {
		fill += ".filling" // renamed once complete, so an interrupted fill is not reused
	}
	st, err := store.Open(fill, store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if !cached {
		fillAnswers(b, st, n)
	}
	if fill != path {
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(fill, path); err != nil {
			b.Fatal(err)
		}
		if st, err = store.Open(path, store.Options{NoSync: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { _ = st.Close() })
	if got, err := st.AnswerCount(); err != nil || got != n {
		b.Fatalf("store %s holds %d answers (%v); want %d", path, got, err, n)
	}
	return st
}

// fillAnswers asks and answers n times through the store's own API.
func fillAnswers(b *testing.B, st *store.Store, n int) {
	b.Helper()
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Add(-30 * 24 * time.Hour)
	for i := range n {
		a := acts[i%len(acts)]
		msg := &limenv1.Action{User: fmt.Sprintf("u%02d", i%100), Tool: a.Action.GetTool(), InputJson: a.Action.GetInputJson(), Cwd: a.Action.GetCwd()}
		at := t0.Add(time.Duration(i) * time.Second)
		act, err := convert.Action(msg, at)
		if err != nil {
			b.Fatal(err)
		}
		id, err := st.NextID()
		if err != nil {
			b.Fatal(err)
		}
		d := &limenv1.Decision{DecisionId: store.FormatID(id), AskId: store.FormatID(id), Time: timestamppb.New(at), Action: msg, Verdict: limenv1.Verdict_VERDICT_ASK}
		if err := (apiStore{st}).AddPending(d, &limenv1.PendingAsk{AskId: d.AskId}); err != nil {
			b.Fatal(err)
		}
		choice := limenv1.Choice_CHOICE_DENY
		if a.Approve {
			choice = limenv1.Choice_CHOICE_APPROVE
		}
		rec := &storev1.AnswerRecord{Action: storeAction(msg), Choice: storev1.Choice(choice), Scope: storev1.Scope_SCOPE_ONCE, AnsweredBy: msg.User, Time: timestamppb.New(at), KeyScheme: action.KeyScheme}
		for _, l := range ladders(action.Parts(act)) {
			rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: l})
		}
		if _, err := st.Answer(id, rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideHandler is the Decide handler alone, called in process
// with a Unix-socket identity in the context: no gRPC, no client. The
// server has learned the fixture stream's answers (as limenctl bench
// --seed-answers does) and then decides its actions in turn. Its allocs/op
// are the garbage limend makes per decision, which sets how often its GC
// runs under load.
// taughtServer is a server on a fresh store that has learned the fixture
// stream's answers (as limenctl bench --seed-answers does), the context of
// limend's owner answering from its own process (as the person's TUI
// would: limend reads its ancestry and finds no runtime), and the
// stream's actions. It is stopped when the benchmark ends.
func taughtServer(b *testing.B) (*Server, context.Context, []loadgen.Action) {
	b.Helper()
	st, err := store.Open(filepath.Join(b.TempDir(), "limen.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s, err := New(Options{Store: st, Limits: Limits{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Stop)
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	ctx := peercred.NewContext(b.Context(), peercred.AuthInfo{User: DefaultTrustedGateways()[0], UID: uint32(os.Getuid()), PID: int32(os.Getpid()), Start: self.Start})
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		b.Fatal(err)
	}
	for range 3 { // teach it the stream's answers
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
	return s, ctx, acts
}

func BenchmarkDecideHandler(b *testing.B) {
	s, ctx, acts := taughtServer(b)
	reqs := make([]*limenv1.DecideRequest, len(acts))
	for i, a := range acts {
		reqs[i] = &limenv1.DecideRequest{Action: a.Action}
	}
	asks := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		resp, err := s.Decide(ctx, reqs[i%len(reqs)])
		if err != nil {
			b.Fatal(err)
		}
		if resp.GetDecision().GetAskId() != "" {
			asks++
		}
		i++
	}
	b.ReportMetric(float64(asks)/float64(i), "asks/op")
}
