package engine_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// TestPlanDecidesAsWithout checks that a reused plan changes nothing: on
// every fixture action, under the default policy and under one whose hard
// rules match many of them, Decide with a plan returns exactly what it
// returns without one, and a plan made for another policy is ignored
// rather than trusted.
func TestPlanDecidesAsWithout(t *testing.T) {
	cases, est := benchSetup(t)
	doc := strings.Replace(policy.DefaultDocument, "allow = []\nask = []\nblock = [",
		`allow = ["Bash(ls:*)", "Bash(npm run:*)", "Read"]`+"\n"+`ask = ["Bash(git push:*)", "Edit"]`+"\n"+`block = ["Bash(curl:*)", "Read(~/.ssh/**)",`, 1)
	withRules, err := policy.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	// A loaded machine must not turn one of two identical fast predictions
	// into a timeout.
	base := policy.Default()
	base.PredictTimeout, withRules.PredictTimeout = time.Minute, time.Minute
	for _, pol := range []*policy.Policy{base, withRules} {
		other := policy.Default()
		other.PredictTimeout = time.Minute
		if pol == other {
			t.Fatal("policy.Default returned a shared value")
		}
		ruled := 0
		for i, c := range cases {
			predict := func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
				return est.PredictEach(c.user, ls, now), nil
			}
			in := engine.Input{Parts: c.parts, Env: c.env, Policy: pol, Draw: 0.5}
			want := engine.Decide(t.Context(), in, predict)
			if want.DecidedBy == engine.ByRule {
				ruled++
			}
			in.Plan = engine.NewPlan(pol, c.parts, c.env)
			if got := engine.Decide(t.Context(), in, predict); !reflect.DeepEqual(got, want) {
				t.Fatalf("action %d: with a plan %+v, without %+v", i, got, want)
			}
			in.Plan = engine.NewPlan(withRules, c.parts[:0], c.env) // wrong parts
			if got := engine.Decide(t.Context(), in, predict); !reflect.DeepEqual(got, want) {
				t.Fatalf("action %d: with a plan for other parts %+v, without %+v", i, got, want)
			}
			in.Plan = engine.NewPlan(other, c.parts, c.env) // another policy's plan
			if pol != other {
				if got := engine.Decide(t.Context(), in, predict); !reflect.DeepEqual(got, want) {
					t.Fatalf("action %d: with another policy's plan %+v, without %+v", i, got, want)
				}
			}
		}
		if pol == withRules && ruled == 0 {
			t.Errorf("no fixture action was decided by a rule of the test policy: the test checks nothing")
		}
	}
}

// TestExplainPrintsAsSprintf pins explain's wording to the fmt verbs it
// replaced, across verdicts and awkward numbers.
func TestExplainPrintsAsSprintf(t *testing.T) {
	for _, v := range []policy.Verdict{policy.Allow, policy.Block, policy.Ask} {
		for _, x := range []float64{0, 0.0005, 0.5, 0.9995, 1, 12.5, 1e9, math.NaN(), math.Inf(1)} {
			r := engine.Result{Verdict: v, Class: "read-only",
				Prediction: predictor.Prediction{P: x, Level: "Bash:git status", Approvals: x, Denials: 2.5},
				Thresholds: policy.Thresholds{AllowAbove: 0.8, BlockBelow: x}}
			seen := fmt.Sprintf("%.0f approved, %.0f denied at %s", x, 2.5, "Bash:git status")
			var want string
			switch v {
			case policy.Allow:
				want = fmt.Sprintf("p=%.3f is above the %s allow threshold %.3f (%s)", x, "read-only", 0.8, seen)
			case policy.Block:
				want = fmt.Sprintf("p=%.3f is below the %s block threshold %.3f (%s)", x, "read-only", x, seen)
			default:
				want = fmt.Sprintf("p=%.3f is between the %s thresholds %.3f and %.3f, so a person decides (%s)", x, "read-only", x, 0.8, seen)
			}
			if got := engine.Explain(r); got != want {
				t.Errorf("explain = %q\n          want %q", got, want)
			}
		}
	}
}
