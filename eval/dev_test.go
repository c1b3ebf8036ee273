package eval

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// TestStreamFromEnv replays the stream named by $LIMEN_EVAL_STREAM and logs
// the metrics; it is how the estimator is tuned on a large stream without
// the CLI. Skipped when the variable is unset.
func TestStreamFromEnv(t *testing.T) {
	path := os.Getenv("LIMEN_EVAL_STREAM")
	if path == "" {
		t.Skip("set LIMEN_EVAL_STREAM to a stream to replay it")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pol := policy.Default()
	if os.Getenv("LIMEN_EVAL_FLAT") != "" {
		cp := *pol
		cp.Classes = append([]policy.Class(nil), pol.Classes...)
		for i := range cp.Classes {
			cp.Classes[i].Costs = policy.DefaultCosts
			if c := os.Getenv("LIMEN_EVAL_FLAT_ALLOW"); c != "" {
				cp.Classes[i].Costs.Allow, _ = strconv.ParseFloat(c, 64)
			}
		}
		pol = &cp
	}
	if c := os.Getenv("LIMEN_EVAL_ALLOW_COST"); c != "" {
		x, _ := strconv.ParseFloat(c, 64)
		cp := *pol
		cp.Classes = append([]policy.Class(nil), pol.Classes...)
		for i := range cp.Classes {
			cp.Classes[i].Costs.Allow = max(cp.Classes[i].Costs.Allow, x)
		}
		pol = &cp
	}
	cfg := predictor.DefaultConfig()
	for _, kv := range strings.Split(os.Getenv("LIMEN_EVAL_CONFIG"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("LIMEN_EVAL_CONFIG %s: %v", kv, err)
		}
		switch k {
		case "Strength":
			cfg.Strength = x
		case "ChildStrength":
			cfg.ChildStrength = x
		case "Carry":
			cfg.Carry = x
		case "OrgStrength":
			cfg.OrgStrength = x
		case "PriorMean":
			cfg.PriorMean = x
		case "PriorStrength":
			cfg.PriorStrength = x
		default:
			t.Fatalf("LIMEN_EVAL_CONFIG: unknown setting %q", k)
		}
	}
	strategies := []Strategy{NewLimen(pol, cfg, 1), AlwaysAsk{}, NewRememberExact(), NewRememberPrefix()}
	if os.Getenv("LIMEN_EVAL_ONLY_LIMEN") != "" {
		strategies = strategies[:1]
	}
	rep, err := Replay(f, strategies,
		Options{Costs: CostsUnder(pol)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		m := r.Overall
		t.Logf("%-16s asks/100 %5.2f  wrong-allow %5.2f (%d)  wrong-block %5.2f (%d)  cost %.4f  failsafe %d  p50 %v p99 %v",
			r.Strategy, m.AsksPer100, m.WrongAllowRate, m.WrongAllows, m.WrongBlockRate, m.WrongBlocks, m.CostPerAction, m.Failsafes, r.Latency.P50, r.Latency.P99)
	}
	lim := rep.Result("limen")
	for k, m := range lim.ByRisk {
		t.Logf("limen risk %-14q n %6d asks %5.1f allows %5d (wrong %d) blocks %5d (wrong %d) cost %.3f", k, m.Actions, m.AsksPer100, m.Allows, m.WrongAllows, m.Blocks, m.WrongBlocks, m.CostPerAction)
	}
	if c := lim.Calibration; c != nil {
		t.Logf("brier %.4f over %d", c.Brier, c.Scored)
		for _, b := range c.Bins {
			t.Logf("  [%.1f,%.1f) n=%d meanp=%.3f obs=%.3f", b.Lo, b.Hi, b.Asked, b.MeanP, b.Observed)
		}
	}
}
