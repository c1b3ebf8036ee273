package server

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// answerFilter is what a ForgetRequest selects, checked against each
// stored answer.
type answerFilter struct {
	user         string
	askIDs       map[string]bool // nil: any
	key          string
	exact        []string // sorted exact keys of the action given, nil: any
	since, until *timestamppb.Timestamp
}

func (f *answerFilter) match(rec *storev1.AnswerRecord) bool {
	t := rec.GetTime().AsTime()
	switch {
	case rec.GetAction().GetUser() != f.user:
		return false
	case f.askIDs != nil && !f.askIDs[rec.GetAskId()]:
		return false
	case f.since != nil && t.Before(f.since.AsTime()):
		return false
	case f.until != nil && !t.Before(f.until.AsTime()):
		return false
	}
	ls := laddersOf(rec)
	if f.key != "" && !slices.ContainsFunc(ls, func(l action.Ladder) bool { return slices.Contains(l, f.key) }) {
		return false
	}
	return f.exact == nil || slices.Equal(exactKeys(ls), f.exact)
}

// exactKeys are the sorted exact keys of ladders.
func exactKeys(ls []action.Ladder) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Exact())
	}
	slices.Sort(out)
	return out
}

// filterOf checks req and turns it into a filter for user.
func filterOf(req *limenv1.ForgetRequest, user string, now time.Time) (*answerFilter, error) {
	f := &answerFilter{user: user, key: req.GetKey(), since: req.GetSince(), until: req.GetUntil()}
	for _, id := range req.GetAskIds() {
		if _, err := store.ParseID(id); err != nil {
			return nil, invalid(fmt.Sprintf("ask_ids: %q is not an ask id: ask ids are numbers, as in the ID column of limenctl history", id))
		}
		if f.askIDs == nil {
			f.askIDs = make(map[string]bool)
		}
		f.askIDs[id] = true
	}
	for name, t := range map[string]*timestamppb.Timestamp{"since": f.since, "until": f.until} {
		if t != nil && t.CheckValid() != nil {
			return nil, invalid(name + " is not a valid time: give a timestamp such as 2026-12-01T09:00:00Z")
		}
	}
	if f.since != nil && f.until != nil && !f.since.AsTime().Before(f.until.AsTime()) {
		return nil, invalid("since must be before until: the range is since <= time < until")
	}
	if a := req.GetAction(); a != nil {
		if err := validateAction(a); err != nil {
			return nil, err
		}
		act, err := convert.Action(a, now)
		if err != nil {
			return nil, invalid("action: " + err.Error())
		}
		f.exact = exactKeys(ladders(action.Parts(act)))
	}
	if f.askIDs == nil && f.key == "" && f.exact == nil && f.since == nil && f.until == nil && !req.GetLast() {
		return nil, invalid("say which answers to forget: ask_ids, key, action, since/until or last (a request with none would forget every answer)")
	}
	return f, nil
}

