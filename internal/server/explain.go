package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// ExplainDecision implements DecisionService: it finds a recorded
// decision and decides its action again as things stood then. The
// evidence is rebuilt, not recorded: a fresh estimator learns the
// answers given before the decision (those forgotten since included,
// since they were evidence then), and the action is decided under the
// policy version the decision was made under, with no exploration. It
// reads every stored answer, so it costs what a start of limend costs
// (docs/policy.md, Explaining a past decision).
func (s *Server) ExplainDecision(ctx context.Context, req *limenv1.ExplainDecisionRequest) (*limenv1.ExplainDecisionResponse, error) {
	c, r, err := s.guard.authorize(ctx, opExplain)
	if err != nil {
		return nil, err
	}
	id, err := store.ParseID(req.GetDecisionId())
	if err != nil {
		return nil, invalid("decision_id: " + err.Error() + ": use an id from the ID column of limenctl history")
	}
	if err := s.store.Flush(ctx); err != nil {
		return nil, toStatus(err)
	}
	d, err := s.store.Decision(id)
	if err != nil {
		return nil, toStatus(fmt.Errorf("decision %d: %w", id, err))
	}
	user := d.GetAction().GetUser()
	if !c.mayTouch(r, user) {
		return nil, notYours(opExplain, c, "decision "+req.GetDecisionId(), user)
	}
	if err := s.markForgotten([]*limenv1.Decision{d}); err != nil {
		return nil, toStatus(err)
	}
	resp := &limenv1.ExplainDecisionResponse{Recorded: d}
	at := d.GetTime().AsTime()
	pmsg, err := s.store.PolicyVersion(d.GetPolicyVersion())
	if err != nil {
		return nil, toStatus(fmt.Errorf("policy version %d of decision %d: %w", d.GetPolicyVersion(), id, err))
	}
	resp.Policy = pmsg
	pol, perr := policy.Parse(pmsg.GetDocument()) // nil: explained as a policy that does not parse
	if perr != nil {
		pol = nil
	}
	cfg := predictor.DefaultConfig()
	if est, ok := s.model.(*predictor.Estimator); ok {
		cfg = est.Config()
	}
	if pol != nil {
		cfg.HalfLife = pol.HalfLife
	}
	est := predictor.NewEstimator(cfg)
	n, forgottenSince, err := learnBefore(est, s.store.Backend, at)
	if err != nil {
		return nil, toStatus(err)
	}
	resp.AnswersBefore = int64(n)

	act, err := convert.Action(d.GetAction(), at)
	if err != nil {
		return nil, toStatus(fmt.Errorf("decode the action of decision %d: %w", id, err))
	}
	act.Self = s.plans.self
	parts := action.Parts(act)
	res := engine.Decide(ctx, engine.Input{Parts: parts, Env: convert.Env(act), Policy: pol, Draw: 1},
		func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
			return est.PredictEach(user, ls, at), nil
		})
	replayed := s.decision(d.GetAction(), res, &policyState{pol: pol, msg: pmsg}, at, id)
	replayed.Latency = nil
	replayed.AskId = ""
	resp.Replayed = replayed

	var notes []string
	if forgottenSince > 0 {
		notes = append(notes, fmt.Sprintf("%d of the answers before it were forgotten since; they are counted here, as they were then", forgottenSince))
	}
	switch {
	case d.GetDecidedBy() == limenv1.Decider_DECIDER_HUMAN:
		notes = append(notes, "it was allowed by a person's approval for the session, which the replay does not have")
	case d.GetDecidedBy() == limenv1.Decider_DECIDER_FAILSAFE:
		notes = append(notes, "it failed closed at the time ("+d.GetReason()+"); the replay shows what the evidence said")
	case strings.Contains(d.GetReason(), "asks a small share of allows to keep learning"):
		notes = append(notes, "it was an exploration ask, drawn at random; the replay draws none")
	case replayed.GetVerdict() != d.GetVerdict():
		notes = append(notes, "the replay's verdict differs from the one recorded: answers given at the same moment, or from other limends not yet seen then, may count differently")
	}
	resp.Note = strings.Join(notes, "; ")
	return resp, nil
}

// learnBefore teaches est every answer given strictly before at that a
// person gave (as rebuild does), forgotten since or not, and returns how
// many it learned and how many of those were forgotten since.
func learnBefore(est *predictor.Estimator, st store.Backend, at time.Time) (n, forgottenSince int, err error) {
	forgotten := make(map[uint64]bool)
	if err := st.Forgotten(func(m *storev1.ForgetMark) error {
		forgotten[m.GetSeq()] = true
		return nil
	}); err != nil {
		return 0, 0, err
	}
	err = st.Answers(func(rec *storev1.AnswerRecord) error {
		if !rec.GetTime().AsTime().Before(at) || !attributed(rec.GetAnsweredBy()) {
			return nil
		}
		est.Observe(rec.GetAction().GetUser(), laddersOf(rec), rec.GetChoice() == storev1.Choice_CHOICE_APPROVE, rec.GetTime().AsTime())
		n++
		if forgotten[rec.GetSeq()] {
			forgottenSince++
		}
		return nil
	})
	return n, forgottenSince, err
}
