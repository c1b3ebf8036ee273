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
	"github.com/limenhq/limen/store/storev1"
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

// SimulatePolicy implements DecisionService. It replays recorded decisions
// through the same decision function as Decide, under the candidate and
// under the policy in force, and changes nothing; engine.Simulation says
// how a decision is replayed and what is counted.
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
	sim := engine.NewSimulation(ps.pol, cand)
	errLimit := errors.New("limit reached")
	// When each session's person first approved each exact key, so that
	// a decision replays with what its session had approved before it
	// (engine.Input.ApprovedInSession); decisions come newest first.
	approvedIn := make(map[[3]string]time.Time)
	if err := s.store.Answers(func(rec *storev1.AnswerRecord) error {
		if rec.GetChoice() != storev1.Choice_CHOICE_APPROVE {
			return nil
		}
		act, err := convert.Action(apiAction(rec.GetAction()), rec.GetTime().AsTime())
		if err != nil {
			return nil
		}
		at := rec.GetTime().AsTime()
		for _, p := range action.Parts(act) {
			k := [3]string{act.User, act.Session, p.Keys.Exact()}
			if t, ok := approvedIn[k]; !ok || at.Before(t) {
				approvedIn[k] = at
			}
		}
		return nil
	}); err != nil {
		return nil, toStatus(err)
	}
	err = s.store.Decisions(func(d *limenv1.Decision) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if req.GetLimit() > 0 && sim.Current.Decisions >= int64(req.GetLimit()) {
			return errLimit
		}
		act, err := convert.Action(d.GetAction(), d.GetTime().AsTime())
		if err != nil {
			// Decide refuses actions that do not decode, so this is a
			// record written by something else: leave it out.
			s.log.Warn("simulate: skip a decision that does not decode", "id", d.GetDecisionId(), "err", err)
			return nil
		}
		at := d.GetTime().AsTime()
		r, err := s.replayOf(d, act, start, func(key string) bool {
			t, ok := approvedIn[[3]string{act.User, act.Session, key}]
			return ok && t.Before(at)
		})
		if err != nil {
			return err
		}
		sim.Add(ctx, r)
		return nil
	})
	if err != nil && !errors.Is(err, errLimit) {
		return nil, toStatus(fmt.Errorf("simulate policy: %w", err))
	}
	s.log.Info("policy simulated", "decisions", sim.Current.Decisions, "took", s.now().Sub(start))
	return &limenv1.SimulatePolicyResponse{Current: toSummary(sim.Current, ps.msg.GetVersion()), Candidate: toSummary(sim.Candidate, 0)}, nil
}

func toSummary(s engine.Summary, version uint64) *limenv1.SimulationSummary {
	return &limenv1.SimulationSummary{PolicyVersion: version, Decisions: s.Decisions, Allows: s.Allows, Asks: s.Asks, Blocks: s.Blocks,
		EstimatedWrongAllows: s.EstimatedWrongAllows, EstimatedWrongBlocks: s.EstimatedWrongBlocks, ExpectedCost: s.ExpectedCost}
}

// replayOf converts a recorded decision into the engine's terms and
// prepares it to be decided again, with the model's predictions as of now.
func (s *Server) replayOf(d *limenv1.Decision, act action.Action, now time.Time, inSession func(string) bool) (engine.Replay, error) {
	act.Self = s.plans.self
	rec := engine.Recorded{
		Parts:             action.Parts(act),
		Env:               convert.Env(act),
		Granted:           d.GetDecidedBy() == limenv1.Decider_DECIDER_HUMAN,
		Failed:            d.GetDecidedBy() == limenv1.Decider_DECIDER_FAILSAFE,
		ApprovedInSession: inSession,
	}
	if d.GetDecidedBy() == limenv1.Decider_DECIDER_PREDICTION {
		ev := d.GetEvidence()
		rec.Predicted = &predictor.Prediction{P: d.GetP(), Key: d.GetKey(), Level: ev.GetLevel(),
			Approvals: ev.GetApprovals(), Denials: ev.GetDenials(), Effective: ev.GetEffectiveCount(), Specific: ev.GetSpecific()}
	}
	if o := d.GetOutcome(); o.GetState() == limenv1.AskState_ASK_STATE_ANSWERED {
		rec.Answered, rec.Approved = true, o.GetChoice() == limenv1.Choice_CHOICE_APPROVE
	}
	r, err := engine.NewReplay(rec, s.model.PredictEach(act.User, ladders(rec.Parts), now))
	if err != nil {
		return engine.Replay{}, fmt.Errorf("decision %s: %w", d.GetDecisionId(), err)
	}
	return r, nil
}
