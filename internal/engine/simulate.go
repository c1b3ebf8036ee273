package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// errReplayedFailure stands in for the prediction of a decision that was
// settled by the failsafe: the replay keeps the failure, so that a policy
// replayed over its own log gives the verdicts it gave.
var errReplayedFailure = errors.New("the prediction failed when this decision was made")

// replayTimeout is the prediction deadline during a replay. Replayed
// predictions are lookups of numbers already computed, so the policy's own
// deadline (milliseconds, meant for the live path) must not turn a slow test
// machine into failsafe asks.
const replayTimeout = time.Minute

// Recorded is a logged decision, as a replay needs it.
type Recorded struct {
	Parts   []action.Part
	Env     policy.Env
	Granted bool // a person's session grant allowed it
	Failed  bool // the failsafe settled it
	// Predicted is the recorded prediction of the part that decided (its
	// exact key is Predicted.Key) when the prediction decided; nil
	// otherwise. OwnDepth and OwnExact are not recorded: the model's
	// current ones are used.
	Predicted *predictor.Prediction
	// Answered says a person answered its ask, Approved how.
	Answered, Approved bool
	// ApprovedInSession is Input.ApprovedInSession as it stood when the
	// decision was made (nil: nothing approved in its session before).
	ApprovedInSession func(key string) bool
}

// Replay is one recorded decision made ready to be decided again.
type Replay struct {
	parts   []action.Part
	env     policy.Env
	granted bool
	failed  bool
	preds   map[string]predictor.Prediction
	// inSession is Recorded.ApprovedInSession.
	inSession func(key string) bool
	// approve is the probability that the person approves the whole action,
	// or 1 or 0 when they answered.
	approve float64
}

// NewReplay prepares rec to be decided again, with now the model's
// predictions for its parts as of now, one per part in order. The part
// that decided by prediction keeps its recorded p; other parts (and every
// part of a decision a rule settled, which has no p) get the model's. A
// part's key is derived again from the stored action, so after a change
// of the key scheme the recorded key may match no part, and the model then
// speaks for every part.
func NewReplay(rec Recorded, now []predictor.Prediction) (Replay, error) {
	if len(now) != len(rec.Parts) {
		return Replay{}, fmt.Errorf("the model gave %d predictions for %d parts", len(now), len(rec.Parts))
	}
	r := Replay{parts: rec.Parts, env: rec.Env, granted: rec.Granted, failed: rec.Failed,
		preds: make(map[string]predictor.Prediction, 1), approve: 1, inSession: rec.ApprovedInSession}
	for i, part := range rec.Parts {
		pred := now[i]
		if rec.Predicted != nil && part.Keys.Exact() == rec.Predicted.Key {
			own := pred
			pred = *rec.Predicted
			pred.OwnDepth, pred.OwnExact = own.OwnDepth, own.OwnExact // not recorded: the model's, as of now
		}
		r.preds[part.Keys.Exact()] = pred
		if pred.P >= 0 && pred.P <= 1 { // a NaN from a broken model must not poison the sums
			r.approve = min(r.approve, pred.P)
		}
	}
	if rec.Answered {
		r.approve = 0
		if rec.Approved {
			r.approve = 1
		}
	}
	return r, nil
}

// decide runs the decision function on the replay under pol.
func (r Replay) decide(ctx context.Context, pol *policy.Policy) Result {
	in := Input{
		Parts:             r.parts,
		Env:               r.env,
		Policy:            pol,
		Granted:           func(string) bool { return r.granted },
		ApprovedInSession: r.inSession,
		Draw:              1, // no exploration
	}
	return Decide(ctx, in, func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
		if r.failed {
			return nil, errReplayedFailure
		}
		out := make([]predictor.Prediction, len(ls))
		for i, l := range ls {
			out[i] = r.preds[l.Exact()]
		}
		return out, nil
	})
}

// Summary is what a policy decides over a set of replays.
type Summary struct {
	Decisions, Allows, Asks, Blocks            int64
	EstimatedWrongAllows, EstimatedWrongBlocks float64
	ExpectedCost                               float64
}

// Simulation replays recorded decisions through Decide under a candidate
// policy and under the policy in force, and adds up what each decides.
// Each decision is replayed as it was made, with only the policy changed:
//
//   - the part that decided by prediction keeps its recorded p (NewReplay);
//   - a decision a person's session grant allowed is still granted, and one
//     the failsafe settled still fails its prediction; rules come first
//     either way;
//   - no exploration: a would-be allow is counted as an allow.
//
// The estimated wrong allows and blocks take the person's answer as the
// truth where the decision asked and was answered, and otherwise the
// probability that the whole action is approved (the least likely part's
// p). Both expected costs are priced with the candidate's costs, class by
// class, so that the two totals are comparable.
type Simulation struct {
	Current, Candidate Summary
	current, candidate *policy.Policy
	pricing            *policy.Policy // whose costs price both
}

// NewSimulation compares candidate with current, the policy in force (nil
// when it could not be parsed: every replayed decision is then ask, as it
// is live).
func NewSimulation(current, candidate *policy.Policy) *Simulation {
	return &Simulation{current: replayPolicy(current), candidate: replayPolicy(candidate), pricing: candidate}
}

// replayPolicy is pol with a prediction deadline fit for a replay (nil stays
// nil).
func replayPolicy(pol *policy.Policy) *policy.Policy {
	if pol == nil {
		return nil
	}
	cp := *pol
	cp.PredictTimeout = replayTimeout
	return &cp
}

// Add decides r under both policies and counts the verdicts.
func (sim *Simulation) Add(ctx context.Context, r Replay) {
	for _, t := range []struct {
		sum *Summary
		pol *policy.Policy
	}{{&sim.Current, sim.current}, {&sim.Candidate, sim.candidate}} {
		res := r.decide(ctx, t.pol)
		allow, ask, block := sim.costs(r, res.Key).Expected(r.approve)
		s := t.sum
		s.Decisions++
		switch res.Verdict {
		case policy.Allow:
			s.Allows++
			s.EstimatedWrongAllows += 1 - r.approve
			s.ExpectedCost += allow
		case policy.Block:
			s.Blocks++
			s.EstimatedWrongBlocks += r.approve
			s.ExpectedCost += block
		default:
			s.Asks++
			s.ExpectedCost += ask
		}
	}
}

// costs are the pricing policy's costs for the part whose key decided (the
// first part when none has that key, as with a policy that asks for
// everything).
func (sim *Simulation) costs(r Replay, key string) policy.Costs {
	if len(r.parts) == 0 {
		return sim.pricing.Class(policy.UnknownClass).Costs
	}
	part := r.parts[0]
	for _, p := range r.parts {
		if p.Keys.Exact() == key {
			part = p
			break
		}
	}
	return sim.pricing.ClassOf(part, r.env).Costs
}
