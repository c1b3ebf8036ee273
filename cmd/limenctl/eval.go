package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/limenhq/limen/eval"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// evalOptions are eval's flags.
type evalOptions struct {
	perUser    bool
	costs      string
	policyFile string
	seed       uint64
	usersHalf  string
	// interrupted, when set, adds limen learning through a dialog in
	// which these shares of answers arrive as interruptions.
	interrupted string
	floor       bool
}

func newEvalCmd(a *app) *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval STREAM.jsonl",
		Short: "Replay a labelled action stream through limen and the baselines",
		Long: `eval replays a labelled stream (one JSON action per line, with the person's
answer in "truth"; the format is in docs/evaluation.md) through limen's strategy and
the baselines always-ask, remember-exact and remember-prefix, in one pass.

Each strategy decides every action from what it has learned so far, and is
told the answer only when it asked, as in real use. limen's strategy is the
daemon's: the same action keys, policy rules and classes, estimator and
decision function, with exploration drawn from --seed. It runs locally and
needs no daemon.

Metrics: asks per 100 actions; wrong allows per 100 truly denied; wrong
blocks per 100 truly approved; expected cost per action under the policy in
force (each action costs what its riskiest part's class says); calibration
of the asked predictions (Brier score, reliability table); decisions per
second and per-decision p50/p99.`,
		Example: `  limenctl eval dev.jsonl
  limenctl eval dev.jsonl --per-user
  limenctl eval dev.jsonl --costs allow=20,block=2,ask=1 --json > report.json
  limenctl eval dev.jsonl --policy my-policy.toml --seed 7
  limenctl eval dev.jsonl --users-half a   # tune on these users …
  limenctl eval dev.jsonl --users-half b   # … and check on the others
  limenctl eval dev.jsonl --interrupted deny=0.5,approve=0.02   # what should Esc teach?`,
		Args: needArgs(1, "the labelled stream to replay (a .jsonl file, such as eval/testdata/smoke.jsonl)", "limenctl eval STREAM.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error { return runEvalStream(a, o, args[0]) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.perUser, "per-user", false, "also print each user's metrics")
	f.StringVar(&o.costs, "costs", "", "score and decide every class at these costs instead of the policy's, as allow=20,block=2,ask=1")
	f.StringVar(&o.policyFile, "policy", "", "replay under this policy document (default: limen's default policy)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of limen's exploration draws")
	f.StringVar(&o.usersHalf, "users-half", "", "replay only half of the stream's users, a or b, split by a fixed hash of the user id\n"+
		"(the other half's lines are skipped: they neither count nor teach), to tune on one half and check on the other")
	f.StringVar(&o.interrupted, "interrupted", "", "also replay limen learning from a runtime's dialog in which these shares of answers come only as an\n"+
		"interruption (No without a note, Esc, or Yes then Esc while it ran), once per way of teaching one:\n"+
		"nothing, a weak deny (the exact action only) and a deny; as deny=0.5,approve=0.02")
	f.BoolVar(&o.floor, "floor", false, "also replay the floors of limen's keys: oracles that know every answer, ask at the first\n"+
		"meeting of each key and are right after it (floor-keys; floor-coarse keys at the ladder's second level\n"+
		"below the tool instead of just above the exact key), and also pay for exact approvals of secret\n"+
		"reads and package installs (floor-exact) and for blocking only after two refusals (floor-blocks)")
	return cmd
}

