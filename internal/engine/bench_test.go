package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// benchCase is one fixture action, already split into parts.
type benchCase struct {
	user  string
	parts []action.Part
	env   policy.Env
}

// benchSetup turns the fixture stream (300 realistic actions of 5 users)
// into parts, and trains an estimator on every answer in it, so that
// predictions walk populated ladders as they do in steady use.
func benchSetup(tb testing.TB) ([]benchCase, *predictor.Estimator) {
	tb.Helper()
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		tb.Fatal(err)
	}
	est := predictor.NewEstimator(predictor.DefaultConfig())
	now := time.Now()
	var cases []benchCase
	for _, a := range acts {
		input := map[string]any{}
		if err := json.Unmarshal([]byte(a.Action.GetInputJson()), &input); err != nil {
			tb.Fatal(err)
		}
		act := action.Action{User: a.Action.GetUser(), Tool: a.Action.GetTool(), Input: input, Cwd: a.Action.GetCwd(), Time: now}
		parts := action.Parts(act)
		ladders := make([]action.Ladder, len(parts))
		for i, p := range parts {
			ladders[i] = p.Keys
		}
		est.Observe(act.User, ladders, a.Approve, now)
		cases = append(cases, benchCase{user: act.User, parts: parts, env: policy.Env{Cwd: act.Cwd, Home: action.HomeDir(act)}})
	}
	return cases, est
}

// BenchmarkDecide is the decision function alone, as limend runs it for
// each Decide: the default policy's hard rules and risk classes over each
// part, the session-grant check, and the estimator's prediction under
// FailClosed. Parsing the action into parts is not included (see
// predictor's BenchmarkParts). fresh matches rules and classes on every
// call; planned reuses a Plan per action, as limend's plan cache does for
// an action it has seen.
func BenchmarkDecide(b *testing.B) {
	cases, est := benchSetup(b)
	pol := policy.Default()
	now := time.Now()
	plans := make([]*engine.Plan, len(cases))
	for i, c := range cases {
		plans[i] = engine.NewPlan(pol, c.parts, c.env)
	}
	for _, mode := range []string{"fresh", "planned"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c := cases[i%len(cases)]
				in := engine.Input{
					Parts: c.parts, Env: c.env, Policy: pol,
					Granted: func(string) bool { return false }, Draw: 0.5,
				}
				if mode == "planned" {
					in.Plan = plans[i%len(cases)]
				}
				i++
				engine.Decide(b.Context(), in, func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
					return est.PredictEach(c.user, ls, now), nil
				})
			}
		})
	}
}

// BenchmarkPolicy splits BenchmarkDecide's policy work: the hard rules
// (RuleFor) and the risk class (ClassOf) of every part.
func BenchmarkPolicy(b *testing.B) {
	cases, _ := benchSetup(b)
	pol := policy.Default()
	b.Run("rules", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c := cases[i%len(cases)]
			i++
			for _, p := range c.parts {
				pol.RuleFor(p, c.env)
			}
		}
	})
	b.Run("classes", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c := cases[i%len(cases)]
			i++
			for _, p := range c.parts {
				pol.ClassOf(p, c.env)
			}
		}
	})
}

// BenchmarkFailClosed is the price of the fail-closed wrapper around a
// prediction that returns at once: a goroutine, a channel and a timer.
func BenchmarkFailClosed(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = predictor.FailClosed(b.Context(), 20*time.Millisecond, func(context.Context) (predictor.Prediction, error) {
			return predictor.Prediction{P: 0.5}, nil
		})
	}
}
