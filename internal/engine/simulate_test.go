package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

func TestNewReplay(t *testing.T) {
	env := policy.Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	ps := parts(t, "Bash", "make build && make test")
	model := []predictor.Prediction{{P: 0.6, Key: ps[0].Keys.Exact(), OwnExact: true}, {P: 0.7, Key: ps[1].Keys.Exact()}}
	recorded := &predictor.Prediction{P: 0.99, Key: ps[1].Keys.Exact(), Level: "x", Specific: true}

	r, err := NewReplay(Recorded{Parts: ps, Env: env, Predicted: recorded}, model)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.preds[ps[1].Keys.Exact()]; got.P != 0.99 || got.Level != "x" || !got.Specific {
		t.Errorf("the deciding part's prediction = %+v; want the recorded one", got)
	}
	if got := r.preds[ps[0].Keys.Exact()]; got.P != 0.6 || !got.OwnExact {
		t.Errorf("the other part's prediction = %+v; want the model's", got)
	}
	if r.approve != 0.6 {
		t.Errorf("approve = %v; want the least likely part's p, 0.6", r.approve)
	}

	for _, approved := range []bool{true, false} {
		r, _ := NewReplay(Recorded{Parts: ps, Env: env, Answered: true, Approved: approved}, model)
		if want := map[bool]float64{true: 1, false: 0}[approved]; r.approve != want {
			t.Errorf("answered, approved %v: approve = %v, want %v", approved, r.approve, want)
		}
	}
	nan := []predictor.Prediction{{P: math.NaN()}, {P: 0.8}}
	if r, _ := NewReplay(Recorded{Parts: ps, Env: env}, nan); r.approve != 0.8 {
		t.Errorf("approve with a NaN p = %v; want 0.8 (NaN left out)", r.approve)
	}
	if _, err := NewReplay(Recorded{Parts: ps, Env: env}, model[:1]); err == nil || !strings.Contains(err.Error(), "1 predictions for 2 parts") {
		t.Errorf("too few predictions: %v", err)
	}
}

func TestSimulation(t *testing.T) {
	env := policy.Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	current := policy.Default()
	candidate := withRules(t, "", "", `"Bash(make deploy:*)"`)
	replay := func(cmd string, p float64, rec Recorded) Replay {
		t.Helper()
		rec.Parts, rec.Env = parts(t, "Bash", cmd), env
		preds := make([]predictor.Prediction, len(rec.Parts))
		for i := range preds {
			preds[i] = predictor.Prediction{P: p, Specific: true, OwnExact: true, OwnDepth: 9}
		}
		r, err := NewReplay(rec, preds)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	sim := NewSimulation(current, candidate)
	// Approved by a person: the candidate blocks it, a wrong block.
	sim.Add(t.Context(), replay("make deploy", 0.5, Recorded{Answered: true, Approved: true}))
	// Allowed by a session grant, under both.
	sim.Add(t.Context(), replay("make build", 0.5, Recorded{Granted: true}))
	// The failsafe settled it: still ask.
	sim.Add(t.Context(), replay("make test", 0.999, Recorded{Failed: true}))

	if c := sim.Current; c.Decisions != 3 || c.Allows != 1 || c.Asks != 2 || c.Blocks != 0 || c.EstimatedWrongBlocks != 0 {
		t.Errorf("current = %+v; want 3 decisions: 1 allow (the grant), 2 asks", c)
	}
	if c := sim.Candidate; c.Decisions != 3 || c.Allows != 1 || c.Asks != 1 || c.Blocks != 1 || c.EstimatedWrongBlocks != 1 {
		t.Errorf("candidate = %+v; want 1 allow, 1 ask, 1 block that the person had approved", c)
	}
	if sim.Current.ExpectedCost <= 0 || sim.Candidate.ExpectedCost <= sim.Current.ExpectedCost {
		t.Errorf("expected costs: current %v, candidate %v; want the wrong block to cost the candidate more", sim.Current.ExpectedCost, sim.Candidate.ExpectedCost)
	}

	broken := NewSimulation(nil, candidate)
	broken.Add(t.Context(), replay("make build", 0.999, Recorded{}))
	if c := broken.Current; c.Asks != 1 {
		t.Errorf("under a policy that does not parse: %+v; want ask", c)
	}
}