// runEvalStream is limenctl eval STREAM.
func runEvalStream(a *app, o evalOptions, stream string) error {
	pol := policy.Default()
	if o.policyFile != "" {
		b, err := os.ReadFile(o.policyFile)
		if err != nil {
			return usagef("--policy: %v", err)
		}
		if pol, err = policy.Parse(string(b)); err != nil {
			return usagef("--policy %s: %v", o.policyFile, err)
		}
	}
	if o.costs != "" {
		c, err := parseEvalCosts(o.costs)
		if err != nil {
			return err
		}
		pol = flatCosts(pol, c)
	}
	var users func(string) bool
	switch o.usersHalf {
	case "":
	case "a", "b":
		users = func(u string) bool { return eval.UserHalf(u) == o.usersHalf }
	default:
		return usagef("--users-half %q: give a or b (each user id falls in one half, by a fixed hash)", o.usersHalf)
	}
	var interrupted eval.Interruptions
	if o.interrupted != "" {
		var err error
		if interrupted, err = parseInterruptions(o.interrupted); err != nil {
			return err
		}
	}
	f, err := os.Open(stream)
	if err != nil {
		return fmt.Errorf("eval: %w\nhint: give the path of a .jsonl stream, such as eval/testdata/smoke.jsonl in limen's source tree", err)
	}
	defer f.Close()
	var r io.Reader = f
	bar := progressBar(a.errOut, f)
	if bar != nil {
		r = io.TeeReader(f, bar)
	}
	strategies := []eval.Strategy{
		eval.NewLimen(pol, predictor.DefaultConfig(), o.seed),
		eval.AlwaysAsk{}, eval.NewRememberExact(), eval.NewRememberPrefix(),
	}
	if o.interrupted != "" {
		strategies = append(strategies, interruptedStrategies(pol, interrupted, o.seed)...)
	}
	if o.floor {
		strategies = append(strategies,
			eval.NewFloor("floor-coarse", pol, eval.FloorRules{Coarse: true}),
			eval.NewFloor("floor-keys", pol, eval.FloorRules{}),
			eval.NewFloor("floor-exact", pol, eval.FloorRules{ExactRisky: true}),
			eval.NewFloor("floor-blocks", pol, eval.FloorRules{ExactRisky: true, BlockAfter: 2}))
	}
	start := time.Now()
	rep, err := eval.Replay(r, strategies, eval.Options{Costs: eval.CostsUnder(pol), PerUser: o.perUser, Users: users})
	if bar != nil {
		_ = bar.Finish() // clears the bar's line before anything else is printed
	}
	if err != nil {
		return fmt.Errorf("eval %s: %w", stream, err)
	}
	if rep.Actions == 0 {
		return usagef("%s holds no actions: a stream is JSON Lines, one action per line, as docs/evaluation.md (\"Stream format\") shows", stream)
	}
	if a.json {
		return a.printJSON(rep)
	}
	scoring := "limen's default policy, each class at its own costs"
	switch {
	case o.policyFile != "" && o.costs != "":
		scoring = o.policyFile + ", every class at " + o.costs
	case o.policyFile != "":
		scoring = o.policyFile + ", each class at its own costs"
	case o.costs != "":
		scoring = "limen's default policy, every class at " + o.costs
	}
	if o.usersHalf != "" {
		scoring += "; only the users of half " + o.usersHalf
	}
	printReport(a, rep, stream, scoring, time.Since(start))
	return nil
}

