package loadgen

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestHistogramQuantilesAreWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var vals []time.Duration
	for range 100_000 {
		// Log-uniform over 1µs .. 1s, like latencies.
		v := time.Duration(1e3 * float64(int64(1)<<r.IntN(20)) * (1 + r.Float64()))
		vals = append(vals, v)
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		want := vals[max(int(q*float64(len(vals)))-1, 0)]
		got := h.Quantile(q)
		if diff := float64(got-want) / float64(want); diff > 0.01 || diff < -0.01 {
			t.Errorf("Quantile(%v) = %v, exact %v: off by %.2f%%, more than 1%%", q, got, want, 100*diff)
		}
	}
	if h.Max() != vals[len(vals)-1] {
		t.Errorf("Max = %v, want exactly %v", h.Max(), vals[len(vals)-1])
	}
	if h.Count() != uint64(len(vals)) {
		t.Errorf("Count = %d, want %d", h.Count(), len(vals))
	}
}

func TestHistogramEdges(t *testing.T) {
	var empty Histogram
	if empty.Quantile(0.5) != 0 || empty.Mean() != 0 || empty.Max() != 0 {
		t.Errorf("an empty histogram reports nonzero values")
	}
	var h Histogram
	for _, v := range []time.Duration{-5, 0, 3, 127, 128, time.Duration(1<<62 + 12345)} {
		h.Record(v)
	}
	if got := h.Quantile(0); got != 0 {
		t.Errorf("Quantile(0) = %v, want 0 (negative values count as 0)", got)
	}
	if got, want := h.Quantile(1), time.Duration(1<<62+12345); got != want {
		t.Errorf("Quantile(1) = %v, want the exact max %v", got, want)
	}
	var m Histogram
	m.Merge(&h)
	m.Merge(&empty)
	if m.Count() != h.Count() || m.Quantile(0.5) != h.Quantile(0.5) {
		t.Errorf("Merge into an empty histogram changed the distribution")
	}
	for v := int64(0); v < 1<<20; v += 7 {
		if lo := lowest(bucketOf(v)); lo > v || bucketOf(lo) != bucketOf(v) {
			t.Fatalf("bucket of %d starts at %d", v, lo)
		}
	}
}

func TestReadActions(t *testing.T) {
	acts, err := ReadActionsFile("", 0)
	if err != nil {
		t.Fatalf("the fixture: %v", err)
	}
	if len(acts) != 300 {
		t.Errorf("the fixture has %d actions, want 300", len(acts))
	}
	a := acts[0].Action
	if a.GetUser() != "u31" || a.GetTool() != "Bash" || a.GetInputJson() != `{"command":"ack notebooks"}` || a.GetAgent() != Agent || !acts[0].Approve {
		t.Errorf("first fixture action = %v approve=%v", a, acts[0].Approve)
	}
	if got, _ := ReadActionsFile("", 10); len(got) != 10 {
		t.Errorf("limit 10 read %d actions", len(got))
	}

	tests := []struct {
		name, in, want string
	}{
		{"not json", "nope\n", "line 1"},
		{"no tool", `{"user":"u","input":{},"truth":"approve"}`, "tool is empty"},
		{"input not an object", `{"tool":"Bash","input":"ls","truth":"approve"}`, "input must be a JSON object"},
		{"bad truth", "\n" + `{"tool":"Bash","input":{},"truth":"maybe"}`, `line 2: truth is "maybe"`},
		{"empty", "\n\n", "no actions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadActions(strings.NewReader(tt.in), 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadActions(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := ReadActionsFile(filepath.Join(t.TempDir(), "none.jsonl"), 0)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want not exist", err)
		}
	})
	t.Run("no input means {}", func(t *testing.T) {
		got, err := ReadActions(strings.NewReader(`{"tool":"WebSearch","truth":"deny"}`), 0)
		if err != nil || got[0].Action.GetInputJson() != "{}" || got[0].Approve {
			t.Errorf("got %v, %v", got, err)
		}
	})
}

func TestProcessCPU(t *testing.T) {
	if _, err := ProcessCPU(os.Getpid()); err != nil {
		t.Errorf("ProcessCPU(self): %v", err)
	}
	if _, err := ProcessCPU(1 << 30); err == nil {
		t.Errorf("ProcessCPU of a process that does not exist: no error")
	}
}

// fake returns a call that takes about d and counts its calls.
func fake(d time.Duration, n *atomic.Int64, err error) Call {
	return func(context.Context, int, uint64) (string, error) {
		n.Add(1)
		time.Sleep(d)
		if err != nil {
			return "failed", err
		}
		return "ok", nil
	}
}

