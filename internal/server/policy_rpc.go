package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// ListPolicyVersions implements DecisionService.
func (s *Server) ListPolicyVersions(ctx context.Context, _ *limenv1.ListPolicyVersionsRequest) (*limenv1.ListPolicyVersionsResponse, error) {
	if _, _, err := s.guard.authorize(ctx, opListVersions); err != nil {
		return nil, err
	}
	versions, err := s.store.PolicyVersions()
	if err != nil {
		return nil, toStatus(err)
	}
	out := &limenv1.ListPolicyVersionsResponse{Policies: make([]*limenv1.Policy, 0, len(versions))}
	for _, v := range versions {
		// A version that no longer parses (stored by an older limen, or
		// the broken one a rollback is meant to escape) is still listed,
		// without classes, so that it can be read and diffed.
		pol, _ := policy.Parse(v.GetDocument())
		out.Policies = append(out.Policies, withClasses(v, pol))
	}
	return out, nil
}

// errReplayedFailure stands in for the prediction of a decision that was
// settled by the failsafe: the replay keeps the failure, so that a policy
// replayed over its own log gives the verdicts it gave.
var errReplayedFailure = errors.New("the prediction failed when this decision was made")

// replayTimeout is the prediction deadline during a replay. Replayed
// predictions are lookups of numbers already computed, so the policy's own
// deadline (milliseconds, meant for the live path) must not turn a slow test
// machine into failsafe asks.
const replayTimeout = time.Minute

// SimulatePolicy implements DecisionService. It replays recorded decisions
// through the same decision function as Decide, under the candidate and
// under the policy in force, and changes nothing.
//
// Each decision is replayed as it was made, with only the policy changed:
//
//   - The part that decided by prediction keeps its recorded p; other parts
//     (and every part of a decision that a rule settled, which has no p) get
//     the model's p as it is now.
//   - A decision a person's session grant allowed is still granted, and one
//     the failsafe settled still fails its prediction; rules come first
//     either way.
//   - No exploration: a would-be allow is counted as an allow.
//
// The estimated wrong allows and blocks take the person's answer as the
// truth where the decision asked and was answered, and otherwise the
// probability that the whole action is approved (the least likely part's
// p). Both expected costs are priced with the candidate's costs, class by
// class, so that the two totals are comparable.
func (s *Server) SimulatePolicy(ctx context.Context, req *limenv1.SimulatePolicyRequest) (*limenv1.SimulatePolicyResponse, error) {
	if _, _, err := s.guard.authorize(ctx, opSimulate); err != nil {
		return nil, err
	}
	if req.GetLimit() < 0 {
		return nil, invalid("limit must be 0 (replay every recorded decision) or a positive number of the newest decisions")
	}
	cand, err := policy.Parse(req.GetDocument())
	if err != nil {
		return nil, invalid("document: " + err.Error())
	}
	ps := s.policy.Load()
	// Decisions are logged in batches; flush so the replay sees them all.
	if err := s.store.Flush(ctx); err != nil {
		return nil, toStatus(err)
	}
	start := s.now()
	sim := simulation{
		current:   tally{sum: &limenv1.SimulationSummary{PolicyVersion: ps.msg.GetVersion()}, pol: replayPolicy(ps.pol)},
		candidate: tally{sum: &limenv1.SimulationSummary{}, pol: replayPolicy(cand)},
		pricing:   cand,
	}
	errLimit := errors.New("limit reached")
	err = s.store.Decisions(func(d *limenv1.Decision) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if req.GetLimit() > 0 && sim.current.sum.GetDecisions() >= int64(req.GetLimit()) {
			return errLimit
		}
		act, err := convert.Action(d.GetAction(), d.GetTime().AsTime())
		if err != nil {
			// Decide refuses actions that do not decode, so this is a
			// record written by something else: leave it out.
			s.log.Warn("simulate: skip a decision that does not decode", "id", d.GetDecisionId(), "err", err)
			return nil
		}
		r, err := s.replayOf(d, act, start)
		if err != nil {
			return err
		}
		sim.add(ctx, r)
		return nil
	})
	if err != nil && !errors.Is(err, errLimit) {
		return nil, toStatus(fmt.Errorf("simulate policy: %w", err))
	}
	s.log.Info("policy simulated", "decisions", sim.current.sum.GetDecisions(), "took", s.now().Sub(start))
	return &limenv1.SimulatePolicyResponse{Current: sim.current.sum, Candidate: sim.candidate.sum}, nil
}