// progressBar returns a byte-counting bar on errOut, or nil when errOut is
// not a terminal (scripts and CI get clean output).
func progressBar(errOut io.Writer, f *os.File) *progressbar.ProgressBar {
	ef, ok := errOut.(*os.File)
	if !ok || !term.IsTerminal(int(ef.Fd())) {
		return nil
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(ef),
		progressbar.OptionSetDescription("replaying"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// parseEvalCosts reads allow=20,block=2,ask=1; a field left out keeps the
// default cost.
func parseEvalCosts(s string) (policy.Costs, error) {
	c := policy.DefaultCosts
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return c, usagef("--costs: %q is not name=value; write allow=20,block=2,ask=1", kv)
		}
		k = strings.TrimSpace(k)
		x, err := parseCostValue(k, v)
		if err != nil {
			return c, err
		}
		switch k {
		case "allow":
			c.Allow = x
		case "block":
			c.Block = x
		case "ask":
			c.Ask = x
		}
	}
	if err := c.Validate(); err != nil {
		return c, usagef("--costs: %v", err)
	}
	return c, nil
}

// flatCosts returns a copy of pol in which every class has the costs c.
func flatCosts(pol *policy.Policy, c policy.Costs) *policy.Policy {
	cp := *pol
	cp.Costs = c
	cp.Classes = append([]policy.Class(nil), pol.Classes...)
	for i := range cp.Classes {
		cp.Classes[i].Costs = c
	}
	return &cp
}

func printReport(a *app, rep *eval.Report, name, scoring string, took time.Duration) {
	fmt.Fprintf(a.out, "%s: %d actions, %d users, replayed in %v\n", name, rep.Actions, rep.Users, took.Round(time.Millisecond))
	fmt.Fprintf(a.out, "decided and scored under %s\n\n", scoring)
	w := a.table()
	fmt.Fprintln(w, "strategy\tasks/100\twrong allows/100 denied\twrong blocks/100 approved\tcost/action\tBrier\tdecisions/s\tp50\tp99")
	for _, r := range rep.Results {
		brier := "-"
		if r.Calibration != nil {
			brier = fmt.Sprintf("%.3f", r.Calibration.Brier)
		}
		m := r.Overall
		fmt.Fprintf(w, "%s\t%.2f\t%.2f (%d)\t%.2f (%d)\t%.4f\t%s\t%.0f\t%v\t%v\n", r.Strategy, m.AsksPer100,
			m.WrongAllowRate, m.WrongAllows, m.WrongBlockRate, m.WrongBlocks, m.CostPerAction, brier,
			r.Latency.PerSecond, r.Latency.P50, r.Latency.P99)
	}
	w.Flush()
	for _, r := range rep.Results {
		if strings.HasPrefix(r.Strategy, "floor-") {
			fmt.Fprintln(a.out, "(floor-*: oracles told every answer, asking once per key of limen's and right after it: what asking that way costs at best, not strategies)")
			break
		}
	}
	for _, r := range rep.Results {
		if n := r.Overall.Failsafes; n > 0 {
			fmt.Fprintf(a.out, "(%s: %d asks came from a prediction that failed or missed its deadline, not from the evidence)\n", r.Strategy, n)
		}
	}

	for _, r := range rep.Results {
		if r.Calibration == nil {
			continue
		}
		fmt.Fprintf(a.out, "\ncalibration of %s over %d asked actions (Brier %.4f):\n", r.Strategy, r.Calibration.Scored, r.Calibration.Brier)
		w := a.table()
		fmt.Fprintln(w, "predicted p\tasked\tmean p\tapproved")
		for _, b := range r.Calibration.Bins {
			if b.Asked == 0 {
				continue
			}
			fmt.Fprintf(w, "[%.1f, %.1f)\t%d\t%.3f\t%.3f\n", b.Lo, b.Hi, b.Asked, b.MeanP, b.Observed)
		}
		w.Flush()
	}

	if len(rep.Results) > 0 && rep.Results[0].PerUser != nil {
		fmt.Fprintln(a.out, "\nper user (asks/100, wrong allows/100 denied, cost/action):")
		w := a.table()
		fmt.Fprint(w, "user\tactions")
		for _, r := range rep.Results {
			fmt.Fprintf(w, "\t%s", r.Strategy)
		}
		fmt.Fprintln(w)
		for i, u := range rep.Results[0].PerUser {
			fmt.Fprintf(w, "%s\t%d", u.User, u.Actions)
			for _, r := range rep.Results {
				m := r.PerUser[i]
				fmt.Fprintf(w, "\t%.1f, %.1f, %.3f", m.AsksPer100, m.WrongAllowRate, m.CostPerAction)
			}
			fmt.Fprintln(w)
		}
		w.Flush()
		fmt.Fprintf(a.out, "\nspread over the %d users (min / median / max):\n", len(rep.Results[0].PerUser))
		w = a.table()
		fmt.Fprintln(w, "strategy\tasks/100\twrong allows/100 denied\tcost/action")
		for _, r := range rep.Results {
			sp := r.Spreads
			fmt.Fprintf(w, "%s\t%.1f / %.1f / %.1f\t%.1f / %.1f / %.1f\t%.3f / %.3f / %.3f\n", r.Strategy,
				sp.AsksPer100.Min, sp.AsksPer100.Median, sp.AsksPer100.Max,
				sp.WrongAllowRate.Min, sp.WrongAllowRate.Median, sp.WrongAllowRate.Max,
				sp.CostPerAction.Min, sp.CostPerAction.Median, sp.CostPerAction.Max)
		}
		w.Flush()
	}
}
