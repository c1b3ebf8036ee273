package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// ownerCtx is a call from limend's owner, in a process no agent runtime
// started (the test's own).
func ownerCtx(t *testing.T) context.Context {
	t.Helper()
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	return peercred.NewContext(t.Context(), peercred.AuthInfo{UID: uint32(os.Getuid()), User: "owner", PID: int32(os.Getpid()), Start: self.Start})
}

// TestForgetRebuildsExactly: after forgetting answers by key, by ask id,
// by action and by time, the predictor predicts exactly what a fresh
// estimator fed the remaining answers one by one predicts; a dry run
// changes nothing; and History shows the forgotten answers as forgotten.
func TestForgetRebuildsExactly(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "limen.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	users := []string{"ana", "bo"}
	var askIDs []string
	for i := range 2 * len(acts) {
		a := acts[i%len(acts)]
		msg := &limenv1.Action{User: users[i%len(users)], Tool: a.Action.GetTool(), InputJson: a.Action.GetInputJson(), Cwd: a.Action.GetCwd()}
		at := t0.Add(time.Duration(i) * time.Minute)
		rec := &storev1.AnswerRecord{Action: storeAction(msg), Choice: storev1.Choice_CHOICE_DENY, AnsweredBy: msg.User, Time: timestamppb.New(at), KeyScheme: action.KeyScheme}
		if a.Approve != (i%10 == 0) {
			rec.Choice = storev1.Choice_CHOICE_APPROVE
		}
		if act, err := convert.Action(msg, at); err == nil {
			for _, l := range ladders(action.Parts(act)) {
				rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: l})
			}
		}
		id, err := st.NextID()
		if err != nil {
			t.Fatal(err)
		}
		d := &limenv1.Decision{DecisionId: store.FormatID(id), AskId: store.FormatID(id), Action: msg, Verdict: limenv1.Verdict_VERDICT_ASK}
		if err := (apiStore{st}).AddPending(d, &limenv1.PendingAsk{AskId: d.AskId}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Answer(id, rec); err != nil {
			t.Fatal(err)
		}
		askIDs = append(askIDs, d.AskId)
	}
	now := t0.Add(1000 * time.Hour)
	s, err := New(Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ownerCtx(t)

	predictions := func(m Model) []predictor.Prediction {
		var out []predictor.Prediction
		for _, user := range append(users, "cy") {
			for _, a := range acts {
				act, err := convert.Action(a.Action, now)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, m.PredictEach(user, ladders(action.Parts(act)), now)...)
			}
		}
		return out
	}
	same := func(what string, got, want []predictor.Prediction) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: prediction %d is %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	var exampleKey string
	for _, k := range ladders(action.Parts(convert.Preview(acts[0].Action))) {
		exampleKey = k[min(1, len(k)-1)]
	}
	before := predictions(s.model)

	requests := []*limenv1.ForgetRequest{
		{User: "ana", Key: exampleKey},
		{User: "ana", AskIds: askIDs[2:7]},
		{User: "bo", Action: acts[1].Action},
		{User: "bo", Since: timestamppb.New(t0.Add(30 * time.Minute)), Until: timestamppb.New(t0.Add(90 * time.Minute))},
		{User: "ana", Last: true},
	}
	total := 0
	for i, req := range requests {
		req.DryRun = true
		was := predictions(s.model)
		dry, err := s.Forget(ctx, req)
		if err != nil {
			t.Fatalf("request %d, dry run: %v", i, err)
		}
		same("after a dry run", predictions(s.model), was)
		req.DryRun = false
		done, err := s.Forget(ctx, req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if len(done.GetAnswers()) == 0 || len(done.GetAnswers()) != len(dry.GetAnswers()) {
			t.Fatalf("request %d forgot %d answers, its dry run listed %d; want the same, and some", i, len(done.GetAnswers()), len(dry.GetAnswers()))
		}
		total += len(done.GetAnswers())
		if again, err := s.Forget(ctx, req); err != nil || len(again.GetAnswers()) != 0 && !req.GetLast() {
			t.Fatalf("request %d again = %d answers, %v; want none: they are forgotten", i, len(again.GetAnswers()), err)
		}
		if req.GetLast() {
			total++ // the second call took the answer before the last
		}
	}

	fresh := predictor.NewEstimator(predictor.DefaultConfig())
	forgotten := map[uint64]bool{}
	if err := st.Forgotten(func(m *storev1.ForgetMark) error { forgotten[m.GetSeq()] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(forgotten) != total {
		t.Fatalf("%d answers marked forgotten; the calls forgot %d", len(forgotten), total)
	}
	if err := st.Answers(func(rec *storev1.AnswerRecord) error {
		if !forgotten[rec.GetSeq()] {
			fresh.Observe(rec.GetAction().GetUser(), laddersOf(rec), rec.GetChoice() == storev1.Choice_CHOICE_APPROVE, rec.GetTime().AsTime())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	after := predictions(s.model)
	same("after forgetting", after, predictions(fresh))
	changed := false
	for i := range before {
		changed = changed || before[i] != after[i]
	}
	if !changed {
		t.Fatal("forgetting changed no prediction: the test proves nothing")
	}

	h, err := s.History(ctx, &limenv1.HistoryRequest{Limit: 1000, User: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, d := range h.GetDecisions() {
		if o := d.GetOutcome(); o.GetForgottenAt() != nil {
			marked++
			if o.GetForgottenBy() != "owner" || o.GetChoice() == limenv1.Choice_CHOICE_UNSPECIFIED {
				t.Errorf("decision %s: forgotten by %q, choice %v; want by the owner, the answer kept", d.GetDecisionId(), o.GetForgottenBy(), o.GetChoice())
			}
		}
	}
	if marked == 0 {
		t.Error("History shows none of ana's forgotten answers as forgotten")
	}
	if _, err := s.Forget(ctx, &limenv1.ForgetRequest{User: "ana"}); err == nil {
		t.Error("a Forget that selects nothing in particular (every answer) was accepted")
	}
}