// replayPolicy is pol with a prediction deadline fit for a replay (nil stays
// nil: the policy in force could not be parsed, and every replayed decision
// is then ask, as it is live).
func replayPolicy(pol *policy.Policy) *policy.Policy {
	if pol == nil {
		return nil
	}
	cp := *pol
	cp.PredictTimeout = replayTimeout
	return &cp
}

// replay is one recorded decision made ready to be decided again.
type replay struct {
	parts   []action.Part
	env     policy.Env
	granted bool // a person's session grant allowed it
	failed  bool // the failsafe settled it
	preds   map[string]predictor.Prediction
	// approve is the probability that the person approves the whole action,
	// or 1 or 0 when they answered.
	approve float64
}

// replayOf rebuilds the parts and predictions of a recorded decision.
func (s *Server) replayOf(d *limenv1.Decision, act action.Action, now time.Time) (replay, error) {
	act.Self = s.plans.self
	r := replay{
		parts:   action.Parts(act),
		env:     convert.Env(act),
		granted: d.GetDecidedBy() == limenv1.Decider_DECIDER_HUMAN,
		failed:  d.GetDecidedBy() == limenv1.Decider_DECIDER_FAILSAFE,
		preds:   make(map[string]predictor.Prediction, 1),
	}
	// A part's key is derived again from the stored action; after a change
	// of the key scheme the recorded key may match no part, and the model
	// then speaks for every part.
	preds := s.model.PredictEach(act.User, ladders(r.parts), now)
	if len(preds) != len(r.parts) {
		return replay{}, fmt.Errorf("decision %s: the model gave %d predictions for %d parts", d.GetDecisionId(), len(preds), len(r.parts))
	}
	r.approve = 1
	for i, part := range r.parts {
		pred := preds[i]
		if d.GetDecidedBy() == limenv1.Decider_DECIDER_PREDICTION && part.Keys.Exact() == d.GetKey() {
			ev := d.GetEvidence()
			pred = predictor.Prediction{P: d.GetP(), Key: d.GetKey(), Level: ev.GetLevel(),
				Approvals: ev.GetApprovals(), Denials: ev.GetDenials(), Effective: ev.GetEffectiveCount(), Specific: ev.GetSpecific(),
				OwnDepth: pred.OwnDepth, OwnExact: pred.OwnExact} // not recorded: the model's, as of now
		}
		r.preds[part.Keys.Exact()] = pred
		if pred.P >= 0 && pred.P <= 1 { // a NaN from a broken model must not poison the sums
			r.approve = min(r.approve, pred.P)
		}
	}
	if o := d.GetOutcome(); o.GetState() == limenv1.AskState_ASK_STATE_ANSWERED {
		r.approve = 0
		if o.GetChoice() == limenv1.Choice_CHOICE_APPROVE {
			r.approve = 1
		}
	}
	return r, nil
}

// decide runs the engine on the replay under pol.
func (r replay) decide(ctx context.Context, pol *policy.Policy) engine.Result {
	in := engine.Input{
		Parts:   r.parts,
		Env:     r.env,
		Policy:  pol,
		Granted: func(string) bool { return r.granted },
		Draw:    1, // no exploration
	}
	return engine.Decide(ctx, in, func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
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

// simulation adds up what two policies do over the same replays.
type simulation struct {
	current, candidate tally
	pricing            *policy.Policy // whose costs price both
}

type tally struct {
	sum *limenv1.SimulationSummary
	pol *policy.Policy
}

func (sim *simulation) add(ctx context.Context, r replay) {
	for _, t := range []*tally{&sim.current, &sim.candidate} {
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
func (sim *simulation) costs(r replay, key string) policy.Costs {
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
