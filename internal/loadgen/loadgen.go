// Package loadgen drives calls at limend and measures them, for
// `limenctl bench`. It runs two kinds of call — Decide and a no-op baseline
// (the gRPC health Check on the same socket) — in short alternating rounds,
// so that noise on the machine hits both alike and their ratio means
// something, and reports throughput, latency quantiles, CPU time per call
// and client allocations per call. It prints nothing: the command formats
// the Report.
//
// Two ways to load:
//
//   - Closed loop (Config.Rate 0): Config.Concurrency callers, each making
//     its next call as soon as the last one returns. This finds the most
//     calls per second, but a slow response also delays the calls behind
//     it, so it understates tail latency ("coordinated omission").
//   - Open loop (Config.Rate > 0): calls are due on a fixed schedule, and
//     each latency is measured from the moment the call was due, not from
//     when it was sent. A stall therefore shows up in every call it delayed.
//     The latency from the actual send is reported beside it (Service).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Call makes one call. worker is the caller's index and seq counts that
// caller's calls. It returns an outcome to tally (such as the verdict) and
// an error if the call failed; a failed call may still have an outcome.
type Call func(ctx context.Context, worker int, seq uint64) (outcome string, err error)

// Target is one kind of call to measure.
type Target struct {
	Name string
	Call Call
}

// Config tunes Run. Zero fields take the defaults documented on each.
type Config struct {
	// Concurrency is the number of callers. Default 1.
	Concurrency int
	// Rate, when above zero, makes the load an open loop of Rate calls per
	// second (over all callers) while a target's round runs. Zero is a
	// closed loop.
	Rate float64
	// Duration is the measured time per target, the sum of its rounds.
	// Default 10s.
	Duration time.Duration
	// Round is the length of one round; targets take turns round by round.
	// Default 200ms.
	Round time.Duration
	// Warmup is run once per target, unmeasured, before the first round.
	// Default one Round; negative means none.
	Warmup time.Duration
	// ServerPID, if set, is the process whose CPU time is charged to the
	// calls (limend's).
	ServerPID int
	// Progress, if set, is called after every round with the time done and
	// the time the whole run will take.
	Progress func(done, total time.Duration)
}

func (c Config) withDefaults() Config {
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.Round <= 0 {
		c.Round = 200 * time.Millisecond
	}
	if c.Warmup == 0 {
		c.Warmup = c.Round
	}
	return c
}

// Latency is a summary of a latency distribution.
type Latency struct {
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p99_9_ns"`
	Max  time.Duration `json:"max_ns"`
	Mean time.Duration `json:"mean_ns"`
}

func summarise(h *Histogram) Latency {
	return Latency{
		P50: h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99), P999: h.Quantile(0.999),
		Max: h.Max(), Mean: h.Mean(),
	}
}