// Forget implements DecisionService: it marks the selected answers
// forgotten in the store, then rebuilds the predictor from the answers
// that remain and swaps the rebuilt counts in, so that what it predicts is
// exactly what a fresh start on those answers would predict. Session
// grants made by a forgotten approval end too.
//
// It is guarded as Answer is: a caller that descends from an agent
// runtime is refused (an agent must not unlearn its denials), and a user
// reaches only their own answers.
func (s *Server) Forget(ctx context.Context, req *limenv1.ForgetRequest) (*limenv1.ForgetResponse, error) {
	c, r, err := s.guard.authorize(ctx, opForget)
	if err != nil {
		return nil, err
	}
	user := req.GetUser()
	if user == "" {
		user = c.name
	}
	if !c.mayTouch(r, user) {
		return nil, notYours(opForget, c, "the answers asked for", user)
	}
	f, err := filterOf(req, user, s.now())
	if err != nil {
		return nil, err
	}
	est, ok := s.model.(*predictor.Estimator)
	if !ok && !req.GetDryRun() {
		return nil, precondition("this limend's predictor cannot be rebuilt, so it cannot forget answers")
	}

	// One forget at a time, and no answer learned while the counts are
	// rebuilt: an answer stored while the rebuild reads would be counted
	// twice, or not at all.
	s.learn.Lock()
	defer s.learn.Unlock()
	forgotten := make(map[uint64]bool)
	if err := s.store.Forgotten(func(m *storev1.ForgetMark) error {
		forgotten[m.GetSeq()] = true
		return nil
	}); err != nil {
		return nil, toStatus(err)
	}
	var picked []*storev1.AnswerRecord
	if err := s.store.Answers(func(rec *storev1.AnswerRecord) error {
		if !forgotten[rec.GetSeq()] && f.match(rec) {
			picked = append(picked, proto.CloneOf(rec))
		}
		return nil
	}); err != nil {
		return nil, toStatus(err)
	}
	if req.GetLast() && len(picked) > 1 {
		picked = picked[len(picked)-1:] // answers are in seq order
	}
	resp := &limenv1.ForgetResponse{DryRun: req.GetDryRun()}
	for _, rec := range picked {
		resp.Answers = append(resp.Answers, &limenv1.ForgottenAnswer{
			AskId: rec.GetAskId(), Time: rec.GetTime(), Action: apiAction(rec.GetAction()), Choice: limenv1.Choice(rec.GetChoice()),
			Scope: limenv1.Scope(rec.GetScope()), AnsweredBy: rec.GetAnsweredBy(), Keys: exactKeys(laddersOf(rec)),
		})
	}
	if req.GetDryRun() || len(picked) == 0 {
		return resp, nil
	}
	now := timestamppb.New(s.now())
	marks := make([]*storev1.ForgetMark, len(picked))
	for i, rec := range picked {
		marks[i] = &storev1.ForgetMark{Seq: rec.GetSeq(), AskId: rec.GetAskId(), Time: now, By: c.name}
	}
	if err := s.store.Forget(marks); err != nil {
		return nil, toStatus(err)
	}
	// Marked on disk: from here the counts must follow, or the predictor
	// would go on learning from answers the person took back.
	if err := s.rebuildLocked(est); err != nil {
		// The marks hold, and the next start rebuilds without them; until
		// then, say so rather than pretend.
		s.log.Error("rebuild after forgetting answers", "err", err)
		return nil, toStatus(fmt.Errorf("the answers are marked forgotten, but the predictor could not be rebuilt (%w): it forgets them when limend restarts", err))
	}
	for _, rec := range picked {
		if rec.GetChoice() == storev1.Choice_CHOICE_APPROVE && rec.GetScope() == storev1.Scope_SCOPE_SESSION {
			if act, err := convert.Action(apiAction(rec.GetAction()), rec.GetTime().AsTime()); err == nil {
				s.grants.RevokeParts(act.User, grantScope(act.Agent, act.Session, act.Cwd), action.Parts(act))
			}
		}
	}
	s.log.Info("answers forgotten", "by", c.name, "user", user, "answers", len(picked))
	return resp, nil
}

// rebuildLocked rebuilds est from the store's answers that are not
// forgotten and swaps the counts in; s.learn is held.
func (s *Server) rebuildLocked(est *predictor.Estimator) error {
	fresh := predictor.NewEstimator(est.Config())
	through, err := rebuild(fresh, s.store.Backend)
	if err != nil {
		return err
	}
	est.Replace(fresh)
	s.rebuiltThrough = max(s.rebuiltThrough, through)
	return nil
}

// forgottenElsewhere rebuilds the predictor when answers were marked
// forgotten in a store other limends share (store.ForgetWatcher), so that
// this one unlearns them too. A session grant among them ends only on
// the limend that forgot it (docs/policy.md).
func (s *Server) forgottenElsewhere() {
	est, ok := s.model.(*predictor.Estimator)
	if !ok {
		return
	}
	s.learn.Lock()
	defer s.learn.Unlock()
	if err := s.rebuildLocked(est); err != nil {
		s.log.Error("rebuild after answers were forgotten on another limend; this one forgets them at its next start", "err", err)
	}
}

// markForgotten sets, on the outcome of each decision whose answer was
// forgotten, when and by whom, so the history shows it.
func (s *Server) markForgotten(ds []*limenv1.Decision) error {
	marks := make(map[string]*storev1.ForgetMark)
	if err := s.store.Forgotten(func(m *storev1.ForgetMark) error {
		marks[m.GetAskId()] = m
		return nil
	}); err != nil {
		return err
	}
	if len(marks) == 0 {
		return nil
	}
	for _, d := range ds {
		if m := marks[d.GetAskId()]; m != nil && d.GetOutcome() != nil && d.GetOutcome().GetState() == limenv1.AskState_ASK_STATE_ANSWERED {
			d.Outcome.ForgottenAt, d.Outcome.ForgottenBy = copyTime(m.GetTime()), m.GetBy()
		}
	}
	return nil
}