func TestRunClosedLoopInterleavesTargets(t *testing.T) {
	var order []string
	var fast, slow atomic.Int64
	boom := errors.New("boom")
	rep, err := Run(t.Context(), Config{
		Concurrency: 2, Duration: 60 * time.Millisecond, Round: 20 * time.Millisecond, Warmup: -1,
		Progress: func(done, total time.Duration) { order = append(order, done.String()+"/"+total.String()) },
	}, Target{Name: "fast", Call: fake(0, &fast, nil)}, Target{Name: "slow", Call: fake(2*time.Millisecond, &slow, boom)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "closed" || rep.Rounds != 3 || len(rep.Targets) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	if want := []string{"20ms/120ms", "40ms/120ms", "60ms/120ms", "80ms/120ms", "100ms/120ms", "120ms/120ms"}; !slices.Equal(order, want) {
		t.Errorf("progress = %v, want %v", order, want)
	}
	f, s := rep.Target("fast"), rep.Target("slow")
	if f.Calls == 0 || uint64(fast.Load()) != f.Calls || f.Errors != 0 || f.Outcomes["ok"] != f.Calls {
		t.Errorf("fast: %+v (calls made %d)", f, fast.Load())
	}
	if s.Errors != s.Calls || s.FirstError != "boom" || s.Outcomes["failed"] != s.Calls {
		t.Errorf("slow: errors %d of %d calls, first %q", s.Errors, s.Calls, s.FirstError)
	}
	if s.Latency.P50 < 2*time.Millisecond || s.Latency.P50 > 50*time.Millisecond {
		t.Errorf("slow p50 = %v, want about 2ms", s.Latency.P50)
	}
	if f.QPS <= s.QPS {
		t.Errorf("fast QPS %v is not above slow QPS %v", f.QPS, s.QPS)
	}
	if r := Compare(s, f); r.P50 <= 1 || r.Of != "slow" || r.To != "fast" {
		t.Errorf("Compare(slow, fast) = %+v, want p50 ratio above 1", r)
	}
	if rep.Target("nope") != nil {
		t.Errorf("Target of an unknown name is not nil")
	}
}

func TestRunOpenLoopCountsFromDueTime(t *testing.T) {
	// One caller at 1000 calls/s against calls that take 5ms: the callers
	// fall behind, so latency from the due time grows far past the 5ms
	// service time — the stall is not hidden.
	var n atomic.Int64
	rep, err := Run(t.Context(), Config{Concurrency: 1, Rate: 1000, Duration: 100 * time.Millisecond, Round: 100 * time.Millisecond, Warmup: -1},
		Target{Name: "slow", Call: fake(5*time.Millisecond, &n, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Targets[0]
	if rep.Mode != "open" || s.Service == nil {
		t.Fatalf("mode %q, service %v: want open with service latency", rep.Mode, s.Service)
	}
	if s.Service.P50 > 50*time.Millisecond || s.Latency.P99 < 40*time.Millisecond {
		t.Errorf("service p50 %v, latency p99 %v: want the latency from the due time far above the service time", s.Service.P50, s.Latency.P99)
	}
	if s.Calls+s.Dropped < 50 {
		t.Errorf("%d calls and %d dropped, want about 100 due", s.Calls, s.Dropped)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	var n atomic.Int64
	target := Target{Name: "x", Call: fake(0, &n, nil)}
	if _, err := Run(t.Context(), Config{}); err == nil {
		t.Errorf("no targets: no error")
	}
	if _, err := Run(t.Context(), Config{Rate: -1}, target); err == nil || !strings.Contains(err.Error(), "rate") {
		t.Errorf("negative rate: %v", err)
	}
	if _, err := Run(t.Context(), Config{ServerPID: 1 << 30}, target); err == nil || !strings.Contains(err.Error(), "limend") {
		t.Errorf("a pid that does not exist: %v", err)
	}
	if n.Load() != 0 {
		t.Errorf("a refused config still made %d calls", n.Load())
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	call := func(ctx context.Context, _ int, _ uint64) (string, error) {
		if n.Add(1) == 10 {
			cancel()
		}
		return "ok", nil
	}
	rep, err := Run(ctx, Config{Duration: time.Hour, Round: 10 * time.Millisecond, Warmup: -1}, Target{Name: "x", Call: call})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if rep == nil || rep.Rounds > 1 || rep.Targets[0].Calls < 10 {
		t.Errorf("report after cancel = %+v", rep)
	}
}

func TestRunOpenLoopDropsWhatItCannotSendInTime(t *testing.T) {
	// One caller due every 1ms for a 20ms round, against a call that takes
	// 30ms: after the first call it is a whole round behind, so the rest of
	// the round's calls are counted as dropped, with the time they waited.
	var n atomic.Int64
	rep, err := Run(t.Context(), Config{Concurrency: 1, Rate: 1000, Duration: 20 * time.Millisecond, Round: 20 * time.Millisecond, Warmup: -1},
		Target{Name: "stuck", Call: fake(30*time.Millisecond, &n, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Targets[0]
	if s.Calls != 1 || s.Dropped < 15 || s.Dropped > 20 {
		t.Errorf("%d calls, %d dropped: want 1 call and the rest of the round's ~19 dropped", s.Calls, s.Dropped)
	}
	if s.Latency.P50 < 10*time.Millisecond {
		t.Errorf("p50 %v: dropped calls must carry the time they waited", s.Latency.P50)
	}
}