// Stats are one target's measurements over all its rounds.
type Stats struct {
	Name  string `json:"name"`
	Calls uint64 `json:"calls"`
	// Errors counts calls that returned an error; FirstError is the first.
	Errors     uint64 `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	// Dropped counts open-loop calls never sent because the callers fell a
	// whole round behind schedule; each is recorded in Latency with the
	// time it had waited, so they cannot flatter the tail.
	Dropped  uint64            `json:"dropped,omitempty"`
	Outcomes map[string]uint64 `json:"outcomes"`
	// Wall is the time the target's rounds took; QPS is Calls / Wall.
	Wall time.Duration `json:"wall_ns"`
	QPS  float64       `json:"qps"`
	// Latency is from when each call was due (open loop) or sent (closed
	// loop) to its response.
	Latency Latency `json:"latency"`
	// Service is from the actual send to the response; open loop only.
	Service *Latency `json:"service_latency,omitempty"`
	// ClientCPU is this process's CPU time (user + system, all threads)
	// per call; ServerCPU is Config.ServerPID's, when it was given.
	ClientCPU time.Duration `json:"client_cpu_per_call_ns"`
	ServerCPU time.Duration `json:"server_cpu_per_call_ns,omitempty"`
	// AllocsPerCall and BytesPerCall are heap allocations in this process
	// (runtime.MemStats) per call.
	AllocsPerCall float64 `json:"allocs_per_call"`
	BytesPerCall  float64 `json:"bytes_per_call"`
}

// Report is the result of Run.
type Report struct {
	Mode        string        `json:"mode"` // "closed" or "open"
	Concurrency int           `json:"concurrency"`
	Rate        float64       `json:"rate,omitempty"`
	Round       time.Duration `json:"round_ns"`
	Rounds      int           `json:"rounds"`
	Targets     []Stats       `json:"targets"`
}

// Target returns the stats of the named target, or nil.
func (r *Report) Target(name string) *Stats {
	for i := range r.Targets {
		if r.Targets[i].Name == name {
			return &r.Targets[i]
		}
	}
	return nil
}

// Ratio compares one target with another: each field is of/to.
type Ratio struct {
	Of        string  `json:"of"`
	To        string  `json:"to"`
	P50       float64 `json:"p50"`
	P90       float64 `json:"p90"`
	P99       float64 `json:"p99"`
	P999      float64 `json:"p99_9"`
	QPS       float64 `json:"qps"`
	ClientCPU float64 `json:"client_cpu"`
	ServerCPU float64 `json:"server_cpu,omitempty"`
}

// Compare returns the ratios of a to b.
func Compare(a, b *Stats) Ratio {
	div := func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	}
	d := func(x, y time.Duration) float64 { return div(float64(x), float64(y)) }
	return Ratio{
		Of: a.Name, To: b.Name,
		P50: d(a.Latency.P50, b.Latency.P50), P90: d(a.Latency.P90, b.Latency.P90),
		P99: d(a.Latency.P99, b.Latency.P99), P999: d(a.Latency.P999, b.Latency.P999),
		QPS:       div(a.QPS, b.QPS),
		ClientCPU: d(a.ClientCPU, b.ClientCPU), ServerCPU: d(a.ServerCPU, b.ServerCPU),
	}
}

// worker is one caller's tallies for one target, kept across rounds.
type worker struct {
	hist, service Histogram
	calls, errors uint64
	dropped       uint64
	firstErr      error
	outcomes      map[string]uint64
}

func (w *worker) done(outcome string, err error) {
	w.calls++
	if outcome != "" {
		w.outcomes[outcome]++
	}
	if err != nil {
		w.errors++
		if w.firstErr == nil {
			w.firstErr = err
		}
	}
}

// tally is one target's measurements across rounds.
type tally struct {
	workers              []*worker
	wall                 time.Duration
	clientCPU, serverCPU time.Duration
	mallocs, bytes       uint64
}

// Run measures targets with cfg until each has had cfg.Duration of rounds
// or ctx is done, whichever comes first; it then reports what it measured
// (with ctx's error if it was cut short). The targets take turns, round by
// round, in an order that alternates (AB BA AB …) so that neither always
// runs first.
func Run(ctx context.Context, cfg Config, targets ...Target) (*Report, error) {
	cfg = cfg.withDefaults()
	if len(targets) == 0 {
		return nil, errors.New("loadgen: no targets to run")
	}
	if cfg.Rate < 0 {
		return nil, fmt.Errorf("loadgen: rate %v is negative: give calls per second, or 0 for a closed loop", cfg.Rate)
	}
	if cfg.ServerPID > 0 {
		if _, err := ProcessCPU(cfg.ServerPID); err != nil {
			return nil, fmt.Errorf("loadgen: %w (is the pid limend's?)", err)
		}
	}
	rounds := int((cfg.Duration + cfg.Round - 1) / cfg.Round)
	warm := max(cfg.Warmup, 0)
	total := time.Duration(len(targets)) * (warm + time.Duration(rounds)*cfg.Round)
	var done time.Duration
	progress := func(d time.Duration) {
		done += d
		if cfg.Progress != nil {
			cfg.Progress(min(done, total), total)
		}
	}

	tallies := make([]*tally, len(targets))
	for i := range tallies {
		tallies[i] = &tally{workers: make([]*worker, cfg.Concurrency)}
		for w := range tallies[i].workers {
			tallies[i].workers[w] = &worker{outcomes: map[string]uint64{}}
		}
	}
	if warm > 0 {
		for _, t := range targets {
			scratch := &tally{workers: make([]*worker, cfg.Concurrency)}
			for w := range scratch.workers {
				scratch.workers[w] = &worker{outcomes: map[string]uint64{}}
			}
			round(ctx, cfg, t, warm, scratch)
			progress(warm)
		}
	}
	ran := 0
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		for j := range targets {
			i := j
			if r%2 == 1 {
				i = len(targets) - 1 - j
			}
			round(ctx, cfg, targets[i], cfg.Round, tallies[i])
			progress(cfg.Round)
		}
		ran++
	}

	rep := &Report{Mode: "closed", Concurrency: cfg.Concurrency, Rate: cfg.Rate, Round: cfg.Round, Rounds: ran}
	if cfg.Rate > 0 {
		rep.Mode = "open"
	}
	for i, t := range targets {
		rep.Targets = append(rep.Targets, tallies[i].stats(t.Name, cfg))
	}
	return rep, ctx.Err()
}

func (t *tally) stats(name string, cfg Config) Stats {
	var hist, service Histogram
	s := Stats{Name: name, Outcomes: map[string]uint64{}, Wall: t.wall}
	for _, w := range t.workers {
		hist.Merge(&w.hist)
		service.Merge(&w.service)
		s.Calls += w.calls
		s.Errors += w.errors
		s.Dropped += w.dropped
		if s.FirstError == "" && w.firstErr != nil {
			s.FirstError = w.firstErr.Error()
		}
		for k, v := range w.outcomes {
			s.Outcomes[k] += v
		}
	}
	s.Latency = summarise(&hist)
	if cfg.Rate > 0 {
		l := summarise(&service)
		s.Service = &l
	}
	if s.Calls > 0 {
		n := float64(s.Calls)
		s.QPS = n / t.wall.Seconds()
		s.ClientCPU = t.clientCPU / time.Duration(s.Calls)
		s.ServerCPU = t.serverCPU / time.Duration(s.Calls)
		s.AllocsPerCall = float64(t.mallocs) / n
		s.BytesPerCall = float64(t.bytes) / n
	}
	return s
}

// round runs one target for length and adds what it measured to t.
func round(ctx context.Context, cfg Config, target Target, length time.Duration, t *tally) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := selfCPU()
	var srv0 time.Duration
	if cfg.ServerPID > 0 {
		srv0, _ = ProcessCPU(cfg.ServerPID)
	}
	start := time.Now()
	deadline := start.Add(length)
	var wg sync.WaitGroup
	for i, w := range t.workers {
		wg.Go(func() {
			if cfg.Rate > 0 {
				openLoop(ctx, cfg, target.Call, i, w, start, deadline)
			} else {
				closedLoop(ctx, target.Call, i, w, deadline)
			}
		})
	}
	wg.Wait()
	t.wall += time.Since(start)
	t.clientCPU += selfCPU() - cpu0
	if cfg.ServerPID > 0 {
		if srv1, err := ProcessCPU(cfg.ServerPID); err == nil {
			t.serverCPU += srv1 - srv0
		}
	}
	runtime.ReadMemStats(&after)
	t.mallocs += after.Mallocs - before.Mallocs
	t.bytes += after.TotalAlloc - before.TotalAlloc
}

func closedLoop(ctx context.Context, call Call, id int, w *worker, deadline time.Time) {
	for seq := uint64(0); ctx.Err() == nil; seq++ {
		t0 := time.Now()
		if !t0.Before(deadline) {
			return
		}
		out, err := call(ctx, id, seq)
		w.hist.Record(time.Since(t0))
		w.done(out, err)
	}
}

// openLoop makes this caller's share of the calls due between start and
// deadline. Caller id's calls are due at start + (k·n + id)/rate for
// k = 0, 1, …, where n is the number of callers.
func openLoop(ctx context.Context, cfg Config, call Call, id int, w *worker, start, deadline time.Time) {
	n := float64(cfg.Concurrency)
	interval := time.Duration(float64(time.Second) * n / cfg.Rate)
	due := start.Add(time.Duration(float64(time.Second) * float64(id) / cfg.Rate))
	for seq := uint64(0); due.Before(deadline) && ctx.Err() == nil; seq++ {
		now := time.Now()
		if wait := due.Sub(now); wait > 0 {
			time.Sleep(wait)
		} else if -wait > cfg.Round {
			// A whole round behind: the rest of this round's calls can no
			// longer be sent near their time. Count each as dropped, with
			// the time it has already waited as its latency.
			for ; due.Before(deadline); due = due.Add(interval) {
				w.hist.Record(now.Sub(due))
				w.dropped++
			}
			return
		}
		sent := time.Now()
		out, err := call(ctx, id, seq)
		end := time.Now()
		w.hist.Record(end.Sub(due))
		w.service.Record(end.Sub(sent))
		w.done(out, err)
		due = due.Add(interval)
	}
}
