package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Targets of docs/BENCHMARKS.md: reported next to the numbers, never
// enforced.
const (
	targetLatencyRatio = 1.3
	targetQPS          = 15000
)

// benchRun is one concurrency level's report with the ratio of Decide to
// the baseline.
type benchRun struct {
	*loadgen.Report
	Ratio loadgen.Ratio `json:"ratio"`
}

// benchOptions are bench's flags.
type benchOptions struct {
	levels          []int
	rate            float64
	duration, round time.Duration
	actions         string
	limit           int
	pid             int
	seed            bool
	seedPasses      int
	noBaseline      bool
	realLimend      bool
}

func newBenchCmd(a *app) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure limend: Decide against a no-op call on the same socket",
		Long: `bench drives Decide at a running limend over its Unix socket, through the
same Go client an agent runtime uses, with actions drawn in turn from a
stream file (the format in docs/evaluation.md, "Stream format"; by default a
built-in 300-action fixture).
In the same run it drives a no-op baseline — the gRPC health Check, answered
from memory on the same socket — in short alternating rounds, so noise on
the machine hits both alike, and prints Decide's cost as a ratio of it.

It reports calls per second, latency quantiles (p50, p90, p99, p99.9), CPU
time per call of this process and of limend (read from /proc), and this
process's heap allocations per call. It stops by itself after --duration of
each call kind at each concurrency level.

Closed loop (the default): -c callers, each calling again as soon as its
last call returns; this finds the throughput. Open loop (--rate): calls are
due on a fixed schedule and latency counts from when a call was due, so a
stall shows in every call it held up (no coordinated omission); the latency
from the actual send is shown as "service".

What Decide costs depends on its verdict: allow and block are decided in
memory and logged in batches, while every ask is queued with a synchronous
write (an fsync). Run bench against a scratch limend (bench refuses a limend
that holds decisions or asks it did not make, unless --against-real-limend:
its asks would wait in your queue, and its answers teach your predictor), and pass
--seed-answers first: it answers each distinct action's ask as the stream
says, so that most decisions are made by limen on its own, as in steady use.
The verdicts are counted in the report. Even then the default policy asks
about 1% of would-be allows (exploration), which lands on p99; set
exploration = 0.0 on the scratch limend to measure only the decisions limen
makes on its own. limend limits each user to --rate decisions per second
(2000 by default): start it with a higher --rate for a benchmark, or calls
come back refused. docs/BENCHMARKS.md has the method and the numbers.`,
		Example: `  # a scratch limend for benchmarks
  limend --socket /tmp/lb/limend.sock --db /tmp/lb/limen.db --http-socket "" --rate 1000000 &
  export LIMEN_SOCKET=/tmp/lb/limend.sock

  limenctl bench --seed-answers -c 1,16 --duration 10s
  limenctl policy show --document | sed 's/^exploration = .*/exploration = 0.0/' | limenctl policy set -
  limenctl bench -c 1,16 --duration 10s
  limenctl bench --actions eval/testdata/smoke.jsonl --seed-answers
  limenctl bench --rate 2000 -c 16 --duration 20s
  limenctl bench -c 16 --json > bench.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd.Context(), a, o) },
	}
	f := cmd.Flags()
	f.IntSliceVarP(&o.levels, "concurrency", "c", []int{1, 16}, "concurrent callers; a list runs each level in turn")
	f.Float64Var(&o.rate, "rate", 0, "open loop: calls per second (0: closed loop, as fast as the callers go)")
	f.DurationVar(&o.duration, "duration", 5*time.Second, "measured time of each call kind at each level")
	f.DurationVar(&o.round, "round", 200*time.Millisecond, "length of one round; Decide and the baseline alternate round by round")
	f.StringVar(&o.actions, "actions", "", "stream of actions in the format of docs/evaluation.md, such as eval/testdata/smoke.jsonl (default: a built-in 300-action fixture)")
	f.IntVar(&o.limit, "limit", 0, "read at most this many actions from --actions (0: all)")
	f.IntVar(&o.pid, "pid", 0, "limend's process id, to measure its CPU time (default: the process serving the socket; -1: don't)")
	f.BoolVar(&o.seed, "seed-answers", false, "first decide each distinct action and answer its ask as the stream says, so limen learns them")
	f.IntVar(&o.seedPasses, "seed-passes", 3, "at most this many seeding passes over the distinct actions")
	f.BoolVar(&o.noBaseline, "no-baseline", false, "drive Decide only (no health Check rounds)")
	f.BoolVar(&o.realLimend, "against-real-limend", false, "run even though limend holds decisions that bench did not make: its fake asks join your queue, and --seed-answers teaches the predictor")
	return cmd
}

// check refuses flags out of range, naming the flag and the fix.
func (o benchOptions) check() error {
	if len(o.levels) == 0 {
		return usagef("-c needs at least one concurrency level, such as -c 1,16")
	}
	for _, c := range o.levels {
		if c < 1 || c > 4096 {
			return usagef("-c %d: a concurrency level is between 1 and 4096", c)
		}
	}
	switch {
	case o.rate < 0:
		return usagef("--rate %v is negative: give calls per second, or 0 for a closed loop", o.rate)
	case o.duration <= 0 || o.duration > time.Hour:
		return usagef("--duration %v: give how long to measure each call kind, between 1s and 1h, such as 10s", o.duration)
	case o.round < 10*time.Millisecond || o.round > o.duration:
		return usagef("--round %v: a round is at least 10ms and at most --duration (default 200ms)", o.round)
	case o.limit < 0:
		return usagef("--limit %d is negative: give how many lines of --actions to read, or 0 for all", o.limit)
	}
	return nil
}

// benchReport is what bench prints with --json.
type benchReport struct {
	Actions int                 `json:"actions"`
	Source  string              `json:"source"`
	PID     int                 `json:"limend_pid,omitempty"`
	Seed    *loadgen.SeedResult `json:"seed,omitempty"`
	Runs    []benchRun          `json:"runs"`
}

// runBench is limenctl bench.
func runBench(ctx context.Context, a *app, o benchOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	acts, err := loadgen.ReadActionsFile(o.actions, o.limit)
	if err != nil {
		return usagef("--actions: %v", err)
	}
	source := loadgen.FixtureName
	if o.actions != "" {
		source = o.actions
	}
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if err := probe(ctx, a, c); err != nil {
		return err
	}
	if !o.realLimend {
		if err := refuseRealUse(ctx, c); err != nil {
			return err
		}
	}
	pid := o.pid
	if pid == 0 {
		// Found through the socket: if its /proc entry cannot be
		// read (another PID namespace), measure without it.
		if pid = serverPID(c.Socket()); pid > 0 {
			if _, err := loadgen.ProcessCPU(pid); err != nil {
				pid = 0
			}
		}
	}
	out := benchReport{Actions: len(acts), Source: source, PID: max(pid, 0)}

	if o.seed {
		if out.Seed, err = seedAnswers(ctx, a, c, acts, o.seedPasses); err != nil {
			return err
		}
	}

	targets := []loadgen.Target{{Name: "health", Call: loadgen.HealthCall(c)}, {Name: "decide", Call: loadgen.DecideCall(c, acts)}}
	if o.noBaseline {
		targets = targets[1:]
	}
	if !a.json {
		mode := "closed loop"
		if o.rate > 0 {
			mode = fmt.Sprintf("open loop at %g calls/s", o.rate)
		}
		fmt.Fprintf(a.out, "limenctl bench: %s, %v of each call kind per level in %v rounds, alternating\n", mode, o.duration, o.round)
		fmt.Fprintf(a.out, "actions: %d from %s", len(acts), source)
		if pid > 0 {
			fmt.Fprintf(a.out, "; limend pid %d", pid)
		}
		fmt.Fprintln(a.out)
	}
	for _, conc := range o.levels {
		bar := newBar(a, int64(o.duration/time.Millisecond), fmt.Sprintf("c=%d", conc))
		rep, err := loadgen.Run(ctx, loadgen.Config{
			Concurrency: conc, Rate: o.rate, Duration: o.duration, Round: o.round, ServerPID: max(pid, 0),
			Progress: func(done, total time.Duration) { bar.set(int64(done/time.Millisecond), int64(total/time.Millisecond)) },
		}, targets...)
		bar.finish()
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		run := benchRun{Report: rep}
		if h, d := rep.Target("health"), rep.Target("decide"); h != nil && d != nil {
			run.Ratio = loadgen.Compare(d, h)
		}
		out.Runs = append(out.Runs, run)
		if !a.json {
			printBenchRun(a, run)
		}
	}
	if a.json {
		return a.printJSON(out)
	}
	printTargets(a, out.Runs)
	return nil
}

// seedAnswers answers each distinct action's ask as the stream says, so
// that limen decides most of them on its own during the measurement.
func seedAnswers(ctx context.Context, a *app, c *client.Client, acts []loadgen.Action, passes int) (*loadgen.SeedResult, error) {
	bar := newBar(a, -1, "seeding answers")
	res, err := loadgen.Seed(ctx, c, acts, passes, 4, func(done, total int) {
		bar.set(int64(done), int64(total))
	})
	bar.finish()
	if err != nil {
		return &res, err
	}
	if !a.json {
		fmt.Fprintf(a.out, "seeded: %d distinct actions, asks per pass %v, answered %d approve / %d deny\n\n",
			res.Distinct, res.Asked, res.Approved, res.Denied)
	}
	return &res, nil
}

// refuseRealUse refuses a limend in real use: one that holds a pending
// ask or a decision whose agent is not bench's own. Every page of the
// history is read, since a past bench run can bury older real decisions.
func refuseRealUse(ctx context.Context, c *client.Client) error {
	real := func(d *limenv1.Decision) bool { return d.GetAction().GetAgent() != loadgen.Agent }
	var found *limenv1.Decision
	pend, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return fmt.Errorf("bench: look for real asks: %w", err)
	}
	for _, p := range pend.GetAsks() {
		if real(p.GetDecision()) {
			found = p.GetDecision()
			break
		}
	}
	for before := ""; found == nil; {
		h, err := c.API.History(ctx, &limenv1.HistoryRequest{Limit: 1000, BeforeId: before})
		if err != nil {
			return fmt.Errorf("bench: look for real decisions: %w", err)
		}
		for _, d := range h.GetDecisions() {
			if real(d) {
				found = d
				break
			}
		}
		if len(h.GetDecisions()) < 1000 {
			break
		}
		before = h.GetDecisions()[len(h.GetDecisions())-1].GetDecisionId()
	}
	if found == nil {
		return nil
	}
	return fmt.Errorf("limend at %s is in real use: it holds decision %s (%s by %s for %s, %s), which bench did not make; "+
		"bench would queue its fake asks among yours, and --seed-answers would teach your predictor its answers\n"+
		"hint: run bench against a scratch limend: limend --socket /tmp/lb/limend.sock --db /tmp/lb/limen.db --http-socket \"\" --rate 1000000 & "+
		"then limenctl --socket /tmp/lb/limend.sock bench; or pass --against-real-limend if you mean to",
		c.Socket(), found.GetDecisionId(), found.GetAction().GetTool(), found.GetAction().GetAgent(), found.GetAction().GetUser(),
		found.GetTime().AsTime().Format(time.RFC3339))
}

// probe fails fast, with the usual hint, when limend is not there.
func probe(ctx context.Context, a *app, c *client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	_, err := loadgen.HealthCall(c)(ctx, 0, 0)
	return err
}

// serverPID asks the kernel which process serves the socket (SO_PEERCRED
// and LOCAL_PEERPID work from the client side too); 0 if it cannot tell.
func serverPID(socket string) int {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return 0
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if _, p, err := peercred.FromFD(int(fd)); err == nil {
			pid = int(p)
		}
	})
	return pid
}

// bar is a progress bar on stderr, shown only when stderr is a terminal
// and the output is not JSON.
type bar struct{ pb *progressbar.ProgressBar }

func newBar(a *app, max int64, desc string) *bar {
	f, ok := a.errOut.(*os.File)
	if !ok || a.json || !term.IsTerminal(int(f.Fd())) {
		return &bar{}
	}
	return &bar{pb: progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionSetPredictTime(true))}
}

func (b *bar) set(done, total int64) {
	if b.pb == nil {
		return
	}
	if b.pb.GetMax64() != total {
		b.pb.ChangeMax64(total)
	}
	_ = b.pb.Set64(done)
}

func (b *bar) finish() {
	if b.pb != nil {
		_ = b.pb.Finish()
		_ = b.pb.Clear()
	}
}

func printBenchRun(a *app, run benchRun) {
	fmt.Fprintf(a.out, "\nconcurrency %d (%d rounds each)\n", run.Concurrency, run.Rounds)
	w := a.table()
	fmt.Fprintln(w, "CALL\tCALLS\tCALLS/S\tP50\tP90\tP99\tP99.9\tMAX\tCPU/CALL BENCH\tCPU/CALL LIMEND\tALLOCS/CALL\tERRORS")
	for _, s := range run.Targets {
		fmt.Fprintf(w, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%d\n", s.Name, s.Calls, s.QPS,
			dur(s.Latency.P50), dur(s.Latency.P90), dur(s.Latency.P99), dur(s.Latency.P999), dur(s.Latency.Max),
			dur(s.ClientCPU), dur(s.ServerCPU), s.AllocsPerCall, s.Errors+s.Dropped)
		if s.Service != nil {
			fmt.Fprintf(w, "  (service)\t\t\t%s\t%s\t%s\t%s\t%s\t\t\t\t\n",
				dur(s.Service.P50), dur(s.Service.P90), dur(s.Service.P99), dur(s.Service.P999), dur(s.Service.Max))
		}
	}
	if r := run.Ratio; r.Of != "" {
		fmt.Fprintf(w, "decide÷health\t\t%.2f×\t%.2f×\t%.2f×\t%.2f×\t%.2f×\t\t%.2f×\t%s\t\t\n",
			r.QPS, r.P50, r.P90, r.P99, r.P999, r.ClientCPU, ratio(r.ServerCPU))
	}
	w.Flush()
	for _, s := range run.Targets {
		if s.Name == "decide" {
			fmt.Fprintf(a.out, "verdicts: %s\n", shares(s.Outcomes))
		}
		if s.FirstError != "" {
			fmt.Fprintf(a.out, "%s: %d calls failed; the first: %s\n", s.Name, s.Errors, s.FirstError)
		}
		if s.Dropped > 0 {
			fmt.Fprintf(a.out, "%s: %d calls were never sent: the callers fell a whole round behind the schedule (lower --rate or raise -c)\n", s.Name, s.Dropped)
		}
	}
}

// printTargets sets the numbers against docs/BENCHMARKS.md's targets.
func printTargets(a *app, runs []benchRun) {
	fmt.Fprintln(a.out, "\ntargets (docs/BENCHMARKS.md; reported, not enforced):")
	w := a.table()
	for _, run := range runs {
		r := run.Ratio
		if r.Of == "" {
			continue
		}
		fmt.Fprintf(w, "  c=%d\tdecide p50 %.2f× health\t(≤ %.1f×)\t%s\n", run.Concurrency, r.P50, targetLatencyRatio, met(r.P50 <= targetLatencyRatio))
		fmt.Fprintf(w, "  c=%d\tdecide p99 %.2f× health\t(≤ %.1f×)\t%s\n", run.Concurrency, r.P99, targetLatencyRatio, met(r.P99 <= targetLatencyRatio))
		// The throughput target is for both cores busy: one caller
		// waiting on each call cannot do that, so c=1 is not judged.
		if run.Mode == "closed" && run.Concurrency > 1 {
			if d := run.Target("decide"); d != nil {
				fmt.Fprintf(w, "  c=%d\t%.0f decide calls/s\t(≥ %d)\t%s\n", run.Concurrency, d.QPS, targetQPS, met(d.QPS >= targetQPS))
			}
		}
	}
	w.Flush()
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", x)
}

// dur prints a latency with three significant digits.
func dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// shares prints outcome counts as percentages, largest first.
func shares(m map[string]uint64) string {
	var total uint64
	keys := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, k)
		total += v
	}
	if total == 0 {
		return "none"
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f%%", k, 100*float64(m[k])/float64(total))
	}
	return strings.Join(parts, ", ")
}
