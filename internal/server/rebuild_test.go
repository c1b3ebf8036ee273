package server

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// TestRebuildCountsAsTheFullDecode: rebuilding from answers read in place
// gives the estimator exactly the counts that decoding every record in full
// gave (the way limend rebuilt before), including answers stored under
// older key schemes, whose stored ladders are ignored and derived again,
// and leaving out the answers that name no person (as Answer does live).
func TestRebuildCountsAsTheFullDecode(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "limen.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		t.Fatal(err)
	}
	stale := &storev1.Ladder{Keys: []string{"Bash", "Bash:stale", "Bash:stale key"}}
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	users := []string{"ana", "bo", "cy"}
	for i := range 2 * len(acts) {
		a := acts[i%len(acts)]
		msg := &limenv1.Action{User: users[i%len(users)], Tool: a.Action.GetTool(), InputJson: a.Action.GetInputJson(), Cwd: a.Action.GetCwd()}
		if i%97 == 0 {
			msg.InputJson = "not json" // no ladders can be derived again
		}
		at := t0.Add(time.Duration(i) * time.Minute)
		rec := &storev1.AnswerRecord{Action: storeAction(msg), Choice: storev1.Choice_CHOICE_DENY, AnsweredBy: msg.User, Time: timestamppb.New(at)}
		switch i % 7 {
		case 3: // an admin gateway answered: stored, never taught
			rec.AnsweredBy = "gateway:token"
		case 5: // nobody named: never taught
			rec.AnsweredBy = ""
		}
		if a.Approve != (i%10 == 0) {
			rec.Choice = storev1.Choice_CHOICE_APPROVE
		}
		switch i % 4 {
		case 0: // an older scheme: the stored ladders are stale
			rec.KeyScheme = action.KeyScheme - 1
			rec.Ladders = []*storev1.Ladder{stale}
		case 1: // written before the scheme was recorded
		default:
			rec.KeyScheme = action.KeyScheme
			if act, err := convert.Action(msg, at); err == nil {
				for _, l := range ladders(action.Parts(act)) {
					rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: l})
				}
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
	}

	fast := predictor.NewEstimator(predictor.DefaultConfig())
	if _, err := rebuild(fast, st); err != nil {
		t.Fatal(err)
	}
	full := predictor.NewEstimator(predictor.DefaultConfig())
	if err := st.Answers(func(rec *storev1.AnswerRecord) error {
		if rec.GetAnsweredBy() == "" || rec.GetAnsweredBy() == "gateway:token" {
			return nil
		}
		full.Observe(rec.GetAction().GetUser(), laddersOf(rec), rec.GetChoice() == storev1.Choice_CHOICE_APPROVE, rec.GetTime().AsTime())
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	now := t0.Add(1000 * time.Hour)
	for _, user := range append(users, "dee") {
		for _, a := range acts {
			act, err := convert.Action(a.Action, now)
			if err != nil {
				t.Fatal(err)
			}
			ls := ladders(action.Parts(act))
			got, want := fast.PredictEach(user, ls, now), full.PredictEach(user, ls, now)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, %s part %d: rebuilt %+v, decoded in full %+v", user, a.Action.GetInputJson(), i, got[i], want[i])
				}
			}
		}
		p := fast.Predict(user, []action.Ladder{stale.GetKeys()}, now)
		if p.Level == "Bash:stale" || p.Level == "Bash:stale key" {
			t.Errorf("%s: a stale ladder stored under an old key scheme was counted: %+v", user, p)
		}
	}
	if got := fmt.Sprint(fast.Predict("ana", nil, now)); got != fmt.Sprint(full.Predict("ana", nil, now)) {
		t.Errorf("empty action: %s", got)
	}
}
